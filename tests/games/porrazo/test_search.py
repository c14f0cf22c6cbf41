"""Porrazo's search path (engine/games/porrazo/playout.py, the sampler's shuffle): it must
play and draw exactly what the protocol's generic code and ``random.Random`` do."""

from __future__ import annotations

import random

import pytest
from porrazo_helpers import GAME

from engine.games.porrazo import playout
from engine.games.porrazo.rules import step as rules_step
from engine.games.porrazo.scoring import count_points
from engine.games.porrazo.state import history_list, public_code, public_history
from engine.games.porrazo.tables import PLAYER_COUNTS

OPTIONS = (
    {},
    {"declaration_mode": "auto"},
    {"en_su_lugar_decline": False, "undeclared_claims": False},
    {"limpia_value": "last_in_run", "deal_pattern": "singles", "target_score": 15},
)


def hand_over(start, state) -> bool:
    """Where a Porrazo playout stops, from the protocol's accessors and the hand number: the
    match is over, the hand of ``start`` has ended, or the state waits for a caller's deck
    (the protocol's default stops at the end of the deal: Porrazo's card count and sweep
    come at the end of the hand, see ``playout``)."""
    return GAME.to_act(state) is None or state.hand_no != start.hand_no or GAME.phase(state) == "deal_over"


def generic_playout(start, state, rng) -> None:
    """The protocol's reference loop (``Game.random_playout``) to Porrazo's end, spelled out."""
    while not hand_over(start, state):
        actions = GAME.legal_actions(state)
        GAME.step(state, actions[int(rng.random() * len(actions))])


def without_history(data: dict) -> dict:
    """A state's JSON without the history and where this hand's part of it starts."""
    return {k: v for k, v in data.items() if k not in ("history", "hand_start")}


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
            # the same end state, but for the history: the fused playout applies its
            # actions without recording them (rules.apply)
            assert without_history(GAME.to_json(fused)) == without_history(GAME.to_json(generic))
            assert history_list(fused.history) == history_list(start.history)
            assert fused.scores == generic.scores
            assert fused_rng.getstate() == generic_rng.getstate()
            assert playout.is_playout_over(start, fused)
            assert GAME.outcome(start, fused) == GAME.outcome(start, generic)


@pytest.mark.parametrize("players", [2, 4])
def test_bound_search_functions_agree_with_the_protocol(players):
    """The functions ``Porrazo.__init__`` binds for the search answer as their definitions
    (``is_playout_over``: the end of the hand) and the game's methods do, at every step of
    a playout."""
    for seed in range(4):
        for start in starts(seed, players, {}):
            state = GAME.clone(start)
            rng = random.Random(seed)
            while True:
                assert GAME.to_act(state) == state.to_act
                over = GAME.is_playout_over(start, state)
                assert over == hand_over(start, state)
                if over:
                    break
                actions = GAME.legal_actions(state)
                GAME.step(state, actions[int(rng.random() * len(actions))])


@pytest.mark.parametrize("players", PLAYER_COUNTS)
@pytest.mark.parametrize("options", OPTIONS[:2])
def test_sampler_deals_what_assign_then_fill_deal(players, options):
    """``Sampler.__call__`` cuts the shuffled pool itself (no dict between the deal and the
    state): the same worlds, and the generator left in the same state, as ``assign`` then
    ``fill`` (auto declarations: constrained seats, so rejected shuffles too)."""
    for seed in range(4):
        for start in starts(seed, players, options):
            for seat in range(players):
                sampler = GAME.sampler(GAME.view(start, seat))
                rng, reference_rng = random.Random(seed), random.Random(seed)
                for _ in range(3):
                    world = sampler(rng)
                    out = sampler.assign(reference_rng)
                    reference = sampler.template.copy()
                    sampler.fill(reference, out)
                    assert GAME.to_json(world) == GAME.to_json(reference)
                    assert world.held == reference.held
                    assert rng.getstate() == reference_rng.getstate()


@pytest.mark.parametrize("players", [2, 5])
def test_public_history_is_the_tables_part_of_this_hands_actions(players):
    """The information-set key's history part: this hand's entries, newest first, a
    caller's deck hidden; the same after a JSON round trip (which rebuilds the history)."""
    for seed in range(4):
        for start in starts(seed, players, {}):
            entries = history_list(start.history)[start.hand_start :]
            expected = tuple((seat, public_code(action)) for seat, action in reversed(entries))
            assert public_history(start) == expected
            loaded = GAME.from_json(GAME.to_json(start))
            assert public_history(loaded) == expected
            for seat in range(players):
                assert GAME.info_key(loaded, seat) == GAME.info_key(start, seat)


def test_a_playout_runs_past_the_deal_to_the_end_of_the_hand_and_its_count():
    """The card count (R24) and the sweep come only at the hand's end, so a search's playout
    from a deal goes on through the hand's later deals and stops once the count is scored
    (at the next hand's first deal), or when the match ends."""
    crossed = counted = 0
    for seed in range(6):
        for start in starts(seed, 2, {}):
            state, events = GAME.clone(start), []
            rng = random.Random(seed)
            while not GAME.is_playout_over(start, state):
                actions = GAME.legal_actions(state)
                rules_step(state, actions[int(rng.random() * len(actions))], events)
            kinds = [e["type"] for e in events]
            if state.winner is None:
                assert kinds.count("card_count") == 1 and state.hand_no == start.hand_no + 1
                counted += 1
                crossed += kinds.count("deal") > 1  # a later deal of the same hand, played out
            else:
                assert kinds.count("card_count") <= 1
    assert counted > 10 and crossed > 5


def test_a_sampled_world_is_played_out_as_the_true_state_would_be_to_the_hands_end():
    """A sampled world has no generator for the next hand (it would wait for a caller's
    deck): a playout stops at the hand's end either way, with the same outcome as in the
    same world with a generator (the next hand is never played)."""
    ended = 0
    for seed in range(6):
        for start in starts(seed, 2, {}):
            world = GAME.sampler(GAME.view(start, start.to_act))(random.Random(seed))
            assert world.rng_state is None
            dealing = GAME.clone(world)
            dealing.rng_state = seed
            waiting = GAME.clone(world)
            playout.random_playout(world, waiting, random.Random(seed))
            playout.random_playout(world, dealing, random.Random(seed))
            assert GAME.outcome(world, waiting) == GAME.outcome(world, dealing)
            assert waiting.scores == dealing.scores
            ended += waiting.winner is None
    assert ended > 10


def test_card_count_scores_the_lead_over_the_next_side_and_nothing_on_a_tie():
    assert count_points([20, 28]) == [0, 8]
    assert count_points([10, 14, 24]) == [0, 0, 10]
    assert count_points([18, 18, 12]) == [0, 0, 0]
