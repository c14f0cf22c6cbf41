"""Marriage's search support: the playout horizon (``Marriage.is_playout_over``), the
fitted leaf evaluation (``engine/games/marriage/hand_eval.py``) that ``outcome`` uses
there, and the bit-mask helpers it is built on."""

from __future__ import annotations

import random

from ai import ismcts
from engine import get_game
from engine.games.marriage import hand_eval as H
from engine.games.marriage import melds as M
from engine.games.marriage import tables as T
from engine.protocol import Game

GAME = get_game("marriage")
HORIZON = H.PLAYOUT_TURNS


def draw_phase(seed: int, players: int = 2) -> object:
    """A seeded deal after the expose phase (every seat passes or exposes)."""
    state = GAME.new_state(players, None, seed % players, seed=seed)
    while GAME.phase(state) == "expose":
        GAME.step(state, GAME.legal_actions(state)[0])
    return state


def counts(hand: str) -> list[int]:
    out = [0] * T.NCODES
    for code in hand.split():
        out[T.CODE_TO_CARD[code]] += 1
    return out


def test_a_search_playout_stops_at_the_horizon() -> None:
    cut = 0
    for seed in range(8):
        start = draw_phase(seed, 2 + seed % 3)
        state = GAME.clone(start)
        GAME.random_playout(start, state, random.Random(seed))
        assert GAME.is_playout_over(start, state)
        if GAME.phase(state) != "deal_over":
            assert state.turns - start.turns == HORIZON
            assert not Game.is_playout_over(GAME, start, state)  # the deal goes on
            cut += 1
    assert cut >= 6  # random play rarely finishes within a few turns


def test_outcome_at_the_horizon_is_the_leaf_value() -> None:
    for seed in range(6):
        start = draw_phase(seed, 2 + seed % 2)
        end = GAME.clone(start)
        GAME.random_playout(start, end, random.Random(seed))
        if GAME.phase(end) == "deal_over":
            continue
        values = GAME.outcome(start, end)
        assert values == H.leaf_value(end)
        assert all(0.0 < v < 1.0 for v in values)
        # pairwise shares: every pair of seats splits one win
        assert abs(sum(values) - len(values) / 2) < 1e-9


def test_outcome_at_the_end_of_the_deal_is_the_match_result() -> None:
    start = draw_phase(2)
    end = GAME.clone(start)
    rng = random.Random(2)
    while not Game.is_playout_over(GAME, start, end):  # the protocol's end: no cut
        actions = GAME.legal_actions(end)
        GAME.step(end, actions[int(rng.random() * len(actions))])
    assert GAME.phase(end) == "deal_over"
    assert sorted(GAME.outcome(start, end)) in ([0.0, 1.0], [0.5, 0.5])


def test_leaf_value_prefers_the_seat_closer_to_finishing() -> None:
    # seat 0 has seen (three pure sets shown, tiplu 5D) and holds a run, a wild pair and
    # little else; seat 1 is unseen with a loose hand: seat 0 is far ahead
    state = GAME.new_state(
        2,
        None,
        1,
        layout={
            "phase": "draw",
            "current": 1,
            "tiplu": "5D",
            "shown": [[["2C", "3C", "4C"], ["7H", "8H", "9H"], ["JS", "QS", "KS"]], []],
            "hands": [
                "9D TD JD 3S 3H 3D 5S 6D 8C 8S KH QD",
                "AS 3C 5H 7D 9S JC KD 2H 4D 6C 8H TS QC AD 2S 4H 6S 8D TC QH KC",
            ],
            "discard": [{"card": "KC", "by": 0, "by_unseen": False}],
            "stock": ["fill", "5D"],
        },
    )
    assert state.phase == T.DRAW
    value = H.leaf_value(state)
    assert value[0] > 0.75 > 0.25 > value[1]


def test_fitted_weights_reward_progress_and_maal() -> None:
    weights = dict(zip(H.FEATURES, H.WEIGHTS, strict=True))
    assert weights["unseen: cards missing for the show"] < 0
    assert weights["unseen: cards missing for the finish"] < 0
    assert weights["seen: lone codes"] < 0
    assert weights["seen: wild cards"] > 0
    assert weights["seen: sets still to finish"] < 0
    assert weights["maal held"] > 0


