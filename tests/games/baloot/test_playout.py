"""Baloot.random_playout (engine/games/baloot/playout.py) against the checked path and the
protocol's generic loop."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from engine import get_game
from engine.games.baloot import rules
from engine.games.baloot.state import blank
from engine.games.baloot.tables import DEAL_OVER
from engine.protocol import Game

GAME = get_game("baloot")
OPTION_SETS = [
    {},
    {"must_undertrump": True, "trump_lead_must_beat": "opponent_winning", "four_lock_choice": False},
    {"void_partner_exemption": "always", "kawesh": True, "hokm_bidder_may_switch_to_sun": True},
    {"void_partner_exemption": "never", "project_tie": "trump_then_first", "target_score": 40},
]


def random_state(seed: int, options: dict, steps: int):
    rng = random.Random(seed)
    state = GAME.new_state(4, options, seed % 4, seed=seed)
    for _ in range(steps):
        if GAME.to_act(state) is None:
            break
        GAME.step(state, rng.choice(GAME.legal_actions(state)))
    return state


def entries(history) -> list:
    out = []
    while history is not None:
        history, e = history
        out.append(e)
    out.reverse()
    return out


def without_history(data: dict) -> dict:
    """A state's JSON without the history and where this deal's part of it starts."""
    return {k: v for k, v in data.items() if k not in ("history", "deal_history_start")}


def check_playout(start, seed: int) -> None:
    fused = GAME.clone(start)
    GAME.random_playout(start, fused, random.Random(seed))
    assert GAME.is_playout_over(start, fused)
    # the fused playout applies its actions without recording them (rules.apply)
    assert entries(fused.history) == entries(start.history)
    before = len(entries(start.history))
    # the generic loop with the same rng: the same scores and outcome; the final state is
    # the same too, except that the fused playout does not deal the next deal
    generic = GAME.clone(start)
    Game.random_playout(GAME, start, generic, random.Random(seed))
    plays = entries(generic.history)[before:]
    assert generic.scores == fused.scores
    assert GAME.outcome(start, generic) == GAME.outcome(start, fused)
    # ... and without a generator (no next deal: it waits for a deck, as the fused
    # playout's does), every field but the history is the same
    waiting = GAME.clone(start)
    waiting.rng_state = None
    Game.random_playout(GAME, start, waiting, random.Random(seed))
    assert entries(waiting.history)[before:] == plays
    assert without_history(GAME.to_json(waiting)) == without_history(GAME.to_json(fused))
    if generic.deal_no != start.deal_no:  # the generic loop dealt the next deal
        assert fused.phase == DEAL_OVER and fused.deal_no == start.deal_no
        assert fused.to_act == generic.dealer
    # every play is legal on the checked path, which ends in the same place
    replay = GAME.clone(start)
    for seat, action in plays:
        assert not GAME.is_playout_over(start, replay)
        replay, _ = GAME.apply(replay, seat, action)
    assert GAME.is_playout_over(start, replay)
    assert GAME.outcome(start, replay) == GAME.outcome(start, fused)
    assert replay.scores == fused.scores


@given(st.integers(0, 10**6), st.sampled_from(OPTION_SETS), st.integers(0, 150))
def test_playout_replays_through_the_checked_path(seed, options, steps):
    start = random_state(seed, options, steps)
    if GAME.to_act(start) is not None:
        check_playout(start, seed)


def test_playout_many_seeded_states():
    phases = Counter()
    for seed in range(60):
        start = random_state(seed, OPTION_SETS[seed % len(OPTION_SETS)], (seed * 7) % 120)
        if GAME.to_act(start) is None:
            continue
        phases[GAME.phase(start)] += 1
        check_playout(start, seed)
    assert phases["play"] and phases["bidding"]


def test_first_follow_is_uniform():
    """A follow after trick 1 draws uniformly among the legal cards."""
    for seed in range(300):
        rng = random.Random(seed)
        start = GAME.new_state(4, {}, 0, seed=seed)
        for _ in range(200):
            if GAME.to_act(start) is None:
                break
            if (
                GAME.phase(start) == "play"
                and start.table
                and start.trick_no > 1
                and len(GAME.legal_actions(start)) >= 3
            ):
                break
            GAME.step(start, rng.choice(GAME.legal_actions(start)))
        else:
            continue
        if GAME.to_act(start) is None:
            continue
        legal = GAME.legal_actions(start)
        if GAME.phase(start) != "play" or len(legal) < 3 or not start.table:
            continue
        draws = 2000
        counts: Counter = Counter()
        r = random.Random(11)
        for _ in range(draws):
            end = GAME.clone(start)
            GAME.random_playout(start, end, r)
            # the follow is the next card of this trick (the playout records no history)
            counts[end.tricks[start.trick_no - 1][1][len(start.table)]] += 1
        assert set(counts) == set(legal)
        expected = draws / len(legal)
        chi2 = sum((counts[a] - expected) ** 2 / expected for a in legal)
        assert chi2 < 50, (chi2, counts)  # df <= 7: P(chi2 > 50) < 1e-7
        return
    raise AssertionError("no follow position with 3+ legal cards")


def test_bound_turn_functions_match_the_protocol():
    """The search calls ``to_act``/``is_playout_over`` bound to the rules (game.py's
    ``__init__``); they answer as the protocol's generic definitions do, through the end
    of a deal (engine-dealt: the next deal; caller-dealt: a wait for the deck)."""
    ends = Counter()
    for seed in range(40):
        rng = random.Random(seed)
        if seed % 2:
            deck = GAME.pack(None)
            rng.shuffle(deck)
            start = GAME.new_state(4, OPTION_SETS[seed % len(OPTION_SETS)], seed % 4, deck=deck)
        else:
            start = random_state(seed, OPTION_SETS[seed % len(OPTION_SETS)], (seed * 11) % 90)
        state = GAME.clone(start)
        for _ in range(120):
            assert GAME.to_act(state) == state.to_act
            over = GAME.is_playout_over(start, state)
            assert over == Game.is_playout_over(GAME, start, state)
            if over:
                ends[GAME.phase(state)] += 1
                break
            GAME.step(state, rng.choice(GAME.legal_actions(state)))
    assert ends["deal_over"] and ends["bidding"]


def test_engine_deal_is_random_random_shuffling_the_pack():
    """E1: an engine-dealt deal is the pack shuffled by ``random.Random(rng_state)``
    (rules.engine_deal seeds its C base, the same generator), which then gives the next
    generator state."""
    for seed in (0, 1, 12345, 2**62 + 7):
        st = GAME.new_state(4, {}, 2, seed=seed)
        gen = random.Random(seed)
        deck = list(range(32))
        gen.shuffle(deck)
        expected = blank(st.opts, 2, [0, 0], gen.getrandbits(63))
        rules.deal(expected, deck)
        assert GAME.to_json(st) == GAME.to_json(expected)
