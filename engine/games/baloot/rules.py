"""Baloot's rules on the compact state (the hot path): the predicates, legal actions and
action checks (each with its rule id), and the transitions: dealing (R1), the calls
(R2-R12), the tricks (R13-R23) and the end of a deal (E1-E4). (What a loaded document
leaves out is worked out in ``layout``.)

Each predicate returns ``None`` when an action is allowed and ``(reason, rule)`` when
it is not; ``legal_actions`` and ``why_illegal`` are both built from them. ``step``
applies a legal action in place.
"""

from __future__ import annotations

import _random
from typing import Any, Final

from engine.games.baloot.options import Opts
from engine.games.baloot.projects import baloot_scores, compare_declared, project_set
from engine.games.baloot.scoring import deal_result, finish_match, match_winner_after
from engine.games.baloot.state import Events, State, reset_deal
from engine.games.baloot.tables import (
    ACE_MASK,
    ACE_SLOTS,
    BID_ASHKAL,
    BID_HOKM,
    BID_SUN,
    BIDDING,
    CANDIDATE_INDEX,
    CHOOSE,
    CHOOSE_TRUMP,
    CLASS_NAMES,
    CODE,
    DEAL_OVER,
    DEAL_PACKETS,
    DECLARE,
    DOUBLE,
    DOUBLE_LOCKED,
    DOUBLE_OPEN,
    DOUBLE_STEP,
    DOUBLING,
    EKKA,
    FOUR,
    FOUR_LOCKED,
    FOUR_OPEN,
    FOUR_STEP,
    FULL,
    GAHWA,
    GAHWA_STEP,
    HIGHER_PLAIN,
    HOKM,
    KAWESH,
    KIND_NAMES,
    LAST_TRICK_BONUS,
    LOW_MASK,
    MAIN,
    MATCH_OVER,
    NSLOTS,
    OTHER_DRAW,
    PASS,
    PASS_PROJECT,
    PHASE_NAMES,
    PLAIN_STR,
    PLAY,
    POINTS,
    SEQ_ORDER,
    SLOT,
    SUBKIND_NAMES,
    SUIT_CHARS,
    SUIT_MASK,
    SUIT_NAMES,
    SUIT_OF,
    SUIT_SINGULAR,
    SUN,
    SUN_DOUBLE_LINE,
    SUN_WINDOW,
    SWITCH,
    TAKER_DRAW,
    TRIPLE,
    TRIPLE_STEP,
    TRUMP_STR,
    TRUMPS_ABOVE,
)
from engine.protocol import BadAction, IllegalAction
from engine.sampling import shuffle

Why = tuple[str, str] | None
"""None (allowed) or (reason, rule id)."""

# Kinds of follow tiers (R13 R15 R16 R17).
FOLLOW: Final = 0
TRUMP: Final = 1
BEAT: Final = 2
LOCK: Final = 3

BYTE_SLOTS: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(
    tuple(tuple(8 * s + i for i in range(8) if b >> i & 1) for b in range(256)) for s in range(4)
)


_LOW: Final[tuple[tuple[int, ...], ...]] = tuple(
    BYTE_SLOTS[0][m & 0xFF] + BYTE_SLOTS[1][m >> 8] for m in range(1 << 16)
)
_HIGH: Final[tuple[tuple[int, ...], ...]] = tuple(
    BYTE_SLOTS[2][m & 0xFF] + BYTE_SLOTS[3][m >> 8] for m in range(1 << 16)
)


def slots_of(mask: int) -> list[int]:
    """The slots of ``mask`` in canonical order (suit S H D C, then sequence order).

    >>> slots_of(0b1011)
    [0, 1, 3]
    """
    return [*_LOW[mask & 0xFFFF], *_HIGH[mask >> 16]]


def team(seat: int) -> int:
    return seat & 1


# --------------------------------------------------------------------------- bidding


def is_kawesh_hand(hand: int) -> bool:
    """R10: a first hand of only 7s, 8s and 9s."""
    return hand & ~LOW_MASK == 0


def bid_error(
    action: int,
    *,
    seat: int,
    dealer: int,
    round_: int,
    stage: int,
    candidate: int,
    hand: int,
    opts: Opts,
) -> Why:
    """R2-R6, R10: whether ``action`` is a legal call now."""
    if action == PASS or action == BID_SUN:
        return None
    if action == KAWESH:
        if not opts.kawesh:
            return ("kawesh is not enabled", "R10")
        if stage != MAIN:
            return ("only sun or pass is allowed now", "R10")
        if not is_kawesh_hand(hand):
            return ("kawesh needs a first hand of only 7s, 8s and 9s", "R10")
        return None
    if stage != MAIN:
        if action in (BID_HOKM, BID_ASHKAL):
            return ("only sun or pass is allowed now", "R3" if round_ == 1 else "R5")
        return None
    if action == BID_HOKM:
        return None
    if action == BID_ASHKAL:
        if round_ != 1 or (seat - dealer) & 3 not in (3, 0):
            return ("ashkal is only for the third or fourth bidder in round 1", "R2")
        if opts.ashkal_not_on_ace and candidate in ACE_SLOTS:
            return ("ashkal is not allowed on an ace", "R2")
        return None
    return None


BID_ACTIONS: Final = (PASS, BID_HOKM, BID_SUN, BID_ASHKAL, KAWESH)


