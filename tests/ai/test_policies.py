"""Heuristic policies (the easy level) and playout hooks, on fixed deals."""

from __future__ import annotations

import random

import pytest

from ai import policies
from ai.bots import decide
from engine import get_game

ronda = get_game("ronda")

# dealer 0, two players: seat 1 gets deck[0:3], seat 0 deck[3:6], table deck[6:10] (R3)
RONDA_DECK = ["5S", "3C", "QH", "4S", "4H", "4D", "2S", "5H", "7D", "KC"]
OPTIONS = {"shuffle_returned_cards": False}


def ronda_state(top: list[str] = RONDA_DECK):
    pack = [f"{r}{s}" for r in "A234567JQK" for s in "SHDC"]
    deck = top + [c for c in pack if c not in top]
    return ronda.new_state(2, OPTIONS, 0, deck=deck)


def json_of(state, action):
    return ronda.action_to_json(state, action)


def test_ronda_easy_declares_the_true_holding_and_never_challenges() -> None:
    state = ronda_state()
    rng = random.Random(0)
    assert ronda.to_act(state) == 1
    first = policies.choose(ronda, state, 1, rng)
    assert json_of(state, first) == {"type": "pass"}  # 5 3 Q: no combination
    ronda.step(state, first)
    second = policies.choose(ronda, state, 0, rng)
    assert json_of(state, second) == {"type": "declare", "combo": "tringa"}
    ronda.step(state, second)
    assert ronda.phase(state) == "challenge"
    assert any(json_of(state, a)["type"] == "challenge" for a in ronda.legal_actions(state))
    third = policies.choose(ronda, state, ronda.to_act(state), rng)
    assert json_of(state, third) == {"type": "pass"}


def _to_play(state):
    rng = random.Random(0)
    while ronda.phase(state) != "play":
        ronda.step(state, policies.choose(ronda, state, ronda.to_act(state), rng))
    return state


def test_ronda_easy_captures_when_it_can() -> None:
    state = _to_play(ronda_state())
    assert ronda.to_act(state) == 1
    for seed in range(5):
        decision = decide(ronda, ronda.view(state, 1), level="easy", seed=seed)
        assert json_of(state, decision.action) == {"type": "play", "card": "5S"}


def test_ronda_easy_prefers_an_este() -> None:
    """Seat 1 drops 3C; seat 0 (3S 7S 6H) can take the 7D (plain capture) or the 3C just
    dropped (este, R21): the este is worth more."""
    state = _to_play(ronda_state(["5S", "3C", "QH", "3S", "7S", "6H", "2S", "5H", "7D", "KC"]))
    ronda.step(state, ronda.parse_action(state, {"type": "play", "card": "3C"}))
    assert ronda.to_act(state) == 0
    for seed in range(5):
        decision = decide(ronda, ronda.view(state, 0), level="easy", seed=seed)
        assert json_of(state, decision.action) == {"type": "play", "card": "3S"}


def test_ronda_playout_hook_is_honest_and_greedy() -> None:
    hook = policies.playout_policy(ronda)
    assert hook is not None
    state = ronda_state()
    rng = random.Random(1)
    assert json_of(state, hook(ronda, state, rng)) == {"type": "pass"}
    ronda.step(state, hook(ronda, state, rng))
    assert json_of(state, hook(ronda, state, rng)) == {"type": "declare", "combo": "tringa"}
    ronda.step(state, hook(ronda, state, rng))
    assert json_of(state, hook(ronda, state, rng)) == {"type": "pass"}  # no challenge
    ronda.step(state, hook(ronda, state, rng))
    assert ronda.phase(state) == "play"
    assert json_of(state, hook(ronda, state, rng)) == {"type": "play", "card": "5S"}


@pytest.mark.parametrize("game_id", ["ronda"])
def test_easy_beats_random_over_seeded_matches(game_id: str) -> None:
    from ai.arena import play_match

    game = get_game(game_id)
    score = sum(
        play_match(
            game, players=2, options=None, level_a="easy", level_b="random", budget=None, seed=2, index=i
        ).score
        for i in range(10)
    )
    assert score >= 8


def test_porrazo_easy_counts_each_seen_card_once() -> None:
    """A card played this deal lies on the table or on a pile as well: counted twice, the
    kings below looked "more than seen" and the drop of the fourth king outscored a
    capture. All four kings seen makes the drop safe (worth 0), still below a capture."""
    from ai.policies.porrazo import _porrazo_play_value

    view = {
        "table": ["4H", "QD", "6C", "TD"],
        "piles": [["KH", "KS"], ["KD", "3C", "3H"]],
        "played": [["KS"], ["3H"]],
        "hands": [1, ["KC", "4C"]],
        "chain": None,
    }
    assert _porrazo_play_value({"card": "KC"}, view, 1) == 0.0
    assert _porrazo_play_value({"card": "4C"}, view, 1) == 3.0
