"""Ronda's tensors (engine/tensors/__init__.py): a seat's view as named pieces. Reads the view's
fields only (docs/rules/ronda.md, State); seats and sides are relative to the viewer."""

from __future__ import annotations

from engine.games.ronda.tables import COMBO_NAMES, PHASE_NAMES, RANK_CHARS
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

HAND_BOUND = 5
"""Cards in a hand at most (4 in the no-table deal): hand counts are divided by it."""
HANDS_BOUND = 10
"""Hands of a deal at most (6 with two players): ``hand_number`` is divided by it."""
DECLARATIONS = (None, *COMBO_NAMES)

RECALL = Recall(
    play_verbs=("play",),
    call_verbs=("pass", "declare", "challenge"),
    values=tuple(COMBO_NAMES[1:]),
    calls=16,
)


def pieces(t: Table) -> list[Piece]:
    n, s, c = t.players, t.n_sides, t.n_cards
    return [
        *opening_pieces(t, PHASE_NAMES),
        Piece("scores", (s,)),
        Piece("deal_points", (s,)),
        Piece("hand_number", (1,)),
        Piece("hand_sizes", (n,)),
        Piece("dealt", (n, c)),
        Piece("played", (n, c)),
        Piece("table", (c,)),
        Piece("stock", (1,)),
        Piece("piles", (s, c)),
        Piece("declarations", (n, len(DECLARATIONS))),
        Piece("challenged", (n,)),
        Piece("withdrawn", (n,)),
        Piece("provisional_award", (s,)),
        Piece("last_drop", (c,)),
        Piece("chain_rank", (len(RANK_CHARS),)),
        Piece("chain_level", (1,)),
        Piece("chain_seat", (n,)),
        Piece("chain_packet", (c,)),
        Piece("last_capturer", (n,)),
        Piece("winner", (s,)),
        *recall_pieces(t, RECALL),
    ]


def fill(view: JSON, w: Writer) -> None:
    target = float(view["options"]["target_score"])
    hands = view["hands"]
    fill_opening(view, w, PHASE_NAMES)
    w.per_side("scores", view["scores"], target)
    w.item_points("deal_points", view["deal_items"], target)
    w.scaled("hand_number", view["hand_number"], HANDS_BOUND, 0)
    w.hand_counts("hand_sizes", hands, HAND_BOUND)
    w.per_seat_cards("dealt", view["dealt"])
    w.per_seat_cards("played", view["played"])
    w.cards("table", view["table"])
    w.scaled("stock", view["stock"], w.table.n_cards, 0)
    for side, pile in enumerate(view["piles"]):
        w.cards("piles", pile, w.rel_side(side))
    for seat, declared in enumerate(view["declarations"]):
        w.choice("declarations", declared, DECLARATIONS, w.rel(seat))
    for seat in view["challenged"]:
        w.seat("challenged", seat)
    for seat in view["withdrawn"]:
        w.seat("withdrawn", seat)
    award = view["provisional_award"]
    if award is not None:
        w.set("provisional_award", w.rel_side(award["side"]), value=award["points"] / target)
    if view["last_drop"] is not None:
        w.cards("last_drop", [view["last_drop"]])
    chain = view["chain"]
    if chain is not None:
        w.choice("chain_rank", chain["rank"], RANK_CHARS)
        w.scaled("chain_level", chain["level"], 3, 0)
        w.seat("chain_seat", chain["seat"])
        w.cards("chain_packet", chain["packet"])
    w.seat("last_capturer", view["last_capturer"])
    w.side("winner", view["winner"])
    fill_recall(w, view["history"], RECALL)
