"""The five games as OpenSpiel games (engine/openspiel.py): OpenSpiel's own API checks on
every game and table size, serialization, the action ids, and the information states
(same information state, same legal actions; a resampled world keeps the information
state it was sampled from, for every seat: the check that caught OpenSpiel's Gin Rummy
resampler leaking the real state)."""

from __future__ import annotations

import json
import pickle
import random
from collections.abc import Iterator
from typing import Any

import pyspiel
import pytest

import engine.openspiel  # noqa: F401  (registers majlis_<game>)
from engine import GAME_IDS, get_game
from engine.openspiel import MajlisGame, MajlisState

SMALL_MARRIAGE = {"turn_limit": 60}
"""Marriage deals run to hundreds of turns under random play: its tests cap them."""


def tables() -> Iterator[tuple[str, int]]:
    for game_id in GAME_IDS:
        for players in get_game(game_id).player_counts:
            yield game_id, players


def load(game_id: str, players: int, **params: Any) -> Any:
    if game_id == "marriage":
        params = {**SMALL_MARRIAGE, **params}
    return pyspiel.load_game(f"majlis_{game_id}", {"players": players, **params})


def random_states(game: Any, seed: int, limit: int = 400) -> Iterator[Any]:
    """Every state of one random episode from the chance node, terminal included."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    for _ in range(limit):
        yield state
        if state.is_terminal():
            return
        if state.is_chance_node():
            state = state.child(rng.randrange(game.max_chance_outcomes()))
        else:
            state = state.child(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("game_id, players", list(tables()))
def test_openspiel_random_simulation_checks(game_id: str, players: int) -> None:
    game = load(game_id, players)
    sims = 2 if game_id == "marriage" else 5
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


def test_game_options_are_game_parameters() -> None:
    game = pyspiel.load_game("majlis_trex", {"players": 4, "doubling": False})
    assert game.num_players() == 4
    assert game.table.options["doubling"] is False
    assert game.get_parameters()["doubling"] is False
    state = game.new_initial_state()
    state.apply_action(3)
    assert '"doubling":false' in state.information_state_string(0)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_deal_is_the_engine_deal_from_the_drawn_seed(game_id: str) -> None:
    game = load(game_id, min(get_game(game_id).player_counts), dealer=1)
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == game.max_chance_outcomes() == 1000
    state.apply_action(17)
    engine_game = get_game(game_id)
    expected = engine_game.new_state(game.num_players(), game.table.options, 1, seed=17)
    assert engine_game.to_json(state.world) == engine_game.to_json(expected)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_an_episode_is_one_deal_and_returns_the_engine_outcome(game_id: str) -> None:
    game = load(game_id, min(get_game(game_id).player_counts))
    engine_game = get_game(game_id)
    *_, last = random_states(game, seed=3, limit=100_000)
    assert last.is_terminal()
    start = engine_game.new_state(game.num_players(), game.table.options, 0, seed=last.history()[0])
    assert engine_game.is_playout_over(start, last.world)
    assert last.returns() == engine_game.outcome(start, last.world)


@pytest.mark.parametrize("game_id, players", list(tables()))
def test_action_ids_round_trip_and_name_the_engine_actions(game_id: str, players: int) -> None:
    game = load(game_id, players)
    engine_game = get_game(game_id)
    table = game.table
    for state in random_states(game, seed=players):
        if state.is_chance_node() or state.is_terminal():
            continue
        ids = state.legal_actions()
        assert ids == sorted(ids) and all(0 <= a < game.num_distinct_actions() for a in ids)
        engine_actions = [table.to_action(state.world, a) for a in ids]
        assert sorted(map(repr, engine_actions)) == sorted(map(repr, engine_game.legal_actions(state.world)))
        assert [table.to_id(state.world, a) for a in engine_actions] == ids
        names = [state.action_to_string(state.current_player(), a) for a in ids]
        assert len(set(names)) == len(names)


def test_marriage_meld_lists_get_ids_after_the_int_actions() -> None:
    game = load("marriage", 2, turn_limit=1000)
    for seed in range(40):
        for state in random_states(game, seed=seed, limit=3000):
            if state.is_terminal() or state.is_chance_node():
                continue
            ids = state.legal_actions()
            composite = [a for a in ids if a >= game.table.int_actions]
            if composite:
                assert composite == list(
                    range(game.table.int_actions, game.table.int_actions + len(composite))
                )
                named = {state.action_to_string(state.current_player(), a) for a in composite}
                assert all('"sets"' in n or '"pairs"' in n or '"pair"' in n for n in named)
                return
    raise AssertionError("no meld list was legal in 40 random Marriage deals")


@pytest.mark.parametrize("game_id, players", list(tables()))
def test_a_resampled_world_keeps_every_seats_information_state(game_id: str, players: int) -> None:
    game = load(game_id, players)
    rng = random.Random(players)
    differs = False
    for state in random_states(game, seed=players + 10, limit=60):
        if state.is_chance_node() or state.is_terminal():
            continue
        for player in range(players):
            world = state.resample(player, rng)
            assert world.information_state_string(player) == state.information_state_string(player)
            assert world.observation_string(player) == state.observation_string(player)
            if player == state.current_player():
                assert world.legal_actions() == state.legal_actions()
            differs = differs or str(world) != str(state)
    # the resampler deals the hidden cards again: it does not hand back the real state
    assert differs


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_states_with_one_information_state_have_the_same_legal_actions(game_id: str) -> None:
    game = load(game_id, min(get_game(game_id).player_counts))
    seen: dict[str, list[int]] = {}
    repeats = 0
    for seed in range(3):
        for state in random_states(game, seed=seed, limit=60):
            if state.is_chance_node() or state.is_terminal():
                continue
            # the other worlds of the acting seat's information state, drawn by OpenSpiel's
            # own entry point with its uniform sampler
            worlds = [state] + [
                state.resample_from_infostate(
                    state.current_player(), pyspiel.UniformProbabilitySampler(0.0, 1.0)
                )
                for _ in range(3)
            ]
            for world in worlds:
                key = world.information_state_string(world.current_player())
                if key in seen:
                    repeats += 1
                    assert seen[key] == world.legal_actions()
                seen[key] = world.legal_actions()
    assert repeats > 0


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_information_state_is_the_engine_view(game_id: str) -> None:
    game = load(game_id, min(get_game(game_id).player_counts))
    engine_game = get_game(game_id)
    for state in random_states(game, seed=5, limit=40):
        for player in range(game.num_players()):
            text = state.information_state_string(player)
            if state.is_chance_node():
                assert text == ""  # nobody has seen a card yet
                continue
            assert json.loads(text) == engine_game.view(state.world, player)
            assert "rng_state" not in text  # the seed of later deals stays hidden


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_copies_and_pickles_keep_the_state(game_id: str) -> None:
    game = load(game_id, min(get_game(game_id).player_counts))
    states = [s for s in random_states(game, seed=8, limit=30) if not s.is_chance_node()]
    state = states[-1]
    copy = state.clone()
    assert str(copy) == str(state) and copy.history() == state.history()
    if not copy.is_terminal():
        copy.apply_action(copy.legal_actions()[0])
        assert str(copy) != str(state)  # the copy owns its world
    again = pickle.loads(pickle.dumps(state))
    assert str(again) == str(state) and again.legal_actions() == state.legal_actions()
    text = pyspiel.serialize_game_and_state(game, state)
    _, restored = pyspiel.deserialize_game_and_state(text)
    assert str(restored) == str(state) and restored.returns() == state.returns()


def test_an_episode_can_start_from_any_engine_state() -> None:
    engine_game = get_game("ronda")
    match = engine_game.new_state(2, None, 0, seed=9)
    for _ in range(5):
        engine_game.step(match, engine_game.legal_actions(match)[0])
    game: MajlisGame = load("ronda", 2)
    state: MajlisState = game.state_from(match)
    assert not state.is_chance_node() and state.current_player() == engine_game.to_act(match)
    assert state.information_state_string(0) == engine.openspiel.view_string(engine_game, match, 0)
    state.apply_action(state.legal_actions()[0])
    assert engine_game.to_json(match) != engine_game.to_json(state.world)  # a copy was taken


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(Exception, match="players must be 4"):
        pyspiel.load_game("majlis_baloot", {"players": 3})
    with pytest.raises(Exception, match="target_score"):
        pyspiel.load_game("majlis_ronda", {"target_score": "high"})