def trump_error(action: int, candidate: int) -> Why:
    """R8: a round-2 Hokm names a suit other than the candidate's."""
    if action - CHOOSE == SUIT_OF[candidate]:
        return (
            f"second-round hokm must use a suit other than {SUIT_CHARS[SUIT_OF[candidate]]}",
            "R8",
        )
    return None


# --------------------------------------------------------------------------- doubling


def sun_double_allowed(scores: list[int], declarer_team: int, opts: Opts) -> bool:
    """R12: whether the cumulative scores allow doubling a Sun contract."""
    mine, theirs = scores[declarer_team], scores[1 - declarer_team]
    line = SUN_DOUBLE_LINE
    if opts.doubler_behind:
        return theirs < line < mine
    return (mine > line and theirs < line) or (theirs > line and mine < line)


def sun_double_refusal(opts: Opts) -> str:
    if opts.doubler_behind:
        return "sun can be doubled only when the defenders are under 100 and the declarers over 100"
    return "sun can be doubled only when one team is over 100 and the other under 100"


DOUBLING_ACTIONS: Final = (
    PASS,
    DOUBLE_OPEN,
    DOUBLE_LOCKED,
    DOUBLE,
    TRIPLE,
    FOUR_OPEN,
    FOUR_LOCKED,
    FOUR,
    GAHWA,
)
_STEP_VERB: Final = {DOUBLE_STEP: "double", TRIPLE_STEP: "triple", FOUR_STEP: "four", GAHWA_STEP: "gahwa"}
_VERB_OF: Final = {
    DOUBLE_OPEN: DOUBLE_STEP,
    DOUBLE_LOCKED: DOUBLE_STEP,
    DOUBLE: DOUBLE_STEP,
    TRIPLE: TRIPLE_STEP,
    FOUR_OPEN: FOUR_STEP,
    FOUR_LOCKED: FOUR_STEP,
    FOUR: FOUR_STEP,
    GAHWA: GAHWA_STEP,
}


# The refusals of ``double_refusal`` (0: allowed).
_WRONG_STEP: Final = 1
_SUN_UNLOCKED: Final = 2
_SAY_LOCKED: Final = 3
_FOUR_OPEN_ONLY: Final = 4


def double_refusal(action: int, kind: int, step: int, opts: Opts) -> int:
    """R11 (Hokm) / R12 (Sun): 0 when ``action`` is the call allowed at this step, else
    which refusal (``double_error`` words it; ``legal_actions`` needs no words)."""
    if action == PASS:
        return 0
    if _VERB_OF.get(action) != step:
        return _WRONG_STEP
    if kind == SUN:
        return 0 if action == DOUBLE else _SUN_UNLOCKED
    if action == DOUBLE:
        return _SAY_LOCKED
    if step == FOUR_STEP:
        if opts.four_lock_choice and action == FOUR:
            return _SAY_LOCKED
        if not opts.four_lock_choice and action != FOUR:
            return _FOUR_OPEN_ONLY
    return 0


def double_error(action: int, *, kind: int, step: int, opts: Opts) -> Why:
    """R11 (Hokm) / R12 (Sun): whether ``action`` is the call allowed at this step."""
    refusal = double_refusal(action, kind, step, opts)
    if refusal == 0:
        return None
    rule = "R11" if kind == HOKM else "R12"
    if refusal == _WRONG_STEP:
        return (f"only pass or {_STEP_VERB[step]} is allowed now", rule)
    if refusal == _SUN_UNLOCKED:
        return ("sun has no trumps to lock", rule)
    if refusal == _SAY_LOCKED:
        return ("say locked or open", rule)
    return ("four is always open in this match", rule)


# --------------------------------------------------------------------------- play


def trick_state(kind: int, trump: int, table: list[int] | tuple[int, ...]) -> tuple[int, int]:
    """R13: (index of the card winning the trick so far, strength of its highest trump or 0)."""
    led = SUIT_OF[table[0]]
    best = -1
    win = 0
    top_trump = 0
    for i, p in enumerate(table):
        s = SUIT_OF[p]
        if s == trump and kind == HOKM:
            v = 16 + TRUMP_STR[p]
            top_trump = max(top_trump, TRUMP_STR[p])
        elif s == led:
            v = PLAIN_STR[p]
        else:
            continue
        if v > best:
            best = v
            win = i
    return win, top_trump


def set_trick_so_far(st: State) -> None:
    """R13: the led suit, the winning seat and strength, and the top trump of the cards on
    the table (nothing before the contract or the first card)."""
    if st.table and st.kind:
        win, top = trick_state(st.kind, st.trump, st.table)
        st.led = SUIT_OF[st.table[0]]
        st.win_seat = (st.leader + win) & 3
        st.top_trump = top
        wp = st.table[win]
        st.win_str = 16 + TRUMP_STR[wp] if SUIT_OF[wp] == st.trump else PLAIN_STR[wp]


def play_tiers(
    kind: int,
    trump: int,
    locked: bool,
    opts: Opts,
    table: list[int] | tuple[int, ...],
    leader: int,
    lead_ekka: bool,
    seat: int,
) -> tuple[tuple[int, int, str], ...]:
    """R13, R15-R17: the follow duties of ``seat`` facing ``table`` (see ``duties``)."""
    if not table:
        return duties(kind, trump, locked, opts, -1, 0, False, 0, lead_ekka)
    win, top_trump = trick_state(kind, trump, table)
    return duties(
        kind,
        trump,
        locked,
        opts,
        SUIT_OF[table[0]],
        len(table),
        (leader + win - seat) & 1 == 0,
        top_trump,
        lead_ekka,
    )


