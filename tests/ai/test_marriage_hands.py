"""Marriage's opponent hand model (``ai.policies.marriage_hands``) and the engine's
weighted dealing of hidden hands (``make_sampler(view, hand_weights=...)``)."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from ai import policies
from ai.arena import start_match
from ai.playouts.marriage import evolve_hand
from ai.policies import marriage_hands
from ai.policies.marriage_hands import (
    FEATURES,
    GAP,
    NEIGHBOUR,
    RANK,
    SAME,
    WEIGHTS,
    card_features,
    hand_weights,
    relation,
    seat_records,
)
from engine import get_game
from engine.games.marriage.sampling import hidden_cards, make_sampler
from engine.games.marriage.tables import CODE_TO_CARD, NCODES, XX
from engine.protocol import InvalidState

GAME = get_game("marriage")
C = CODE_TO_CARD


def _positions(players: int, matches: int, phase: str = "act") -> Any:
    """(state, seat, view) at every ``phase`` decision of seeded easy-v-easy matches."""
    for match in range(matches):
        state = start_match(GAME, players, None, 7, match).state
        rng = random.Random(match)
        while (seat := GAME.to_act(state)) is not None:
            if GAME.phase(state) == phase:
                yield state, seat, GAME.view(state, seat)
            GAME.step(state, policies.choose(GAME, state, seat, rng))


def test_relations_between_cards() -> None:
    assert relation(C["7H"], C["7H"]) == SAME
    assert relation(C["7H"], C["8H"]) == NEIGHBOUR == relation(C["8H"], C["7H"])
    assert relation(C["KS"], C["AS"]) == NEIGHBOUR  # Q-K-A
    assert relation(C["7H"], C["9H"]) == GAP
    assert relation(C["QS"], C["AS"]) == GAP  # Q-K-A
    assert relation(C["KS"], C["2S"]) == 0  # K-A-2 is never a sequence
    assert relation(C["7H"], C["7C"]) == RANK
    assert relation(C["7H"], C["8C"]) == 0
    assert relation(XX, XX) == 0 and relation(XX, C["7H"]) == 0


def _view(history: list[tuple[int, dict[str, Any]]], first: str, first_taken: bool = False) -> dict[str, Any]:
    discard = [] if first_taken else [{"card": first, "by": None, "by_unseen": False}]
    return {
        "players": 2,
        "seat": 0,
        "discard": discard,
        "history": [{"seat": s, "action": a} for s, a in history],
    }


def test_records_replay_the_discard_pile() -> None:
    """Who threw, let pass and took which card, by replaying this deal's history."""
    view = _view(
        [
            (1, {"type": "pass"}),
            (0, {"type": "pass"}),
            (1, {"type": "draw_stock"}),  # lets the turned-up 4D pass
            (1, {"type": "discard", "card": "KS"}),
            (0, {"type": "take_discard"}),  # takes KS
            (0, {"type": "discard", "card": "KD"}),
            (1, {"type": "draw_stock"}),  # lets KD pass
            (1, {"type": "discard", "card": "AC"}),
            (0, {"type": "draw_stock"}),  # lets AC pass
            (0, {"type": "show", "sets": [["AS", "QS", "KS"]]}),
            (0, {"type": "discard", "card": "2H"}),
            (1, {"type": "take_discard"}),  # takes 2H: AC is the top again
            (1, {"type": "discard", "card": "TD"}),
            (0, {"type": "draw_stock"}),  # seen: a pass says nothing
            (0, {"type": "finish", "sets": [], "discard": "9C"}),
        ],
        "4D",
    )
    zero, one = seat_records(view)
    assert zero.threw == [C["KD"], C["2H"], C["9C"]]
    assert zero.passed == [C["AC"]]
    assert zero.took == [C["KS"]]
    assert one.threw == [C["KS"], C["AC"], C["TD"]]
    assert one.passed == [C["4D"], C["KD"]]
    assert one.took == [C["2H"]]


def test_a_turned_up_card_taken_at_once_is_unknown() -> None:
    history = [(1, {"type": "take_discard"}), (1, {"type": "discard", "card": "KS"})]
    view = _view(history, "4D", first_taken=True)
    assert seat_records(view)[1].took == []
    assert seat_records(view)[1].threw == [C["KS"]]


