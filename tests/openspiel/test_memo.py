"""What a MajlisState keeps of its world (engine/openspiel.py, ``_Memo``): every kept answer
is the engine's answer for the state's world as it is now, after its own moves and its
copies' moves, and OpenSpiel's ISMCTS decides alike with the memo and without it."""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from typing import Any

import pytest

import engine.openspiel
from ai import openspiel_bot
from ai.bots import Budget
from engine import GAME_IDS, get_game
from engine.openspiel import MajlisState, view_string

from .test_games import load, random_states, tables


def engine_answers(state: MajlisState, start: Any) -> tuple[bool, int | None, list[str]]:
    """Worked out from the engine directly: episode over, seat to act, each seat's string."""
    game = state.table.game
    over = game.is_playout_over(start, state.world)
    seat = None if over else game.to_act(state.world)
    return over, seat, [view_string(game, state.world, p) for p in range(state.table.players)]


def adapter_answers(state: MajlisState) -> tuple[bool, int | None, list[str]]:
    over = state.is_terminal()
    seat = None if over else state.current_player()
    return over, seat, [state.information_state_string(p) for p in range(state.table.players)]


def episodes(game_id: str, players: int, seed: int) -> Iterator[tuple[MajlisState, Any]]:
    """The states of one random episode after the deal, with the episode's first world."""
    game = load(game_id, players)
    start = None
    for state in random_states(game, seed=seed, limit=120):
        if state.is_chance_node():
            continue
        if start is None:
            start = state.table.game.clone(state.world)
        yield state, start


@pytest.mark.parametrize("game_id, players", list(tables()))
def test_kept_answers_are_the_engines_for_the_world_as_it_is(game_id: str, players: int) -> None:
    rng = random.Random(players)
    checked = 0
    for state, start in episodes(game_id, players, seed=players + 3):
        expected = engine_answers(state, start)
        assert adapter_answers(state) == expected
        assert adapter_answers(state) == expected  # asked again: from the memo
        if state.is_terminal():
            continue
        # a copy shares the memo until one of the two moves: moving the copy changes
        # neither the original's world nor its answers, and the copy answers for its own
        twin = state.clone()
        assert adapter_answers(twin) == expected
        twin.apply_action(rng.choice(twin.legal_actions()))
        assert adapter_answers(twin) == engine_answers(twin, start)
        assert adapter_answers(state) == expected
        # OpenSpiel copies a Python state's attributes with copy.deepcopy, as here
        assert adapter_answers(copy.deepcopy(state)) == expected
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("game_id, players", list(tables()))
def test_a_kept_sampler_deals_what_a_fresh_one_deals(game_id: str, players: int) -> None:
    for state, _ in episodes(game_id, players, seed=players + 30):
        if state.is_terminal():
            continue
        game = state.table.game
        for player in range(players):
            for k in range(3):
                kept = state.resample(player, random.Random(k))
                fresh = game.sampler(game.view(state.world, player))(random.Random(k))
                assert game.to_json(kept.world) == game.to_json(fresh)
                # the search moves the worlds it was dealt: the next deal is not touched
                if not kept.is_terminal():
                    kept.apply_action(kept.legal_actions()[0])


def first_choices(game_id: str, count: int) -> Iterator[dict[str, Any]]:
    """The views of ``count`` decisions with several legal actions (every third such) from
    seeded easy-v-easy deals."""
    from ai.bots import decide

    game = get_game(game_id)
    several = 0
    for seed in range(4, 20):
        state = game.new_state(min(game.player_counts), None, 0, seed=seed)
        for step in range(400):
            seat = game.to_act(state)
            if seat is None or not game.legal_actions(state):
                break
            view = game.view(state, seat)
            if len(game.legal_actions(state)) > 1:
                if several % 3 == 0:
                    yield view
                several += 1
                if several == 3 * count:
                    return
            game.step(state, decide(game, view, level="easy", seed=step).action)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_openspiels_ismcts_decides_alike_with_and_without_the_memo(game_id: str) -> None:
    game = get_game(game_id)
    decided = 0
    for view in first_choices(game_id, 3):
        for seed in range(2):
            engine.openspiel.keep_memos(False)
            try:
                afresh = openspiel_bot.decide(game, view, budget=Budget(iterations=40), seed=seed)
            finally:
                engine.openspiel.keep_memos(True)
            kept = openspiel_bot.decide(game, view, budget=Budget(iterations=40), seed=seed)
            assert kept.action == afresh.action
            assert kept.stats["iterations"] == afresh.stats["iterations"] == 40
            decided += 1
    assert decided == 6
