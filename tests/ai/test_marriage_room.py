"""bench/marriage_decisions.py's judges: the worlds a judge sees (everything, the other hand
but not the stock's order, the seat's view) and the report of where the room is; the same
hand-seeing worlds in bench/clairvoyant_bound.py --sees hands."""

from __future__ import annotations

import argparse
import random
from collections import Counter
from typing import Any

import pytest

from ai.bots import decide
from bench.clairvoyant_bound import HandSeeingGame
from bench.clairvoyant_bound import marriage_restocked as restocked
from bench.marriage_decisions import best_option, decision_positions, judge, room_report, world_maker
from engine import get_game
from engine.games.marriage.tables import UNSEEN, XX


def _positions(matches: int) -> list[tuple[Any, int, str]]:
    """Copies of the kept positions of seeded easy-v-easy deals (tuning series 1)."""
    game = get_game("marriage")
    args = argparse.Namespace(seed=1, matches=matches, share=0.5)
    return [(game.clone(state), seat, kind) for _, state, seat, kind, _ in decision_positions(game, args)]


def _hidden_stock(state: Any, seat: int) -> Counter[int]:
    """The stock's unseen cards, with the tiplu where ``seat`` has not seen it."""
    fixed = (1 if state.tiplu >= 0 else 0) + state.men_rev
    cards = Counter(state.stock[fixed:])
    if state.tiplu >= 0 and state.route[seat] == UNSEEN:
        cards[state.tiplu] += 1
    return cards


@pytest.fixture(scope="module")
def positions() -> list[tuple[Any, int, str]]:
    return _positions(3)


def test_a_restocked_world_keeps_every_hand_and_shuffles_only_the_unseen_stock(
    positions: list[tuple[Any, int, str]],
) -> None:
    assert {kind for _, _, kind in positions} == {"discard", "draw"}
    # both ways of the tiplu: hidden from an unseen seat (drawn again), known to a seen one
    assert {state.route[seat] == UNSEEN for state, seat, _ in positions if state.tiplu >= 0} == {True, False}
    reordered = 0
    for state, seat, _ in positions:
        stock_before = state.stock[:]
        for k in range(4):
            world = restocked(state, seat, random.Random(k))
            assert world.hands == state.hands and world.discard == state.discard
            assert _hidden_stock(world, seat) == _hidden_stock(state, seat)
            assert len(world.stock) == len(state.stock)
            if state.tiplu >= 0:
                assert world.stock[0] == world.tiplu != XX
                if state.route[seat] != UNSEEN:
                    assert world.tiplu == state.tiplu  # a seen seat knows it
            reordered += world.stock != state.stock
        assert state.stock == stock_before  # the true state is untouched
    assert reordered > len(positions)
    state, seat, _ = next(p for p in positions if p[0].tiplu >= 0 and p[0].route[p[1]] == UNSEEN)
    tiplus = {restocked(state, seat, random.Random(k)).tiplu for k in range(8)}
    assert len(tiplus) > 1  # an unseen seat has not seen the tiplu: drawn again


def test_the_judges_value_every_legal_option_and_the_true_one_repeats(
    positions: list[tuple[Any, int, str]],
) -> None:
    game = get_game("marriage")
    state, seat, _ = next(p for p in positions if p[2] == "discard")
    options = len(game.legal_actions(state))
    for sees in ("true", "hands", "view"):
        values = judge(game, state, seat, 3, 11, world_maker(game, state, seat, sees))
        assert len(values) == options
        assert all(0.0 <= reward <= 1.0 for reward, _ in values)
    true = world_maker(game, state, seat, "true")
    assert judge(game, state, seat, 3, 11, true) == judge(game, state, seat, 3, 11)
    assert judge(game, state, seat, 3, 11, true) == judge(game, state, seat, 3, 11, true)


def test_the_view_judge_deals_worlds_from_the_view_alone(positions: list[tuple[Any, int, str]]) -> None:
    game = get_game("marriage")
    state, seat, _ = next(p for p in positions if p[2] == "draw")
    other = 1 - seat
    worlds = [world_maker(game, state, seat, "view")(random.Random(k)) for k in range(6)]
    assert all(w.hands[seat] == state.hands[seat] for w in worlds)
    assert any(w.hands[other] != state.hands[other] for w in worlds)


def test_best_option_prefers_reward_then_points_then_the_easy_choice() -> None:
    assert best_option([(0.5, 1.0), (0.6, -3.0)], 0) == 1
    assert best_option([(0.5, 1.0), (0.5, 2.0)], 0) == 1
    assert best_option([(0.5, 1.0), (0.5, 1.0), (0.5, 1.0)], 2) == 2


def test_the_report_reads_easy_and_each_judges_choice(capsys: pytest.CaptureFixture[str]) -> None:
    def position(kind: str, easy: int, best: int) -> dict[str, Any]:
        values = [(0.4, -1.0), (0.4, -1.0)]
        values[best] = (0.9, 4.0)
        flat = [(0.5, 0.0), (0.5, 0.0)]
        return {"kind": kind, "easy": easy, "eval": values, "true": values, "hands": flat, "view": flat}

    room_report([position("discard", 0, 1), position("discard", 1, 1)])
    out = capsys.readouterr().out
    assert "discard: 2 positions" in out and "draw" not in out
    assert "easy: 0.6500, +1.500 points" in out  # (0.4 + 0.9) / 2 and (-1 + 4) / 2
    assert "best by true: reward +0.2500" in out and "points +2.500" in out and "not easy's 50%" in out
    assert "best by view: reward +0.0000" in out and "not easy's 0%" in out  # ties keep easy's


def test_positions_are_those_easy_plays_through() -> None:
    game = get_game("marriage")
    args = argparse.Namespace(seed=1, matches=1, share=1.0)
    for _, state, seat, kind, seed in decision_positions(game, args):
        action = decide(game, game.view(state, seat), level="easy", seed=seed).action
        assert action in game.legal_actions(state)
        assert kind in ("discard", "draw")


def test_the_clairvoyant_bench_sees_a_marriage_hand_the_same_way(
    positions: list[tuple[Any, int, str]],
) -> None:
    game = get_game("marriage")
    state, seat, _ = positions[0]
    sampler = HandSeeingGame(game, state).sampler(game.view(state, seat))
    for k in range(3):
        world = sampler(random.Random(k))
        assert game.to_json(world) == game.to_json(restocked(state, seat, random.Random(k)))