def test_features_count_each_relation() -> None:
    view = _view([(1, {"type": "draw_stock"}), (1, {"type": "discard", "card": "7H"})], "9S")
    rows = card_features(seat_records(view)[1])
    index = {name: i for i, name in enumerate(FEATURES)}
    assert rows[C["7H"]][index["threw_same"]] == 1 == rows[C["7H"]][index["threw_same_lately"]]
    assert rows[C["8H"]][index["threw_neighbour"]] == 1 == rows[C["8H"]][index["threw_neighbour_lately"]]
    assert rows[C["5H"]][index["threw_gap"]] == 1
    assert rows[C["7S"]][index["threw_rank"]] == 1
    assert rows[C["9S"]][index["passed_same"]] == 1
    assert rows[C["TS"]][index["passed_neighbour"]] == 1
    assert sum(rows[XX]) == 0
    assert sum(rows[C["2C"]]) == 0


def test_weights_are_the_models_odds() -> None:
    view = _view([(1, {"type": "draw_stock"}), (1, {"type": "discard", "card": "7H"})], "9S")
    mine, theirs = hand_weights(view)
    assert mine is None and theirs is not None
    assert theirs[C["2C"]] == 1.0  # nothing said about it
    assert theirs[C["8H"]] == pytest.approx(math.exp(WEIGHTS[1] + WEIGHTS[5]))


@pytest.mark.parametrize("players", [2, 4])
def test_weighted_worlds_fit_the_view(players: int) -> None:
    """Whatever the weights, every world the inference deals shows the seat its own view
    and hides exactly the cards the seat cannot place."""
    checked = 0
    for state, seat, view in _positions(players, 3):
        sample = policies.inferred_sampler(GAME, view, "normal")
        assert sample is not None
        for k in range(3):
            world = sample(random.Random(k))
            assert GAME.view(world, seat) == view
            assert sorted(hidden_cards(world, seat)) == sorted(hidden_cards(state, seat))
            checked += 1
    assert checked > 50


def _opponent_copies(sample: Any, opponent: int, card: int, draws: int) -> float:
    return sum(sample(random.Random(k)).hands[opponent][card] for k in range(draws)) / draws


def test_weights_move_the_hidden_cards() -> None:
    """A card the model favours lands in the opponent's hand more often than in the
    uniform deal, one it disfavours less often, and all-equal weights deal as the plain
    sampler does."""
    state, seat, view = next(p for p in _positions(2, 1) if p[0].turns > 4)
    opponent = 1 - seat
    hidden = hidden_cards(state, seat)
    card = max(set(hidden), key=hidden.count)
    share = sum(state.hands[opponent]) - len(state.taken[opponent])
    for weight, relation_to_uniform in ((50.0, 1), (0.02, -1), (1.0, 0)):
        weights: list[list[float] | None] = [None, None]
        weights[opponent] = [1.0] * NCODES
        weights[opponent][card] = weight
        weighted = _opponent_copies(make_sampler(view, hand_weights=weights), opponent, card, 600)
        uniform = _opponent_copies(make_sampler(view), opponent, card, 600)
        expected = hidden.count(card) * share / len(hidden)
        assert uniform == pytest.approx(expected, abs=0.12)
        if relation_to_uniform == 0:
            assert weighted == pytest.approx(uniform, abs=0.12)
        else:
            assert (weighted - uniform) * relation_to_uniform > 0.3


@pytest.mark.parametrize(
    "weights",
    [[[1.0] * NCODES], [None, [1.0] * 5], [None, [0.0] * NCODES], [None, [math.nan] * NCODES]],
)
def test_bad_weights_are_refused(weights: Any) -> None:
    _, _, view = next(_positions(2, 1))
    with pytest.raises(InvalidState):
        make_sampler(view, hand_weights=weights)


def test_only_the_searching_levels_use_the_model() -> None:
    _, _, view = next(_positions(2, 1))
    assert policies.inferred_sampler(GAME, view, "normal") is not None
    assert policies.inferred_sampler(GAME, view, "hard") is not None
    assert policies.inferred_sampler(GAME, view, "easy") is None


def _shaped(sample: Any, view: dict[str, Any]) -> Any:
    return marriage_hands.worlds(view, sample)


