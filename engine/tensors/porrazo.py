"""Porrazo's tensors (engine/tensors/__init__.py): a seat's view as named pieces. Reads the view's
fields only (docs/rules/porrazo.md, State); seats and sides are relative to the viewer.
The recall covers the view's history, which is the current *hand* (the whole deck)."""

from __future__ import annotations

from engine.cards import RANKS
from engine.games.porrazo.codec import COMBOS, WIN_REASONS
from engine.games.porrazo.tables import PHASE_NAMES, STAGE_NAMES
from engine.protocol import JSON
from engine.tensors import (
    Piece,
    Recall,
    Table,
    Writer,
    fill_opening,
    fill_recall,
    opening_pieces,
    recall_pieces,
)

HAND_BOUND = 3
"""Cards in a hand at most (deals of three): hand counts are divided by it."""
DEALS_BOUND = 20
"""``deal_no`` (deals of the hand so far) is divided by it."""
DECLARATIONS = (None, *COMBOS)
PORRAZO_POINTS = 4

RECALL = Recall(
    play_verbs=("play",),
    call_verbs=("pass", "tendido", "declare", "claim"),
    values=COMBOS,
    calls=16,
)


def pieces(t: Table) -> list[Piece]:
    n, s, c = t.players, t.n_sides, t.n_cards
    return [
        *opening_pieces(t, PHASE_NAMES),
        Piece("scores", (s,)),
        Piece("deal_points", (s,)),
        Piece("last_deal_points", (s,)),
        Piece("deal_no", (1,)),
        Piece("hand_sizes", (n,)),
        Piece("dealt", (n, c)),
        Piece("played", (n, c)),
        Piece("stock", (1,)),
        Piece("table", (c,)),
        Piece("piles", (n, c)),
        Piece("tendido_done", (1,)),
        Piece("tendido", (c,)),
        Piece("declarations", (n, len(DECLARATIONS))),
        Piece("claims", (n, n)),
        Piece("chain_stage", (len(STAGE_NAMES),)),
        Piece("chain_rank", (len(RANKS),)),
        Piece("chain_seat", (n,)),
        Piece("pending_seat", (n,)),
        Piece("pending_points", (2,)),
        Piece("pending_cards", (c,)),
        Piece("last_capturer", (n,)),
        Piece("winner", (s,)),
        Piece("win_reason", (len(WIN_REASONS),)),
        *recall_pieces(t, RECALL),
    ]


def fill(view: JSON, w: Writer) -> None:
    target = float(view["options"]["target_score"])
    hands = view["hands"]
    fill_opening(view, w, PHASE_NAMES)
    w.per_side("scores", view["scores"], target)
    w.item_points("deal_points", view["deal_items"], target)
    w.item_points("last_deal_points", view["last_deal_items"], target)
    w.scaled("deal_no", view["deal_no"], DEALS_BOUND, 0)
    w.hand_counts("hand_sizes", hands, HAND_BOUND)
    w.per_seat_cards("dealt", view["dealt"])
    w.per_seat_cards("played", view["played"])
    w.scaled("stock", view["stock"], w.table.n_cards, 0)
    w.cards("table", view["table"])
    w.per_seat_cards("piles", view["piles"])
    w.set("tendido_done", 0, value=float(bool(view["tendido_done"])))
    w.cards("tendido", view["tendido"] or [])
    for seat, declared in enumerate(view["declarations"]):
        w.choice("declarations", declared, DECLARATIONS, w.rel(seat))
    for owner, claimer in view["claims"].items():
        w.seat("claims", claimer, w.rel(int(owner)))
    chain = view["chain"]
    if chain is not None:
        w.choice("chain_stage", chain["stage"], STAGE_NAMES)
        w.choice("chain_rank", chain["rank"], RANKS)
        w.seat("chain_seat", chain["seat"])
    pending = view["pending_porrazo"]
    if pending is not None:
        w.seat("pending_seat", pending["seat"])
        w.scaled("pending_points", pending["porrazo_points"], PORRAZO_POINTS, 0)
        w.scaled("pending_points", pending["limpia_points"], PORRAZO_POINTS, 1)
        w.cards("pending_cards", pending["cards"])
    w.seat("last_capturer", view["last_capturer"])
    w.side("winner", view["winner"])
    if view["win_reason"] is not None:
        w.choice("win_reason", view["win_reason"], WIN_REASONS)
    fill_recall(w, view["history"], RECALL)
