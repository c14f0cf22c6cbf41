"""Porrazo's search path (engine/games/porrazo/playout.py, the sampler's shuffle): it must
play and draw exactly what the protocol's generic code and ``random.Random`` do."""

from __future__ import annotations

import math
import random

import pytest
from porrazo_helpers import GAME

from engine.games.porrazo import playout
from engine.games.porrazo.scoring import OUTCOME_SCALE, count_points
from engine.games.porrazo.state import history_list, public_code, public_history
from engine.games.porrazo.tables import P_DEAL_OVER, P_PLAY, PLAYER_COUNTS
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
                    reference.rng_state = reference_rng.getrandbits(62)
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


def _mid_hand(players: int, seed: int = 3):
    """A state in the play of a match's first deal (a seeded match, random plays)."""
    state = GAME.new_state(players, {}, 0, seed=seed)
    rng = random.Random(seed)
    while state.phase != P_PLAY:
        actions = GAME.legal_actions(state)
        GAME.step(state, actions[int(rng.random() * len(actions))])
    return state


def _with_cards(state, cards_by_seat: dict[int, int]):
    """``state`` with extra cards on some seats' piles (the count is all the outcome reads)."""
    out = GAME.clone(state)
    for seat, n in cards_by_seat.items():
        out.piles[seat] = out.piles[seat] + tuple(range(n))
    return out


def test_outcome_counts_the_cards_captured_while_the_hand_goes_on():
    """R24 is scored only at the hand's end, after the deal a search stops at: the outcome
    adds what the deal's captures add to the count, so a capture is worth its cards (two
    sides: every card one point of difference, as the count will be)."""
    start = _mid_hand(2)
    end = _with_cards(start, {0: 5, 1: 2})
    rewards = GAME.outcome(start, end)
    assert rewards[0] == pytest.approx(0.5 + 0.5 * math.tanh(3 / OUTCOME_SCALE))
    assert rewards[0] + rewards[1] == pytest.approx(1.0)
    end.scores[1] += 3  # three points for the other side weigh as much as three cards
    assert GAME.outcome(start, end) == pytest.approx([0.5, 0.5])


def test_outcome_counts_as_r24_scores_the_count_among_three_sides():
    start = _mid_hand(3)
    level = _with_cards(start, {0: 4, 1: 4, 2: 1})  # a tie for the most: nobody would score
    assert GAME.outcome(start, level)[0] == pytest.approx(GAME.outcome(start, level)[1])
    ahead = _with_cards(start, {0: 6, 1: 4, 2: 1})  # side 0 would score 6 - 4
    rewards = GAME.outcome(start, ahead)
    assert rewards[0] == pytest.approx(0.5 + 0.5 * math.tanh(2 / OUTCOME_SCALE))
    assert rewards[1] == rewards[2] == pytest.approx(0.5 + 0.5 * math.tanh(-2 / OUTCOME_SCALE))


def test_outcome_does_not_count_the_cards_twice_after_the_hand_ended():
    """Once the hand is over the count is in the scores (the piles are emptied for the next
    hand, or still full while the state waits for a caller's deck): only scores count."""
    start = _mid_hand(2)
    end = _with_cards(start, {0: 9})
    end.hand_no += 1
    assert GAME.outcome(start, end) == pytest.approx([0.5, 0.5])
    waiting = _with_cards(start, {0: 9})
    waiting.phase = P_DEAL_OVER
    assert GAME.outcome(start, waiting) == pytest.approx([0.5, 0.5])


def test_card_count_scores_the_lead_over_the_next_side_and_nothing_on_a_tie():
    assert count_points([20, 28]) == [0, 8]
    assert count_points([10, 14, 24]) == [0, 0, 10]
    assert count_points([18, 18, 12]) == [0, 0, 0]
