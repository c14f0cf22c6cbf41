"""What a loaded Porrazo state must satisfy beyond its JSON shape (rules file section 3):
the 52 cards each somewhere exactly once, hands and stock of the sizes the deal implies,
declarations and claims the holdings allow, the phase's own conditions, a finished match
with its winner, and the seat to act replayed from this hand's history.

Each check is a small function on the loaded state raising ``InvalidState`` naming the
field, in the shared codec's one wording (``engine.codec.refuse``); :func:`check_state`
runs them all in order.
"""

from __future__ import annotations

from typing import Any

from engine.cards import CODES
from engine.codec import refuse
from engine.games.porrazo.rules import claimable, holding, next_claimer
from engine.games.porrazo.state import PState, history_list
from engine.games.porrazo.tables import (
    CLAIM,
    COMBO_NAMES,
    DECLARE_RONDA,
    DECLARE_RONDINE,
    DECLINE,
    HAND_CARDS,
    NO_COMBO,
    P_CLAIM,
    P_DEAL_OVER,
    P_DEALING,
    P_DECLARE,
    P_OVER,
    P_PLAY,
    P_TENDIDO,
    PASS,
    PORRAZO,
    RONDA,
    RONDINE,
    TENDIDO,
    TENDIDO_CARDS,
    order_from_left,
)


def check_state(st: PState) -> None:
    """Every rule-implied check of a loaded state (a full state or a layout's)."""
    check_deal_no(st)
    check_declarations(st)
    check_claims(st)
    check_hands_follow_dealt(st)
    where = check_cards_conserved(st)
    check_dealt(st, where)
    check_tendido(st, where)
    check_stock_size(st)
    check_match_end(st)
    check_deal_fresh(st)
    check_phase(st)


# --------------------------------------------------------------------------- holdings


def check_deal_no(st: PState) -> None:
    """R3: a hand has D deals, numbered from 1 (a layout about to deal counts the deals
    already made: 0 to D - 1)."""
    dealing = st.phase == P_DEALING
    lo, hi = (0, st.o.deals - 1) if dealing else (1, st.o.deals)
    if st.deal_no < lo:
        raise refuse("deal_no", f"must be at least {lo}")
    if st.deal_no > hi:
        raise refuse("deal_no", f"must be at most {hi}")


def check_declarations(st: PState) -> None:
    """R9: a seat declares only the combination its dealt cards hold."""
    for s, kind in enumerate(st.decl):
        if kind != NO_COMBO and st.held[s][0] != kind:
            raise refuse(f"declarations[{s}]", f"seat {s} does not hold a {COMBO_NAMES[kind]}")


def check_claims(st: PState) -> None:
    """R21: only an opponent's undeclared ronda/rondine can be claimed."""
    side_of = st.o.side_of
    for h, c in enumerate(st.claims):
        if c >= 0 and (st.held[h][0] == NO_COMBO or st.decl[h] != NO_COMBO or side_of[h] == side_of[c]):
            raise refuse(f"claims.{h}", "only an opponent's undeclared ronda/rondine can be claimed")


# --------------------------------------------------------------------------- the cards


def check_hands_follow_dealt(st: PState) -> None:
    """R4, R10: a hand is its dealt cards not yet played, in the order received."""
    for s in range(st.o.players):
        if [c for c in st.dealt[s] if c in st.hands[s]] != st.hands[s]:
            raise refuse(
                f"hands[{s}]",
                "the hand must be the dealt cards not yet played, in the order received",
            )


def check_cards_conserved(st: PState) -> dict[int, str]:
    """R2: the 52 cards each lie exactly once in the stock, on the table, in a hand or in a
    pile. Returns where each card lies (a field name)."""
    seen: dict[int, str] = {}
    for where, cards in (
        [("stock", st.stock), ("table", st.table)]
        + [(f"hands[{s}]", h) for s, h in enumerate(st.hands)]
        + [(f"piles[{s}]", p) for s, p in enumerate(st.piles)]
    ):
        for c in cards:
            if c in seen:
                raise refuse(where, f"card {CODES[c]} is also in {seen[c]}")
            seen[c] = where
    if len(seen) != 52:
        missing = " ".join(CODES[c] for c in range(52) if c not in seen)
        raise refuse("stock", f"the 52 cards must each be somewhere exactly once; missing: {missing}")
    return seen


