"""Porrazo's rules as small functions on :class:`PState` (rules file section 4): legal
actions, action checks, dealing, the play and the end of a deal. The points they award
are :mod:`engine.games.porrazo.scoring`'s.

The checked path (``check_action``) and the fast path (``legal_actions`` +
``step``) use the same predicates (``can_decline``, ``claimable``, ...).
"""

from __future__ import annotations

import random
from typing import Any, Final

from engine.cards import card_code
from engine.games.porrazo.items import ITEMS
from engine.games.porrazo.scoring import (
    Events,
    award,
    card_count,
    end_match,
    group_points,
    limpia_rank,
    place_points,
    settlement,
)
from engine.games.porrazo.state import Item, PState, push_history
from engine.games.porrazo.tables import (
    CLAIM,
    COMBO_NAMES,
    COUNTER,
    COUNTER_MULTIPLIER,
    DECLARE_RONDA,
    DECLARE_RONDINE,
    DECLINE,
    DISCARD,
    HAND_CARDS,
    NO_COMBO,
    P_CLAIM,
    P_DEAL_OVER,
    P_DECLARE,
    P_PLAY,
    P_TENDIDO,
    PASS,
    PHASE_NAMES,
    PORRAZO,
    RANK_VALUE,
    RONDA,
    RONDINE,
    TENDIDO,
    TENDIDO_CARDS,
    order_from_left,
)
from engine.protocol import IllegalAction

TENDIDO_PLACE_ITEM: Final = ITEMS.text("tendido_place")
TENDIDO_GROUPS_ITEM: Final = ITEMS.text("tendido_groups")
EN_SU_LUGAR_ITEM: Final = ITEMS.text("en_su_lugar")
PORRAZO_ITEM: Final = ITEMS.text("porrazo")
COUNTER_PORRAZO_ITEM: Final = ITEMS.text("counter_porrazo")
LIMPIA_ITEM: Final = ITEMS.text("limpia")
"""The play's items, written once (the search scores them in every playout)."""

# --------------------------------------------------------------------------- predicates


def holding(dealt: tuple[int, ...]) -> tuple[int, int]:
    """R9: (kind, rank) of the combination in three dealt cards: kind RONDINE when all
    three share a rank, RONDA when exactly two do, else (NO_COMBO, -1)."""
    if len(dealt) != HAND_CARDS:
        return NO_COMBO, -1
    a, b, c = dealt[0] >> 2, dealt[1] >> 2, dealt[2] >> 2
    if a == b == c:
        return RONDINE, a
    if a == b or a == c:
        return RONDA, a
    if b == c:
        return RONDA, b
    return NO_COMBO, -1


def own_hand_hidden(st: PState, seat: int) -> bool:
    """R6: in tendido_choice the dealer does not see his own new hand."""
    return st.phase == P_TENDIDO and seat == st.dealer


def table_has_rank(table: list[int], rank: int) -> bool:
    """R12: whether the table holds a card of ``rank``."""
    for c in table:
        if c >> 2 == rank:
            return True
    return False


def take_run(table: list[int], rank: int) -> list[int]:
    """R12: the table cards a card of ``rank`` played face up captures, taken off ``table``:
    one of its rank, then one of each next rank in turn (K wraps to A) while the table holds
    one, never coming back to its own rank; of several cards of a rank, the most recent
    (section 8, 6). Empty when the table holds no card of its rank (a discard)."""
    taken: list[int] = []
    for k in range(13):
        want = (rank + k) % 13
        for i in range(len(table) - 1, -1, -1):
            if table[i] >> 2 == want:
                taken.append(table.pop(i))
                break
        else:
            break
    return taken


def is_porrazo(st: PState, rank: int) -> bool:
    """R15: a capture with a card of the rank the previous play dropped is a porrazo."""
    ch = st.chain
    return ch is not None and ch[0] == DISCARD and ch[1] == rank


def is_counter(st: PState, rank: int) -> bool:
    """R16: a card of this rank right after a porrazo of the same rank is a counter-porrazo."""
    ch = st.chain
    return ch is not None and ch[0] == PORRAZO and ch[1] == rank


def is_san_benito(st: PState, rank: int) -> bool:
    """R17: a card of this rank right after a counter-porrazo of the same rank is a San Benito."""
    ch = st.chain
    return ch is not None and ch[0] == COUNTER and ch[1] == rank


