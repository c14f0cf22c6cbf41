"""Trex rules: the rule predicates, legal actions, action checks (with the rule ids),
step, dealing and the end of a deal. (What a layout leaves out is worked out in
``layout``.)

Actions are small ints (see ``tables``): ``0..51`` play that card, ``PASS``,
``DOUBLE + card``, ``CHOOSE_BASE + contract``; a caller's deal is ``("deal", (card, ...))``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine.protocol import IllegalAction, InvalidState

from .options import Opts
from .scoring import Events, score_finish_order, score_trick
from .state import TrexState, kingdom_owner_of, push_past
from .tables import (
    CHOOSE,
    CHOOSE_BASE,
    CHUNKS,
    CODES,
    COLLECTIONS,
    COMPLEX,
    CONTRACT_NAMES,
    DEAL_OVER,
    DOUBLABLE_MASK,
    DOUBLE,
    DOUBLING,
    JACK_MASK,
    KING_OF_HEARTS,
    LAYOUT,
    MATCH_OVER,
    NON_HEART_MASK,
    PASS,
    PENALTY_MASK,
    PHASE_NAMES,
    QUEEN_CARDS,
    RNG_BITS,
    SEQ_7,
    SEQ_A,
    SEQ_J,
    SEVEN_H,
    SEVEN_MASK,
    SINGLE_VALUE,
    SUIT_MASK,
    SUIT_WORDS,
    TREX,
    TRICKS,
    TWO_MASK,
    cards_of,
    deal_seat,
)


def to_act(s: TrexState) -> int | None:
    """The seat to act, None once the match is over."""
    return None if s.to_act < 0 else s.to_act


def is_playout_over(start: TrexState, s: TrexState) -> bool:
    """The match is over, the deal of ``start`` ended, or a caller's deal is awaited."""
    return s.to_act < 0 or s.deal_no != start.deal_no or s.phase == DEAL_OVER


# ================================================================ rule predicates
def is_heart_lead_banned(s: TrexState) -> bool:
    """R10: in king_of_hearts and complex (unless free_heart_lead) hearts may not be led
    while holding another suit."""
    return (s.contract == KING_OF_HEARTS or s.contract == COMPLEX) and not s.opts.free_heart_lead


def must_discard_mask(s: TrexState) -> int:
    """R11: the penalty cards a non-follower must play (0 when the rule is off)."""
    return PENALTY_MASK[s.contract] if s.opts.must_discard else 0


