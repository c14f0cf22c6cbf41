"""The fused random playout of Trex (``Trex.random_playout``): the search's hot loop.

It plays exactly what the protocol's generic loop (``Game.random_playout``) would play with
the same ``rng``: at every turn the legal actions in canonical order, the one at
``int(rng.random() * n)``. The trick phase runs over local variables and the 52-bit hand
masks; it draws the ``r``-th card of the legal mask (ascending bits = the canonical order of
``rules.legal_actions``) without building the list. The legal mask comes from the engine's
own predicates, evaluated once per playout (``is_heart_lead_banned``: R10,
``must_discard_mask``: R11) and the tables (``SUIT_MASK``/``CHUNKS``: R9); scoring,
the R13 early end and the end of the deal are the engine's (``score_trick``,
``is_deal_over_early``, ``end_deal``). The layout phase draws from ``hand & lay_mask``
(R15/R16, as ``legal_actions``) and applies the turn with ``rules.step``; the doubling phase,
the contract choice and anything else go through ``legal_actions`` + ``rules.step``.

What the fused loop leaves undone, compared with the generic loop (neither changes
``outcome``, which reads only ``match_scores``, ``deal_scores`` and the phase):

* a trick that holds no penalty card of the contract, in a contract whose tricks do not
  score by themselves (all but collections and complex, S4), is not passed to
  ``score_trick`` (it would score nothing);
* when the deal ends and the engine would deal the next one from its generator
  (``rng_state``), the playout does not: it ends the deal with ``rng_state`` set to None,
  so ``end_deal`` leaves the state in ``deal_over`` awaiting a caller's deal (a valid
  state; ``running_totals`` gives the same match totals as at the start of the next deal,
  and ``is_playout_over`` holds either way). The final state of a playout only serves
  ``outcome(start, end)``. A deal taken from the state's ``decks`` is still dealt, and
  the last deal still ends the match.
"""

from __future__ import annotations

import random
from typing import Any

from . import rules
from .rules import PASS, TrexState
from .tables import (
    CHUNKS,
    COLLECTIONS,
    COMPLEX,
    DEAL_OVER,
    LAYOUT,
    NON_HEART_MASK,
    PENALTY_MASK,
    TRICKS,
)

C0, C1, C2, C3 = CHUNKS


def random_playout(start: TrexState, s: TrexState, rng: random.Random) -> None:
    """Uniformly random legal actions on ``s`` in place until the deal of ``start`` is over
    (``Trex.is_playout_over``), drawing the same actions as the generic loop."""
    rand = rng.random
    deal_no = start.deal_no
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


def _layout(s: TrexState, rand: Any) -> None:
    """R15/R16: Trex turns until the layout phase ends (the engine applies each turn)."""
    hands = s.hands
    step = rules.step
    while s.phase == LAYOUT:
        m = hands[s.to_act] & s.lay_mask
        if not m:
            rand()  # the generic loop draws among the one legal action too
            step(s, PASS)
            continue
        r = int(rand() * m.bit_count())
        ch = m & 0x1FFF
        k = ch.bit_count()
        if r < k:
            step(s, C0[ch][r])
            continue
        r -= k
        ch = m >> 13 & 0x1FFF
        k = ch.bit_count()
        if r < k:
            step(s, C1[ch][r])
            continue
        r -= k
        ch = m >> 26 & 0x1FFF
        k = ch.bit_count()
        if r < k:
            step(s, C2[ch][r])
            continue
        step(s, C3[m >> 39][r - k])


def _tricks(s: TrexState, rand: Any) -> None:
    """R9-R13: random tricks to the end of the deal, then the engine's ``end_deal``."""
    c = s.contract
    hands = s.hands
    banned = rules.is_heart_lead_banned(s)  # R10
    discard = rules.must_discard_mask(s)  # R11
    pen_mask = PENALTY_MASK[c]
    every_trick = c == COLLECTIONS or c == COMPLEX  # S4: such tricks score with no penalty card
    score_trick = rules.score_trick
    over_early = rules.is_deal_over_early
    played = s.played
    tricks_played = s.tricks_played
    tricks_won = s.tricks_won
    cards_won = s.cards_won
    taken = s.taken
    seat = s.to_act
    # the trick in progress
    trick = s.trick
    n = len(trick)
    leader = s.leader
    best = s.best
    best_seat = s.best_seat
    tm = 0
    led = 0
    chunks = C0
    if n:
        led = trick[0] // 13
        chunks = CHUNKS[led]
        for card in trick:
            tm |= 1 << card
    trick_no = tricks_played + 1
    first = True
    while True:
        hand = hands[seat]
        if n:
            # R9: follow suit; else R11 penalty cards; else anything
            ch = (hand >> 13 * led) & 0x1FFF
            if ch:
                t = chunks[ch]
                card = t[int(rand() * len(t))]
                if card > best:
                    best = card
                    best_seat = seat
            else:
                m = hand
                if discard and hand & discard:
                    m = hand & discard
                card = _pick(m, rand)
        else:
            m = hand
            if banned and hand & NON_HEART_MASK:  # R10
                m = hand & NON_HEART_MASK
            card = _pick(m, rand)
            leader = seat
            best = card
            best_seat = seat
            led = card // 13
            chunks = CHUNKS[led]
        played = (played, seat, card, trick_no)
        bit = 1 << card
        hands[seat] = hand ^ bit
        tm |= bit
        n += 1
        if n < 4:
            seat = (seat + 1) & 3
            continue
        # R12: the trick is over (as rules._finish_trick)
        w = best_seat
        tricks_won[w] += 1
        cards_won[w] |= tm
        taken |= tm
        tricks_played = trick_no
        trick_no += 1
        seat = w
        n = 0
        if every_trick or tm & pen_mask:
            score_trick(s, tm, w, leader, None)
        if tricks_played == 13:
            break
        # R13: only a trick that took a penalty card can end the deal early (the first
        # trick of the playout is checked anyway, for a state that starts without any)
        if (tm & pen_mask or first) and over_early(s):
            break
        first = False
        tm = 0
    s.played = played
    s.trick = []
    s.best = best
    s.best_seat = best_seat
    s.tricks_played = tricks_played
    s.taken = taken
    s.leader = seat
    s.to_act = seat
    # end the deal without dealing the next one from the generator (see the module doc)
    if s.rng_state is not None and not s.decks and s.deal_no < s.opts.total_deals:
        s.rng_state = None
    rules.end_deal(s, None)


def _pick(m: int, rand: Any) -> int:
    """The card at ``int(rand() * popcount)`` in the ascending order of mask ``m``."""
    r = int(rand() * m.bit_count())
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
    if r < k:
        return C2[ch][r]
    return C3[m >> 39][r - k]