def features_of(hand: str, route: int = 0, wild: int = 0, to_finish: int = 7) -> dict[str, int]:
    return dict(zip(H.FEATURES, H.seat_features(counts(hand), route, wild, 0, to_finish), strict=True))


def test_seat_features_of_an_unseen_hand() -> None:
    # two pure runs (3S 4S 5S, 9D TD JD), the pure partial QS QS, a triplet 7S 7H 7D, and
    # three loose cards: one pure set and one card short of the show (QS QS + QS)
    features = features_of("3S 4S 5S 9D TD JD QS QS 7S 7H 7D 2C KH")
    assert features["seen"] == 0
    assert features["unseen: cards missing for the show"] == 1
    # 3 sets held, 4 to build for 7 with one partial (QS QS): 1 + 2 + 2 + 2 cards
    assert features["unseen: cards missing for the finish"] == 7
    # a run of four (9D TD JD QD) is one set, not two
    assert features_of("3S 4S 5S 9D TD JD QD 2C KH")["unseen: cards missing for the show"] == 2


def test_seat_features_of_a_seen_hand() -> None:
    wild = M.joker_family(T.CODE_TO_CARD["5D"]).wild  # 5S 5H 5C 4D 6D 5D are wild
    features = features_of("9D TD JD 3S 3H 3D 5S 6D 8C 8S KH QD", route=1, wild=wild, to_finish=4)
    assert features["seen"] == 1
    assert features["seen: wild cards"] == 2
    assert features["seen: codes in a natural set"] == 7  # 9D TD JD QD and 3S 3H 3D
    assert features["seen: sets still to finish"] == 4


def test_pure_set_count_agrees_with_pure_sets_in() -> None:
    rng = random.Random(11)
    for i in range(2000):
        hand = [0] * T.NCODES
        for c in rng.choices(range(T.NCODES if i % 2 else 52), k=rng.randint(3, 22)):
            hand[c] = min(3, hand[c] + 1)
        present = sum(1 << c for c in range(T.NCODES) if hand[c])
        triples = sum(1 << c for c in range(52) if hand[c] >= 3)
        assert M.pure_set_count(present, triples) == len(M.pure_sets_in(hand))


def test_a_search_iteration_plays_at_most_the_horizon() -> None:
    start = draw_phase(4)
    view = GAME.view(start, GAME.to_act(start))
    played: list[int] = []

    class Counting(type(GAME)):  # type: ignore[misc]
        def outcome(self, first: object, end: object) -> list[float]:
            played.append(end.turns - first.turns)  # type: ignore[attr-defined]
            return super().outcome(first, end)

    result = ismcts.search(Counting(), view, random.Random(4), iterations=200)
    assert result.iterations == 200
    assert played and max(played) <= HORIZON


def test_sampled_worlds_deal_the_hidden_cards_uniformly() -> None:
    # the sampler's one shuffle: each hidden card lies in the other hand with probability
    # (hand size) / (hidden cards), and the top of the stock is any hidden card alike
    state = draw_phase(6)
    seat = GAME.to_act(state)
    sample = GAME.sampler(GAME.view(state, seat))
    other = 1 - seat
    hidden = len(GAME.hidden_cards(state, seat))
    worlds = 3000
    rng = random.Random(6)
    in_hand = top = 0
    card = T.CODE_TO_CARD[GAME.hidden_cards(state, seat)[0]]
    copies = GAME.hidden_cards(state, seat).count(T.ALL_CODES[card])
    for _ in range(worlds):
        world = sample(rng)
        in_hand += world.hands[other][card]
        top += world.stock[-1] == card
    expected_hand = worlds * copies * sum(state.hands[other]) / hidden
    expected_top = worlds * copies / hidden
    assert abs(in_hand - expected_hand) < 4 * expected_hand**0.5
    assert abs(top - expected_top) < 4 * expected_top**0.5 + 3
