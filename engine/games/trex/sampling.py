"""The Trex sampler: deal a view's unseen cards at random, respecting section 7's deductions."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine.protocol import InvalidState
from engine.sampling import assign_cards

from .codec import ParseOptions, load_state
from .state import TrexState, entries
from .tables import (
    ALL,
    HEARTS,
    JACK_MASK,
    NON_HEART_MASK,
    PASS,
    PENALTY_MASK,
    RNG_BITS,
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
        turns = [(seat, a) for seat, a, _ in entries(s.played) if not isinstance(a, tuple) and a <= PASS]
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


def make_sampler(view: Any, parse_options: ParseOptions) -> Callable[[random.Random], TrexState]:
    """Validate ``view`` once (its options read by ``parse_options``); the returned function
    deals the unseen cards at random."""
    base, counts, seat = load_state(view, parse_options, partial=False, view=True)
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
        raise InvalidState("no deal of the unseen cards fits what the play has shown", field="played")
    hands0 = base.hands
    # Deal sequentially: each card goes to a seat with probability proportional to the room
    # left in its hand (a uniform deal of the free cards, whatever their order); the
    # constrained cards first, most constrained first, in random order within each group.
    free = [1 << c for c in pool if len(allowed[c]) == len(seats)]
    groups: dict[int, list[int]] = {}
    for c in pool:
        if len(allowed[c]) < len(seats):
            groups.setdefault(len(allowed[c]), []).append(c)
    tight = [groups[k] for k in sorted(groups)]
    s0, s1, s2 = (seats + [seat, seat, seat])[:3]  # padding seats get no cards (no room)
    n0, n1, n2 = need.get(s0, 0), need.get(s1, 0), need.get(s2, 0)

    def deal_free(hands: list[int], left: list[int], rand: Callable[[], float]) -> None:
        """The free cards, sequentially in proportion to the room left (s0, s1, s2)."""
        # (float counts: float-only arithmetic is cheaper in CPython; the values are exact)
        l0, l1, l2 = float(left[s0]), float(left[s1]), float(left[s2])
        n = l0 + l1 + l2
        m0 = m1 = m2 = 0
        for bit in free:
            r = rand() * n
            if r < l0:
                m0 |= bit
                l0 -= 1.0
            elif r < l0 + l1 or not l2:
                m1 |= bit
                l1 -= 1.0
            else:
                m2 |= bit
                l2 -= 1.0
            n -= 1.0
        hands[s0] |= m0
        hands[s1] |= m1
        hands[s2] |= m2

    def deal_tight(hands: list[int], rng: random.Random) -> list[int] | None:
        """The constrained cards; the room left per seat, or None when painted in."""
        left = [0, 0, 0, 0]
        for i, n in need.items():
            left[i] = n
        rand = rng.random
        for group in tight:
            if len(group) > 1:
                group = group[:]
                rng.shuffle(group)
            for c in group:
                total = 0
                for i in allowed[c]:
                    total += left[i]
                if not total:
                    return None
                r = int(rand() * total)
                for i in allowed[c]:
                    r -= left[i]
                    if r < 0:
                        break
                hands[i] |= 1 << c
                left[i] -= 1
        return left

    def sample(rng: random.Random) -> TrexState:
        s = base.clone()
        hands = hands0[:]
        if not constrained:
            left = [0, 0, 0, 0]
            left[s0], left[s1], left[s2] = n0, n1, n2
            deal_free(hands, left, rng.random)
        else:
            left = None
            for _ in range(20):
                hands = hands0[:]
                left = deal_tight(hands, rng)
                if left is not None:
                    deal_free(hands, left, rng.random)
                    break
            if left is None:
                hands = hands0[:]
                assert fallback is not None
                for c, i in fallback.items():
                    hands[i] |= 1 << c
        s.hands = hands
        s.rng_state = rng.getrandbits(RNG_BITS)
        return s

    return sample