def _on_table_or_pile(where: str) -> bool:
    return where.startswith(("table", "piles"))


def check_dealt(st: PState, where: dict[int, str]) -> None:
    """R4: each seat was dealt three cards (or none yet), no card twice; the ones it has
    played are on the table or in a pile."""
    in_dealt: set[int] = set()
    for s in range(st.o.players):
        dealt, hand = st.dealt[s], st.hands[s]
        field = f"dealt[{s}]"
        if len(set(dealt)) != len(dealt) or in_dealt & set(dealt):
            raise refuse(field, "a card was dealt twice")
        in_dealt |= set(dealt)
        if dealt and len(dealt) != HAND_CARDS:
            raise refuse(field, "a deal gives each seat three cards")
        for c in dealt:
            if c not in hand and not _on_table_or_pile(where[c]):
                raise refuse(field, f"played card {CODES[c]} must be on the table or in a pile")


def check_tendido(st: PState, where: dict[int, str]) -> None:
    """R7: the tendido is four distinct cards, known once dealt, still on the table or
    captured; the last deal comes with it at the latest."""
    if st.tendido is not None:
        if not st.tendido_done or len(st.tendido) != TENDIDO_CARDS or len(set(st.tendido)) != TENDIDO_CARDS:
            raise refuse("tendido", "four distinct cards, only once the tendido is done")
        for c in st.tendido:
            if not _on_table_or_pile(where[c]):
                raise refuse("tendido", f"tendido card {CODES[c]} must be on the table or in a pile")
    if st.deal_no == st.o.deals and st.phase not in (P_DEALING, P_TENDIDO) and not st.tendido_done:
        raise refuse("tendido_done", "the tendido is dealt at the latest with the last deal")


def check_stock_size(st: PState) -> None:
    """R3, R8: the stock holds what the deals and the tendido left (nothing after the last
    deal, whose leftover cards went to the table)."""
    n = st.o.players
    if st.phase == P_OVER:
        return
    if st.phase != P_DEALING and (st.deal_no == st.o.deals or st.phase == P_DEAL_OVER):
        expected = 0
    else:
        expected = 52 - HAND_CARDS * n * st.deal_no - TENDIDO_CARDS * st.tendido_done
    if len(st.stock) != expected:
        raise refuse("stock", f"must hold {expected} cards at deal {st.deal_no} (it holds {len(st.stock)})")


# --------------------------------------------------------------------------- the match


def check_match_end(st: PState) -> None:
    """R25 / R17: a match is over exactly when it has a winner: no seat to act then, and
    the winner is the one side that reached the target, or won by a san benito before
    anyone had; until then every score is below the target."""
    o = st.o
    if st.phase != P_OVER:
        if st.winner is not None or st.win_reason is not None:
            raise refuse("winner", "only a finished match has a winner")
        for side, score in enumerate(st.scores):
            if score >= o.target:
                raise refuse(f"scores[{side}]", f"reaches the target {o.target}: the match would be over")
        if st.to_act is None:
            raise refuse("to_act", "only a finished match has no seat to act")
        return
    if st.to_act is not None:
        raise refuse("to_act", "must be null when the match is over")
    if st.winner is None or st.win_reason is None:
        raise refuse("winner", "a finished match names its winner and win_reason")
    for side, score in enumerate(st.scores):
        if side != st.winner and score >= o.target:
            raise refuse(
                f"scores[{side}]", f"the match ended when the first side reached the target {o.target}"
            )
    if (st.win_reason == "target") != (st.scores[st.winner] >= o.target):
        raise refuse("win_reason", 'the winner by "target" is the one side that reached the target')


def check_deal_fresh(st: PState) -> None:
    """R11, R21: before the deal's first play there is no chain and no pending porrazo;
    claims are made only after the deal's play."""
    fresh = st.phase in (P_DEALING, P_TENDIDO, P_DECLARE, P_DEAL_OVER)
    if fresh and (st.chain is not None or st.pending is not None):
        raise refuse("chain", "no play has been made in this deal yet")
    if st.phase not in (P_CLAIM, P_DEAL_OVER, P_OVER) and any(c >= 0 for c in st.claims):
        # R21: made after the deal's play; a finished deal keeps them until the next deal
        raise refuse("claims", "claims are made only after the deal's play")


# --------------------------------------------------------------------------- the phases


