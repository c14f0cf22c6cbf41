"""Baloot's rules as small pure functions on the compact state (the hot path).

Each predicate returns ``None`` when an action is allowed and ``(reason, rule)`` when
it is not; ``legal_actions`` and ``check_action`` are both built from them.
"""

from __future__ import annotations

from engine.games.baloot.options import Opts
from engine.games.baloot.tables import (
    ACE_SLOTS,
    BID_ASHKAL,
    BID_HOKM,
    BID_SUN,
    CHOOSE,
    CODE,
    DOUBLE,
    DOUBLE_LOCKED,
    DOUBLE_OPEN,
    DOUBLE_STEP,
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
    LOW_MASK,
    MAIN,
    PASS,
    PLAIN_STR,
    SUIT_CHARS,
    SUIT_MASK,
    SUIT_NAMES,
    SUIT_OF,
    SUIT_SINGULAR,
    SUN,
    SUN_DOUBLE_LINE,
    TRIPLE,
    TRIPLE_STEP,
    TRUMP_STR,
    TRUMPS_ABOVE,
)

Why = tuple[str, str] | None
"""None (allowed) or (reason, rule id)."""

# Kinds of follow tiers (R13 R15 R16 R17).
FOLLOW, TRUMP, BEAT, LOCK = range(4)

BYTE_SLOTS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(8 * s + i for i in range(8) if b >> i & 1) for b in range(256)) for s in range(4)
)


_LOW: tuple[tuple[int, ...], ...] = tuple(
    BYTE_SLOTS[0][m & 0xFF] + BYTE_SLOTS[1][m >> 8] for m in range(1 << 16)
)
_HIGH: tuple[tuple[int, ...], ...] = tuple(
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


BID_ACTIONS = (PASS, BID_HOKM, BID_SUN, BID_ASHKAL, KAWESH)


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


DOUBLING_ACTIONS = (
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
_STEP_VERB = {DOUBLE_STEP: "double", TRIPLE_STEP: "triple", FOUR_STEP: "four", GAHWA_STEP: "gahwa"}
_VERB_OF = {
    DOUBLE_OPEN: DOUBLE_STEP,
    DOUBLE_LOCKED: DOUBLE_STEP,
    DOUBLE: DOUBLE_STEP,
    TRIPLE: TRIPLE_STEP,
    FOUR_OPEN: FOUR_STEP,
    FOUR_LOCKED: FOUR_STEP,
    FOUR: FOUR_STEP,
    GAHWA: GAHWA_STEP,
}


def double_error(action: int, *, kind: int, step: int, opts: Opts) -> Why:
    """R11 (Hokm) / R12 (Sun): whether ``action`` is the call allowed at this step."""
    if action == PASS:
        return None
    rule = "R11" if kind == HOKM else "R12"
    if _VERB_OF.get(action) != step:
        return (f"only pass or {_STEP_VERB[step]} is allowed now", rule)
    if kind == SUN:
        if action != DOUBLE:
            return ("sun has no trumps to lock", "R12")
        return None
    if action == DOUBLE:
        return ("say locked or open", "R11")
    if step == FOUR_STEP:
        if opts.four_lock_choice and action == FOUR:
            return ("say locked or open", "R11")
        if not opts.four_lock_choice and action != FOUR:
            return ("four is always open in this match", "R11")
    return None


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
            return ((FULL & ~SUIT_MASK[trump], LOCK, "R13"),)
        return ()
    if kind == SUN:
        return ((SUIT_MASK[led], FOLLOW, "R15"),)
    trumps = SUIT_MASK[trump]
    if led == trump:
        if opts.lead_beat_always or not partner_winning:
            return ((TRUMPS_ABOVE[trump][top_trump], BEAT, "R16"), (trumps, FOLLOW, "R16"))
        return ((trumps, FOLLOW, "R16"),)
    follow = (SUIT_MASK[led], FOLLOW, "R17")
    if partner_winning:
        ex = opts.exemption
        if ex == 1 or (ex == 0 and (played == 3 or (played == 2 and lead_ekka))):
            return (follow,)
    if top_trump:
        if opts.must_undertrump:
            return (follow, (TRUMPS_ABOVE[trump][top_trump], BEAT, "R17"), (trumps, TRUMP, "R17"))
        return (follow, (TRUMPS_ABOVE[trump][top_trump], BEAT, "R17"))
    return (follow, (trumps, TRUMP, "R17"))


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
        if kind == HOKM and SUIT_OF[p] != trump and p not in ACE_SLOTS and ekka_eligible(p, played):
            out.append(EKKA + p)
    return out
