"""Trex's learned trick play (the hard level's playouts): its features describe the cards as
the rules place them, its weights decide the draw, it plays only legal cards, it is the hard
level's playout (and only Trex's hard level's), and ``python -m ai.train_playout`` fits
weights that explain the choices it is given."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
from test_policies_trex import E3_HANDS, card, play, trick_deal

from ai import bots, policies
from ai import train_playout as train
from ai.playouts import trex as hook
from ai.playouts.trex_weights import WEIGHTS
from engine import get_game

GAME = get_game("trex")
PER = hook.WEIGHTS_PER_CONTRACT


def args_of(state: Any) -> tuple[int, int, int, int, int]:
    return hook.trick_args(state, GAME.legal_actions(state))


def code(state: Any, c: int) -> str:
    return GAME.action_to_json(state, c)["card"]


def features(state: Any, code_: str) -> tuple[set[str], int]:
    """The names of the flags of the card ``code_`` (to play in ``state``) and its situation."""
    c = GAME.parse_action(state, card(code_))
    flags, situation = hook.card_features(c, *args_of(state))
    return {hook.FEATURE_NAMES[k] for k in range(hook.FLAGS) if flags >> k & 1}, situation


def weights_with(contract_class: str, **named: float) -> list[float]:
    """Zero weights but the ``named`` features' of ``contract_class``."""
    w = [0.0] * len(WEIGHTS)
    base = PER * hook.CONTRACT_CLASSES.index(contract_class)
    for name, value in named.items():
        w[base + hook.FEATURE_NAMES.index(name)] = value
    return w


def test_following_under_the_winner_marks_the_duck_and_the_ranks():
    state = trick_deal("collections")
    play(state, card("9C"))
    play(state, card("2C"))
    # seat 2 holds 3C 4C TC: 4C is the highest card under 9C, TC takes the trick
    assert features(state, "4C") == ({"duck"}, hook.LOSE)
    assert features(state, "3C") == ({"lowest_of_suit"}, hook.LOSE)
    assert features(state, "TC") == ({"wins", "highest_of_suit"}, hook.WIN)


def test_the_last_card_that_takes_the_trick_is_marked_and_so_is_a_penalty_card_that_wins():
    state = trick_deal("queens")
    play(state, card("2S"))
    play(state, card("2C"))  # seat 1 is void in spades
    play(state, card("4S"))
    # seat 3 holds TS JS QS: all win, the queen is a penalty card
    assert features(state, "QS") == (
        {"wins", "last_wins", "penalty_wins", "highest_of_suit"},
        hook.WIN,
    )
    assert features(state, "TS")[0] == {"wins", "last_wins", "lowest_of_suit"}


def test_a_void_seat_sheds_with_the_suit_facts():
    state = trick_deal("king_of_hearts")
    play(state, card("2S"))  # seat 1 holds no spade: 5H 6H 7H KH, diamonds and clubs
    kh, situation = features(state, "KH")
    assert situation == hook.VOID
    assert kh == {"penalty_shed", "highest_of_suit", "suit_holds_penalty"}
    assert "suit_holds_penalty" in features(state, "5H")[0]
    assert "suit_holds_penalty" not in features(state, "8D")[0]


def test_a_lead_marks_a_singleton_and_the_short_suits():
    hands = [list(h) for h in E3_HANDS]
    for mine, theirs in (("5D", "8S"), ("6D", "9S")):  # seat 0 keeps one diamond, 4D
        hands[0][hands[0].index(mine)] = theirs
        hands[2][hands[2].index(theirs)] = mine
    state = trick_deal("collections", hands=hands)
    assert features(state, "4D") == (
        {"lowest_of_suit", "highest_of_suit", "short_suit", "singleton"},
        hook.LEAD,
    )
    assert features(state, "2H") == ({"lowest_of_suit"}, hook.LEAD)  # 2H 3H 4H
    assert features(state, "AS")[0] == {"highest_of_suit"}


def test_a_large_weight_makes_its_card_the_choice_and_zero_weights_draw_uniformly():
    state = trick_deal("collections")
    play(state, card("9C"))
    play(state, card("2C"))
    args = args_of(state)
    legal = GAME.legal_actions(state)
    ducking = hook.LearnedTricks(weights_with("collections", duck=30.0))
    assert code(state, ducking.card(*args, random.Random(1).random)) == "4C"
    winning = hook.LearnedTricks(weights_with("collections", wins=30.0))
    assert code(state, winning.card(*args, random.Random(1).random)) == "TC"
    # zero weights: the draw u picks the card at u * n of the ascending legal cards
    uniform = hook.LearnedTricks([0.0] * len(WEIGHTS))
    n = len(legal)
    for i, expected in enumerate(legal):
        assert uniform.card(*args, lambda i=i: (i + 0.5) / n) == expected


def test_the_queens_weights_play_a_queens_trick():
    """The weight class follows the contract: queens' weights decide a queens trick, the
    other classes' do not."""
    state = trick_deal("queens")
    play(state, card("2S"))
    play(state, card("2C"))
    play(state, card("4S"))
    args = args_of(state)
    avoid = hook.LearnedTricks(weights_with("queens", penalty_wins=-30.0, rank_winning=30.0))
    assert code(state, avoid.card(*args, random.Random(2).random)) == "JS"
    elsewhere = hook.LearnedTricks(weights_with("diamonds", penalty_wins=-30.0, rank_winning=30.0))
    draws = {code(state, elsewhere.card(*args, random.Random(s).random)) for s in range(40)}
    assert draws == {"TS", "JS", "QS"}