def check_phase(st: PState) -> None:
    """The phase's own conditions, then the seat to act replayed from the history."""
    phase = st.phase
    if phase == P_DEALING:
        check_dealing(st)
        return
    if phase in (P_TENDIDO, P_DECLARE) and not all(len(h) == HAND_CARDS for h in st.hands):
        raise refuse("hands", "every seat holds its three dealt cards before the play")
    if phase == P_TENDIDO:
        check_tendido_choice(st)
    elif phase == P_DECLARE:
        check_declare(st)
    elif phase == P_PLAY:
        check_play(st)
    elif phase == P_CLAIM:
        check_claim(st)
    elif phase == P_DEAL_OVER:
        check_deal_over(st)
    check_deal_turns(st)


def check_dealing(st: PState) -> None:
    """Layouts only: before the deal nobody holds a card or has declared."""
    if any(st.hands) or any(st.dealt):
        raise refuse("hands", "a layout in phase dealing has empty hands")
    if any(st.decl):
        raise refuse("declarations", "nobody has declared before the deal")


def check_tendido_choice(st: PState) -> None:
    """R5: the dealer decides on the tendido, before it is dealt and before the last deal,
    ahead of the declarations."""
    if st.tendido_done or st.deal_no >= st.o.deals:
        raise refuse("phase", "the tendido is offered only before it is dealt and before the last deal")
    if st.to_act != st.dealer:
        raise refuse("to_act", "the dealer decides on the tendido")
    if any(st.decl):
        raise refuse("declarations", "declarations come after the tendido decision")


def check_declare(st: PState) -> None:
    """R9: manual declarations go round from the dealer's left: the seats from the one to
    act on have not decided yet."""
    if st.o.auto:
        raise refuse("phase", "declaration_mode auto has no declare phase")
    order = order_from_left(st.dealer, st.o.players)
    assert st.to_act is not None
    for seat in order[order.index(st.to_act) :]:
        if st.decl[seat]:
            raise refuse(f"declarations[{seat}]", "this seat has not decided yet")


def check_play(st: PState) -> None:
    """R10, R9, R11, R15: the hands shrink round the table from the dealer's left, the seat
    after the last play is to act, auto mode declares everything, and the chain and a
    pending porrazo describe the previous play."""
    o = st.o
    n = o.players
    if not all(len(dl) == HAND_CARDS for dl in st.dealt):
        raise refuse("dealt", "every seat was dealt three cards")
    order = order_from_left(st.dealer, n)
    k = HAND_CARDS * n - sum(len(h) for h in st.hands)
    if k >= HAND_CARDS * n:
        raise refuse("hands", "every card of the deal has been played")
    for i, seat in enumerate(order):
        want = HAND_CARDS - k // n - (1 if i < k % n else 0)
        if len(st.hands[seat]) != want:
            raise refuse(f"hands[{seat}]", f"must hold {want} cards after {k} plays of this deal")
    if st.to_act != order[k % n]:
        raise refuse("to_act", f"seat {order[k % n]} plays next")
    if o.auto and any(st.decl[s] != st.held[s][0] for s in range(n)):
        raise refuse("declarations", "with declaration_mode auto every combination is declared")
    if st.chain is not None and (k == 0 or st.chain[2] != order[(k - 1) % n]):
        raise refuse("chain", "the chain describes the previous play of this deal")
    check_pending_porrazo(st)


def check_pending_porrazo(st: PState) -> None:
    """R15: a pending porrazo is the previous play's, with chain stage porrazo, and its
    cards are the last of the porrazo player's pile."""
    ch = st.chain
    if st.pending is None:
        if ch is not None and ch[0] == PORRAZO:
            raise refuse("pending_porrazo", "a porrazo chain has its pending porrazo")
        return
    pseat, _, _, cards = st.pending
    if ch is None or ch[0] != PORRAZO or ch[2] != pseat or len(cards) < 2 or cards[-1] >> 2 != ch[1]:
        raise refuse("pending_porrazo", "a pending porrazo is the previous play's, with chain stage porrazo")
    if st.piles[pseat][len(st.piles[pseat]) - len(cards) :] != cards:
        raise refuse("pending_porrazo.cards", "must be the last cards of the porrazo player's pile")


