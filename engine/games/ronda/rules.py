"""Ronda's rules R2-R32 as small functions over :class:`RondaState`.

Each function's docstring starts with its rule id. ``events`` is a list to append
JSON events to, or None on the search's fast path (then nothing is built).
"""

from __future__ import annotations

import random
from typing import Any, Final

from engine.cards import card_code
from engine.games.ronda.items import CHAIN_ITEMS, ITEMS
from engine.games.ronda.scoring import Events, award, end_match, r32_match_over
from engine.games.ronda.state import RondaState
from engine.games.ronda.tables import (
    CARD_THRESHOLD,
    CHALLENGE_BASE,
    CHALLENGE_P,
    COMBO_NAMES,
    DEAL_MARK,
    DEAL_OVER_P,
    DECLARE_BASE,
    DECLARE_P,
    DOUBLE,
    MATCH_OVER_P,
    NONE,
    PACK,
    PASS,
    PENALTY,
    PHASE_NAMES,
    PHASE_RULE,
    PHASE_VERBS,
    PLAY_P,
    RBIT,
    RONDA,
    RR,
    TRINGA,
)
from engine.protocol import IllegalAction
from engine.sampling import shuffle

MISSA_ITEM: Final = ITEMS.text("missa")
ESTE_ITEM: Final = ITEMS.text("este")
CHAIN_ITEM_TEXTS: Final = tuple(ITEMS.text(key) if key else "" for key in CHAIN_ITEMS)
DECLARATIONS_ITEM: Final = ITEMS.text("declarations")
UNCONTESTED_ITEM: Final = ITEMS.text("declarations_uncontested")
WITHDRAWN_ITEM: Final = ITEMS.text("provisional_award_withdrawn")
CARD_POINTS_ITEMS: Final = tuple(ITEMS.text("card_points", count=count) for count in range(41))
CHALLENGED_ITEMS: Final = tuple(
    tuple(ITEMS.text("false_declaration_challenged", declared=name, seat=seat) for seat in range(4))
    for name in COMBO_NAMES
)
EQUAL_TOP_ITEMS: Final = tuple(
    tuple(ITEMS.text("equal_top_declaration", declared=name, seat=seat) for seat in range(4))
    for name in COMBO_NAMES
)
FALSE_ITEMS: Final = tuple(
    tuple(
        tuple(ITEMS.text("false_declaration", seat=seat, declared=said, held=held) for held in COMBO_NAMES)
        for said in COMBO_NAMES
    )
    for seat in range(4)
)
"""R13, R15, R17, R18, R21, R23, R24, R28: the items the search scores in every playout,
written once (a template filled per playout would cost a Python call in the compiled
build's hot loop): R28's by the count of cards taken (40 at most), the declarations' by
combination and seat (4 seats at most)."""

_CARDS: Final[dict[int, list[int]]] = {}
"""``cards_of``'s memo (Final, as every table the rules read per move: a C static when compiled)."""


def cards_of(mask: int) -> list[int]:
    """The cards of ``mask`` ascending (= canonical order: rank index, then suit S H D C).
    Memoised: hands are small and repeat a lot. Returns a shared list: do not mutate."""
    out = _CARDS.get(mask)
    if out is None:
        out = []
        m = mask
        while m:
            low = m & -m
            out.append(low.bit_length() - 1)
            m ^= low
        if len(_CARDS) < 400_000:
            _CARDS[mask] = out
    return out


def codes_of(mask: int) -> list[str]:
    return [card_code(c) for c in cards_of(mask)]


# --------------------------------------------------------------------------- holdings


_HOLD: Final[dict[int, tuple[int, tuple[int, tuple[int, ...]]]]] = {}
"""``holding``'s memo, by dealt cards."""