def can_decline(st: PState, card: int) -> bool:
    """R14: a capture with ``card`` may be declined (option on; rank A-4; the table holds
    that rank and then has number(r) cards; not a counter-porrazo / San Benito)."""
    rank = card >> 2
    if not st.o.decline or rank > 3 or len(st.table) != rank:
        return False
    ch = st.chain
    if ch is not None and ch[0] != DISCARD and ch[1] == rank:
        return False
    return table_has_rank(st.table, rank)


def claimable(st: PState, seat: int) -> list[int]:
    """R21: holders whose undeclared, unclaimed combination ``seat`` may claim, in order
    from the dealer's left (never its own side's)."""
    side_of = st.o.side_of
    mine = side_of[seat]
    out = []
    for h in order_from_left(st.dealer, st.o.players):
        if st.held[h][0] != NO_COMBO and st.decl[h] == NO_COMBO and st.claims[h] < 0 and side_of[h] != mine:
            out.append(h)
    return out


def has_unclaimed(st: PState) -> bool:
    """R20 step 2: some seat passed while holding a combination that nobody claimed yet."""
    for h in range(st.o.players):
        if st.held[h][0] != NO_COMBO and st.decl[h] == NO_COMBO and st.claims[h] < 0:
            return True
    return False


# --------------------------------------------------------------------------- legal actions


def legal_actions(st: PState) -> list[Any]:
    """Every legal action of the seat to act, in the rules' canonical order."""
    phase = st.phase
    if phase == P_PLAY:
        out: list[Any] = []
        for c in st.hands[st.to_act]:  # type: ignore[index]
            out.append(c)
            if c < 16 and can_decline(st, c):
                out.append(DECLINE + c)
        return out
    if phase == P_DECLARE:
        kind = st.held[st.to_act][0]  # type: ignore[index]
        if kind == NO_COMBO:
            return [PASS]
        return [DECLARE_RONDINE if kind == RONDINE else DECLARE_RONDA, PASS]
    if phase == P_TENDIDO:
        return [TENDIDO, PASS]
    if phase == P_CLAIM:
        return [CLAIM + h for h in claimable(st, st.to_act)] + [PASS]  # type: ignore[arg-type]
    return []


def _not_now(st: PState) -> IllegalAction:
    return IllegalAction(
        f"that action is not allowed now: waiting for {PHASE_NAMES[st.phase]} from seat {st.to_act}",
        rule="phase",
    )


def check_action(st: PState, action: Any) -> None:
    """Raises IllegalAction with the rules file's section 9 wording unless ``action`` is legal."""
    phase = st.phase
    seat = st.to_act
    assert seat is not None
    if isinstance(action, tuple):
        if phase != P_DEAL_OVER:
            raise _not_now(st)
        deck = action[1]
        if len(deck) != 52 or len(set(deck)) != 52:
            raise IllegalAction("the deck must hold each of the 52 cards exactly once", rule="R2")
        return
    if action == TENDIDO:
        if phase != P_TENDIDO:
            raise IllegalAction(
                "the tendido can only be dealt when the dealer is asked for it, once per hand",
                rule="R6",
            )
        return
    if action == PASS:
        if phase not in (P_TENDIDO, P_DECLARE, P_CLAIM):
            raise _not_now(st)
        return
    if action in (DECLARE_RONDA, DECLARE_RONDINE):
        if phase != P_DECLARE:
            raise _not_now(st)
        kind = st.held[seat][0]
        if kind == NO_COMBO:
            raise IllegalAction("you hold no ronda or rondine", rule="R9")
        wanted = RONDINE if action == DECLARE_RONDINE else 1
        if kind != wanted:
            raise IllegalAction(f"you hold a {COMBO_NAMES[kind]}, not a {COMBO_NAMES[wanted]}", rule="R9")
        return
    if isinstance(action, int) and CLAIM <= action < CLAIM + st.o.players:
        if phase != P_CLAIM:
            raise _not_now(st)
        h = action - CLAIM
        if st.o.side_of[h] == st.o.side_of[seat]:
            raise IllegalAction("you cannot claim your own side's ronda or rondine", rule="R21")
        if h not in claimable(st, seat):
            raise IllegalAction(f"seat {h} has no unclaimed undeclared ronda or rondine", rule="R21")
        return
    if isinstance(action, int) and 0 <= action < DECLINE + 52:
        if phase != P_PLAY:
            raise _not_now(st)
        card = action % DECLINE
        if card not in st.hands[seat]:
            raise IllegalAction(f"card {card_code(card)} is not in your hand", rule="R10")
        if action >= DECLINE:
            rank = card >> 2
            code = card_code(card)
            must = (
                f"you must capture with {code}: a capture may only be declined when leaving "
                "the card scores en su lugar"
            )
            if is_counter(st, rank) or is_san_benito(st, rank):
                raise IllegalAction(must, rule="R14")
            if not table_has_rank(st.table, rank):
                raise IllegalAction(f"{code} captures nothing, so there is no capture to decline", rule="R14")
            if not can_decline(st, card):
                raise IllegalAction(must, rule="R14")
        return
    raise _not_now(st)