def check_claim(st: PState) -> None:
    """R20, R21: claims come after the deal's play (its pending porrazo credited), with
    undeclared_claims on, and the seat to act has something to claim."""
    if st.pending is not None:
        raise refuse("pending_porrazo", "a pending porrazo is credited before the claims")
    if any(st.hands) or not st.o.claims:
        raise refuse("phase", "claims come after the deal's play, with undeclared_claims on")
    if st.to_act is None or not claimable(st, st.to_act):
        raise refuse("to_act", "the seat to act must have something to claim")


def check_deal_over(st: PState) -> None:
    """R26: a caller-dealt match waits with empty hands for the next dealer's deck."""
    if any(st.hands):
        raise refuse("hands", "hands are empty while waiting for the next deck")
    if st.to_act != st.dealer:
        raise refuse("to_act", "the next dealer deals")


# --------------------------------------------------------------------------- the history

Entry = tuple[int, Any]
DECISION_OF: dict[int, int] = {NO_COMBO: PASS, RONDA: DECLARE_RONDA, RONDINE: DECLARE_RONDINE}
"""R9: the history entry of each declaration (no combination declared: a pass)."""


def _is_play(action: Any) -> bool:
    return type(action) is int and action < DECLINE + 52


def _card_played(action: int) -> int:
    return action - DECLINE if action >= DECLINE else action


def _plays_end(entries: list[Entry]) -> int:
    """The index just after the last play among ``entries`` (0: no play)."""
    for i in range(len(entries), 0, -1):
        if _is_play(entries[i - 1][1]):
            return i
    return 0


def _replay_claims(
    st: PState, held: list[Any], decl: list[int], entries: list[Entry]
) -> tuple[int, int | None]:
    """R21: replay a deal's claims phase (the deal's ``held`` combinations and ``decl``
    declarations) from its first entry in ``entries``: each entry must be the asked seat's
    claim of a claimable holder or its pass. Returns (entries the phase took, the seat asked
    next, None once the phase is over); the replayed claims are left in ``st.claims``."""
    st.held, st.decl, st.claims = held, decl, [-1] * st.o.players
    seat = next_claimer(st, None) if st.o.claims else None
    for used, (who, action) in enumerate(entries):
        if seat is None:
            return used, None
        holder = action - CLAIM if type(action) is int and action >= CLAIM else -1
        if who != seat or not (action == PASS or holder in claimable(st, seat)):
            raise refuse("history", f"seat {seat} was to claim or pass after the deal's play (R21)")
        if holder >= 0:
            st.claims[holder] = seat
            if claimable(st, seat):
                continue
        seat = next_claimer(st, seat)
    return len(entries), seat


def _previous_deal_claims(st: PState, entries: list[Entry], end: int) -> int | None:
    """How many entries from ``end`` (just after the previous deal's last play) its claims
    phase took, replayed from that deal's plays and declarations (each seat plays its three
    dealt cards); None when the history does not hold that whole deal (a layout)."""
    n = st.o.players
    start = end
    while start and _is_play(entries[start - 1][1]):
        start -= 1
    if end - start != HAND_CARDS * n or start < n:
        return None
    dealt: list[list[int]] = [[] for _ in range(n)]
    for seat, action in entries[start:end]:
        dealt[seat].append(_card_played(action))
    of_decision = {a: kind for kind, a in DECISION_OF.items()}
    decl = [NO_COMBO] * n
    for seat, action in entries[start - n : start]:
        decl[seat] = of_decision.get(action, NO_COMBO)
    used, _ = _replay_claims(st.copy(), [holding(tuple(d)) for d in dealt], decl, entries[end:])
    return used


def check_deal_turns(st: PState) -> None:
    """R5, R9, R10, R21: the seat to act follows this deal's entries of the history, replayed
    in the rules' turn order (the dealer's tendido decision, the declarations from the
    dealer's left, the plays round the table, the claims of the seats able to claim).
    A deal set up from a layout may begin before its history: then only what the history
    holds is checked."""
    phase = st.phase
    entries = history_list(st.history)[st.hand_start :]
    if phase not in (P_OVER, P_DEAL_OVER):  # a finished hand's dealer has passed the deal on
        _check_hand_play_turns(st, entries)
    if phase == P_DECLARE:
        _check_declare_turn(st, entries)
    elif phase == P_PLAY:
        _check_play_entries(st, entries)
    elif phase == P_CLAIM:
        end = _plays_end(entries)
        if end:
            used, seat = _replay_claims(st.copy(), st.held, st.decl, entries[end:])
            if used != len(entries) - end or seat is None:
                raise refuse("history", "the claims phase is over (R21)")
            if seat != st.to_act:
                raise refuse("to_act", f"seat {seat} is asked to claim next (R21)")


