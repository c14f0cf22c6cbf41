"""Trex's tensors (engine/tensors/__init__.py): a seat's view as named pieces. Reads the view's
fields only (docs/rules/trex.md, State); seats and sides are relative to the viewer. The
deal's record is the view's ``played`` (this deal's entries), not ``history``."""

from __future__ import annotations

from engine.games.trex.tables import CONTRACT_NAMES, PHASE_NAMES, SEQ_RANKS
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

TRICKS = 13
KINGDOMS = 4
DEALS = 20
"""Deals of a match (four kingdoms of five contracts): ``deal_no`` is divided by it."""
DEAL_SCALE = 500.0
"""Deal scores are divided by this (a deal's penalties reach -390 in collections)."""
MATCH_SCALE = 2000.0
"""Match and kingdom totals are divided by this (and clipped to [-1, 1])."""
CONTRACTS = (None, *CONTRACT_NAMES)
DOUBLABLE = ("KH", "QS", "QH", "QD", "QC")

RECALL = Recall(
    play_verbs=("play",),
    call_verbs=("choose", "double", "pass"),
    values=(*CONTRACT_NAMES, *DOUBLABLE),
    calls=16,
)


def pieces(t: Table) -> list[Piece]:
    n, s, c = t.players, t.n_sides, t.n_cards
    return [
        *opening_pieces(t, PHASE_NAMES),
        Piece("scores", (s,)),
        Piece("match_scores", (n,)),
        Piece("deal_scores", (n,)),
        Piece("deal_no", (1,)),
        Piece("first_owner", (n,)),
        Piece("kingdom_index", (KINGDOMS,)),
        Piece("kingdom_owner", (n,)),
        Piece("contracts_used", (len(CONTRACT_NAMES),)),
        Piece("contract", (len(CONTRACTS),)),
        Piece("hand_sizes", (n,)),
        Piece("doubled", (len(DOUBLABLE), n)),
        Piece("doubling_turn", (1,)),
        Piece("trick", (n, c)),
        Piece("trick_leader", (n,)),
        Piece("tricks_played", (1,)),
        Piece("tricks_won", (n,)),
        Piece("cards_won", (n, c)),
        Piece("layout", (c,)),
        Piece("finish_order", (n, n)),
        Piece("exposed_twos", (n, c)),
        *recall_pieces(t, RECALL),
    ]


def fill(view: JSON, w: Writer) -> None:
    hands = view["hands"]
    fill_opening(view, w, PHASE_NAMES)
    w.per_side("scores", view["scores"], MATCH_SCALE)
    w.per_seat("match_scores", view["match_scores"], MATCH_SCALE)
    w.per_seat("deal_scores", view["deal_scores"], DEAL_SCALE)
    w.scaled("deal_no", view["deal_no"], DEALS, 0)
    w.seat("first_owner", view["first_owner"])
    w.set("kingdom_index", int(view["kingdom_index"]))
    w.seat("kingdom_owner", view["kingdom_owner"])
    for name in view["contracts_used"]:
        w.choice("contracts_used", name, CONTRACT_NAMES)
    w.choice("contract", view["contract"], CONTRACTS)
    w.hand_counts("hand_sizes", hands, TRICKS)
    for card, seat in view["doubled"].items():
        w.seat("doubled", seat, DOUBLABLE.index(card))
    w.scaled("doubling_turn", view["doubling_turn"], 4, 0)
    for play in view["trick"]:
        w.cards("trick", [play["card"]], w.rel(play["seat"]))
    w.seat("trick_leader", view["trick_leader"])
    w.scaled("tricks_played", view["tricks_played"], TRICKS, 0)
    w.per_seat("tricks_won", view["tricks_won"], TRICKS)
    w.per_seat_cards("cards_won", view["cards_won"])
    for suit, run in view["layout"].items():
        if run is not None:
            low, high = SEQ_RANKS.index(run["low"]), SEQ_RANKS.index(run["high"])
            w.cards("layout", [SEQ_RANKS[r] + suit for r in range(low, high + 1)])
    for place, seat in enumerate(view["finish_order"]):
        w.seat("finish_order", seat, place)
    w.per_seat_cards("exposed_twos", view["exposed_twos"])
    fill_recall(w, view["played"], RECALL)
