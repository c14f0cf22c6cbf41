"""The fused random playout of Trex (``Trex.random_playout``): the search's hot loop.

It plays exactly what the protocol's generic loop (``Game.random_playout``) would play with
the same ``rng``: at every turn the legal actions in canonical order, the one at
``int(rng.random() * n)`` (a forced action draws too). The trick phase runs over local
variables and the 52-bit hand masks; it draws the ``r``-th card of the legal mask (ascending
bits = the canonical order of ``rules.legal_actions``) without building the list, from the
13-bit suit chunks of ``tables.CHUNKS``. The legal mask comes from the engine's own
predicates, evaluated once per playout (``is_heart_lead_banned``: R10, ``must_discard_mask``:
R11) and the led suit's chunk (R9, as ``legal_actions``); scoring, the R13 early end and the
end of the deal are the engine's (``score_trick``, ``is_deal_over_early``, ``end_deal``), on
the state kept in step with the loop. The layout phase draws from ``hand & lay_mask``
(R15/R16, as ``legal_actions``) and applies each turn with ``rules.step``; the doubling
phase and the contract choice go through ``legal_actions`` + ``rules.step``.

What the fused playout leaves undone, compared with the generic loop (neither changes
``outcome``, which reads only ``match_scores``, ``deal_scores`` and the phase):

* a trick that holds no penalty card of the contract, in a contract whose tricks do not
  score by themselves (all but collections and complex, S4), is not passed to
  ``score_trick`` (it would score nothing);
* the next deal is not dealt: unless the state deals from its ``decks``, the playout sets
  ``rng_state`` (read only by ``end_deal``, to deal the next deal) to None first, so the
  deal's end leaves the state in ``deal_over``, awaiting a caller's deal, instead of
  shuffling and dealing the next deal. That is a valid state (it loads), the finished deal
  is recorded as usual (``match_scores``, ``deal_results``, ``played``), ``running_totals``
  gives the same totals as at the start of the next deal, and ``is_playout_over`` holds
  either way. The final state of a playout only serves ``outcome(start, end)``; the
  searched state itself is a clone. The last deal still ends the match.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Final

from . import rules, scoring
from .state import TrexState
from .tables import (
    CHUNKS,
    COLLECTIONS,
    COMPLEX,
    DEAL_OVER,
    LAYOUT,
    NON_HEART_MASK,
    PASS,
    PENALTY_MASK,
    TRICKS,
)

# Typed and Final, so that the compiled build (mypyc) reads them as C statics with known
# element types instead of looking names up in the module's dict.
C0: Final[tuple[tuple[int, ...], ...]] = CHUNKS[0]
C1: Final[tuple[tuple[int, ...], ...]] = CHUNKS[1]
C2: Final[tuple[tuple[int, ...], ...]] = CHUNKS[2]
C3: Final[tuple[tuple[int, ...], ...]] = CHUNKS[3]
BITS: Final[list[int]] = [1 << card for card in range(52)]
"""A card's bit (a lookup: cheaper than the shift in CPython)."""
SHIFT_OF: Final[list[int]] = [13 * (card // 13) for card in range(52)]
"""The shift of a card's suit chunk in a hand mask."""
CHUNKS_OF: Final[list[tuple[tuple[int, ...], ...]]] = [CHUNKS[card // 13] for card in range(52)]
"""The ``CHUNKS`` table of a card's suit."""
FLEN: Final[list[float]] = [float(chunk.bit_count()) for chunk in range(1 << 13)]
"""The number of cards in a 13-bit suit chunk, as a float (``rand() * n`` float-only: cheaper)."""
FOLLOWERS: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(
    tuple(tuple((lead + i) & 3 for i in range(n, 4)) for n in range(4)) for lead in range(4)
)
"""``FOLLOWERS[leader][n]``: the seats still to follow when ``n`` cards are in the trick."""

Rand = Callable[[], float]
"""``rng.random``: typed, so that the compiled build multiplies C doubles."""


def nth_card(m: int, r: int) -> int:
    """The ``r``-th card (0-based) of mask ``m`` in ascending bit order, i.e. the canonical
    order of ``rules.legal_actions``, found suit by suit without building the list."""
    ch = m & 0x1FFF
    k = ch.bit_count()
    if r < k:
        return C0[ch][r]
    r -= k
    ch = m >> 13 & 0x1FFF
    k = ch.bit_count()
    if r < k:
        return C1[ch][r]
    r -= k
    ch = m >> 26 & 0x1FFF
    k = ch.bit_count()
    return C2[ch][r] if r < k else C3[m >> 39][r - k]


def random_playout(start: TrexState, s: TrexState, rng: random.Random) -> None:
    """Uniformly random legal actions on ``s`` in place until the deal of ``start`` is over
    (``Trex.is_playout_over``), drawing the same actions as the generic loop."""
    rand = rng.random
    deal_no = start.deal_no
    if s.to_act < 0 or s.deal_no != deal_no or s.phase == DEAL_OVER:
        return  # over already: the state is left as it is
    if not s.decks:  # end the deal without dealing the next one (see the module doc)
        s.rng_state = None
    legal_actions = rules.legal_actions
    step = rules.step
    while s.to_act >= 0 and s.deal_no == deal_no and s.phase != DEAL_OVER:
        ph = s.phase
        if ph == TRICKS:
            _tricks(s, rand)
        elif ph == LAYOUT:
            _layout(s, rand)
        else:  # doubling, contract choice: rare, the engine's path
            actions = legal_actions(s)
            step(s, actions[int(rand() * len(actions))])


def _layout(s: TrexState, rand: Rand) -> None:
    """R15/R16: Trex turns until the layout phase ends (the engine applies each turn)."""
    hands = s.hands
    step = rules.step
    while s.phase == LAYOUT:
        m = hands[s.to_act] & s.lay_mask
        if not m:
            rand()  # the generic loop draws among the one legal action too
            step(s, PASS)
            continue
        step(s, nth_card(m, int(rand() * m.bit_count())))


def _tricks(s: TrexState, rand: Rand) -> None:
    """R9-R13: random tricks to the end of the deal, then the engine's ``end_deal``."""
    c = s.contract
    hands = s.hands
    bits = BITS
    flen = FLEN
    banned = rules.is_heart_lead_banned(s)  # R10
    discard = rules.must_discard_mask(s)  # R11
    pen_mask = PENALTY_MASK[c]
    every_trick = c == COLLECTIONS or c == COMPLEX  # S4: such tricks score with no penalty card
    score_trick = scoring.score_trick
    over_early = rules.is_deal_over_early
    played = s.played
    tricks_won = s.tricks_won
    cards_won = s.cards_won
    taken = s.taken
    trick_no = s.tricks_played + 1
    first = True
    trick = s.trick
    resume = bool(trick)
    if resume:  # a trick in progress: its state, then its remaining followers
        leader = s.leader
        best = s.best
        w = s.best_seat
        led = trick[0] // 13
        shift = 13 * led
        chunks: tuple[tuple[int, ...], ...] = CHUNKS[led]
        tm = 0
        for card in trick:
            tm |= bits[card]
        followers: tuple[int, ...] = FOLLOWERS[leader][len(trick)]
    else:
        leader = s.to_act
    while True:
        if resume:
            resume = False
        else:
            followers = FOLLOWERS[leader][1]
            # the lead (R10: no heart lead while holding another suit, when banned)
            seat = leader
            hand = hands[seat]
            m = hand
            if banned and (other := hand & NON_HEART_MASK):
                m = other
            card = nth_card(m, int(rand() * m.bit_count()))
            played = (played, seat, card, trick_no)
            tm = bits[card]
            hands[seat] = hand ^ tm
            best = card
            w = seat
            shift = SHIFT_OF[card]
            chunks = CHUNKS_OF[card]
        # the followers (R9: follow suit; else R11: a penalty card; else any card)
        for seat in followers:
            hand = hands[seat]
            ch = hand >> shift & 0x1FFF
            if ch:
                card = chunks[ch][int(rand() * flen[ch])]
                if card > best:
                    best = card
                    w = seat
            else:
                m = hand
                if discard and hand & discard:
                    m = hand & discard
                card = nth_card(m, int(rand() * m.bit_count()))
            played = (played, seat, card, trick_no)
            bit = bits[card]
            hands[seat] = hand ^ bit
            tm |= bit
        # R12: the trick is over (as rules._finish_trick)
        tricks_won[w] += 1
        cards_won[w] |= tm
        taken |= tm
        if every_trick or tm & pen_mask:
            score_trick(s, tm, w, leader, None)
        if trick_no == 13:
            break
        # R13: only a trick that took a penalty card can end the deal early (the first
        # trick of the playout is checked anyway, for a state that starts without any)
        if (tm & pen_mask or first) and over_early(s):
            break
        first = False
        leader = w
        trick_no += 1
    s.played = played
    s.trick = []
    s.leader = w
    s.best = best
    s.best_seat = w
    s.tricks_played = trick_no
    s.taken = taken
    s.to_act = w
    rules.end_deal(s, None)