def duties(
    kind: int,
    trump: int,
    locked: bool,
    opts: Opts,
    led: int,
    played: int,
    partner_winning: bool,
    top_trump: int,
    lead_ekka: bool,
) -> tuple[tuple[int, int, str], ...]:
    """R13, R15-R17: the follow duties as tiers (mask, kind, rule): the player must play
    from the first tier his hand meets, and may play anything if it meets none.
    ``led`` is the led suit (-1 when leading), ``played`` the cards already in the trick,
    ``top_trump`` the strength of the highest trump in it (0 if none)."""
    if led < 0:
        if locked and kind == HOKM:
            return (_LOCK_TIER[trump],)
        return ()
    if kind == SUN:
        return (_FOLLOW_R15[led],)
    if led == trump:
        if opts.lead_beat_always or not partner_winning:
            return (_BEAT_R16[trump][top_trump], _FOLLOW_R16[trump])
        return (_FOLLOW_R16[trump],)
    follow = _FOLLOW_R17[led]
    if partner_winning:
        ex = opts.exemption
        if ex == 1 or (ex == 0 and (played == 3 or (played == 2 and lead_ekka))):
            return (follow,)
    if top_trump:
        if opts.must_undertrump:
            return (follow, _BEAT_R17[trump][top_trump], _TRUMP_R17[trump])
        return (follow, _BEAT_R17[trump][top_trump])
    return (follow, _TRUMP_R17[trump])


# The tiers ``duties`` returns, built once (mask, kind, rule) by suit, and for a tier of
# higher trumps by the strength to beat: the search asks for them at every card.
Tier = tuple[int, int, str]
_LOCK_TIER: Final[tuple[Tier, ...]] = tuple((FULL & ~SUIT_MASK[s], LOCK, "R13") for s in range(4))
_FOLLOW_R15: Final[tuple[Tier, ...]] = tuple((SUIT_MASK[s], FOLLOW, "R15") for s in range(4))
_FOLLOW_R16: Final[tuple[Tier, ...]] = tuple((SUIT_MASK[s], FOLLOW, "R16") for s in range(4))
_FOLLOW_R17: Final[tuple[Tier, ...]] = tuple((SUIT_MASK[s], FOLLOW, "R17") for s in range(4))
_TRUMP_R17: Final[tuple[Tier, ...]] = tuple((SUIT_MASK[s], TRUMP, "R17") for s in range(4))
_BEAT_R16: Final[tuple[tuple[Tier, ...], ...]] = tuple(
    tuple((TRUMPS_ABOVE[s][k], BEAT, "R16") for k in range(9)) for s in range(4)
)
_BEAT_R17: Final[tuple[tuple[Tier, ...], ...]] = tuple(
    tuple((TRUMPS_ABOVE[s][k], BEAT, "R17") for k in range(9)) for s in range(4)
)


def legal_mask(hand: int, tiers: tuple[tuple[int, int, str], ...]) -> int:
    """The cards of ``hand`` its follow tiers allow."""
    for mask, _, _ in tiers:
        x = hand & mask
        if x:
            return x
    return hand


def play_error(hand: int, p: int, tiers: tuple[tuple[int, int, str], ...], trump: int) -> Why:
    """R13, R15-R17: why playing slot ``p`` from ``hand`` breaks a follow duty."""
    if not hand >> p & 1:
        return (f"card not in hand: {CODE[p]}", "R13")
    for mask, kind, rule in tiers:
        x = hand & mask
        if x:
            if x >> p & 1:
                return None
            if kind == LOCK:
                return ("game is locked: you may not lead a trump while holding other suits", rule)
            if kind == BEAT:
                return (
                    "must play a higher trump: you hold " + " ".join(CODE[q] for q in slots_of(x)),
                    rule,
                )
            if kind == TRUMP:
                return (f"must trump: you hold {SUIT_NAMES[trump]}", rule)
            return (
                f"must follow suit: you hold {SUIT_NAMES[SUIT_OF[mask.bit_length() - 1]]}",
                rule,
            )
    return None


def ekka_eligible(p: int, played: int) -> bool:
    """R14: every card of the suit ranking above ``p`` was played in an earlier trick."""
    return HIGHER_PLAIN[p] & ~played == 0


def ekka_error(p: int, *, kind: int, trump: int, leading: bool, played: int) -> Why:
    """R14: whether an announced Ekka on slot ``p`` is allowed."""
    if kind != HOKM or not leading or SUIT_OF[p] == trump:
        return ("ekka only when leading a non-trump card in hokm", "R14")
    if not ekka_eligible(p, played):
        return (f"ekka not allowed: a higher {SUIT_SINGULAR[SUIT_OF[p]]} is still unplayed", "R14")
    return None


def inferred_void(tiers: tuple[tuple[int, int, str], ...], p: int) -> int:
    """Section 7: the cards a seat cannot have held when it played ``p`` under ``tiers``
    (every tier before the first one containing ``p`` was empty in its hand)."""
    out = 0
    for mask, _, _ in tiers:
        if mask >> p & 1:
            break
        out |= mask
    return out