# --------------------------------------------------------------------------- dealing


def shuffled_deck(st: PState, seed: int | None) -> tuple[int, ...]:
    """R2: the 52 cards shuffled by ``random.Random(seed)``, top first; the generator's next
    state stays in ``st.rng_state`` for the next hand's deck."""
    rng = random.Random(seed)
    cards = list(range(52))
    rng.shuffle(cards)
    st.rng_state = rng.getrandbits(62)
    return tuple(cards)


def start_hand(st: PState, deck: tuple[int, ...], events: Events) -> None:
    """R2 / R26: a fresh hand from a full 52-card ``deck`` (top first)."""
    n = st.o.players
    st.table = []
    st.piles = [() for _ in range(n)]
    st.stock = tuple(deck)
    st.tendido_done = False
    st.tendido = None
    st.last_capturer = None
    st.deal_no = 0
    st.hand_start = st.hlen
    if events is not None:
        events.append({"type": "hand", "hand_no": st.hand_no, "dealer": st.dealer})
    deal(st, events)


def deal(st: PState, events: Events) -> None:
    """R4: the next deal from the stock, then R5 (tendido decision, or straight on)."""
    o = st.o
    n = o.players
    stock = st.stock
    dealer = st.dealer
    hands: list[list[int]] = [[] for _ in range(n)]
    for i, offsets in enumerate(o.positions):
        hands[(dealer + 1 + i) % n] = [stock[k] for k in offsets]
    st.stock = stock[HAND_CARDS * n :]
    st.hands = hands
    st.dealt = [tuple(h) for h in hands]
    st.held = [holding(d) for d in st.dealt]
    st.deal_no += 1
    st.chain = None
    st.pending = None
    st.decl = [NO_COMBO] * n
    st.claims = [-1] * n
    st.left = HAND_CARDS * n
    st.prev_items = st.items
    st.items = ()
    if events is not None:
        events.append({"type": "deal", "deal_no": st.deal_no, "hand_no": st.hand_no})
    if not st.tendido_done:
        if st.deal_no < o.deals:
            st.phase = P_TENDIDO
            st.to_act = dealer
            return
        if deal_tendido(st, events):
            return
    after_tendido(st, events)


def deal_tendido(st: PState, events: Events) -> bool:
    """R7: four stock cards face up onto the table, scored at once to the dealer's side.
    True when that score ended the match."""
    tendido = st.stock[:TENDIDO_CARDS]
    st.stock = st.stock[TENDIDO_CARDS:]
    before = st.table
    place = place_points(tendido[0], tendido[1], tendido[2], tendido[3])
    groups = group_points(tendido, before)
    st.table = before + list(tendido)
    st.tendido = tendido
    st.tendido_done = True
    if events is not None:
        events.append({"type": "tendido", "cards": [card_code(c) for c in tendido]})
    side = st.o.side_of[st.dealer]
    return award(
        st,
        side,
        [
            (side, place, TENDIDO_PLACE_ITEM, "5.6"),
            (side, groups, TENDIDO_GROUPS_ITEM, "5.6"),
        ],
        events,
    )


def after_tendido(st: PState, events: Events) -> None:
    """R8 then R9: the leftover cards go face up on the last deal; then declarations
    (manual) or the engine's declarations (auto) and play."""
    o = st.o
    if st.deal_no == o.deals and st.stock:
        st.table = st.table + list(st.stock)
        st.stock = ()
    first = (st.dealer + 1) % o.players
    st.to_act = first
    if o.auto:
        st.decl = [h[0] for h in st.held]
        st.phase = P_PLAY
    else:
        st.phase = P_DECLARE


# --------------------------------------------------------------------------- the play


