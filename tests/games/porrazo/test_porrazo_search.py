"""Porrazo's search path (engine/games/porrazo/playout.py, the sampler's shuffle): it must
play and draw exactly what the protocol's generic code and ``random.Random`` do."""

from __future__ import annotations

import random

import pytest
from porrazo_helpers import GAME

from engine.games.porrazo import playout
from engine.games.porrazo.state import history_list
from engine.games.porrazo.tables import PLAYER_COUNTS
from engine.protocol import Game

OPTIONS = (
    {},
    {"declaration_mode": "auto"},
    {"en_su_lugar_decline": False, "undeclared_claims": False},
    {"limpia_value": "last_in_run", "deal_pattern": "singles", "target_score": 15},
)


def generic_playout(start, state, rng) -> None:
    """The protocol's reference loop and end test (``Game.random_playout``), spelled out."""
    while not Game.is_playout_over(GAME, start, state):
        actions = GAME.legal_actions(state)
        GAME.step(state, actions[int(rng.random() * len(actions))])


def starts(seed: int, players: int, options: dict):
    """States of a seeded match after 0 .. 60 random actions (every few steps)."""
    rng = random.Random(seed)
    state = GAME.new_state(players, options, seed % players, seed=seed)
    for step in range(60):
        if GAME.to_act(state) is None:
            return
        if step % 4 == 0:
            yield state
        actions = GAME.legal_actions(state)
        GAME.step(state, actions[int(rng.random() * len(actions))])


@pytest.mark.parametrize("players", PLAYER_COUNTS)
@pytest.mark.parametrize("options", OPTIONS)
def test_fused_playout_plays_what_the_generic_loop_plays(players, options):
    for seed in range(6):
        for start in starts(seed, players, options):
            fused, generic = GAME.clone(start), GAME.clone(start)
            fused_rng, generic_rng = random.Random(seed), random.Random(seed)
            playout.random_playout(start, fused, fused_rng)
            generic_playout(start, generic, generic_rng)
            assert history_list(fused.history) == history_list(generic.history)
            assert fused.scores == generic.scores
            assert fused_rng.getstate() == generic_rng.getstate()
            assert playout.is_playout_over(start, fused)
            assert GAME.outcome(start, fused) == GAME.outcome(start, generic)


@pytest.mark.parametrize("players", [2, 4])
def test_bound_search_functions_agree_with_the_protocol(players):
    """The functions ``Porrazo.__init__`` binds for the search answer as the protocol's
    definitions (``is_playout_over``) and the game's methods do, at every step of a playout."""
    for seed in range(4):
        for start in starts(seed, players, {}):
            state = GAME.clone(start)
            rng = random.Random(seed)
            while True:
                assert GAME.to_act(state) == state.to_act
                over = GAME.is_playout_over(start, state)
                assert over == Game.is_playout_over(GAME, start, state)
                if over:
                    break
                actions = GAME.legal_actions(state)
                GAME.step(state, actions[int(rng.random() * len(actions))])