def test_weights_of_the_wrong_length_are_refused():
    with pytest.raises(ValueError, match="16 a contract class"):
        hook.LearnedTricks([0.0] * 10)
    assert len(WEIGHTS) == PER * len(hook.CONTRACT_CLASSES)


def test_it_is_the_hard_level_playout_of_trex_only():
    trex_hard = policies.playout_policy(GAME, "hard")
    assert isinstance(trex_hard, policies.PlayoutHook)
    assert trex_hard.choose is hook.choose_learned and trex_hard.play_out is hook.play_out_learned
    assert policies.playout_policy(GAME, "normal").choose is hook.choose  # type: ignore[union-attr]
    ronda = get_game("ronda")
    ronda_hard, ronda_normal = (policies.playout_policy(ronda, level) for level in ("hard", "normal"))
    assert ronda_hard.choose is ronda_normal.choose  # type: ignore[union-attr]


def test_the_hard_level_searches_with_it_to_a_legal_card():
    state = trick_deal("king_of_hearts")
    play(state, card("2S"))
    view = GAME.view(state, 1)
    decision = bots.decide(GAME, view, level="hard", budget=bots.Budget(iterations=300), seed=3)
    assert decision.action in GAME.legal_actions(state)
    assert decision.stats["iterations"] == 300


@pytest.mark.parametrize("seed", range(12))
def test_learned_playouts_play_only_legal_cards_to_the_end_of_the_deal(seed):
    state = GAME.new_state(4, None, seed % 4, seed=seed)
    start = GAME.clone(state)
    rng = random.Random(seed)
    for _ in range(400):
        if GAME.is_playout_over(start, state):
            break
        action = hook.choose_learned(state, rng)
        assert action in GAME.legal_actions(state)
        GAME.step(state, action)
    assert GAME.is_playout_over(start, state)


# --- the training command ------------------------------------------------------------------


@pytest.fixture(scope="module")
def easy_choices() -> list[train.TrickChoice]:
    """The trick-phase choices of two easy self-play matches (the states the fit sees)."""
    return train.self_play(4100, 0, "easy", None) + train.self_play(4100, 1, "easy", None)


def trick_of(c: train.TrickChoice) -> tuple[int, int, int, int, int]:
    return c.legal, c.led, c.best, c.in_trick, c.penalty


def test_the_fit_recovers_the_weights_that_made_the_choices(easy_choices):
    """Choices drawn from a known learned trick play, on real states: the fit finds
    weights near the ones that drew them (and not the zero it starts from)."""
    truth = weights_with("pooled", duck=2.0, penalty_shed=1.5, lowest_of_suit=1.0, rank_leading=-2.0)
    pooled = truth[PER * 4 :]
    known = hook.LearnedTricks(pooled * len(hook.CONTRACT_CLASSES))
    rng = random.Random(9)
    drawn = [  # four draws at each recorded state
        train.TrickChoice(
            c.legal, c.led, c.best, c.in_trick, c.penalty, known.card(*trick_of(c), rng.random), 0
        )
        for c in easy_choices
        for _ in range(4)
    ]
    assert len(drawn) > 4000
    fitted = train.fit([(x, chosen) for _, x, chosen in train.design(drawn)])
    for name, value in (
        ("duck", 2.0),
        ("penalty_shed", 1.5),
        ("lowest_of_suit", 1.0),
        ("rank_leading", -2.0),
    ):
        assert math.isclose(fitted[hook.FEATURE_NAMES.index(name)], value, abs_tol=0.4), (name, fitted)


def test_the_command_writes_a_weights_module_that_loads(tmp_path, capsys):
    out = tmp_path / "weights.py"
    assert (
        train.main(
            ["--matches", "2", "--seed", "4100", "--holdout", "1", "--level", "easy", "--out", str(out)]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "held-out log loss" in printed and f"wrote {out}" in printed
    namespace: dict[str, Any] = {}
    exec(compile(out.read_text(), str(out), "exec"), namespace)
    weights = namespace["WEIGHTS"]
    assert len(weights) == len(WEIGHTS) and any(w != 0.0 for w in weights)
    assert "python -m ai.train_playout --matches 2 --seed 4100" in out.read_text()
    hook.LearnedTricks(list(weights))  # the trick play takes them


def test_the_command_keeps_its_choices_and_refits_from_them(tmp_path, capsys):
    kept = tmp_path / "choices.jsonl"
    argv = ["--matches", "2", "--seed", "4100", "--holdout", "1", "--level", "easy", "--choices", str(kept)]
    assert train.main([*argv, "--dry-run"]) == 0
    first = capsys.readouterr().out
    assert "self-play: 2 matches" in first and kept.exists()
    assert train.main([*argv, "--dry-run"]) == 0
    again = capsys.readouterr().out
    assert "choices read from" in again
    # the same choices give the same fit, to the printed digit
    assert first.splitlines()[-4:] == again.splitlines()[-4:]
    assert (
        train.main(
            [
                "--matches",
                "2",
                "--seed",
                "4101",
                "--holdout",
                "1",
                "--level",
                "easy",
                "--choices",
                str(kept),
                "--dry-run",
            ]
        )
        == 0
    )
    assert "holds another self-play" in capsys.readouterr().out