def lead_actions(mask: int, kind: int, trump: int, played: int) -> list[int]:
    """R13/R14: the lead actions for the allowed cards ``mask`` (eligible non-Aces twice)."""
    out: list[int] = []
    for p in slots_of(mask):
        out.append(p)
        if kind == HOKM and SUIT_OF[p] != trump and not ACE_MASK >> p & 1 and ekka_eligible(p, played):
            out.append(EKKA + p)
    return out


# --------------------------------------------------------------------------- transitions


def defenders(st: State) -> tuple[int, int]:
    """R11: the defenders in asking order d+1, d+2, d+3, d."""
    d = st.dealer
    dt = st.bidder & 1
    order = [(d + k) & 3 for k in (1, 2, 3, 4)]
    first, second = [s for s in order if s & 1 != dt]
    return first, second


def project_pending(st: State) -> bool:
    """R20: the seat to act in trick 1 has a project set and has not yet declared or passed."""
    seat = st.to_act
    return (
        seat is not None
        and st.trick_no == 1
        and not st.decided
        and st.phase == PLAY
        and bool(st.psets[seat][0])
        and not st.declared[seat]
    )


def _log(events: Events, **event: Any) -> None:
    if events is not None:
        events.append(event)


def step(st: State, action: Any, events: Events = None) -> None:
    """Apply a legal ``action`` by the seat to act, in place, and record it in the history."""
    st.history = (st.history, (st.to_act, action))
    apply(st, action, events)


def apply(st: State, action: Any, events: Events = None) -> None:
    """``step`` without the history entry: what the random playout plays (its end state only
    serves ``outcome``, and no rule reads the history, so two tuples a card are saved)."""
    seat = st.to_act
    phase: int = st.phase
    if phase == PLAY:
        code: int = action  # every action but a caller's deal is an int (typed: a C integer)
        if code < 64:
            play_card(st, seat, code & 31, code >= EKKA, events)  # type: ignore[arg-type]
        elif code == DECLARE:
            declare(st, seat, events)  # type: ignore[arg-type]
        else:
            st.decided = True
    elif phase == BIDDING:
        bid(st, seat, action, events)  # type: ignore[arg-type]
    elif phase == DOUBLING:
        double(st, seat, action, events)  # type: ignore[arg-type]
    elif phase == CHOOSE_TRUMP:
        st.trump = action - CHOOSE
        _log(events, type="trump", seat=seat, suit=SUIT_CHARS[st.trump])
        complete_deal(st, events)
    elif phase == DEAL_OVER:
        st.dealer = seat  # type: ignore[assignment]
        st.deal_no += 1
        deal(st, action[1:])
        _log(events, type="deal", dealer=seat, deal_no=st.deal_no)


def bid(st: State, seat: int, action: int, events: Events) -> None:
    """R2-R7, R10: one call of the bidding."""
    d = st.dealer
    if events is not None:
        name = {
            PASS: "pass",
            BID_HOKM: "hokm",
            BID_SUN: "sun",
            BID_ASHKAL: "ashkal",
            KAWESH: "kawesh",
        }
        events.append({"type": "call", "seat": seat, "call": name[action]})
    if action == KAWESH:
        st.kawesh = (seat, st.hands[seat])
        end_deal_annulled(st, "kawesh", events)
        return
    if action == BID_SUN:
        fix_contract(st, SUN, seat, seat, False, events)
        return
    if action == BID_ASHKAL:
        fix_contract(st, SUN, seat, (seat + 2) & 3, True, events)
        return
    stage = st.stage
    if action == BID_HOKM and stage == MAIN:
        st.hokm_bidder = seat
        if st.round == 2 and seat == d:
            close_window(st, events)
        else:
            st.stage = SUN_WINDOW
            st.to_act = (seat + 1) & 3
        return
    # a pass
    if stage == MAIN:
        if seat == d:
            if st.round == 1:
                st.round = 2
                st.to_act = (d + 1) & 3
            else:
                end_deal_annulled(st, "all_pass", events)
        else:
            st.to_act = (seat + 1) & 3
    elif stage == SUN_WINDOW:
        last = (st.hokm_bidder + 3) & 3 if st.round == 1 else d
        if seat == last:
            close_window(st, events)
        else:
            st.to_act = (seat + 1) & 3
    else:  # SWITCH: the Hokm stands
        finish_hokm(st, events)


def close_window(st: State, events: Events) -> None:
    """R3/R5 closing with no Sun bid: R6 if the option is on, else the Hokm stands."""
    if st.opts.switch_to_sun:
        st.stage = SWITCH
        st.to_act = st.hokm_bidder
    else:
        finish_hokm(st, events)


def finish_hokm(st: State, events: Events) -> None:
    """R7/R8: a round-1 Hokm takes the candidate's suit; a round-2 one names a suit."""
    h = st.hokm_bidder
    if st.round == 1:
        fix_contract(st, HOKM, h, h, False, events, trump=SUIT_OF[st.candidate])
    else:
        st.kind = HOKM
        st.bidder = st.taker = h
        st.phase = CHOOSE_TRUMP
        st.to_act = h


