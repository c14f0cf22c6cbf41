"""The Trex sampler: deal a view's unseen cards at random, respecting section 7's deductions."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine.protocol import InvalidState
from engine.sampling import assign_cards

from .loading import load_state
from .rules import PASS, TrexState, entries
from .tables import (
    ALL,
    HEARTS,
    JACK_MASK,
    NON_HEART_MASK,
    PENALTY_MASK,
    SEQ_A,
    SUIT_MASK,
    TREX,
    cards_of,
)


def deductions(s: TrexState) -> list[int]:
    """Section 7: per seat, the cards it cannot hold (voids shown by not following, R10 heart
    leads, R11 non-penalty discards, Trex passes)."""
    ex = [0, 0, 0, 0]
    c = s.contract
    if c < 0:
        return ex
    if c == TREX:
        turns = [
            (seat, a) for seat, a, _ in entries(s.played) if not isinstance(a, tuple) and a <= PASS
        ]
        if len(turns) != s.layout_turns:
            return ex  # the deal began before the recorded play (a layout): no replay
        lay = JACK_MASK
        for seat, a in turns:
            if a == PASS:
                ex[seat] |= lay
                continue
            bit = 1 << a
            lay ^= bit
            seq = a % 13
            if seq == 9:
                lay |= (bit >> 1) | (bit << 1)
            elif seq < 9:
                if seq > 0:
                    lay |= bit >> 1
            elif seq < SEQ_A:
                lay |= bit << 1
        return ex
    banned = (c == 0 or c == 5) and not s.opts.free_heart_lead
    pen = PENALTY_MASK[c] if s.opts.must_discard else 0

    def trick(seats: list[int], cards: list[int]) -> None:
        led = cards[0] // 13
        if banned and led == HEARTS:
            ex[seats[0]] |= NON_HEART_MASK
        for seat, card in zip(seats[1:], cards[1:], strict=True):
            if card // 13 != led:
                ex[seat] |= SUIT_MASK[led]
                if pen and not pen >> card & 1:
                    ex[seat] |= pen

    groups: dict[int, list[tuple[int, int]]] = {}
    for seat, a, no in entries(s.played):
        if no:
            groups.setdefault(no, []).append((seat, a))
    for no, g in groups.items():
        if no <= s.tricks_played and len(g) == 4:
            trick([x[0] for x in g], [x[1] for x in g])
    if s.trick:
        trick([(s.leader + i) & 3 for i in range(len(s.trick))], s.trick)
    return ex


def make_sampler(view: Any) -> Callable[[random.Random], TrexState]:
    """Validate ``view`` once; the returned function deals the unseen cards at random."""
    base, counts, seat = load_state(view, partial=False, view=True)
    assert seat is not None
    known = base.table | base.taken
    for c in base.trick:
        known |= 1 << c
    for i in range(4):
        known |= base.hands[i]
    unseen = ALL & ~known
    need = {i: counts[i] - base.hands[i].bit_count() for i in range(4) if i != seat}
    if any(n < 0 for n in need.values()) or sum(need.values()) != unseen.bit_count():
        raise InvalidState("hand sizes do not match the unseen cards", field="hands")
    ex = deductions(base)
    pool = cards_of(unseen)
    need = {i: n for i, n in need.items() if n}
    seats = list(need)
    constrained = any(ex[i] & unseen for i in seats)
    allowed = {c: [i for i in seats if not ex[i] >> c & 1] for c in pool}
    fallback = None
    if constrained:
        placed = assign_cards(pool[:], need, allowed)
        if placed is not None:
            fallback = {card: seat for seat, cards in placed.items() for card in cards}
    if constrained and fallback is None:
        raise InvalidState(
            "no deal of the unseen cards fits what the play has shown", field="played"
        )
    hands0 = base.hands

    def sample(rng: random.Random) -> TrexState:
        s = base.clone()
        hands = hands0[:]
        cards = pool[:]
        rng.shuffle(cards)
        if not constrained:
            pos = 0
            for i in seats:
                for c in cards[pos : pos + need[i]]:
                    hands[i] |= 1 << c
                pos += need[i]
        else:
            owner = None
            for _ in range(20):
                owner = _try_deal(cards, allowed, need, rng)
                if owner is not None:
                    break
            if owner is None:
                owner = fallback
            assert owner is not None
            for c, i in owner.items():
                hands[i] |= 1 << c
        s.hands = hands
        s.rng_state = rng.getrandbits(64)
        return s

    return sample


def _try_deal(
    cards: list[int], allowed: dict[int, list[int]], need: dict[int, int], rng: random.Random
) -> dict[int, int] | None:
    """One random greedy deal, most constrained cards first; None when it paints itself in."""
    left = dict(need)
    owner = {}
    for c in sorted(cards, key=lambda c: len(allowed[c])):
        opts = [i for i in allowed[c] if left[i]]
        if not opts:
            return None
        total = sum(left[i] for i in opts)
        r = rng.randrange(total)
        for i in opts:
            r -= left[i]
            if r < 0:
                break
        owner[c] = i
        left[i] -= 1
    return owner
