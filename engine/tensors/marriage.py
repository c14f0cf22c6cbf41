"""Marriage's tensors (engine/tensors/__init__.py): a seat's view as named pieces. Reads the view's
fields only (docs/rules/marriage.md, section 3); seats are relative to the viewer.

Three packs are shuffled together (plus three men with ``man_cards = 3``), so a card piece
holds each code's count over 3, not a one-hot. The recall counts the cards each seat
discarded in the deal (the pile is rebuilt into the stock, so the pile alone forgets them)
and keeps the deal's last calls in order."""

from __future__ import annotations

from engine.games.marriage.tables import HAND_SIZE, PHASES, ROUTES
from engine.protocol import JSON
from engine.tensors import Piece, Recall, Table, Writer, fill_recall, recall_pieces

HAND_BOUND = HAND_SIZE + 1
"""A hand holds 21 cards, 22 between a draw and a discard."""
SCORE_SCALE = 100.0
"""Totals, maal and a deal's settlement are divided by this (and clipped to [-1, 1])."""
DEALS_BOUND = 20
DREW = (None, "stock", "discard")

RECALL = Recall(
    play_verbs=("discard", "finish", "finish_dublees"),
    call_verbs=("expose_tunnela", "pass", "draw_stock", "take_discard", "show", "show_dublees", "pick_tiplu"),
    values=(),
    calls=16,
    ordered=False,
)


def pieces(t: Table) -> list[Piece]:
    n, c = t.players, t.n_cards
    return [
        Piece("hand", (c,), private=True),
        Piece("tiplu", (c,), private=True),
        Piece("phase", (len(PHASES),)),
        Piece("to_act", (n,)),
        Piece("dealer", (n,)),
        Piece("scores", (n,)),
        Piece("deal_no", (1,)),
        Piece("hand_sizes", (n,)),
        Piece("tunnelas", (n, c)),
        Piece("shown", (n, c)),
        Piece("route", (n, len(ROUTES))),
        Piece("stock", (1,)),
        Piece("tiplu_chosen", (1,)),
        Piece("men_revealed", (1,)),
        Piece("discard_pile", (c,)),
        Piece("discard_by", (n, c)),
        Piece("discard_size", (1,)),
        Piece("discard_top", (c,)),
        Piece("discard_top_by", (n,)),
        Piece("discard_top_by_unseen", (1,)),
        Piece("turn_drew", (len(DREW),)),
        Piece("turn_took", (c,)),
        Piece("turn_took_while_seen", (1,)),
        Piece("expose_done", (n,)),
        Piece("turns_completed", (1,)),
        Piece("winner", (n,)),
        Piece("finish_kind", (len(ROUTES),)),
        Piece("maal", (n,)),
        Piece("deal_delta", (n,)),
        Piece("recycled", (c,)),
        Piece("taken", (n, c)),
        *recall_pieces(t, RECALL),
    ]


def fill(view: JSON, w: Writer) -> None:
    hands = view["hands"]
    if view.get("seat") == w.me and isinstance(hands[w.me], list):
        w.cards("hand", hands[w.me])
    if view["tiplu"] is not None:
        w.cards("tiplu", [view["tiplu"]])
    w.choice("phase", view["phase"], PHASES)
    w.seat("to_act", view["to_act"])
    w.seat("dealer", view["dealer"])
    w.per_seat("scores", view["scores"], SCORE_SCALE)
    w.scaled("deal_no", view["deal_no"], DEALS_BOUND, 0)
    w.hand_counts("hand_sizes", hands, HAND_BOUND)
    for seat, codes in enumerate(view["tunnelas"]):
        w.cards("tunnelas", [code for code in codes for _ in range(3)], w.rel(seat))
    for seat, shown in enumerate(view["shown"]):
        for item in shown:
            cards = item if isinstance(item, list) else [item, item]  # a set, or a dublee's pair
            w.cards("shown", cards, w.rel(seat))
    for seat, route in enumerate(view["route"]):
        w.choice("route", route, ROUTES, w.rel(seat))
    w.scaled("stock", view["stock"], 3 * w.table.n_cards, 0)
    w.set("tiplu_chosen", 0, value=float(bool(view["tiplu_chosen"])))
    w.scaled("men_revealed", view["men_revealed"], 3, 0)
    pile = view["discard"]
    for entry in pile:
        w.cards("discard_pile", [entry["card"]])
        if entry["by"] is not None:
            w.cards("discard_by", [entry["card"]], w.rel(entry["by"]))
    w.scaled("discard_size", len(pile), 3 * w.table.n_cards, 0)
    if pile:
        top = pile[-1]
        w.cards("discard_top", [top["card"]])
        w.seat("discard_top_by", top["by"])
        w.set("discard_top_by_unseen", 0, value=float(bool(top["by_unseen"])))
    turn = view["turn"]
    w.choice("turn_drew", turn["drew"], DREW)
    if turn["took"] is not None:
        w.cards("turn_took", [turn["took"]])
    w.set("turn_took_while_seen", 0, value=float(bool(turn["took_while_seen"])))
    for seat, done in enumerate(turn.get("expose_done") or []):
        w.set("expose_done", w.rel(seat), value=float(bool(done)))
    w.scaled("turns_completed", view["turns_completed"], float(view["options"]["turn_limit"]), 0)
    w.seat("winner", view["winner"])
    w.choice("finish_kind", view["finish_kind"], ROUTES)
    w.per_seat("maal", view["maal"] or [], SCORE_SCALE)
    w.per_seat("deal_delta", view["deal_delta"] or [], SCORE_SCALE)
    w.cards("recycled", view["recycled"])
    for seat, codes in enumerate(view["taken"]):
        w.cards("taken", codes, w.rel(seat))
    fill_recall(w, view["history"], RECALL)