def holding(dealt: int) -> tuple[int, tuple[int, tuple[int, ...]]]:
    """R8/R12/R14: ``(combo, strength key)`` of the cards a seat received this hand.

    Combo: 3 of a rank -> tringa; one rank 4 times or two pairs -> double ronda; one pair ->
    ronda; else none. Strength key (R14): tringa ``(2, (rank,))``; ronda class
    ``(1, pair ranks high to low)`` (four of a kind is ``[r, r]``); tuples compare like R14
    (a longer list wins over its prefix).
    """
    got = _HOLD.get(dealt)
    if got is not None:
        return got
    counts = [0] * 10
    for c in cards_of(dealt):
        counts[RR[c]] += 1
    pairs: list[int] = []
    result: tuple[int, tuple[int, tuple[int, ...]]] = (NONE, (0, ()))
    for r in range(9, -1, -1):
        k = counts[r]
        if k == 3:
            result = (TRINGA, (2, (r,)))
            break
        if k == 4:
            pairs += [r, r]
        elif k == 2:
            pairs.append(r)
    else:
        if len(pairs) >= 2:
            result = (DOUBLE, (1, tuple(pairs)))
        elif pairs:
            result = (RONDA, (1, tuple(pairs)))
    _HOLD[dealt] = result
    return result


# --------------------------------------------------------------------------- dealing


def is_four_card_run(table: list[int]) -> bool:
    """R6.2: four table ranks that are four consecutive positions of the rank sequence."""
    ranks = {RR[c] for c in table}
    return len(table) == 4 and len(ranks) == 4 and max(ranks) - min(ranks) == 3


def return_to_stock(stock: list[int], back: list[int], rng: random.Random | None) -> list[int]:
    """R6: returned cards go to the bottom of the stock in the order removed, then the whole
    stock is shuffled when a generator is given (``shuffle_returned_cards``)."""
    stock = stock + back
    if rng is not None:
        shuffle(stock, rng)  # rng.shuffle's draws, faster
    return stock


def r6_initial_table_check(
    table: list[int], stock: list[int], rng: random.Random | None
) -> tuple[list[int], list[int]]:
    """R6: send back duplicate ranks (all but the first-dealt of a rank), then the last card
    of a four-card run, replacing each from the stock top, until neither holds."""
    for _ in range(10_000):
        seen = 0
        keep: list[int] = []
        back: list[int] = []
        for c in table:
            if seen & RBIT[c]:
                back.append(c)
            else:
                seen |= RBIT[c]
                keep.append(c)
        if not back and is_four_card_run(table):
            keep, back = table[:-1], table[-1:]
        if not back:
            return table, stock
        stock = return_to_stock(stock, back, rng)
        table = keep + stock[: len(back)]
        stock = stock[len(back) :]
    raise ValueError("the initial-table check does not end with this deck")


def deal_batches(s: RondaState, cards: tuple[int, ...] | list[int], size: int) -> None:
    """R3/R4/R5: one batch of ``size`` cards per seat, starting with ``dealer+1``."""
    n = s.n
    for k in range(n):
        mask = 0
        for c in cards[size * k : size * k + size]:
            mask |= 1 << c
        s.hands[(s.dealer + 1 + k) % n] = mask


def start_deal(s: RondaState, deck: list[int], rng: random.Random | None, events: Events) -> None:
    """R2-R6: a new deal from ``deck`` (top first) by ``s.dealer``; then opens hand 1."""
    pat = s.o.pattern
    n = s.n
    deal_batches(s, deck, pat.first)
    pos = pat.first * n
    table = list(deck[pos : pos + pat.table])
    stock = list(deck[pos + pat.table :])
    if pat.table:
        table, stock = r6_initial_table_check(table, stock, rng)
    s.table = table
    s.trank = 0
    for c in table:
        s.trank |= RBIT[c]
    s.stock = tuple(stock)
    s.hand_no = 1
    s.piles = [0] * s.nsides
    s.last_cap = -1
    s.items = None
    if s.hist is not None:  # the history of earlier deals is kept apart (views omit it)
        k = 0
        h = s.hist
        while h is not None:
            k += 1
            h = h[0]
        s.old_hist = (s.old_hist, s.hist)
        s.old_len += k
        s.hist = None
    if events is not None:
        events.append(
            {"type": "deal", "deal_no": s.deal_no, "dealer": s.dealer, "table": [card_code(c) for c in table]}
        )
    open_hand(s, events)