def trick_playable(s: TrexState, hand: int) -> int:
    """R9, R10, R11: the mask of cards of ``hand`` the seat to act may play to the trick."""
    trick = s.trick
    if not trick:
        if is_heart_lead_banned(s):
            other = hand & NON_HEART_MASK
            if other:
                return other
        return hand
    follow = hand & SUIT_MASK[trick[0] // 13]
    if follow:
        return follow
    if s.opts.must_discard:
        pen = hand & PENALTY_MASK[s.contract]
        if pen:
            return pen
    return hand


def layout_playable(s: TrexState, hand: int) -> int:
    """R15: the cards of ``hand`` that fit the layout (``lay_mask`` holds every card that
    fits: unplayed jacks, and the cards one below ``low`` / one above ``high``)."""
    return hand & s.lay_mask


def doublable(s: TrexState, seat: int) -> int:
    """R7: the cards ``seat`` may still double now."""
    return s.hands[seat] & DOUBLABLE_MASK[s.contract] & ~s.dbl_mask


def needs_doubling(s: TrexState, contract: int) -> bool:
    """R6/R7: whether ``contract`` gets a doubling phase."""
    return s.opts.doubling and DOUBLABLE_MASK[contract] != 0


def choosable(s: TrexState) -> list[int]:
    """R6: the contracts of the contract set not yet used in this kingdom."""
    used = s.contracts_used
    return [c for c in s.opts.contract_set if c not in used]


# ================================================================ legal actions
def legal_actions(s: TrexState) -> list[Any]:
    """Every legal action in canonical order (section 9)."""
    ph = s.phase
    if ph == TRICKS:
        trick = s.trick
        hand = s.hands[s.to_act]
        if trick:  # trick_playable's R9 branch, inlined: the led suit is one 13-bit chunk
            led = trick[0] // 13
            chunk = (hand >> (13 * led)) & 0x1FFF
            if chunk:
                return list(CHUNKS[led][chunk])
        return cards_of(trick_playable(s, hand))
    if ph == LAYOUT:
        m = s.hands[s.to_act] & s.lay_mask  # layout_playable, inlined (hot path)
        return cards_of(m) if m else [PASS]
    if ph == DOUBLING:
        return [DOUBLE + c for c in cards_of(doublable(s, s.to_act))] + [PASS]
    if ph == CHOOSE:
        return [CHOOSE_BASE + c for c in choosable(s)]
    return []


def _phase_error(s: TrexState) -> IllegalAction:
    return IllegalAction(f"action not allowed in phase {PHASE_NAMES[s.phase]}", rule="phase")


def check_action(s: TrexState, action: Any) -> None:
    """Raise IllegalAction with the spec's reason and rule id, in the section 9 order."""
    ph = s.phase
    seat = s.to_act
    if isinstance(action, tuple):
        if ph != DEAL_OVER:
            raise _phase_error(s)
        deck = action[1]
        if len(deck) != 52 or len(set(deck)) != 52:
            raise IllegalAction("the deck must hold each of the 52 cards exactly once", rule="R2")
        return
    if action >= CHOOSE_BASE:
        if ph != CHOOSE:
            raise _phase_error(s)
        c = action - CHOOSE_BASE
        if c not in s.opts.contract_set:
            raise IllegalAction(f"unknown contract: {CONTRACT_NAMES[c]}", rule="R6")
        if c in s.contracts_used:
            raise IllegalAction(f"contract already played in this kingdom: {CONTRACT_NAMES[c]}", rule="R6")
        return
    if action >= DOUBLE:
        if ph != DOUBLING:
            raise _phase_error(s)
        c = action - DOUBLE
        bit = 1 << c
        if doublable(s, seat) & bit:
            return
        if not DOUBLABLE_MASK[s.contract] & bit:
            raise IllegalAction(f"{CODES[c]} cannot be doubled in {CONTRACT_NAMES[s.contract]}", rule="R7")
        if not s.hands[seat] & bit:
            raise IllegalAction(f"you do not hold {CODES[c]}", rule="R7")
        if s.dbl_mask & bit:
            raise IllegalAction(f"{CODES[c]} is already doubled", rule="R7")
        return
    if action == PASS:
        if ph == DOUBLING:
            return
        if ph != LAYOUT:
            raise _phase_error(s)
        if layout_playable(s, s.hands[seat]):
            raise IllegalAction("cannot pass: you have a playable card", rule="R16")
        return
    # play
    if ph != TRICKS and ph != LAYOUT:
        raise _phase_error(s)
    bit = 1 << action
    hand = s.hands[seat]
    if not hand & bit:
        raise IllegalAction(f"you do not hold {CODES[action]}", rule="R8" if ph == TRICKS else "R15")
    if ph == LAYOUT:
        if not layout_playable(s, hand) & bit:
            raise IllegalAction(f"{CODES[action]} does not fit the layout", rule="R15")
        return
    if trick_playable(s, hand) & bit:
        return
    # illegal: name the first rule broken, in the section 9 order R10, R9, R11
    if not s.trick:
        raise IllegalAction("cannot lead hearts: you hold other suits", rule="R10")
    led = s.trick[0] // 13
    if hand & SUIT_MASK[led]:
        raise IllegalAction(f"must follow suit: you hold {SUIT_WORDS[led]}", rule="R9")
    names = ", ".join(CODES[c] for c in cards_of(hand & must_discard_mask(s)))
    raise IllegalAction(f"must play a penalty card: you cannot follow suit and hold {names}", rule="R11")


# ================================================================ step
def step(s: TrexState, action: Any, events: Events = None) -> None:
    """Apply a legal action in place (the rules' effects, R6-R19)."""
    seat = s.to_act
    ph = s.phase
    if ph == TRICKS:
        # typed: the compiled build's shift, compare and divide are C int operations, not
        # generic ones on an ``Any``
        card: int = action
        s.played = (s.played, seat, card, s.tricks_played + 1)
        hands = s.hands
        hands[seat] = hands[seat] ^ 1 << card  # (not ``^=``: a generic operation in mypyc)
        trick = s.trick
        if not trick:
            s.leader = seat
            s.best = card
            s.best_seat = seat
        elif card > s.best and card // 13 == trick[0] // 13:
            s.best = card
            s.best_seat = seat
        trick.append(card)
        if events is not None:
            events.append({"type": "play", "seat": seat, "card": CODES[card]})
        if len(trick) == 4:
            _finish_trick(s, events)
        else:
            s.to_act = (seat + 1) & 3
        return
    if ph == LAYOUT:
        s.played = (s.played, seat, action, 0)
        _layout_turn(s, seat, action, events)
        return
    if ph == DOUBLING:
        s.played = (s.played, seat, action, 0)
        if action == PASS:
            s.doubling_turn += 1
            if s.doubling_turn == 4:
                s.phase = TRICKS
                s.to_act = s.owner
            else:
                s.to_act = (seat + 1) & 3
        else:
            c = action - DOUBLE
            s.doubled = s.doubled + ((c, seat),)
            s.dbl_mask |= 1 << c
        if events is not None:
            events.append(
                {
                    "type": "double" if action != PASS else "pass",
                    "seat": seat,
                    **({"card": CODES[action - DOUBLE]} if action != PASS else {}),
                }
            )
        return
    if ph == CHOOSE:
        s.played = (s.played, seat, action, 0)
        c = action - CHOOSE_BASE
        s.contract = c
        s.contracts_used = s.contracts_used + (c,)
        if events is not None:
            events.append({"type": "contract", "seat": seat, "contract": CONTRACT_NAMES[c]})
        if needs_doubling(s, c):
            s.phase = DOUBLING
            s.doubling_turn = 0
        elif c == TREX:
            s.phase = LAYOUT
        else:
            s.phase = TRICKS
        s.to_act = s.owner
        return
    if ph == DEAL_OVER:
        if s.played is not None:
            push_past(s, s.played)
            s.played = None
        push_past(s, (None, seat, action, 0))
        start_deal(s, s.deal_no + 1, seat, action[1], events)
        return
    raise InvalidState("the match is over", field="phase")


def _finish_trick(s: TrexState, events: Events) -> None:
    """R12: the highest card of the led suit wins; penalties are scored at once; R13."""
    trick = s.trick
    w = s.best_seat
    tm = (1 << trick[0]) | (1 << trick[1]) | (1 << trick[2]) | (1 << trick[3])
    # (not ``+=``, ``|=`` on the list items: generic operations in mypyc)
    tricks_won = s.tricks_won
    tricks_won[w] = tricks_won[w] + 1
    cards_won = s.cards_won
    cards_won[w] = cards_won[w] | tm
    s.taken |= tm
    s.tricks_played += 1
    leader = s.leader
    if events is not None:
        events.append(
            {
                "type": "trick",
                "winner": w,
                "leader": leader,
                "cards": [CODES[c] for c in trick],
                "trick": s.tricks_played,
            }
        )
    s.trick = []
    score_trick(s, tm, w, leader, events)
    s.leader = w
    s.to_act = w
    if s.tricks_played == 13 or is_deal_over_early(s):
        end_deal(s, events)


def trick_winner(trick: list[int], leader: int) -> tuple[int, int]:
    """R12: the highest card of the led suit in ``trick`` (led by ``leader``) and its seat."""
    best, best_seat = trick[0], leader
    for i, c in enumerate(trick):
        if c // 13 == trick[0] // 13 and c > best:
            best, best_seat = c, (leader + i) & 3
    return best, best_seat


def is_deal_over_early(s: TrexState) -> bool:
    """R13: without play_all_tricks a KH/queens/diamonds deal ends once no penalty card of
    the contract is left in any hand."""
    h = s.hands
    return is_deal_over_early_with(s, h[0] | h[1] | h[2] | h[3])


def is_deal_over_early_with(s: TrexState, in_hands: int) -> bool:
    """R13 (``is_deal_over_early``) when the cards still in the hands are ``in_hands`` (the
    fused playout keeps them in one mask and writes the hands back at the end)."""
    c = s.contract
    if s.opts.play_all or c == COLLECTIONS or c == COMPLEX:
        return False
    return not in_hands & PENALTY_MASK[c]


def layout_fits(table: int, start: int = SEQ_J) -> int:
    """R15: the cards that fit a layout holding the cards ``table``: each suit's jack while
    the suit is empty, else the cards one below its lowest and one above its highest. With
    ``trex_layout_start: sevens`` (``start`` = SEQ_7, section 11) the suits start from their
    sevens, and only the seven of hearts while the layout is empty."""
    if start != SEQ_J and not table:
        return 1 << SEVEN_H
    fits = 0
    for suit in range(4):
        m = (table >> (13 * suit)) & 0x1FFF
        if not m:
            fits |= 1 << (suit * 13 + start)
        else:
            low, high = (m & -m).bit_length() - 1, m.bit_length() - 1
            if low > 0:
                fits |= 1 << (suit * 13 + low - 1)
            if high < SEQ_A:
                fits |= 1 << (suit * 13 + high + 1)
    return fits


def layout_start_mask(start: int) -> int:
    """R15: the cards that fit the empty layout: the four jacks, or the seven of hearts."""
    return JACK_MASK if start == SEQ_J else 1 << SEVEN_H


def layout_after(lay_mask: int, card: int, start: int) -> int:
    """R15: the cards that fit the layout once ``card`` (which fits ``lay_mask``) is played:
    a suit's first card opens both ends, a card below it extends the low end, above it the
    high end; the seven of hearts (sevens) opens the other suits' sevens too."""
    bit = 1 << card
    lm = lay_mask ^ bit
    seq = card % 13
    if seq == start:
        lm |= (bit >> 1) | (bit << 1)  # the ranks next to the start rank now fit
        if card == SEVEN_H and start == SEQ_7:
            lm |= SEVEN_MASK ^ bit
    elif seq < start:
        if seq > 0:
            lm |= bit >> 1
    elif seq < SEQ_A:
        lm |= bit << 1
    return lm


def _layout_turn(s: TrexState, seat: int, action: int, events: Events) -> None:
    """R14-R18: one Trex turn (a play extends the layout; the seat may go out)."""
    s.layout_turns += 1
    if action != PASS:
        bit = 1 << action
        s.hands[seat] ^= bit
        s.table |= bit
        s.lay_mask = layout_after(s.lay_mask, action, s.opts.start_seq)
        if events is not None:
            events.append({"type": "play", "seat": seat, "card": CODES[action]})
        if not s.hands[seat]:
            fo = s.finish_order + [seat]
            if events is not None:
                events.append({"type": "out", "seat": seat, "position": len(fo)})
            if len(fo) == 3:  # the last seat finishes fourth
                fo.append(6 - fo[0] - fo[1] - fo[2])
            s.finish_order = fo  # a new list: clones share finish_order (TrexState.clone)
            if len(fo) == 4:
                score_finish_order(s, events)
                end_deal(s, events)
                return
    elif events is not None:
        events.append({"type": "pass", "seat": seat})
    if s.layout_turns == 4 and s.opts.partnership:
        s.twos_exposed = True  # R18
        if events is not None:
            h = s.hands
            events.append(
                {
                    "type": "twos_exposed",
                    "twos": [[CODES[c] for c in cards_of(h[i] & TWO_MASK)] for i in range(4)],
                }
            )
    h = s.hands
    nxt = (seat + 1) & 3
    while not h[nxt]:
        nxt = (nxt + 1) & 3
    s.to_act = nxt


# ================================================================ deals
def end_deal(s: TrexState, events: Events) -> None:
    """R19, S9, E3: record the deal, then end the match or deal the next deal."""
    ds = s.deal_scores
    total = ds[0] + ds[1] + ds[2] + ds[3]
    expected = s.opts.deal_totals[s.contract]  # deal_total(contract, swap) * sign
    if total != expected and not _unbalanced_total(s, expected - total):
        raise InvalidState(
            f"deal scores {s.deal_scores} do not sum to the contract total {expected} (S9)",
            field="deal_scores",
        )
    before = s.match_scores
    ms = [before[0] + ds[0], before[1] + ds[1], before[2] + ds[2], before[3] + ds[3]]
    s.match_scores = ms  # a new list: clones share match_scores (TrexState.clone)
    s.deal_results = s.deal_results + ((s.deal_no, s.owner, s.contract, tuple(s.deal_scores)),)
    if events is not None:
        events.append(
            {
                "type": "deal_over",
                "deal_no": s.deal_no,
                "contract": CONTRACT_NAMES[s.contract],
                "scores": list(s.deal_scores),
            }
        )
    if s.deal_no == s.opts.total_deals:
        s.phase = MATCH_OVER
        s.to_act = -1
        if events is not None:
            events.append({"type": "match_over", "scores": list(ms)})
        return
    nxt_dealer = kingdom_owner_of(s.first_owner, s.deal_no + 1, s.opts)  # R4
    deck: Sequence[int]
    if s.decks:
        deck = s.decks[0]
        s.decks = s.decks[1:]
    elif s.rng_state is not None:
        rng = random.Random(s.rng_state)
        deck = shuffled_pack(rng)
        s.rng_state = rng.getrandbits(RNG_BITS)
    else:
        s.phase = DEAL_OVER
        s.to_act = nxt_dealer
        return
    start_deal(s, s.deal_no + 1, nxt_dealer, deck, events)


QUEEN_CARD = QUEEN_CARDS[0]


def _unbalanced_total(s: TrexState, short: int) -> bool:
    """S9 with the S5 house rules (section 11): the deal's total may fall short of the
    contract's by what its doubled cards cost beyond their single value."""
    most = 0
    for card, _ in s.doubled:
        most += SINGLE_VALUE[card]
    return s9_short_allowed(s.opts, short, most)


def s9_short_allowed(opts: Opts, short: int, most: int) -> bool:
    """S9 with the S5 house rules that let a doubled card cost more than its single value
    (section 11): a deal's total may fall ``short`` of the contract's (signed as S8 signs
    it) by a whole number of queens' values (25), at most ``most``: the single values of
    the doubled cards."""
    if not opts.unbalanced:
        return False
    short *= opts.sign
    return 0 < short <= most and short % SINGLE_VALUE[QUEEN_CARD] == 0


def doubled_value_most(contract: int) -> int:
    """The single values of every card ``contract`` lets a seat double (R7): KH 75, a queen 25."""
    most = 0
    for card in cards_of(DOUBLABLE_MASK[contract]):
        most += SINGLE_VALUE[card]
    return most


def shuffled_pack(rng: random.Random) -> list[int]:
    """R2: the 52 card indices in a random order (a sort on random keys: uniform, and about
    twice as fast as ``shuffle`` here, which matters to a search that deals every playout)."""
    keys = [rng.random() for _ in range(52)]
    return sorted(range(52), key=keys.__getitem__)


def start_deal(s: TrexState, deal_no: int, dealer: int, deck: Sequence[int], events: Events) -> None:
    """R2-R6: deal ``deck`` (indices, top first) and open the contract choice."""
    if s.played is not None:  # the finished deal's entries join the match history
        push_past(s, s.played)
        s.played = None
    hands = [0, 0, 0, 0]
    for p, c in enumerate(deck):
        hands[(dealer + 1 + p) & 3] |= 1 << c
    s.hands = hands
    s.deal_no = deal_no
    s.dealer = dealer
    if deal_no == 1:
        s.first_owner = next(i for i in range(4) if hands[i] >> SEVEN_H & 1)  # R3
    if (deal_no - 1) % s.opts.deals_per_kingdom == 0:
        s.contracts_used = ()
    reset_deal(s)
    if events is not None:
        events.append({"type": "deal", "deal_no": deal_no, "dealer": dealer, "owner": s.owner})


def reset_deal(s: TrexState) -> None:
    """The per-deal fields at the start of a deal (R6: choose_contract, owner to act)."""
    s.phase = CHOOSE
    s.to_act = s.owner
    s.contract = -1
    s.doubled = ()
    s.dbl_mask = 0
    s.doubling_turn = 0
    s.trick = []
    s.leader = s.owner
    s.best = -1
    s.best_seat = -1
    s.tricks_played = 0
    s.tricks_won = [0, 0, 0, 0]
    s.cards_won = [0, 0, 0, 0]
    s.taken = 0
    s.played = None
    s.lay_mask = layout_start_mask(s.opts.start_seq)
    s.table = 0
    s.finish_order = []
    s.layout_turns = 0
    s.twos_exposed = False
    s.deal_scores = [0, 0, 0, 0]


def deal_from(deck: list[int], dealer: int) -> list[int]:
    """R2: the four hand masks dealt from ``deck``."""
    hands = [0, 0, 0, 0]
    for p, c in enumerate(deck):
        hands[deal_seat(dealer, p)] |= 1 << c
    return hands


def new_match(opts: Opts, dealer: int, deck: Sequence[int] | None, seed: int | None) -> TrexState:
    """R2-R6: a new match's first deal, dealt from ``deck`` (indices, top first) or else
    shuffled by the generator of ``seed`` (a fresh one without), which then deals the
    later deals too (``rng_state``); with a deck, the later deals come from ``seed``'s
    generator when a seed is given, or from the caller (``deal`` actions)."""
    s = TrexState(opts)
    if deck is not None:
        cards = deck
        if seed is not None:
            s.rng_state = random.Random(seed).getrandbits(RNG_BITS)
    else:
        rng = random.Random(seed) if seed is not None else random.Random()
        cards = shuffled_pack(rng)
        s.rng_state = rng.getrandbits(RNG_BITS)
    start_deal(s, 1, dealer, cards, None)
    return s
