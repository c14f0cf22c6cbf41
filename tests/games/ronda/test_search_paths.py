"""The search's fast paths of Ronda give what the protocol's reference paths give: the
fused playout plays the generic loop's actions (``Game.random_playout``), and the
sampler's worlds fit the view they are sampled from."""

from __future__ import annotations

import random

import pytest

from engine.games.ronda import playout, rules
from engine.games.ronda.tables import DEAL_OVER_P
from engine.protocol import Game
from tests.games.ronda.ronda_helpers import GAME

OPTION_SETS = [
    (2, {}),
    (2, {"deal_style": "no_table", "tringa_points": 3}),
    (3, {"chain_bonuses": True}),
    (4, {"auto_declare": True}),
    (4, {"challenges": False, "target_score": 11}),
    (2, {"auto_declare": True, "shuffle_returned_cards": False}),
]


def positions(players: int, options: dict, seed: int):
    """States along one random match (every 7th step), each with a start to play out from."""
    state = GAME.new_state(players, options, seed % players, seed=seed)
    rng = random.Random(seed)
    for step in range(400):
        if GAME.to_act(state) is None:
            return
        if step % 7 == 0:
            yield state.clone()
        actions = GAME.legal_actions(state)
        GAME.step(state, actions[int(rng.random() * len(actions))])


@pytest.mark.parametrize(("players", "options"), OPTION_SETS)
def test_the_fused_playout_plays_the_generic_loops_actions(players, options):
    compared = ended_in_deal_over = 0
    for seed in range(6):
        for start in positions(players, options, seed):
            generic, fused = start.clone(), start.clone()
            rng_generic, rng_fused = random.Random(seed), random.Random(seed)
            Game.random_playout(GAME, start, generic, rng_generic)
            playout.random_playout(start, fused, rng_fused)
            assert rng_fused.getstate() == rng_generic.getstate()
            assert GAME.outcome(start, fused) == GAME.outcome(start, generic)
            assert fused.scores == generic.scores and fused.winner == generic.winner
            assert rules.is_playout_over(start, fused)
            if fused.phase == DEAL_OVER_P and generic.phase != DEAL_OVER_P:
                # the next deal was not dealt (not with auto_declare): the deal's history agrees
                assert not fused.o.auto_declare
                assert generic.old_hist[1] == fused.hist
                ended_in_deal_over += 1
            else:  # the same state; only the generator of the next deal was dropped
                want = GAME.to_json(generic)
                if not fused.o.auto_declare:
                    want["rng_state"] = None
                assert GAME.to_json(fused) == want
            compared += 1
    assert compared > 20
    assert ended_in_deal_over or options.get("auto_declare")


def test_a_playout_from_a_finished_deal_leaves_the_state_alone():
    state = GAME.new_state(2, {}, 0, seed=3)
    start = state.clone()
    playout.random_playout(start, state, random.Random(0))
    before = GAME.to_json(state)
    playout.random_playout(start, state, random.Random(0))
    assert GAME.to_json(state) == before


@pytest.mark.parametrize(("players", "options"), OPTION_SETS)
def test_sampled_worlds_fit_the_view(players, options):
    for seed in range(3):
        for state in positions(players, options, seed):
            seat = GAME.to_act(state)
            view = GAME.view(state, seat)
            sample = GAME.sampler(view)
            rng = random.Random(seed)
            for _ in range(3):
                world = sample(rng)
                assert GAME.view(world, seat) == view
                assert sorted(GAME.cards_in_play(world)) == sorted(GAME.pack(world))