def _check_hand_play_turns(st: PState, entries: list[Entry]) -> None:
    """R10: every play of this hand in the history was made in turn. Each deal's play goes
    round from the dealer's left and has a multiple of the seat count of plays, so,
    counting back from the plays of the current deal, the seat of each is known (also for
    a hand a layout set up, whose first plays came before its history)."""
    n = st.o.players
    order = order_from_left(st.dealer, n)
    seats = [seat for seat, action in entries if _is_play(action)]
    offset = (HAND_CARDS * n - sum(len(h) for h in st.hands) if st.phase == P_PLAY else 0) - len(seats)
    for j, seat in enumerate(seats):
        if seat != order[(offset + j) % n]:
            raise refuse(
                "history", f"play {j + 1} of this hand was seat {order[(offset + j) % n]}'s turn (R10)"
            )


def _check_play_entries(st: PState, entries: list[Entry]) -> None:
    """R10: this deal's plays are the history's last entries, round the table from the
    dealer's left, each a card the seat was dealt and no longer holds."""
    n = st.o.players
    order = order_from_left(st.dealer, n)
    played = HAND_CARDS * n - sum(len(h) for h in st.hands)
    end = len(entries)
    start = end
    while start > end - played and start and _is_play(entries[start - 1][1]):
        start -= 1
    if start > end - played and start > 0:
        raise refuse("history", f"this deal's {played} plays must be the history's last entries")
    for k, (seat, action) in enumerate(entries[start:], start=played - (end - start)):
        card = _card_played(action)
        if seat != order[k % n] or card not in st.dealt[seat] or card in st.hands[seat]:
            raise refuse(
                "history", f"play {k + 1} of the deal is seat {order[k % n]}'s, a card it was dealt (R10)"
            )


def _check_declare_turn(st: PState, entries: list[Entry]) -> None:
    """R5, R9: the round follows the dealer's tendido decision (when the deal offered one)
    or the previous deal's play and claims; it goes once round from the dealer's left, each
    entry the seat's own declaration, and the seat after the last one is to act."""
    n = st.o.players
    order = order_from_left(st.dealer, n)
    end = _plays_end(entries)
    if end and st.o.claims:
        used = _previous_deal_claims(st, entries, end)
        if used is None:
            return _check_declare_turn_of_layout(st, order)
        end += used
    rest = entries[end:]
    if st.deal_no < st.o.deals and (not st.tendido_done or rest[:1] == [(st.dealer, TENDIDO)]):
        # R5: this deal offered the tendido (not dealt yet, not the last deal)
        if rest[:1] != [(st.dealer, TENDIDO if st.tendido_done else PASS)]:
            if not end:  # a layout's deal, without its start
                return _check_declare_turn_of_layout(st, order)
            raise refuse("history", "the dealer decides on the tendido before the declarations (R5)")
        rest = rest[1:]
    want = [(seat, DECISION_OF[st.decl[seat]]) for seat in order[: len(rest)]]
    if rest != want or len(rest) >= n:
        raise refuse("history", "the declarations go round from the dealer's left, one decision each (R9)")
    if st.to_act != order[len(rest)]:
        raise refuse("to_act", f"seat {order[len(rest)]} declares next (R9)")


def _check_declare_turn_of_layout(st: PState, order: list[int]) -> None:
    """R9 for a round a layout opened: the seat to act follows the last decision recorded
    in this hand's history (a layout may open the round at any seat without history: then
    only the declarations bound it)."""
    if st.history is None or len(history_list(st.history)) <= st.hand_start:
        return
    _, seat, action = st.history
    k = order.index(st.to_act)  # type: ignore[arg-type]
    decided = action in (PASS, DECLARE_RONDA, DECLARE_RONDINE)
    if k == 0:
        ok = action not in (DECLARE_RONDA, DECLARE_RONDINE)
    else:
        ok = decided and seat == order[k - 1]
    if not ok:
        raise refuse("to_act", "the declarations go round from the dealer's left, one decision each (R9)")