def test_shaped_worlds_keep_the_view_and_the_cards() -> None:
    """Replaying an opponent's turns on its sampled hand swaps hidden cards between the
    hand and the stock only: the view, the hidden cards, the hand sizes, the known taken
    cards, the tiplu and the men stay."""
    checked = 0
    for state, seat, view in _positions(2, 3):
        base = GAME.sampler(view)
        if marriage_hands.worlds(view, base) is base:
            continue  # no opponent turn yet
        plain = base(random.Random(5))
        shaped = _shaped(base, view)(random.Random(5))
        assert GAME.view(shaped, seat) == view
        assert sorted(hidden_cards(shaped, seat)) == sorted(hidden_cards(state, seat))
        for s in range(2):
            assert sum(shaped.hands[s]) == sum(plain.hands[s])
            assert all(shaped.hands[s][c] >= 1 for c in shaped.taken[s])
        assert len(shaped.stock) == len(plain.stock)
        bottom = (1 if plain.tiplu >= 0 else 0) + plain.men_rev
        assert shaped.stock[:bottom] == plain.stock[:bottom]
        checked += 1
    assert checked > 20


def test_a_shaped_hand_is_closer_to_its_sets() -> None:
    """The point of the shaping: a sampled opponent hand that has played its turns lacks
    fewer cards for its show and finish than a fresh deal of the same hidden cards."""
    from bench.marriage_hand_fit import cards_missing

    plain_missing = shaped_missing = 0
    for state, seat, view in _positions(2, 4, phase="draw"):
        if state.turns <= 8:
            continue
        base = GAME.sampler(view)
        plain_missing += cards_missing(base(random.Random(1)), 1 - seat)
        shaped_missing += cards_missing(_shaped(base, view)(random.Random(1)), 1 - seat)
    assert shaped_missing < 0.9 * plain_missing


def test_a_recycled_stock_is_left_alone() -> None:
    state, seat, view = next(p for p in _positions(2, 1) if p[0].turns > 4)
    world = GAME.sampler(view)(random.Random(1))
    world.recycled = (world.stock[-1],)
    before = [h[:] for h in world.hands], world.stock[:]
    evolve_hand(world, 1 - seat, 10, random.Random(2))
    assert ([h[:] for h in world.hands], world.stock[:]) == before


def test_link_scores_renewed_where_a_count_is_read() -> None:
    """``evolve_hand`` renews only the scores that read the changed count (``READ_BY``):
    changing one count leaves every other card's ``link_score`` as it was."""
    from ai.playouts.marriage import READ_BY, link_score

    rng = random.Random(3)
    for _ in range(200):
        hand = [0] * NCODES
        for _ in range(21):
            hand[int(rng.random() * NCODES)] += 1
        seen = rng.random() < 0.5
        weights = (0, 4) if seen else (4, 2)
        wild = 0 if not seen else 1 << int(rng.random() * 52)
        x = int(rng.random() * NCODES)
        before = [link_score(hand, c, wild, *weights) for c in range(NCODES)]
        hand[x] += 1 + int(rng.random() * 2)
        after = [link_score(hand, c, wild, *weights) for c in range(NCODES)]
        changed = {c for c in range(NCODES) if before[c] != after[c]}
        assert changed <= set(READ_BY[x])


def _evolve_by_hand(st: Any, seat: int, turns: int, rng: random.Random) -> None:
    """``evolve_hand`` written plainly: every turn scores the whole hand anew."""
    from ai.playouts.marriage import WILD, least_linked
    from engine.games.marriage.tables import UNSEEN

    hand, stock = st.hands[seat], st.stock
    keep = [0] * NCODES
    for c in st.taken[seat]:
        keep[c] += 1
    low = (1 if st.tiplu >= 0 else 0) + st.men_rev
    seen = st.route[seat] != UNSEEN
    wild = WILD[st.tiplu] if seen and st.tiplu >= 0 else 0
    for _ in range(turns):
        i = low + int(rng.random() * (len(stock) - low))
        drawn = stock[i]
        hand[drawn] += 1
        pool = least_linked([c for c in range(NCODES) if hand[c] > keep[c]], hand, wild, seen)
        thrown = pool[int(rng.random() * len(pool))]
        hand[thrown] -= 1
        stock[i] = thrown


def test_evolve_hand_throws_the_least_linked_card() -> None:
    """The incremental scores of ``evolve_hand`` choose as ``least_linked`` over the whole
    hand does, turn by turn (same draws, same hands and stock after)."""
    checked = 0
    for _, seat, view in _positions(2, 2):
        world = GAME.sampler(view)(random.Random(4))
        twin = GAME.clone(world)
        evolve_hand(world, 1 - seat, 12, random.Random(9))
        _evolve_by_hand(twin, 1 - seat, 12, random.Random(9))
        assert world.hands == twin.hands and world.stock == twin.stock
        checked += 1
    assert checked > 20
