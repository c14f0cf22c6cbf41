"""What a Marriage layout leaves out (§10 conventions): the cards it places nowhere
(``cards_left_out``, dealt by ``place_left_out`` where :data:`FILL` stands, before the
codec reads the layout: ``codec.load_layout``), and the fields that follow from the rest
(``fill_left_out``, which the codec calls after ``codec.build``). Not a hot module: it
runs once per layout."""

from __future__ import annotations

from typing import Any

from engine.codec import LAYOUT, refuse

from .state import MState
from .tables import ACT, DUBLEES, PICK, SETS, UNSEEN, card_code, pack_cards


def fill_left_out(st: MState, values: dict[str, Any], mode: str) -> None:
    """What a layout leaves out that follows from the rest, on the state and put back into
    ``values`` for the checks: the seat to act (the dealer's left), whether the match is
    caller-dealt (no generator), the routes (from what each seat has shown: ``route_shown``)
    and ``seen``, whether the tiplu is chosen, the turn (a turn in progress draws first).
    A full state or a view gives them all."""
    if mode != LAYOUT:
        return
    if "to_act" not in values:
        values["to_act"] = st.cur = (st.dealer + 1) % st.n
        st.over = False
    if "caller_dealt" not in values:
        values["caller_dealt"] = st.caller = values["rng_state"] is None
    if "route" not in values:
        seen = values.get("seen") or [False] * st.n
        values["route"] = st.route = [route_shown(items, seen[s]) for s, items in enumerate(values["shown"])]
    values.setdefault("seen", [r != UNSEEN for r in values["route"]])
    values.setdefault("tiplu_chosen", values["tiplu"] >= 0)
    if "turn" not in values:
        values["turn"] = (1 if values["phase"] in (ACT, PICK) else 0, -1, False, None)
        st.drew, st.took, st.tws, _ = values["turn"]


FILL = "fill"
"""§10: the marker in a layout's ``stock`` or ``discard`` where the cards it leaves out go."""


def route_shown(items: list[Any], seen: bool) -> int:
    """§10: a layout's route for a seat from what it has shown (a set is a tuple of cards,
    a dublee its card); with nothing shown, sets for a seen seat, else unseen."""
    if items:
        return SETS if type(items[0]) is tuple else DUBLEES
    return SETS if seen else UNSEEN


def tiplu_at_bottom(stock: list[Any], tiplu: Any) -> None:
    """§10: a layout's chosen tiplu lies at the bottom of its stock (put there unless the
    listed stock already ends with it)."""
    if tiplu is not None and (not stock or stock[-1] != tiplu):
        stock.append(tiplu)


def cards_left_out(placed: list[int], man_cards: int) -> list[int]:
    """R2 for a layout: the cards of the pack that ``placed`` (how many of each card the
    layout shows) leaves out, in canonical order; refused (field ``layout``) when it shows
    a card more often than the pack holds it."""
    unplaced = list(placed)
    left_out = []
    for card in pack_cards(man_cards):
        if unplaced[card]:
            unplaced[card] -= 1
        else:
            left_out.append(card)
    extra = next((card for card, k in enumerate(unplaced) if k), None)
    if extra is not None:
        raise refuse("layout", f"too many copies of {card_code(extra)}")
    return left_out


def place_left_out(stock: list[Any], discard: list[Any], left_out: list[Any], tiplu_at_bottom: bool) -> None:
    """§10: a layout's left-out cards go where :data:`FILL` stands in its ``discard`` or
    else its ``stock`` (both top first). Without the marker they go into the stock after
    the listed cards (above the tiplu at its bottom), and with no discard pile given the
    first of them is the upcard."""
    for pile in (discard, stock):
        if FILL in pile:
            at = pile.index(FILL)
            pile[at : at + 1] = left_out
            return
    if not discard and left_out:
        discard.append(left_out[0])
        left_out = left_out[1:]
    at = len(stock) - (1 if tiplu_at_bottom else 0)
    stock[at:at] = left_out