def deal_terminates(s: RondaState, deck: tuple[int, ...] | list[int]) -> bool:
    """R6: whether the initial-table check ends for this caller's deck (it always does in
    practice; a deck that would loop is refused rather than hanging)."""
    pat = s.o.pattern
    if not pat.table:
        return True
    pos = pat.first * s.n
    rng = caller_deal_rng(deck) if s.o.shuffle_returned else None
    try:
        r6_initial_table_check(list(deck[pos : pos + pat.table]), list(deck[pos + pat.table :]), rng)
    except ValueError:
        return False
    return True


def engine_deal(s: RondaState, events: Events) -> None:
    """R2/R29: the next deal shuffled with the state's generator (an engine-dealt match)."""
    rng = random.Random(s.rng_state)
    draw = rng.random
    # A uniform shuffle, cheaper than rng.shuffle: the pack sorted by one random key per
    # card, drawn in pack order (as sorted(PACK, key=...) draws them, without its calls).
    keys = [draw() for _ in PACK]
    deck = [PACK[i] for i in sorted(range(len(PACK)), key=keys.__getitem__)]
    start_deal(s, deck, rng if s.o.shuffle_returned else None, events)
    s.rng_state = rng.getrandbits(63)


def caller_deal_rng(deck: tuple[int, ...] | list[int]) -> random.Random:
    """R6 with ``shuffle_returned_cards`` in a caller-dealt match (no generator in the state):
    a generator seeded from the deck itself, so the deal is still reproducible."""
    return random.Random(" ".join(card_code(c) for c in deck))


def r5_next_hand(s: RondaState, events: Events) -> None:
    """R5: the same dealer deals the next hand from the top of the stock; no table cards."""
    size = s.o.pattern.later
    take = size * s.n
    deal_batches(s, s.stock, size)
    s.stock = s.stock[take:]
    s.hand_no += 1
    if events is not None:
        events.append({"type": "hand", "hand_number": s.hand_no, "stock": len(s.stock)})
    open_hand(s, events)


def open_hand(s: RondaState, events: Events) -> None:
    """R8/R10/R22: a hand begins: dealt = hands, declarations cleared, last_drop and chain
    cleared; a declaration round opens (or, with auto_declare, true holdings are recorded)."""
    s.dealt = s.hands[:]
    s.challenged = 0
    s.withdrawn = 0
    s.prov_side = -1
    s.prov_pts = 0
    s.last_drop = -1
    s.chain = None
    if s.o.auto_declare:
        s.decl = [holding(h)[0] for h in s.dealt]
        r15_settle_at_once(s, events)
    else:
        s.decl = [-1] * s.n
        s.phase = DECLARE_P
        s.to_act = (s.dealer + 1) % s.n


# --------------------------------------------------------------------------- declarations


def can_declare(s: RondaState, combo: int) -> bool:
    """R8/R12: pass, ronda and tringa are always legal; double_ronda only with 4 dealt cards."""
    return combo != DOUBLE or s.dealt[s.to_act].bit_count() == 4


def declare_actions(s: RondaState) -> list[int]:
    """R8: the legal declarations, in the canonical order pass, ronda, tringa, double_ronda."""
    return [DECLARE_BASE + c for c in (NONE, RONDA, TRINGA, DOUBLE) if can_declare(s, c)]


def r8_declare(s: RondaState, combo: int, events: Events) -> None:
    """R8: record the seat's declaration (public, rank never shown); R11 after the round."""
    seat = s.to_act
    s.decl[seat] = combo
    if events is not None:
        events.append({"type": "declare", "seat": seat, "combo": COMBO_NAMES[combo]})
    if seat != s.dealer:
        s.to_act = (seat + 1) % s.n
    else:
        r11_after_declarations(s, events)


def r11_after_declarations(s: RondaState, events: Events) -> None:
    """R11: challenge round if challenges are played (and n != 3), else settle (R15)."""
    if s.o.challenges:
        r13_next_asked(s, -1, events)
    else:
        r15_settle_at_once(s, events)


def is_open_target(s: RondaState, seat: int, target: int) -> bool:
    """R13: ``target`` is a seat of another side with a declaration other than none that has
    not been challenged yet."""
    return target % s.nsides != seat % s.nsides and s.decl[target] > 0 and not s.challenged >> target & 1


