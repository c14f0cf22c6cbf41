"""What a Porrazo layout leaves out, worked out from what it gives (the codec calls
:func:`fill_left_out` after ``codec.build`` for every document; a full state gives all of
it). Not a hot module: it runs once per loaded document."""

from __future__ import annotations

from typing import Any

from engine.games.porrazo.rules import claimable, holding
from engine.games.porrazo.state import PState
from engine.games.porrazo.tables import (
    NO_COMBO,
    P_CLAIM,
    P_DEAL_OVER,
    P_DEALING,
    P_DECLARE,
    P_PLAY,
    P_TENDIDO,
    order_from_left,
)


def fill_left_out(st: PState, values: dict[str, Any], mode: str) -> None:
    """Each field ``values`` leave out, after those it depends on: no phase is "dealing"
    when no hand is dealt, else "play"; no deal number is 0 before the first deal, else 1;
    the dealt cards are the hands; the stock is every card not placed elsewhere, in code
    order; with declaration_mode auto the play starts with every combination declared
    (R9); the seat to act is the one the phase implies (``natural_to_act``)."""
    o = st.o
    if "phase" not in values:
        st.phase = P_DEALING if not any(st.hands) else P_PLAY
    if "deal_no" not in values:
        st.deal_no = 0 if st.phase == P_DEALING else 1
    if "dealt" not in values:
        st.dealt = [() for _ in range(o.players)] if st.phase == P_DEALING else [tuple(h) for h in st.hands]
        st.held = [holding(d) for d in st.dealt]
    if "stock" not in values:
        placed = set(st.table).union(*st.hands, *st.piles)
        st.stock = tuple(c for c in range(52) if c not in placed)
    if "declarations" not in values:
        auto_declared = o.auto and st.phase == P_PLAY
        st.decl = [h[0] for h in st.held] if auto_declared else [NO_COMBO] * o.players
    if "to_act" not in values:
        st.to_act = natural_to_act(st)


def natural_to_act(st: PState) -> int | None:
    """The seat the phase implies (a layout's omitted to_act): the dealer decides on the
    tendido and deals (R5, R26), the declarations and the play go round from the dealer's
    left (R9, R10), the first seat able to claim claims (R21)."""
    n = st.o.players
    phase = st.phase
    if phase in (P_TENDIDO, P_DEAL_OVER, P_DEALING):
        return st.dealer
    if phase == P_DECLARE:
        return (st.dealer + 1) % n
    if phase == P_PLAY:
        k = sum(len(d) for d in st.dealt) - sum(len(h) for h in st.hands)
        return (st.dealer + 1 + k) % n
    if phase == P_CLAIM:
        for seat in order_from_left(st.dealer, n):
            if claimable(st, seat):
                return seat
    return None
