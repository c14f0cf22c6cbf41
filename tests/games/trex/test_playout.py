"""The fused random playout of Trex (engine/games/trex/playout.py) against the checked path
and the protocol's generic loop."""

from __future__ import annotations

import functools
import os
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from trex_helpers import GAME

from engine.games.trex import playout
from engine.games.trex.playout import TrickPolicy, draw_card, play_tricks
from engine.games.trex.state import entries, history_entries_past, run_node
from engine.games.trex.tables import CONTRACT_NAMES, DEAL_OVER, MATCH_OVER, PENALTY_MASK, TRICKS, cards_of
from engine.protocol import Game

OPTION_NAMES = (
    "doubling",
    "must_discard_penalty",
    "free_heart_lead",
    "partnership",
    "trex_complex",
    "play_all_tricks",
    "diamonds_collections_swap",
    "reversed_scores",
)

options_st = st.fixed_dictionaries({name: st.booleans() for name in OPTION_NAMES})


def interpreted_build(test: Callable[[], None]) -> Callable[[], None]:
    """Run ``test`` against the interpreted build: here when this process loaded it, else
    in a child pytest process that does (``MAJLIS_PURE_PYTHON=1``). The test's policies
    subclass ``TrickPolicy``, and a compiled class takes compiled subclasses only (the
    hook's), so in the compiled build (CI's) the test runs in a child instead of here."""

    @functools.wraps(test)
    def run() -> None:
        if (playout.__file__ or "").endswith(".py"):
            test()
            return
        root = Path(__file__).resolve().parents[3]
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"{__file__}::{test.__name__}"],
            cwd=root,
            env={**os.environ, "MAJLIS_PURE_PYTHON": "1"},
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert "1 passed" in done.stdout

    return run


def make_state(seed: int, options: dict, contract: str | None, steps: int):
    """A seeded match: random play up to some deal, then (if still possible) ``contract``
    chosen, then ``steps`` random actions."""
    rng = random.Random(seed)
    state = GAME.new_state(4, options, seed % 4, seed=seed)
    for _ in range(rng.randrange(0, 120)):  # some earlier play (other deals, other scores)
        if GAME.to_act(state) is None:
            return state
        GAME.step(state, rng.choice(GAME.legal_actions(state)))
    if contract is not None:
        wanted = {"type": "choose", "contract": contract}
        for _ in range(400):  # play on to a contract choice where ``contract`` is legal
            if GAME.to_act(state) is None:
                return state
            actions = GAME.legal_actions(state)
            as_json = [GAME.action_to_json(state, a) for a in actions]
            if wanted in as_json:
                GAME.step(state, actions[as_json.index(wanted)])
                break
            GAME.step(state, rng.choice(actions))
    for _ in range(steps):
        if GAME.to_act(state) is None:
            break
        GAME.step(state, rng.choice(GAME.legal_actions(state)))
    return state


def history(state) -> list:
    """Every entry (seat, action, trick_no) of the match so far, oldest first."""
    return history_entries_past(state) + entries(state.played)


def check_playout(start, seed: int) -> None:
    """The fused playout from ``start``: (a) it ends where is_playout_over says, with the
    outcome and scores of replaying its plays through the checked ``apply``, (b) each play
    was legal there, and it plays what the generic loop plays with the same rng."""
    fused = GAME.clone(start)
    GAME.random_playout(start, fused, random.Random(seed))
    assert GAME.is_playout_over(start, fused)
    before = len(history(start))
    plays = history(fused)[before:]
    assert history(fused)[:before] == history(start)
    replay = GAME.clone(start)
    for seat, action, _ in plays:
        assert not GAME.is_playout_over(start, replay)
        assert GAME.to_act(replay) == seat
        assert action in GAME.legal_actions(replay)
        replay, _ = GAME.apply(replay, seat, action)  # checked: raises on an illegal action
    assert GAME.is_playout_over(start, replay)
    assert GAME.outcome(start, fused) == GAME.outcome(start, replay)
    assert fused.match_scores == replay.match_scores
    assert fused.deal_results == replay.deal_results
    assert (fused.phase == MATCH_OVER) == (replay.phase == MATCH_OVER)
    if fused.phase == DEAL_OVER:  # the deal ended without dealing the next one
        assert replay.phase == DEAL_OVER or replay.deal_no == start.deal_no + 1
        assert tuple(fused.deal_scores) == fused.deal_results[-1][3]
    # a valid state: it survives the engine's own JSON validation
    GAME.from_json(GAME.to_json(fused))
    # the generic loop with the same rng draws the same actions
    generic = GAME.clone(start)
    Game.random_playout(GAME, start, generic, random.Random(seed))
    assert history(generic)[before:] == plays
    assert GAME.outcome(start, generic) == GAME.outcome(start, fused)


