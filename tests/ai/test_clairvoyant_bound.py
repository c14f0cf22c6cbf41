"""bench/clairvoyant_bound.py: side A's search runs on the true state (the measuring
stick that bounds what a fair search could reach); side B stays fair."""

from __future__ import annotations

import random

from ai import policies
from ai.arena import play_match
from ai.bots import Budget
from bench.clairvoyant_bound import SeeingGame, seeing_decider
from engine import get_game


def test_every_world_of_the_seeing_game_is_the_true_state() -> None:
    game = get_game("ronda")
    state = game.new_state(2, game.parse_options({}, 2), 0, seed=5)
    rng = random.Random(1)
    for _ in range(12):
        game.step(state, policies.choose(game, state, game.to_act(state), rng))
    view = game.view(state, game.to_act(state))
    truth = game.to_json(state)
    seeing = SeeingGame(game, state).sampler(view)
    assert all(game.to_json(seeing(random.Random(k))) == truth for k in range(5))
    fair = game.sampler(view)
    assert any(game.to_json(fair(random.Random(k))) != truth for k in range(5))
    assert SeeingGame(game, state).id == "ronda"  # everything else is the game's own


def test_a_seeing_side_plays_whole_matches_in_the_arena() -> None:
    game = get_game("porrazo")
    result = play_match(
        game,
        players=2,
        options=None,
        level_a="normal",
        level_b="normal",
        budget=Budget(iterations=100),
        seed=3,
        index=0,
        decide_a=seeing_decider,
    )
    assert result.deals >= 1 and result.searches[0] > 0 and result.searches[1] > 0