def fix_contract(
    st: State, kind: int, bidder: int, taker: int, ashkal: bool, events: Events, trump: int = -1
) -> None:
    """R7: the contract is fixed; R9 follows."""
    st.kind = kind
    st.bidder = bidder
    st.taker = taker
    st.ashkal = ashkal
    st.trump = trump
    complete_deal(st, events)


def complete_deal(st: State, events: Events) -> None:
    """R9: the taker takes the candidate, everyone draws from the stock (taker two,
    others three, from d+1); then doubling (R11/R12) or play."""
    st.mult = 1
    st.locked = False
    st.gahwa = False
    st.raiser = st.bidder & 1
    taker = st.taker
    hands = st.hands
    hands[taker] |= 1 << st.candidate
    st.cand_taken = True
    stock = st.stock
    i: int = 0
    d: int = st.dealer
    seat: int
    n: int
    for k in range(1, 5):
        seat = (d + k) & 3
        n = TAKER_DRAW if seat == taker else OTHER_DRAW
        for p in stock[i : i + n]:  # a slice: a loaded state's stock may be short
            hands[seat] |= 1 << p
        i += n
    st.stock = ()
    if events is not None:
        events.append(
            {
                "type": "contract",
                "kind": KIND_NAMES[st.kind],
                "bidder": st.bidder,
                "taker": taker,
                "ashkal": st.ashkal,
                "trump": SUIT_CHARS[st.trump] if st.trump >= 0 else None,
            }
        )
    if st.kind == HOKM or sun_double_allowed(st.scores, st.bidder & 1, st.opts):
        st.phase = DOUBLING
        st.dstep = DOUBLE_STEP
        st.to_act = defenders(st)[0]
    else:
        start_play(st)


def double(st: State, seat: int, action: int, events: Events) -> None:
    """R11/R12: one answer in the doubling sequence."""
    first, second = defenders(st)
    dstep = st.dstep
    if events is not None:
        events.append(
            {
                "type": "call",
                "seat": seat,
                "call": "pass" if action == PASS else STEP_OF_ACTION[action],
            }
        )
    if action == PASS:
        if dstep in (DOUBLE_STEP, FOUR_STEP) and seat == first:
            st.to_act = second
        else:
            start_play(st)
        return
    if dstep == DOUBLE_STEP:
        st.mult = 2
        st.locked = action == DOUBLE_LOCKED
        st.raiser = 1 - (st.bidder & 1)
        if st.kind == SUN:
            start_play(st)
        else:
            st.dstep = TRIPLE_STEP
            st.to_act = st.bidder
    elif dstep == TRIPLE_STEP:
        st.mult = 3
        st.locked = False
        st.raiser = st.bidder & 1
        st.dstep = FOUR_STEP
        st.to_act = first
    elif dstep == FOUR_STEP:
        st.mult = 4
        st.locked = action == FOUR_LOCKED
        st.raiser = 1 - (st.bidder & 1)
        st.dstep = GAHWA_STEP
        st.to_act = st.bidder
    else:
        st.gahwa = True
        st.locked = False
        st.raiser = st.bidder & 1
        start_play(st)


STEP_OF_ACTION: Final = {
    DOUBLE_OPEN: "double",
    DOUBLE_LOCKED: "double",
    DOUBLE: "double",
    TRIPLE: "triple",
    FOUR_OPEN: "four",
    FOUR_LOCKED: "four",
    FOUR: "four",
    GAHWA: "gahwa",
}


def start_play(st: State) -> None:
    """R13: seat d+1 leads trick 1; R18/R19: every seat's project set is fixed now."""
    st.phase = PLAY
    st.trick_no = 1
    st.leader = st.to_act = (st.dealer + 1) & 3
    st.table = []
    kind = st.kind
    st.psets = [project_set(h, kind) for h in st.hands]
    st.decided = False


def declare(st: State, seat: int, events: Events) -> None:
    """R20: announce the class of the seat's best project."""
    declared = st.declared[:]  # lists other than hands/table/seat_played are shared by clones
    declared[seat] = st.psets[seat][0][0][0][0]
    st.declared = declared
    st.decided = True
    _log(events, type="declare", seat=seat, project=CLASS_NAMES[st.declared[seat]])


def play_card(st: State, seat: int, p: int, ekka: bool, events: Events) -> None:
    """R13/R14/R23: play slot ``p``; finish the trick when it is the fourth card."""
    bit: int = 1 << p
    st.hands[seat] ^= bit
    st.seat_played[seat] |= bit
    table = st.table
    trump: int = st.trump
    suit: int = p >> 3
    if not table:
        st.led = suit
        st.lead_ekka = st.kind == HOKM and suit != trump and (ekka or ACE_MASK >> p & 1 == 1)
        st.win_seat = seat
        if suit == trump:
            st.win_str = 16 + TRUMP_STR[p]
            st.top_trump = TRUMP_STR[p]
        else:
            st.win_str = PLAIN_STR[p]
            st.top_trump = 0
    elif suit == trump:
        v = TRUMP_STR[p]
        st.top_trump = max(st.top_trump, v)
        if 16 + v > st.win_str:
            st.win_str = 16 + v
            st.win_seat = seat
    elif suit == st.led and PLAIN_STR[p] > st.win_str:
        st.win_str = PLAIN_STR[p]
        st.win_seat = seat
    table.append(p)
    st.decided = False
    if events is not None:
        ev: dict[str, Any] = {"type": "play", "seat": seat, "card": CODE[p]}
        if len(table) == 1 and st.lead_ekka:
            ev["ekka"] = True
        events.append(ev)
    if suit == trump and (p & 7) in (1, 2):
        kq = (1 << (trump * 8 + 1)) | (1 << (trump * 8 + 2))
        if st.seat_played[seat] & kq == kq and seat not in st.baloot:
            scored = st.proj_team == seat & 1
            if baloot_scores(st.psets[seat], kq, scored, st.opts.baloot_rule):
                st.baloot = st.baloot + (seat,)
                _log(events, type="baloot", seat=seat)
    if len(table) == 4:
        finish_trick(st, events)
    else:
        nxt = (seat + 1) & 3
        st.to_act = nxt
        if st.trick_no == 2 and st.proj_team == nxt & 1 and st.shown[nxt] is None:
            show(st, nxt, events)