def open_targets(s: RondaState, seat: int) -> list[int]:
    """R13: every open target of ``seat``, ascending."""
    return [t for t in range(s.n) if is_open_target(s, seat, t)]


def challenge_actions(s: RondaState) -> list[int]:
    """R13: pass, then a challenge of each open target in ascending order."""
    return [PASS] + [CHALLENGE_BASE + t for t in open_targets(s, s.to_act)]


def r13_next_asked(s: RondaState, after: int, events: Events) -> None:
    """R13: the next seat after ``after`` (round order from dealer+1, ending with the dealer;
    ``after`` = -1 opens the round) that has an open target is asked; when none is left the
    round ends (R15)."""
    n = s.n
    pos = 0 if after < 0 else (after - s.dealer - 1) % n + 1
    for k in range(pos, n):
        seat = (s.dealer + 1 + k) % n
        if open_targets(s, seat):
            s.phase = CHALLENGE_P
            s.to_act = seat
            return
    r15_settle_at_once(s, events)


def r13_challenge(s: RondaState, target: int, events: Events) -> None:
    """R13: reveal ``target``'s dealt cards; a genuine declaration wins the match for its
    side at once, a false one is withdrawn and pays max(pen(declared), pen(holding)) to
    every other side."""
    seat = s.to_act
    s.challenged |= 1 << target
    held = holding(s.dealt[target])[0]
    said = s.decl[target]
    if events is not None:
        events.append(
            {
                "type": "challenge",
                "seat": seat,
                "target": target,
                "revealed": codes_of(s.dealt[target]),
                "genuine": said == held,
            }
        )
    tside = target % s.nsides
    if said == held:
        end_match(s, tside, events)
        return
    s.withdrawn |= 1 << target
    pen = max(PENALTY[said], PENALTY[held])
    for side in range(s.nsides):
        if side != tside:
            item = CHALLENGED_ITEMS[said][target]
            award(s, side, pen, item, "R13", events)
    if r32_match_over(s, events):
        return
    r13_next_asked(s, seat, events)


def r13_pass(s: RondaState, events: Events) -> None:
    """R13: an asked seat passes; the round goes on."""
    r13_next_asked(s, s.to_act, events)


def standing(s: RondaState) -> list[int]:
    """R15/R17: seats whose declaration is not none and not withdrawn."""
    return [seat for seat in range(s.n) if s.decl[seat] > 0 and not s.withdrawn >> seat & 1]


def r15_settle_at_once(s: RondaState, events: Events) -> None:
    """R15: if every standing declaration of the top class (tringa, else ronda class) is on
    one side, that side scores all standing declarations at once (provisional award).
    Then the play begins with dealer+1."""
    s.phase = PLAY_P
    s.to_act = (s.dealer + 1) % s.n
    v = standing(s)
    if not v:
        return
    decl = s.decl
    top_tringa = any(decl[seat] == TRINGA for seat in v)
    sides = {seat % s.nsides for seat in v if (decl[seat] == TRINGA) == top_tringa}
    if len(sides) != 1:
        return
    side = sides.pop()
    points = sum(s.o.values[decl[seat]] for seat in v)
    s.prov_side = side
    s.prov_pts = points
    award(s, side, points, UNCONTESTED_ITEM, "R15", events)
    r32_match_over(s, events)


