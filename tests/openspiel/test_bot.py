"""OpenSpiel's ISMCTS as the arena's outside opponent (ai/openspiel_bot.py, level
``openspiel-ismcts``): budgets, seeding, and a whole arena match."""

from __future__ import annotations

import itertools
from typing import Any

from ai import openspiel_bot
from ai.arena import OPENSPIEL_LEVEL, play_match
from ai.bots import Budget
from engine import get_game


def first_choice(game_id: str, players: int) -> tuple[Any, dict[str, Any]]:
    """The first decision of a seeded match with more than one legal action, and its view."""
    game = get_game(game_id)
    state = game.new_state(players, None, 0, seed=11)
    while len(game.legal_actions(state)) < 2:
        game.step(state, game.legal_actions(state)[0])
    seat = game.to_act(state)
    assert seat is not None
    return state, game.view(state, seat)


def test_an_iteration_budget_is_seeded_and_runs_that_many_simulations() -> None:
    game = get_game("ronda")
    state, view = first_choice("ronda", 2)
    first = openspiel_bot.decide(game, view, budget=Budget(iterations=30), seed=3)
    again = openspiel_bot.decide(game, view, budget=Budget(iterations=30), seed=3)
    assert first.action == again.action and first.action in game.legal_actions(state)
    assert first.stats["iterations"] == 30 and first.stats["level"] == OPENSPIEL_LEVEL


def test_a_time_budget_stops_at_the_first_simulation_past_the_deadline() -> None:
    game = get_game("trex")
    state, view = first_choice("trex", 4)
    ticks = itertools.count()  # one second per reading of the clock: the start reads 0
    decision = openspiel_bot.decide(
        game, view, budget=Budget(ms=2500), seed=1, clock=lambda: float(next(ticks))
    )
    # simulations 1 and 2 run unchecked, 3 and 4 start at 1 s and 2 s, the 5th would start at 3 s
    assert decision.stats["iterations"] == 4
    assert decision.action in game.legal_actions(state)


def test_a_time_budget_already_spent_still_runs_the_simulations_a_choice_needs() -> None:
    # OpenSpiel's first simulation only evaluates the root: stopping after it left a root
    # without visits, and its final policy failed (AssertionError in get_final_policy)
    game = get_game("porrazo")
    state, view = first_choice("porrazo", 2)
    ticks = itertools.count()
    decision = openspiel_bot.decide(game, view, budget=Budget(ms=0), seed=2, clock=lambda: float(next(ticks)))
    assert decision.stats["iterations"] == openspiel_bot.MIN_SIMULATIONS == 2
    assert decision.action in game.legal_actions(state)


def test_the_arena_plays_a_match_against_openspiels_ismcts() -> None:
    kwargs: dict[str, Any] = dict(
        players=2,
        options=None,
        level_a="random",
        level_b=OPENSPIEL_LEVEL,
        budget=Budget(iterations=3),
        seed=5,
    )
    result = play_match(get_game("porrazo"), index=1, **kwargs)
    assert result.score in (0.0, 0.5, 1.0) and result.deals >= 1
    assert result.searches[0] == 0 and result.searches[1] > 0
    assert result.iterations[1] == 3 * result.searches[1]
    assert play_match(get_game("porrazo"), index=1, **kwargs) == result  # seeded
