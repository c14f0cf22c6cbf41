"""The Trex sampler: deal a view's unseen cards at random, respecting section 7's deductions."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine.codec import TEMPLATE, Hidden, refuse
from engine.protocol import InvalidState
from engine.sampling import assign_cards

from .codec import CODEC, table_of
from .rules import layout_after, layout_start_mask
from .state import TrexState, entries
from .tables import (
    ALL,
    CODES,
    HEARTS,
    NON_HEART_MASK,
    PASS,
    PENALTY_MASK,
    RNG_BITS,
    SEVEN_H,
    SUIT_MASK,
    TREX,
    cards_of,
)

if TYPE_CHECKING:  # a mypyc native type; at run time the annotations are never evaluated
    from mypy_extensions import i64


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
        start = s.opts.start_seq
        lay = layout_start_mask(start)
        for seat, a in turns:
            if a == PASS:
                ex[seat] |= lay
                continue
            lay = layout_after(lay, a, start)
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


def view_template(view: Any) -> tuple[TrexState, list[int], int]:
    """A view read back: ``(state, hand_counts, seat)`` where each hidden hand holds only the
    cards the view pins to it (its doubled cards until played, its exposed 2s, and in deal
    1 the first owner's 7H until played: R3, R7, R18). The view must be one some state
    gives: a state with the hidden hands filled up from the unseen cards is loaded
    (``TEMPLATE``, every check but the replay) and must give the view back."""
    rules, seat, values = CODEC.read_view(view)
    if seat is None:
        raise refuse("seat", "a spectator's view has no hand to sample around: give a seat's view")
    hands = values["hands"]
    if isinstance(hands[seat], Hidden):
        raise refuse(f"hands[{seat}]", "the viewing seat's own hand must be listed")
    seen = table_of(values["layout"])
    for m in [h for h in hands if not isinstance(h, Hidden)] + values["cards_won"]:
        seen |= m
    for _, card in values["trick"]:
        seen |= 1 << card
    pinned = [0, 0, 0, 0]
    for card, doubler in values["doubled"]:
        pinned[doubler] |= 1 << card
    for i, twos in enumerate(values["exposed_twos"]):
        pinned[i] |= twos
    if values["deal_no"] == 1 and not seen >> SEVEN_H & 1:
        if values["first_owner"] == seat:
            raise refuse("first_owner", "the first owner must hold 7H in deal 1 (R3)")
        pinned[values["first_owner"]] |= 1 << SEVEN_H
    counts = [h.count if isinstance(h, Hidden) else h.bit_count() for h in hands]
    free = ALL & ~seen
    for i in range(4):
        pinned[i] = pinned[i] & free if isinstance(hands[i], Hidden) else 0
        if pinned[i].bit_count() > counts[i]:
            raise refuse(f"hands[{i}]", "holds fewer cards than are known to be there")
        free &= ~pinned[i]
    rest = cards_of(free)
    filled = []
    for i, h in enumerate(hands):
        if isinstance(h, Hidden):
            need = counts[i] - pinned[i].bit_count()
            h, rest = pinned[i] | sum(1 << c for c in rest[:need]), rest[need:]
        filled.append([CODES[c] for c in cards_of(h)])
    if rest:
        raise refuse("hands", "hand sizes do not match the unseen cards")
    doc = {key: value for key, value in view.items() if key != "seat"}
    doc.update(hands=filled, rng_state=None, decks=[])
    state = CODEC.load(doc, TEMPLATE)
    again = CODEC.view(state, seat)
    for key in again:
        if again[key] != view[key]:
            raise refuse(
                first_difference(again[key], view[key], key), "is not what the rest of the view gives"
            )
    state.hands = [pinned[i] if isinstance(hands[i], Hidden) else hands[i] for i in range(4)]
    return state, counts, seat


def first_difference(want: Any, got: Any, path: str) -> str:
    """The path of the first place where the JSON value ``got`` differs from ``want``, down
    through lists of lists and objects (a list of card codes is one place: ``hands[2]``)."""
    if type(want) is list and type(got) is list and len(want) == len(got):
        for i, (w, g) in enumerate(zip(want, got, strict=True)):
            if w != g:
                return first_difference(w, g, f"{path}[{i}]") if type(w) in (list, dict) else path
    if type(want) is dict and type(got) is dict and want.keys() == got.keys():
        for key in want:
            if want[key] != got[key]:
                return first_difference(want[key], got[key], f"{path}.{key}")
    return path


def make_sampler(view: Any) -> Callable[[random.Random], TrexState]:
    """Validate ``view`` once; the returned function deals the unseen cards at random."""
    base, counts, seat = view_template(view)
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
        if not constrained:  # (the clone's hands are a copy of ``hands0``: dealt into)
            deal_free(s.hands, free, s0, s1, s2, n0, n1, n2, rng.random)
        else:
            left = None
            for _ in range(20):
                hands = hands0[:]
                left = deal_tight(hands, rng)
                if left is not None:
                    deal_free(hands, free, s0, s1, s2, left[s0], left[s1], left[s2], rng.random)
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


def deal_free(
    hands: list[int],
    free: list[int],
    s0: int,
    s1: int,
    s2: int,
    left0: int,
    left1: int,
    left2: int,
    rand: Callable[[], float],
) -> None:
    """The ``free`` cards (bits), sequentially in proportion to the room left in the hands
    of seats s0, s1, s2 (``left0``, ``left1``, ``left2``; a padding seat has no room)."""
    # float counts: float-only arithmetic is cheaper in CPython (the values are exact);
    # i64 masks: C integer arithmetic in the compiled build
    l0, l1, l2 = float(left0), float(left1), float(left2)
    n = l0 + l1 + l2
    m0: i64 = 0
    m1: i64 = 0
    m2: i64 = 0
    bit: i64
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