def show(st: State, seat: int, events: Events) -> None:
    """R22: a project-team seat shows its whole set when its trick-2 turn comes."""
    masks: list[int] = []  # a loop, not a generator (a generator object per call when compiled)
    for group in st.psets[seat][0]:
        masks.append(group[1])
    groups = tuple(masks)
    shown = st.shown[:]
    shown[seat] = groups
    st.shown = shown
    if events is not None:
        mask = 0
        for m in groups:
            mask |= m
        mask &= st.hands[seat]
        events.append({"type": "show", "seat": seat, "cards": [CODE[q] for q in slots_of(mask)]})


def finish_trick(st: State, events: Events) -> None:
    """R13: the trick's winner takes its card points and leads next; R21 after trick 1."""
    table = st.table
    winner = st.win_seat
    leader = st.leader
    pts = POINTS[st.trump + 1]
    a, b, c, d = table
    points = pts[a] + pts[b] + pts[c] + pts[d]
    st.played |= (1 << a) | (1 << b) | (1 << c) | (1 << d)
    if st.trick_no == 8:
        points += LAST_TRICK_BONUS
    t = winner & 1
    card_points = st.card_points[:]
    card_points[t] += points
    st.card_points = card_points
    tricks_won = st.tricks_won[:]
    tricks_won[t] += 1
    st.tricks_won = tricks_won
    st.tricks = st.tricks + ((leader, (a, b, c, d), winner, st.lead_ekka),)
    if events is not None:
        events.append(
            {
                "type": "trick",
                "trick_no": st.trick_no,
                "winner": winner,
                "cards": [CODE[p] for p in table],
                "points": points,
            }
        )
    if st.trick_no == 1:
        compare_projects(st, events)
    st.trick_no += 1
    st.table = []
    st.lead_ekka = False
    st.led = st.win_seat = -1
    st.win_str = st.top_trump = 0
    if st.trick_no > 8:
        end_deal_scored(st, events)
        return
    st.leader = st.to_act = winner
    if st.trick_no == 2 and st.proj_team == t and st.shown[winner] is None:
        show(st, winner, events)


def compare_projects(st: State, events: Events) -> None:
    """R21: the declared best projects compete; the winner's team is the project team."""
    best = {s: st.psets[s][0][0][0] for s in range(4) if st.declared[s]}
    order = [(st.dealer + k) & 3 for k in (1, 2, 3, 4)]
    winner, reveal = compare_declared(best, order, st.kind, st.trump, st.opts.trump_first)
    revealed = st.revealed[:]
    for s in reveal:
        key = best[s]
        revealed[s] = (key[1], key[2])
    st.revealed = revealed
    if winner is not None:
        st.proj_team = winner & 1
    if events is not None and winner is not None:
        events.append(
            {
                "type": "projects",
                "team": st.proj_team,
                "seat": winner,
                "revealed": {
                    str(s): {"kind": SUBKIND_NAMES[best[s][1]], "top": SEQ_ORDER[7 - best[s][2]]}
                    for s in reveal
                },
            }
        )


def end_deal_scored(st: State, events: Events) -> None:
    """S1-S8, E2, E3: score the deal, then end the match or go to the next deal."""
    res = deal_result(st)
    st.result = res
    st.to_act = None
    if events is not None:
        events.append({"type": "points", **{k: res[k] for k in ("adds", "items", "winner")}})
    if st.gahwa:
        finish_match(st, res["winner"], events)
        return
    adds: list[int] = res["adds"]  # typed: one lookup, then native list reads
    st.scores = [st.scores[0] + adds[0], st.scores[1] + adds[1]]
    winner = match_winner_after(st.scores, st.opts.target)
    if winner is not None:
        finish_match(st, winner, events)
        return
    next_deal(st, events)


def end_deal_annulled(st: State, why: str, events: Events) -> None:
    """R7 (all pass twice) / R10 (kawesh): no score; E1, E4."""
    st.result = {"deal_no": st.deal_no, "annulled": why, "adds": [0, 0], "items": []}
    if st.kawesh is not None:
        st.result["kawesh"] = {
            "seat": st.kawesh[0],
            "cards": [CODE[q] for q in slots_of(st.kawesh[1])],
        }
    if events is not None:
        ev: dict[str, Any] = {"type": "deal_over", "annulled": why}
        if st.kawesh is not None:
            ev["kawesh"] = {
                "seat": st.kawesh[0],
                "cards": [CODE[q] for q in slots_of(st.kawesh[1])],
            }
        events.append(ev)
    next_deal(st, events)


