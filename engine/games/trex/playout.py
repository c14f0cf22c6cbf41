"""The fused random playout of Trex (``Trex.random_playout``): the search's hot loop.

It plays exactly what the protocol's generic loop (``Game.random_playout``) would play with
the same ``rng``: at every turn the legal actions in canonical order, the one at
``int(rng.random() * n)`` (a forced action draws too). The trick phase runs over local
variables and the 52-bit hand masks; it draws the ``r``-th card of the legal mask (ascending
bits = the canonical order of ``rules.legal_actions``) without building the list, suit by
suit from tables of the 13-bit suit chunks (``POP``, ``N0``..``N3``: ``tables.CHUNKS`` flattened).
The legal mask comes from the engine's own predicates, evaluated once per playout
(``is_heart_lead_banned``: R10, ``must_discard_mask``: R11) and the led suit's chunk (R9, as
``legal_actions``); scoring, the R13 early end and the end of the deal are the engine's
(``score_trick``, ``is_deal_over_early``, ``end_deal``), on the state kept in step with the
loop. The layout phase draws from ``hand & lay_mask``
(R15/R16, as ``legal_actions``) and applies each turn with ``rules.step``; the doubling
phase and the contract choice go through ``legal_actions`` + ``rules.step``.

The same trick loop serves a playout hook (``play_tricks``): a ``TrickPolicy`` then picks
each card among the legal mask the loop gives it (``ai.playouts.trex``: the normal level's
heuristic), and the loop keeps every rule; without one (the random playout) the uniform
draws are inline.

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
from typing import TYPE_CHECKING, Final

from . import rules, scoring
from .state import TrexState, run_node
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

if TYPE_CHECKING:  # a mypyc native type; at run time the annotations are never evaluated
    from mypy_extensions import i64

# Typed and Final, so that the compiled build (mypyc) reads them as C statics with known
# element types instead of looking names up in the module's dict.
# The tables of the draws are bytes: contiguous arrays of small ints (8 KB and 4 x 104 KB)
# that stay in the CPU cache; lists of int or float objects, or tuples per chunk, are
# scattered over the heap, and in the compiled build their reads miss the cache.
POP: Final = bytes(chunk.bit_count() for chunk in range(1 << 13))
"""``POP[chunk]``: the number of cards in a 13-bit suit chunk (mypyc compiles
``int.bit_count()`` as a method call by name)."""
N0: Final = bytes(card for cards in CHUNKS[0] for card in cards + (0,) * (13 - len(cards)))
"""``N0[13 * chunk + r]``: the ``r``-th card, ascending, of the spades chunk ``chunk``
(``tables.CHUNKS``, flattened); N1, N2, N3: hearts, diamonds, clubs."""
N1: Final = bytes(card for cards in CHUNKS[1] for card in cards + (0,) * (13 - len(cards)))
N2: Final = bytes(card for cards in CHUNKS[2] for card in cards + (0,) * (13 - len(cards)))
N3: Final = bytes(card for cards in CHUNKS[3] for card in cards + (0,) * (13 - len(cards)))
N_OF: Final[list[bytes]] = [(N0, N1, N2, N3)[card // 13] for card in range(52)]
"""The ``N0``..``N3`` table of a card's suit."""
SHIFT_OF: Final[list[int]] = [13 * (card // 13) for card in range(52)]
"""The shift of a card's suit chunk in a hand mask."""
BITS: Final[list[int]] = [1 << card for card in range(52)]
"""A card's bit (a lookup: in CPython no new int object, unlike a shift)."""
FOLLOWERS: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(
    tuple(tuple((lead + i) & 3 for i in range(n, 4)) for n in range(4)) for lead in range(4)
)
"""``FOLLOWERS[leader][n]``: the seats still to follow when ``n`` cards are in the trick."""

Rand = Callable[[], float]
"""``rng.random``: typed, so that the compiled build multiplies C doubles."""


class TrickPolicy:
    """The choice point of the fused trick loop (``play_tricks``): the card a seat plays.

    The loop keeps every rule (R9-R13: the legal cards, the trick's winner, the scoring, the
    end of the deal); a policy only picks a card of the legal mask it is given. This base
    class picks uniformly at random, drawing as the random playout does; a playout hook
    (``ai.playouts.trex``) subclasses it. A native class in the compiled build: the loop
    calls ``card`` through its vtable with C integers, no boxing and no lookup by name."""

    def card(self, legal: i64, led: i64, best: i64, in_trick: i64, penalty: i64, rand: Rand) -> i64:
        """A card of ``legal`` (the seat's legal cards, a 52-bit mask) for the seat to play.

        ``led``: the led suit (-1 when leading); ``best``: the trick's winning card so far
        (-1 when leading); ``in_trick``: the cards already in the trick (0-3); ``penalty``:
        the contract's penalty cards (``tables.PENALTY_MASK``); ``rand``: ``rng.random``."""
        return draw_card(legal, rand())


def draw_card(m: i64, u: float) -> i64:
    """The card ``legal[int(u * len(legal))]`` of the list ``legal`` of the cards of mask
    ``m`` in ascending bit order (the canonical order of ``rules.legal_actions``), found
    suit by suit without building the list; ``u`` is a draw of ``rng.random()``."""
    # the suit chunks' counts from a table: ``int.bit_count()`` is a method call by name in
    # mypyc; i64 chunks: C integer arithmetic in the compiled build
    c0: i64 = m & 0x1FFF
    c1: i64 = m >> 13 & 0x1FFF
    c2: i64 = m >> 26 & 0x1FFF
    c3: i64 = m >> 39
    k0 = POP[c0]
    k1 = POP[c1]
    k2 = POP[c2]
    r = int(u * (k0 + k1 + k2 + POP[c3]))
    if r < k0:
        return N0[13 * c0 + r]
    r -= k0
    if r < k1:
        return N1[13 * c1 + r]
    r -= k1
    if r < k2:
        return N2[13 * c2 + r]
    return N3[13 * c3 + r - k2]


def random_playout(start: TrexState, s: TrexState, rng: random.Random) -> None:
    """Uniformly random legal actions on ``s`` in place until the deal of ``start`` is over
    (``Trex.is_playout_over``), drawing the same actions as the generic loop."""
    rand = rng.random
    deal_no = start.deal_no
    if s.to_act < 0 or s.deal_no != deal_no or s.phase == DEAL_OVER:
        return  # over already: the state is left as it is
    _end_without_dealing(s)
    while s.to_act >= 0 and s.deal_no == deal_no and s.phase != DEAL_OVER:
        ph = s.phase
        if ph == TRICKS:
            _tricks(s, rand, None)
        elif ph == LAYOUT:
            _layout(s, rand)
        else:  # doubling, contract choice: rare, the engine's path
            actions = rules.legal_actions(s)
            rules.step(s, actions[int(rand() * len(actions))])


def play_tricks(s: TrexState, rand: Rand, policy: TrickPolicy) -> None:
    """The tricks of ``s`` (in the trick phase) to the end of its deal, each card the
    ``policy``'s: a playout hook's trick phase. The deal ends as in ``random_playout``: the
    next deal is not dealt (see the module doc)."""
    _end_without_dealing(s)
    _tricks(s, rand, policy)


def _end_without_dealing(s: TrexState) -> None:
    """Unless ``s`` deals from its ``decks``, let the deal's end await a caller's deal
    instead of dealing the next one (``end_deal`` reads ``rng_state`` only to deal it)."""
    if not s.decks:
        s.rng_state = None


def _illegal_choice(card: i64, legal: i64) -> ValueError:
    """The error of a trick policy's card outside its legal mask (the loop plays a card by
    its bit, so an illegal one would corrupt the hands silently; checked inline, where a
    call per card would cost the interpreted build)."""
    return ValueError(f"the trick policy chose card {card}, not one of the legal cards {legal:#x}")


def _layout(s: TrexState, rand: Rand) -> None:
    """R15/R16: Trex turns until the layout phase ends (the engine applies each turn)."""
    hands = s.hands
    while s.phase == LAYOUT:
        m: i64 = hands[s.to_act] & s.lay_mask
        if not m:
            rand()  # the generic loop draws among the one legal action too
            rules.step(s, PASS)
            continue
        rules.step(s, draw_card(m, rand()))


def _tricks(s: TrexState, rand: Rand, policy: TrickPolicy | None) -> None:
    """R9-R13: tricks to the end of the deal, then the engine's ``end_deal``; each card
    drawn uniformly at random (``policy`` None: the random playout, drawn inline) or the
    ``policy``'s."""
    # The masks are i64 locals: C integer arithmetic in the compiled build (52 bits fit).
    # The hands and the cards won are read into locals once and written back at the end: a
    # list item is a boxed int, whose read unboxes it (through a function call once it has
    # over 30 bits) and whose write allocates a new int.
    c = s.contract
    hands = s.hands
    pop = POP
    banned = rules.is_heart_lead_banned(s)  # R10
    discard: i64 = rules.must_discard_mask(s)  # R11
    pen_mask: i64 = PENALTY_MASK[c]
    every_trick = c == COLLECTIONS or c == COMPLEX  # S4: such tricks score with no penalty card
    # the plays as ``64 * seat + card`` (small ints: no new object), stored as one
    # ``played`` node at the end (``state.run_node``); set by index in a list of 52 (at
    # most a deal's cards): no reallocation as it grows
    plays: list[int] = [0] * 52
    count: i64 = 0
    tricks_won = s.tricks_won
    cards_won = s.cards_won
    won0: i64 = cards_won[0]
    won1: i64 = cards_won[1]
    won2: i64 = cards_won[2]
    won3: i64 = cards_won[3]
    taken: i64 = s.taken
    h0: i64 = hands[0]
    h1: i64 = hands[1]
    h2: i64 = hands[2]
    h3: i64 = hands[3]
    # The cards still in the hands: a seat's hand is its mask ``& left``. The loop plays a
    # card by clearing its bit here.
    left: i64 = h0 | h1 | h2 | h3
    trick_no = s.tricks_played + 1
    first = True
    trick = s.trick
    run_trick_no = trick_no
    run_in_trick = len(trick)  # (the cards in the current trick: ``(run_in_trick + count) & 3``)
    card: i64
    resume = bool(trick)
    if resume:  # a trick in progress: its state, then its remaining followers
        leader = s.leader
        best: i64 = s.best
        w = s.best_seat
        shift: i64 = SHIFT_OF[trick[0]]
        nth = N_OF[trick[0]]
        tm: i64 = 0
        for card in trick:
            tm |= BITS[card]
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
            m: i64 = (h0 if seat == 0 else h1 if seat == 1 else h2 if seat == 2 else h3) & left
            if banned:
                other: i64 = m & NON_HEART_MASK
                if other:
                    m = other
            if policy is None:
                card = draw_card(m, rand())
            else:
                card = policy.card(m, -1, -1, 0, pen_mask, rand)
                if not 0 <= card < 52 or not m >> card & 1:
                    raise _illegal_choice(card, m)
            plays[count] = 64 * seat + card
            count += 1
            tm = (m >> card & 1) << card  # the card's bit (see below)
            left ^= tm
            best = card
            w = seat
            shift = SHIFT_OF[card]
            nth = N_OF[card]
        # the followers (R9: follow suit; else R11: a penalty card; else any card)
        for seat in followers:
            hand: i64 = (h0 if seat == 0 else h1 if seat == 1 else h2 if seat == 2 else h3) & left
            ch: i64 = hand >> shift & 0x1FFF
            if ch:
                if policy is None:
                    card = nth[13 * ch + int(rand() * pop[ch])]
                else:
                    m = ch << shift
                    card = policy.card(m, shift // 13, best, (run_in_trick + count) & 3, pen_mask, rand)
                    if not 0 <= card < 52 or not m >> card & 1:
                        raise _illegal_choice(card, m)
                if card > best:
                    best = card
                    w = seat
            else:
                m = hand
                if discard and hand & discard:
                    m = hand & discard
                if policy is None:
                    card = draw_card(m, rand())
                else:
                    card = policy.card(m, shift // 13, best, (run_in_trick + count) & 3, pen_mask, rand)
                    if not 0 <= card < 52 or not m >> card & 1:
                        raise _illegal_choice(card, m)
            plays[count] = 64 * seat + card
            count += 1
            # the card's bit, shifted out of the hand that holds it: in mypyc 2.4 ``1 << card``
            # is a 32-bit shift (a C int literal), and the table BITS holds boxed ints
            bit: i64 = (hand >> card & 1) << card
            left ^= bit
            tm |= bit
        # R12: the trick is over (as rules._finish_trick)
        tricks_won[w] = tricks_won[w] + 1  # (not ``+=``: a generic operation in mypyc)
        if w == 0:
            won0 |= tm
        elif w == 1:
            won1 |= tm
        elif w == 2:
            won2 |= tm
        else:
            won3 |= tm
        taken |= tm
        if every_trick or tm & pen_mask:
            scoring.score_trick(s, tm, w, leader, None)
        if trick_no == 13:
            break
        # R13: only a trick that took a penalty card can end the deal early (the first
        # trick of the playout is checked anyway, for a state that starts without any)
        if (tm & pen_mask or first) and rules.is_deal_over_early_with(s, left):
            break
        first = False
        leader = w
        trick_no += 1
    hands[0] = h0 & left
    hands[1] = h1 & left
    hands[2] = h2 & left
    hands[3] = h3 & left
    cards_won[0] = won0
    cards_won[1] = won1
    cards_won[2] = won2
    cards_won[3] = won3
    s.played = run_node(s.played, run_trick_no, run_in_trick, plays, count)
    if trick:  # (an empty trick stays: no new list)
        s.trick = []
    s.leader = w
    s.best = best
    s.best_seat = w
    s.tricks_played = trick_no
    s.taken = taken
    s.to_act = w
    rules.end_deal(s, None)