def r17_settle_hand(s: RondaState, events: Events) -> None:
    """R17/R18: at the end of a hand, replace the provisional award by the correct award of
    the genuine declarations, and charge every violation; one batch, then R32."""
    n = s.n
    ns = s.nsides
    values = s.o.values
    held = [holding(s.dealt[seat]) for seat in range(n)]
    batch: list[tuple[int, int, str, str]] = []
    genuine = [
        seat
        for seat in range(n)
        if not s.withdrawn >> seat & 1 and s.decl[seat] > 0 and s.decl[seat] == held[seat][0]
    ]
    awards: list[tuple[int, int, str, str]] = []
    if genuine:
        best = max(held[seat][1] for seat in genuine)
        top = [seat for seat in genuine if held[seat][1] == best]
        top_sides = {seat % ns for seat in top}
        if len(top_sides) == 1:
            total = sum(values[s.decl[seat]] for seat in genuine)
            awards.append((top_sides.pop(), total, DECLARATIONS_ITEM, "R17"))
        else:
            for seat in top:
                item = EQUAL_TOP_ITEMS[s.decl[seat]][seat]
                awards.append((seat % ns, values[s.decl[seat]], item, "R17"))
    if s.prov_side >= 0:
        if len(awards) == 1 and awards[0][:2] == (s.prov_side, s.prov_pts):
            awards = []  # steps 1-2 cancel exactly
        else:
            batch.append((s.prov_side, -s.prov_pts, WITHDRAWN_ITEM, "R17"))
        s.prov_side = -1
        s.prov_pts = 0
    batch += awards
    for seat in range(n):
        said = s.decl[seat]
        if s.withdrawn >> seat & 1 or said < 0 or said == held[seat][0]:
            continue
        pen = max(PENALTY[said], PENALTY[held[seat][0]])
        what = FALSE_ITEMS[seat][said][held[seat][0]]
        for side in range(ns):
            if side != seat % ns:
                batch.append((side, pen, what, "R18"))
    if batch:
        for side, points, item, rule in batch:
            award(s, side, points, item, rule, events)
        r32_match_over(s, events)


# --------------------------------------------------------------------------- play


def captured_ranks(table_ranks: int, card: int) -> int:
    """R20: the ranks that playing ``card`` captures from a table holding the ranks
    ``table_ranks`` (a mask by rank): its own rank and the unbroken run of ranks above it;
    0 when the table holds none of its rank."""
    bit = RBIT[card]
    if not table_ranks & bit:
        return 0
    m = table_ranks // bit  # the ranks from the matched one up
    return ((m ^ (m + 1)) >> 1) * bit


def r19_play(s: RondaState, card: int, events: Events) -> None:
    """R19-R25: play ``card``: a chain claim (R24), else a capture with its run (R20, este
    R21), else a drop; missa (R23) on an emptied table except on the deal's last play."""
    seat = s.to_act
    bit = 1 << card
    hands = s.hands
    hands[seat] ^= bit
    r = RR[card]
    side = seat % s.nsides
    end_of_hand = seat == s.dealer and not hands[seat]
    last_play = end_of_hand and not s.stock
    points = 0
    chain = s.chain
    if chain is not None and chain[0] == r and chain[1] < s.o.chain_levels:
        level = chain[1]
        packet = chain[3]
        s.piles[chain[2] % s.nsides] &= ~packet
        packet |= bit
        if s.trank & RBIT[card]:  # R21 stays_on_table: the este's card, claimed with its packet
            packet |= _take_rank(s, r)
        s.piles[side] |= packet
        s.chain = (r, level + 1, seat, packet)
        s.last_drop = -1
        name = CHAIN_ITEM_TEXTS[level]
        bonus = s.o.chain_bonus[level - 1]  # its house rules are named by scoring.item_options
        if events is not None:
            events.append(
                {
                    "type": "claim",
                    "seat": seat,
                    "card": card_code(card),
                    "packet": codes_of(packet),
                    "level": level + 1,
                }
            )
        award(s, side, bonus, name, "R24", events)
        points = bonus
        if not s.trank and not last_play:
            award(s, side, 1, MISSA_ITEM, "R23", events)
    elif s.trank & RBIT[card]:
        run = captured_ranks(s.trank, card)
        s.trank &= ~run
        packet = bit
        keep = []
        for c in s.table:
            if RBIT[c] & run:
                packet |= 1 << c
            else:
                keep.append(c)
        s.table = keep
        s.piles[side] |= packet
        s.last_cap = seat
        if events is not None:
            events.append(
                {"type": "capture", "seat": seat, "card": card_code(card), "cards": codes_of(packet & ~bit)}
            )
        if s.last_drop >= 0 and RR[s.last_drop] == r:
            if s.o.este_card_stays:  # R21 stays_on_table: the capturing card stays face up
                packet ^= bit
                s.piles[side] ^= bit
                s.table.append(card)
                s.trank |= RBIT[card]
            award(s, side, 1, ESTE_ITEM, "R21", events)
            points = 1
            s.chain = (r, 1, seat, packet) if s.o.chains else None
        else:
            s.chain = None
        s.last_drop = -1
        if not s.trank and not last_play:
            award(s, side, 1, MISSA_ITEM, "R23", events)
            points = 1
    else:
        s.table.append(card)
        s.trank |= RBIT[card]
        s.last_drop = card
        s.chain = None
        if events is not None:
            events.append({"type": "drop", "seat": seat, "card": card_code(card)})
    if points and r32_match_over(s, events):
        return
    if end_of_hand:
        r26_end_of_hand(s, events)
    else:
        s.to_act = (seat + 1) % s.n