def play(st: PState, seat: int, action: int, events: Events) -> None:
    """R10-R18: play a card (``action`` is the card, or DECLINE + card)."""
    o = st.o
    card = action & 63
    decline = action >= DECLINE
    rank = card >> 2
    st.hands[seat].remove(card)
    st.left -= 1
    final = st.left == 0 and st.deal_no == o.deals
    chain = st.chain
    pend = st.pending
    table = st.table
    side_of = o.side_of
    own: list[Item] = []
    if chain is not None and chain[1] == rank and chain[0] != DISCARD:
        if chain[0] == COUNTER:
            # R17: San Benito wins at once.
            st.piles[seat] = st.piles[seat] + (card,)
            if events is not None:
                events.append({"type": "san_benito", "seat": seat, "card": card_code(card)})
            end_match(st, side_of[seat], "san_benito", events)
            return
        # R16: counter-porrazo.
        assert pend is not None
        ps, _, _, cards = pend
        st.piles[ps] = st.piles[ps][: len(st.piles[ps]) - len(cards)]
        received = cards + (card,)
        st.piles[seat] = st.piles[seat] + received
        st.pending = pend = None
        st.last_capturer = seat
        st.chain = (COUNTER, rank, seat)
        side = side_of[seat]
        own.append((side, COUNTER_MULTIPLIER * RANK_VALUE[rank], COUNTER_PORRAZO_ITEM, "R16"))
        if not table and not final:
            lr = limpia_rank(received, o.last_in_run, cards[-2] if len(cards) >= 2 else card)
            own.append((side, RANK_VALUE[lr], LIMPIA_ITEM, "R18"))
        if events is not None:
            events.append(
                {
                    "type": "counter_porrazo",
                    "seat": seat,
                    "card": card_code(card),
                    "from": ps,
                    "cards": [card_code(c) for c in received],
                }
            )
        if award(st, side, own, events):
            return
    else:
        if not decline and table_has_rank(table, rank):  # R12: a capture (else a discard)
            taken = take_run(table, rank)
            moved = tuple(taken) + (card,)
            st.piles[seat] = st.piles[seat] + moved
            st.last_capturer = seat
            side = side_of[seat]
            limpia = 0
            if not table and not final:
                limpia = RANK_VALUE[limpia_rank(moved, o.last_in_run, taken[-1])]
            porrazo = is_porrazo(st, rank)
            if events is not None:
                events.append(
                    {
                        "type": "capture",
                        "seat": seat,
                        "card": card_code(card),
                        "cards": [card_code(c) for c in taken],
                        "porrazo": porrazo,
                        "limpia": limpia > 0,
                    }
                )
            if porrazo:
                # R15: porrazo (and its limpia) pending until the next play.
                st.chain = (PORRAZO, rank, seat)
                st.pending = (seat, RANK_VALUE[rank], limpia, moved)
            else:
                st.chain = None
                if limpia:
                    own.append((side, limpia, LIMPIA_ITEM, "R18"))
        else:
            table.append(card)
            st.chain = (DISCARD, rank, seat)
            if events is not None:
                events.append({"type": "discard", "seat": seat, "card": card_code(card)})
            if rank <= 3 and len(table) == rank + 1:
                own.append((side_of[seat], rank + 1, EN_SU_LUGAR_ITEM, "R13"))
        if pend is not None:
            # R16 (a): the earlier porrazo stands, credited before this play's points.
            if credit_pending(st, pend, events):
                return
            if st.pending == pend:  # by value: mypyc unboxes the tuple, so no identity
                st.pending = None
        if own and award(st, own[0][0], own, events):
            return
    if st.left == 0:
        end_of_deal(st, events)
    else:
        st.to_act = (seat + 1) % o.players


def credit_pending(st: PState, pend: tuple[int, int, int, tuple[int, ...]], events: Events) -> bool:
    """R16: credit a porrazo that was not countered; True when the match ended."""
    seat, porrazo_points, limpia_points, _ = pend
    if st.pending == pend:
        st.pending = None
    side = st.o.side_of[seat]
    items: list[Item] = [(side, porrazo_points, PORRAZO_ITEM, "R15")]
    if limpia_points:
        items.append((side, limpia_points, LIMPIA_ITEM, "R18"))
    return award(st, side, items, events)


# --------------------------------------------------------------------------- end of a deal


def end_of_deal(st: PState, events: Events) -> None:
    """R20: pending porrazo, claims, settlement, end of hand or next deal."""
    if st.pending is not None and credit_pending(st, st.pending, events):
        return
    if st.o.claims and has_unclaimed(st):
        first = next_claimer(st, None)
        if first is not None:
            st.phase = P_CLAIM
            st.to_act = first
            return
    finish_deal(st, events)


