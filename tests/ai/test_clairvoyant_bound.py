"""bench/clairvoyant_bound.py: side A's search runs on the true state (the measuring
stick that bounds what a fair search could reach); side B stays fair."""

from __future__ import annotations

import random
from typing import Any

import pytest

from ai import policies
from ai.arena import play_match
from ai.bots import Budget
from bench.clairvoyant_bound import HandSeeingGame, SeeingGame, hand_seeing_decider, main, seeing_decider
from engine import get_game


def _played(game_id: str, seed: int, steps: int) -> tuple[Any, Any]:
    """The game and a 2-player state after ``steps`` easy moves from a seeded deal."""
    game = get_game(game_id)
    state = game.new_state(2, game.parse_options({}, 2), 0, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        game.step(state, policies.choose(game, state, game.to_act(state), rng))
    return game, state


def test_every_world_of_the_seeing_game_is_the_true_state() -> None:
    game, state = _played("ronda", 5, 12)
    view = game.view(state, game.to_act(state))
    truth = game.to_json(state)
    seeing = SeeingGame(game, state).sampler(view)
    assert all(game.to_json(seeing(random.Random(k))) == truth for k in range(5))
    fair = game.sampler(view)
    assert any(game.to_json(fair(random.Random(k))) != truth for k in range(5))
    assert SeeingGame(game, state).id == "ronda"  # everything else is the game's own


@pytest.mark.parametrize(
    ("game_id", "decider"), [("porrazo", seeing_decider), ("ronda", hand_seeing_decider)]
)
@pytest.mark.slow
def test_a_seeing_side_plays_whole_matches_in_the_arena(game_id: str, decider: Any) -> None:
    result = play_match(
        get_game(game_id),
        players=2,
        options=None,
        level_a="normal",
        level_b="normal",
        budget=Budget(iterations=80),
        seed=3,
        index=0,
        decide_a=decider,
    )
    assert result.deals >= 1 and result.searches[0] > 0 and result.searches[1] > 0


def test_a_hand_seeing_world_has_the_true_hands_and_a_shuffled_stock() -> None:
    game, state = _played("porrazo", 8, 6)
    view = game.view(state, game.to_act(state))
    stock = state.stock
    sampler = HandSeeingGame(game, state).sampler(view)
    worlds = [sampler(random.Random(k)) for k in range(6)]
    for world in worlds:
        assert world.hands == state.hands and world.dealt == state.dealt and world.table == state.table
        assert sorted(world.stock) == sorted(state.stock)
    assert len({world.stock for world in worlds}) > 1  # the order is not seen
    assert state.stock == stock  # the true state is left alone


def test_hand_seeing_refuses_a_stock_it_cannot_shuffle() -> None:
    marriage = get_game("marriage")
    state = marriage.new_state(2, marriage.parse_options({}, 2), 0, seed=1)
    HandSeeingGame(marriage, state)  # Marriage's own: its stock shuffled below the tiplu

    class Other:
        id = "other"

        def clone(self, state: Any) -> Any:
            return state

    with pytest.raises(ValueError, match="plain tuple"):
        HandSeeingGame(Other(), state)  # type: ignore[arg-type]


def test_the_command_line_refuses_an_unknown_sight(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--sees", "stock", "--game", "ronda"]) == 2
    assert "--sees" in capsys.readouterr().err