@given(
    seed=st.integers(0, 10**6),
    options=options_st,
    contract=st.sampled_from((None, *CONTRACT_NAMES)),
    steps=st.integers(0, 60),
)
def test_fused_playout_replays_through_the_checked_path(seed, options, contract, steps):
    start = make_state(seed, options, contract, steps)
    if GAME.to_act(start) is None:
        return
    check_playout(start, seed)


def test_fused_playout_many_seeded_states_across_contracts_and_options():
    rng = random.Random(7)
    seen = Counter()
    for seed in range(240):
        options = {name: rng.random() < 0.5 for name in OPTION_NAMES}
        contract = CONTRACT_NAMES[seed % len(CONTRACT_NAMES)]
        start = make_state(seed, options, contract, rng.randrange(0, 56))
        if GAME.to_act(start) is None:
            continue
        seen[GAME.phase(start)] += 1
        check_playout(start, seed)
    # the sample covers every phase a playout can start from
    assert {"choose_contract", "doubling", "tricks", "layout"} <= set(seen)


def test_run_node_holds_the_entries_of_one_node_per_play():
    # a run that starts with 3 cards in trick 5 (its first play ends the trick) after an
    # entry node; each play is 64 * seat + card
    before = (None, 2, 40, 5)
    plays = [(3, 7), (1, 51), (2, 0), (3, 12), (0, 25), (2, 33)]
    one_per_play = before
    for i, (seat, card) in enumerate(plays):
        one_per_play = (one_per_play, seat, card, 5 + (3 + i) // 4)
    run = run_node(before, 5, 3, [64 * seat + card for seat, card in plays] + [0] * 46, len(plays))
    assert entries(run) == entries(one_per_play)
    assert entries(run)[:3] == [(2, 40, 5), (3, 7, 5), (1, 51, 6)]
    assert entries(run)[-1] == (2, 33, 7)


def test_playout_over_at_deal_over_plays_nothing():
    """A caller-dealt match waiting for its next deal: the playout has nothing to do."""
    start = GAME.new_state(4, {}, 0, deck=[c for c in GAME.pack(None)])
    rng = random.Random(3)
    while start.phase != DEAL_OVER:
        GAME.step(start, rng.choice(GAME.legal_actions(start)))
    end = GAME.clone(start)
    GAME.random_playout(start, end, random.Random(0))
    assert GAME.to_json(end) == GAME.to_json(start)
    # and a finished playout's end state is left as it is by another playout
    seeded = make_state(1, {}, "queens", 3)
    over = GAME.clone(seeded)
    GAME.random_playout(seeded, over, random.Random(1))
    again = GAME.clone(over)
    GAME.random_playout(seeded, again, random.Random(2))
    assert GAME.to_json(again) == GAME.to_json(over)


def _first_play_counts(start, draws: int, seed: int) -> Counter:
    rng = random.Random(seed)
    before = len(history(start))
    counts: Counter = Counter()
    for _ in range(draws):
        end = GAME.clone(start)
        GAME.random_playout(start, end, rng)
        counts[history(end)[before][1]] += 1
    return counts


def _assert_uniform(start, draws: int = 3000, seed: int = 11) -> None:
    legal = GAME.legal_actions(start)
    assert len(legal) > 2
    counts = _first_play_counts(start, draws, seed)
    assert set(counts) == set(legal)  # only legal cards, and every one of them
    expected = draws / len(legal)
    chi2 = sum((counts[a] - expected) ** 2 / expected for a in legal)
    # df = k - 1 <= 12; P(chi2 > 60) < 1e-7 for every such df
    assert chi2 < 60, (chi2, counts)


def _position(options: dict, contract: str, want) -> object:
    """The first seeded position of ``contract`` where ``want(state)`` holds."""
    for seed in range(500):
        rng = random.Random(seed)
        state = make_state(seed, options, contract, 0)
        for _ in range(60):
            if GAME.to_act(state) is None or state.contract < 0:
                break
            if GAME.phase(state) == "tricks" and want(state):
                return state
            if GAME.phase(state) not in ("doubling", "tricks"):
                break
            GAME.step(state, rng.choice(GAME.legal_actions(state)))
    raise AssertionError("no such position")


def test_first_play_is_uniform_when_leading():
    opts = {"doubling": False}
    start = _position(opts, "king_of_hearts", lambda s: not s.trick and len(GAME.legal_actions(s)) >= 8)
    _assert_uniform(start)


def test_first_play_is_uniform_when_discarding_penalty_cards():
    """R11 with must_discard_penalty: a seat void in the led suit holding 3+ diamonds."""
    opts = {"doubling": False, "must_discard_penalty": True}

    def discarding(s):
        if not s.trick:
            return False
        led = s.trick[0] // 13
        hand = s.hands[s.to_act]
        return not hand >> 13 * led & 0x1FFF and (hand >> 26 & 0x1FFF).bit_count() >= 3

    start = _position(opts, "diamonds", discarding)
    assert all(a // 13 == 2 for a in GAME.legal_actions(start))
    _assert_uniform(start)


def test_first_play_is_uniform_in_the_layout():
    for seed in range(100):
        start = make_state(seed, {}, "trex", random.Random(seed).randrange(4, 30))
        if GAME.phase(start) == "layout" and len(GAME.legal_actions(start)) >= 3:
            _assert_uniform(start, draws=2000)
            return
    raise AssertionError("no layout position with 3+ fitting cards")


def test_sampler_deals_unseen_cards_uniformly():
    """The sampler's sequential deal: every unseen card lands in each other hand in
    proportion to that hand's unseen cards, and pairs of cards are independent enough that
    two given cards share a hand as often as a uniform deal says."""
    start = make_state(5, {"doubling": False}, "king_of_hearts", 5)
    seat = GAME.to_act(start)
    sample = GAME.sampler(GAME.view(start, seat))
    rng = random.Random(2)
    known = start.hands[seat] | start.taken
    for c in start.trick:
        known |= 1 << c
    others = [i for i in range(4) if i != seat]
    unseen = [c for c in range(52) if not known >> c & 1]
    need = {i: start.hands[i].bit_count() for i in others}
    n = len(unseen)
    draws = 3000
    cells: Counter = Counter()
    together = 0
    a, b = unseen[0], unseen[-1]
    for _ in range(draws):
        world = sample(rng)
        assert world.hands[seat] == start.hands[seat]
        assert [world.hands[i].bit_count() for i in others] == [need[i] for i in others]
        for i in others:
            h = world.hands[i]
            for c in unseen:
                if h >> c & 1:
                    cells[c, i] += 1
            together += h >> a & 1 and h >> b & 1
    chi2 = 0.0
    for c in unseen:
        for i in others:
            expected = draws * need[i] / n
            chi2 += (cells[c, i] - expected) ** 2 / expected
    # df <= 2 * 39 = 78; P(chi2 > 180) < 1e-9
    assert chi2 < 180, chi2
    p_together = sum(need[i] * (need[i] - 1) for i in others) / (n * (n - 1))
    sd = (draws * p_together * (1 - p_together)) ** 0.5
    assert abs(together - draws * p_together) < 6 * sd


def test_draw_card_is_the_legal_list_entry_the_generic_loop_draws():
    """``draw_card(m, u)`` is ``legal[int(u * len(legal))]`` of the ascending card list of
    ``m`` (what ``legal_actions`` lists), for masks spanning every suit chunk, high cards
    (bits above 31) and single cards, and draws at both ends of [0, 1)."""
    rng = random.Random(5)
    masks = [1, 1 << 51, (1 << 52) - 1, 0x1FFF << 39, (1 << 31) | (1 << 45)]
    masks += [rng.getrandbits(52) | 1 << rng.randrange(52) for _ in range(300)]
    for m in masks:
        legal = cards_of(m)
        for u in (0.0, 0.999999, rng.random(), rng.random()):
            assert draw_card(m, u) == legal[int(u * len(legal))], (hex(m), u)


def test_sampled_hands_hold_the_unseen_cards_above_bit_31():
    """The sampler's hands are 52-bit masks: every unseen card, the high ones included,
    lands in exactly one hidden hand (a 32-bit shift would drop or corrupt them)."""
    start = make_state(9, {"doubling": False}, "king_of_hearts", 0)
    seat = GAME.to_act(start)
    sample = GAME.sampler(GAME.view(start, seat))
    rng = random.Random(4)
    for _ in range(50):
        world = sample(rng)
        assert all(0 <= h < 1 << 52 for h in world.hands)
        assert (
            world.hands[0] | world.hands[1] | world.hands[2] | world.hands[3]
            == start.hands[0] | start.hands[1] | start.hands[2] | start.hands[3]
        )
        assert sum(h.bit_count() for h in world.hands) == sum(h.bit_count() for h in start.hands)


def _trick_states(count: int) -> list:
    """Seeded trick-phase states across contracts and options (some mid-trick)."""
    rng = random.Random(17)
    out = []
    for seed in range(count):
        options = {name: rng.random() < 0.5 for name in OPTION_NAMES}
        start = make_state(seed, options, CONTRACT_NAMES[seed % len(CONTRACT_NAMES)], rng.randrange(0, 56))
        if GAME.to_act(start) is not None and start.phase == TRICKS:
            out.append(start)
    return out


def test_play_tricks_with_the_base_policy_plays_the_random_playout():
    """``TrickPolicy`` (uniform, drawing as the inline random path) in ``play_tricks`` plays
    the random playout's cards with the same draws."""
    starts = _trick_states(160)
    assert len(starts) > 40
    for i, start in enumerate(starts):
        fused, policed = GAME.clone(start), GAME.clone(start)
        rng_fused, rng_policed = random.Random(i), random.Random(i)
        GAME.random_playout(start, fused, rng_fused)
        play_tricks(policed, rng_policed.random, TrickPolicy())
        assert GAME.is_playout_over(start, policed)
        assert history(policed) == history(fused)
        assert GAME.outcome(start, policed) == GAME.outcome(start, fused)
        assert rng_policed.random() == rng_fused.random()


@interpreted_build
@pytest.mark.slow
def test_play_tricks_asks_the_policy_among_the_legal_cards_and_keeps_the_rules():
    """A policy's every card: asked with the engine's legal cards (``legal_actions``), the
    trick's led suit, winning card and length and the contract's penalty cards; the plays
    replay through the checked path to the same outcome."""

    class HighestCard(TrickPolicy):
        """The highest legal card, recording what it was given."""

        def __init__(self) -> None:
            self.calls: list[tuple[int, int, int, int, int]] = []

        def card(self, legal, led, best, in_trick, penalty, rand):
            self.calls.append((legal, led, best, in_trick, penalty))
            return legal.bit_length() - 1

    for start in _trick_states(80):
        policy = HighestCard()
        end = GAME.clone(start)
        play_tricks(end, random.Random(0).random, policy)
        before = len(history(start))
        plays = history(end)[before:]
        assert len(plays) == len(policy.calls)
        replay = GAME.clone(start)
        for (seat, card, _), (legal, led, best, in_trick, penalty) in zip(plays, policy.calls, strict=True):
            assert GAME.to_act(replay) == seat
            assert cards_of(legal) == GAME.legal_actions(replay)
            trick = replay.trick
            expected = (trick[0] // 13, replay.best, len(trick)) if trick else (-1, -1, 0)
            assert (led, best, in_trick) == expected
            assert penalty == PENALTY_MASK[replay.contract]
            assert card == cards_of(legal)[-1]
            replay, _ = GAME.apply(replay, seat, card)
        assert GAME.is_playout_over(start, replay)
        assert GAME.outcome(start, end) == GAME.outcome(start, replay)
        assert end.match_scores == replay.match_scores


@interpreted_build
@pytest.mark.slow
def test_play_tricks_refuses_a_card_outside_the_legal_mask():
    class Illegal(TrickPolicy):
        def card(self, legal, led, best, in_trick, penalty, rand):
            return (~legal & (1 << 52) - 1).bit_length() - 1  # the highest card not legal

    start = _trick_states(20)[0]
    with pytest.raises(ValueError, match="not one of the legal cards"):
        play_tricks(GAME.clone(start), random.Random(0).random, Illegal())