def next_claimer(st: PState, after: int | None) -> int | None:
    """R21: the next seat (after ``after``, in order from the dealer's left) with something
    to claim, or None."""
    order = order_from_left(st.dealer, st.o.players)
    start = 0 if after is None else order.index(after) + 1
    for seat in order[start:]:
        if claimable(st, seat):
            return seat
    return None


def claim_step(st: PState, seat: int, action: int, events: Events) -> None:
    """R21: a claim (the seat acts again while it can claim) or a pass."""
    if action != PASS:
        holder = action - CLAIM
        st.claims[holder] = seat
        if events is not None:
            events.append({"type": "claim", "seat": seat, "holder": holder})
        if claimable(st, seat):
            return
    nxt = next_claimer(st, seat)
    if nxt is not None:
        st.to_act = nxt
        return
    finish_deal(st, events)


def finish_deal(st: PState, events: Events) -> None:
    """R20 steps 3-4: settlement, then the end of the hand or the next deal."""
    if settlement(st, events):
        return
    if events is not None:
        events.append({"type": "deal_over", "deal_no": st.deal_no, "hand_no": st.hand_no})
    if st.deal_no < st.o.deals:
        deal(st, events)
        return
    if end_of_hand(st, events):
        return
    next_hand(st, events)


def end_of_hand(st: PState, events: Events) -> bool:
    """R23 sweep, R24 card count. True if the match ended."""
    if st.table and st.last_capturer is not None:
        st.piles[st.last_capturer] = st.piles[st.last_capturer] + tuple(st.table)
        if events is not None:
            events.append(
                {
                    "type": "sweep",
                    "seat": st.last_capturer,
                    "cards": [card_code(c) for c in st.table],
                }
            )
        st.table = []
    return card_count(st, events)


def next_hand(st: PState, events: Events) -> None:
    """R26: the dealer passes left and the next hand is dealt (R2), or the state waits for
    the caller's deck (phase deal_over)."""
    n = st.o.players
    st.dealer = (st.dealer + 1) % n
    if st.decks:
        deck = st.decks[0]
        st.decks = st.decks[1:]
    elif st.rng_state is not None:
        deck = shuffled_deck(st, st.rng_state)
    else:
        st.phase = P_DEAL_OVER
        st.to_act = st.dealer
        st.chain = None
        return
    st.hand_no += 1
    start_hand(st, deck, events)


# --------------------------------------------------------------------------- step


def step(st: PState, action: Any, events: Events = None) -> None:
    """Apply a legal action in place and record it in the history (the search calls it
    without ``events``)."""
    seat = st.to_act
    assert seat is not None
    push_history(st, seat, action)
    apply(st, action, events)


def apply(st: PState, action: Any, events: Events = None) -> None:
    """``step`` without the history entry: what the random playout plays (its end state
    only serves ``outcome``, and no rule reads the history)."""
    seat = st.to_act
    assert seat is not None
    phase = st.phase
    if phase == P_PLAY:
        play(st, seat, action, events)
    elif phase == P_DECLARE:
        if action != PASS:
            st.decl[seat] = RONDINE if action == DECLARE_RONDINE else 1
        if events is not None:
            events.append(
                {
                    "type": "declare",
                    "seat": seat,
                    "combo": COMBO_NAMES[st.decl[seat]] if action != PASS else None,
                }
            )
        st.to_act = (seat + 1) % st.o.players
        if seat == st.dealer:  # R9: the dealer decides last, then the play begins
            st.phase = P_PLAY
    elif phase == P_TENDIDO:
        if action == TENDIDO and deal_tendido(st, events):
            return
        after_tendido(st, events)
    elif phase == P_CLAIM:
        claim_step(st, seat, action, events)
    elif phase == P_DEAL_OVER:
        st.hand_no += 1
        start_hand(st, action[1], events)
    else:  # pragma: no cover - step is only called with legal actions
        raise IllegalAction("the match is over", rule="match_over")


# --------------------------------------------------------------------------- invariants


def cards_in_play(st: PState) -> list[str]:
    """Every card wherever it lies (stock, table, hands, piles), as codes."""
    cards = list(st.stock) + st.table
    for s in range(st.o.players):
        cards += st.hands[s]
        cards += st.piles[s]
    return [card_code(c) for c in cards]


def hidden_cards(st: PState, seat: int) -> list[str]:
    """The cards ``seat`` cannot see: the stock and every hand but its own (its own too
    while it is hidden from it)."""
    hidden = list(st.stock)
    for s in range(st.o.players):
        if s != seat or own_hand_hidden(st, seat):
            hidden += st.hands[s]
    return [card_code(c) for c in hidden]