def _take_rank(s: RondaState, r: int) -> int:
    """R21 stays_on_table: take the table's card of rank ``r`` (the este's capturing card
    that stayed) off the table; its bit."""
    keep = []
    taken = 0
    for c in s.table:
        if RR[c] == r:
            taken = 1 << c
        else:
            keep.append(c)
    s.table = keep
    s.trank &= ~(1 << r)
    return taken


def claims_chain(s: RondaState, card: int) -> bool:
    """R24: playing ``card`` now claims a chain bonus (b'khamsa or b'achra)."""
    chain = s.chain
    return chain is not None and chain[0] == RR[card] and chain[1] < s.o.chain_levels


def r26_end_of_hand(s: RondaState, events: Events) -> None:
    """R26: settle the hand (R17); then the next hand (R5) or the end of the deal (R27)."""
    r17_settle_hand(s, events)
    if s.phase == MATCH_OVER_P:
        return
    if s.stock:
        r5_next_hand(s, events)
    else:
        r27_end_of_deal(s, events)


def r27_end_of_deal(s: RondaState, events: Events) -> None:
    """R27-R29: leftovers to the last capturer's side, card points above the threshold,
    then the next deal (engine-dealt) or the wait for a caller's deck (deal_over)."""
    ns = s.nsides
    if s.table:
        # Some capture always happens in a real deal; a layout may start without one:
        # then the dealer's side takes the leftovers.
        taker = s.last_cap if s.last_cap >= 0 else s.dealer
        left = 0
        for c in s.table:
            left |= 1 << c
        s.piles[taker % ns] |= left
        if events is not None:
            events.append({"type": "leftovers", "side": taker % ns, "cards": [card_code(c) for c in s.table]})
        s.table = []
        s.trank = 0
    threshold = CARD_THRESHOLD[s.n]
    scored = False
    for side in range(ns):
        count = s.piles[side].bit_count()
        if count > threshold:
            award(s, side, count - threshold, CARD_POINTS_ITEMS[count], "R28", events)
            scored = True
    if events is not None:
        events.append({"type": "deal_over", "deal_no": s.deal_no, "scores": s.scores[:]})
    # The table is empty now, so no drop or chain survives the deal, even when the
    # card points end the match below.
    s.last_drop = -1
    s.chain = None
    if scored and r32_match_over(s, events):
        return
    s.phase = DEAL_OVER_P
    s.to_act = (s.dealer + 1) % s.n
    if s.rng_state is not None:
        new_deal(s, None, events)


def new_deal(s: RondaState, deck: tuple[int, ...] | None, events: Events) -> None:
    """R29/R30: the dealer passes to dealer+1 and the next deal starts (R2)."""
    s.dealer = (s.dealer + 1) % s.n
    s.deal_no += 1
    if deck is None:
        engine_deal(s, events)
    else:
        rng = caller_deal_rng(deck) if s.o.shuffle_returned else None
        start_deal(s, list(deck), rng, events)


def to_act(s: RondaState) -> int | None:
    """The seat to act, or None when the match is over."""
    return None if s.to_act < 0 else s.to_act


def is_playout_over(start: RondaState, s: RondaState) -> bool:
    """Where a search playout from ``start`` stops (the protocol's ``is_playout_over``): the
    match is over, or the deal of ``start`` has ended (the next one, or a wait for a
    caller's deck, began)."""
    return s.to_act < 0 or s.deal_no != start.deal_no or s.phase == DEAL_OVER_P