def next_deal(st: State, events: Events) -> None:
    """E1: the next dealer is d+1; engine-dealt matches deal at once."""
    nxt = (st.dealer + 1) & 3
    if events is not None:
        events.append({"type": "deal_over", "next_dealer": nxt, "scores": list(st.scores)})
    if st.rng_state is None:
        st.phase = DEAL_OVER
        st.to_act = nxt
        return
    st.deal_no += 1
    st.dealer = nxt
    engine_deal(st)
    if events is not None:
        events.append({"type": "deal", "dealer": nxt, "deal_no": st.deal_no})


def deal(st: State, deck: list[int] | tuple[int, ...]) -> None:
    """R1: deal ``deck`` (slots, index 0 first) for ``st.dealer``: packets of three then
    two, position 20 face up as the candidate, 21-31 the stock; bidding starts at d+1."""
    reset_deal(st)
    st.hist_base = st.history
    d: int = st.dealer
    i: int = 0
    hands = st.hands
    # typed locals: the compiled build keeps them as C integers
    offset: int
    n: int
    mask: int
    for offset, n in DEAL_PACKETS:
        mask = 0
        for k in range(i, i + n):
            mask |= 1 << deck[k]
        hands[(d + offset) & 3] |= mask
        i += n
    st.candidate = deck[CANDIDATE_INDEX]
    st.stock = tuple(deck[CANDIDATE_INDEX + 1 :])
    st.phase = BIDDING
    st.to_act = (d + 1) & 3


def engine_deal(st: State) -> None:
    """E1: the next deal drawn from the state's generator (engine-dealt matches)."""
    # random.Random's C base: the same generator from the same seed (its getrandbits is
    # the base's), without random.Random's two interpreted frames (__init__, seed).
    rng = _random.Random(st.rng_state)
    deck = list(range(NSLOTS))
    shuffle(deck, rng)
    st.rng_state = rng.getrandbits(63)
    deal(st, deck)


# --------------------------------------------------------------------------- the search's turn


def to_act(st: State) -> int | None:
    """The seat to act, None once the match is over (the protocol's ``to_act``)."""
    return st.to_act


def is_playout_over(start: State, st: State) -> bool:
    """The protocol's ``is_playout_over`` on the compact state: the match is over, the
    deal of ``start`` has ended, or a deal waits for the caller's deck."""
    return st.to_act is None or st.deal_no != start.deal_no or st.phase == DEAL_OVER


# --------------------------------------------------------------------------- legal actions and checks


def follow_mask(st: State, seat: int) -> int:
    """R15-R17: the cards ``seat`` may play to the trick on the table, as a mask."""
    return legal_mask(
        st.hands[seat],
        duties(
            st.kind,
            st.trump,
            st.locked,
            st.opts,
            st.led,
            len(st.table),
            (st.win_seat ^ seat) & 1 == 0,
            st.top_trump,
            st.lead_ekka,
        ),
    )


def legal_actions(st: State) -> list[Any]:
    """The actions the seat to act may take, in canonical order (R2-R20, built from the
    same predicates ``why_illegal`` uses)."""
    phase = st.phase
    if phase == PLAY:
        seat: int = st.to_act  # type: ignore[assignment]  # never None while playing
        if project_pending(st):
            return [DECLARE, PASS_PROJECT]
        hand = st.hands[seat]
        if st.table:
            return slots_of(follow_mask(st, seat))
        if st.kind == HOKM:
            if st.locked:
                hand = legal_mask(hand, duties(HOKM, st.trump, True, st.opts, -1, 0, False, 0, False))
            return lead_actions(hand, HOKM, st.trump, st.played)
        return slots_of(hand)
    if phase == BIDDING:
        return [a for a in BID_ACTIONS if bid_why(st, a) is None]
    if phase == DOUBLING:
        return [a for a in DOUBLING_ACTIONS if double_refusal(a, st.kind, st.dstep, st.opts) == 0]
    if phase == CHOOSE_TRUMP:
        return [CHOOSE + s for s in range(4) if trump_error(CHOOSE + s, st.candidate) is None]
    return []


def bid_why(st: State, action: int) -> Why:
    """R2-R6, R10: ``bid_error`` for the seat to act."""
    seat: int = st.to_act  # type: ignore[assignment]  # never None while bidding
    return bid_error(
        action,
        seat=seat,
        dealer=st.dealer,
        round_=st.round,
        stage=st.stage,
        candidate=st.candidate,
        hand=st.hands[seat],
        opts=st.opts,
    )


def check_action(st: State, action: Any) -> None:
    """Raises IllegalAction (with the rule id) unless ``action`` is legal now."""
    why = why_illegal(st, action)
    if why is not None:
        raise IllegalAction(why[0], rule=why[1])