def step(s: RondaState, action: Any, events: Events = None) -> None:
    """Apply a legal action in place and record it in the history."""
    seat = s.to_act
    if type(action) is int:
        s.hist = (s.hist, seat, action)
        if action < 52:
            r19_play(s, action, events)
        elif action < CHALLENGE_BASE:
            if s.phase == DECLARE_P:
                r8_declare(s, action - DECLARE_BASE, events)
            else:
                r13_pass(s, events)
        else:
            r13_challenge(s, action - CHALLENGE_BASE, events)
    else:
        s.decks = (s.decks, action)
        new_deal(s, action, events)
        s.hist = (s.hist, seat, DEAL_MARK)


def legal_actions(s: RondaState) -> list[Any]:
    """Every legal action of the seat to act, canonical order (R8, R13, R19)."""
    phase = s.phase
    if phase == PLAY_P:
        return cards_of(s.hands[s.to_act])[:]
    if phase == DECLARE_P:
        return declare_actions(s)
    if phase == CHALLENGE_P:
        return challenge_actions(s)
    return []


# --------------------------------------------------------------------------- action checks


def verb_of(action: Any) -> str:
    """The verb of an internal action: a card int (play), PASS, a declaration or challenge
    int, or a caller's deal (a tuple of 40 card ints)."""
    if type(action) is not int:
        return "deal"
    if action < 52:
        return "play"
    if action == PASS:
        return "pass"
    return "declare" if action < CHALLENGE_BASE else "challenge"


PHASES_OF_VERB = {"pass": (DECLARE_P, CHALLENGE_P), "declare": (DECLARE_P,), "challenge": (CHALLENGE_P,),
                  "play": (PLAY_P,), "deal": (DEAL_OVER_P,)}  # fmt: skip
"""R8, R13, R19, R29: the phases in which each verb is played."""


def check_action(s: RondaState, action: Any) -> None:
    """R2, R6, R8, R12, R13, R19, R29: raises IllegalAction (with the rule id) unless the
    seat to act may take ``action`` now."""
    verb = verb_of(action)
    if verb == "challenge" and not s.o.challenges:
        raise IllegalAction("challenges are not played in this game", rule="R13")
    if s.phase not in PHASES_OF_VERB[verb]:
        name = PHASE_NAMES[s.phase]
        raise IllegalAction(f"wrong phase: {name} expects {PHASE_VERBS[s.phase]}", rule=PHASE_RULE[s.phase])
    if verb == "deal":
        if len(set(action)) != len(PACK):
            raise IllegalAction("the deck must hold each of the 40 cards exactly once", rule="R2")
        if not deal_terminates(s, action):
            raise IllegalAction("with this deck the initial-table check never ends", rule="R6")
    elif verb == "declare":
        if not can_declare(s, action - DECLARE_BASE):
            raise IllegalAction("double_ronda needs a four-card hand", rule="R12")
    elif verb == "challenge":
        target = action - CHALLENGE_BASE
        if not is_open_target(s, s.to_act, target):
            raise IllegalAction(f"seat {target} has no open declaration you can challenge", rule="R13")
    elif verb == "play" and not s.hands[s.to_act] >> action & 1:
        raise IllegalAction(f"card not in hand: {card_code(action)}", rule="R19")


# --------------------------------------------------------------------------- invariants


def cards_in_play(s: RondaState) -> list[str]:
    """Every card wherever it lies (hands, table, stock, piles), as codes."""
    cards: list[int] = []
    for h in s.hands:
        cards += cards_of(h)
    cards += s.table
    cards += s.stock
    for p in s.piles:
        cards += cards_of(p)
    return [card_code(c) for c in cards]


def hidden_cards(s: RondaState, seat: int) -> list[str]:
    """The cards ``seat`` cannot see: the stock and the hands of the unchallenged others."""
    cards: list[int] = list(s.stock)
    for t in range(s.n):
        if t != seat and not s.challenged >> t & 1:
            cards += cards_of(s.hands[t])
    return [card_code(c) for c in cards]