def why_illegal(st: State, action: Any) -> Why:
    """None if the seat to act may take ``action`` now, else (reason, rule id)."""
    phase = st.phase
    name = PHASE_NAMES[phase]
    if isinstance(action, tuple):
        if phase != DEAL_OVER:
            return (f"not allowed in phase {name}", "R1")
        try:
            read_deck([CODE[p] for p in action[1:]], "deck", BadAction)
        except BadAction as err:
            return (err.message, "R1")
        return None
    if not isinstance(action, int) or isinstance(action, bool):
        return ("unknown action", "action")
    if phase == DEAL_OVER:
        return ("the deal is over", "E1")
    if phase == MATCH_OVER:
        return ("the match is over", "E2")
    if phase == PLAY:
        return play_why(st, action)
    if phase == BIDDING:
        if action in BID_ACTIONS:
            return bid_why(st, action)
        return (f"not allowed in phase {name}", "R2")
    if phase == DOUBLING:
        if action == PASS or action in _DOUBLING_TYPES:
            return double_error(action, kind=st.kind, step=st.dstep, opts=st.opts)
        return (f"not allowed in phase {name}", "R11")
    if CHOOSE <= action < CHOOSE + 4:
        return trump_error(action, st.candidate)
    return (f"not allowed in phase {name}", "R8")


_DOUBLING_TYPES: Final = (DOUBLE_OPEN, DOUBLE_LOCKED, DOUBLE, TRIPLE, FOUR_OPEN, FOUR_LOCKED, FOUR, GAHWA)


def play_why(st: State, action: int) -> Why:
    """R12-R20: ``why_illegal`` in the play phase."""
    seat: int = st.to_act  # type: ignore[assignment]
    pending = project_pending(st)
    if action == DECLARE:
        if not pending:
            return ("no project to declare", "R20")
        return None
    if action == PASS_PROJECT:
        if not pending:
            return ("pass is only for a project decision in trick 1: play a card", "R20")
        return None
    if (
        action in _DOUBLING_TYPES
        and st.kind == SUN
        and st.trick_no == 1
        and not st.table
        and not sun_double_allowed(st.scores, st.bidder & 1, st.opts)
    ):
        return (sun_double_refusal(st.opts), "R12")
    if action >= 64:
        return ("not allowed in phase play", "R13")
    if pending:
        return ("declare your project or pass before playing", "R20")
    p = action & 31
    hand = st.hands[seat]
    if not hand >> p & 1:
        return (f"card not in hand: {CODE[p]}", "R13")
    if action >= EKKA:
        why = ekka_error(p, kind=st.kind, trump=st.trump, leading=not st.table, played=st.played)
        if why is not None:
            return why
    tiers = duties(
        st.kind,
        st.trump,
        st.locked,
        st.opts,
        st.led if st.table else -1,
        len(st.table),
        (st.win_seat ^ seat) & 1 == 0,
        st.top_trump,
        st.lead_ekka,
    )
    return play_error(hand, p, tiers, st.trump)


def without_ace_ekka(st: State, action: Any) -> Any:
    """R14: an "ekka": true on a led non-trump Ace is accepted and changes nothing."""
    if (
        isinstance(action, int)
        and EKKA <= action < 64
        and st.phase == PLAY
        and not st.table
        and st.kind == HOKM
        and CODE[action - EKKA][0] == "A"
        and SUIT_OF[action - EKKA] != st.trump
    ):
        return action - EKKA
    return action


def read_deck(deck: Any, where: str, error: type) -> list[int]:
    """R1: a deck of the 32 cards, each once (codes, top first), as slots; else raises
    ``error`` naming ``where``."""
    if not isinstance(deck, (list, tuple)) or len(deck) != NSLOTS:
        raise error(f"{where} must list the 32 cards of the Baloot pack", field=where)
    slots = []
    for code in deck:
        if not isinstance(code, str) or code not in SLOT:
            raise error(f"{where}: no such card in the Baloot pack: {code!r}", field=where)
        slots.append(SLOT[code])
    if len(set(slots)) != NSLOTS:
        dup = next(CODE[p] for p in slots if slots.count(p) > 1)
        raise error(f"{where}: card {dup} appears twice", field=where)
    return slots


# --------------------------------------------------------------------------- where the cards are


def cards_in_play(st: State) -> list[str]:
    """Every card in the hands, stock, candidate, table and tricks (a card counted twice is
    listed twice, so conservation fails)."""
    mask = 0
    for h in st.hands:
        mask |= h
    for p in st.stock:
        mask |= 1 << p
    if st.candidate >= 0 and not st.cand_taken:
        mask |= 1 << st.candidate
    for p in st.table:
        mask |= 1 << p
    mask |= st.played
    out = [CODE[p] for p in slots_of(mask)]
    extra = (
        len(st.stock)
        + sum(h.bit_count() for h in st.hands)
        + len(st.table)
        + st.played.bit_count()
        + (1 if st.candidate >= 0 and not st.cand_taken else 0)
    )
    if extra != len(out):  # a card counted twice shows as a conservation failure
        out.append(out[0])
    return out


def public_known(st: State) -> int:
    """Cards in hands that every seat knows (the taken candidate, shown projects, a kawesh hand)."""
    known = 0
    if st.cand_taken and st.candidate >= 0:
        known |= 1 << st.candidate
    for g in st.shown:
        if g:
            for m in g:
                known |= m
    if st.kawesh is not None:
        known |= st.kawesh[1]
    return known


def hidden_cards(st: State, seat: int) -> list[str]:
    """Section 7: the cards ``seat`` cannot see (other hands and the stock, less the public ones)."""
    known = public_known(st)
    mask = 0
    for s in range(4):
        if s != seat:
            mask |= st.hands[s]
    for p in st.stock:
        mask |= 1 << p
    return [CODE[p] for p in slots_of(mask & ~known)]
