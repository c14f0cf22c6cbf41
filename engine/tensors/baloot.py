"""Baloot's tensors (engine/tensors/__init__.py): a seat's view as named pieces. Reads the view's
fields only (docs/rules/baloot.md, State); seats and teams are relative to the viewer."""

from __future__ import annotations

from engine.games.baloot.tables import (
    CLASS_NAMES,
    PHASE_NAMES,
    SEQ_ORDER,
    STAGE_NAMES,
    STEP_NAMES,
    SUBKIND_NAMES,
    SUIT_CHARS,
)
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

TRICKS = 8
HAND_BOUND = 8
CARD_POINTS = 162
"""The card points of a deal (without the last-trick bonus split): card_points / this."""
CLASSES = (None, *CLASS_NAMES.values())
DECLARE_DONE = (None, False, True)

RECALL = Recall(
    play_verbs=("play",),
    call_verbs=("bid", "pass", "kawesh", "choose_trump", "double", "triple", "four", "gahwa", "declare"),
    values=("hokm", "sun", "ashkal", *SUIT_CHARS, "locked", *CLASS_NAMES.values()),
    calls=24,
)


def pieces(t: Table) -> list[Piece]:
    n, s, c = t.players, t.n_sides, t.n_cards
    return [
        *opening_pieces(t, PHASE_NAMES),
        Piece("scores", (s,)),
        Piece("hand_sizes", (n,)),
        Piece("candidate", (c,)),
        Piece("candidate_taken", (1,)),
        Piece("stock", (1,)),
        Piece("bidding_round", (2,)),
        Piece("bidding_stage", (len(STAGE_NAMES),)),
        Piece("hokm_bidder", (n,)),
        Piece("contract_kind", (2,)),
        Piece("trump", (len(SUIT_CHARS),)),
        Piece("contract_flags", (3,)),  # ashkal, locked, gahwa
        Piece("bidder", (n,)),
        Piece("taker", (n,)),
        Piece("declarer_team", (s,)),
        Piece("multiplier", (4,)),
        Piece("last_raiser_team", (s,)),
        Piece("doubling_step", (len(STEP_NAMES),)),
        Piece("trick_no", (TRICKS,)),
        Piece("leader", (n,)),
        Piece("trick", (n, c)),
        Piece("lead_ekka", (1,)),
        Piece("played", (n, c)),
        Piece("trick_winners", (TRICKS, n)),
        Piece("tricks_won", (s,)),
        Piece("card_points", (s,)),
        Piece("projects_declared", (n, len(CLASSES))),
        Piece("projects_declare_done", (len(DECLARE_DONE),)),
        Piece("projects_revealed", (n, len(SUBKIND_NAMES) + len(SEQ_ORDER))),
        Piece("projects_team", (s,)),
        Piece("projects_shown", (n, c)),
        Piece("baloot", (n,)),
        Piece("kawesh", (n,)),
        Piece("match_winner", (s,)),
        Piece("last_deal", (s,)),
        *recall_pieces(t, RECALL),
    ]


def fill(view: JSON, w: Writer) -> None:
    target = float(view["options"]["target_score"])
    hands = view["hands"]
    fill_opening(view, w, PHASE_NAMES)
    w.per_side("scores", view["scores"], target)
    w.hand_counts("hand_sizes", hands, HAND_BOUND)
    if view["candidate"] is not None:
        w.cards("candidate", [view["candidate"]])
    w.set("candidate_taken", 0, value=float(bool(view["candidate_taken"])))
    w.scaled("stock", view["stock"], w.table.n_cards, 0)
    bidding = view["bidding"]
    w.set("bidding_round", int(bidding["round"]) - 1)
    w.choice("bidding_stage", bidding["stage"], STAGE_NAMES)
    w.seat("hokm_bidder", bidding["hokm_bidder"])
    contract = view["contract"]
    if contract is not None:
        w.choice("contract_kind", contract["kind"], ("hokm", "sun"))
        if contract["trump"] is not None:
            w.choice("trump", contract["trump"], SUIT_CHARS)
        for k, flag in enumerate(("ashkal", "locked", "gahwa")):
            w.set("contract_flags", k, value=float(bool(contract[flag])))
        w.seat("bidder", contract["bidder"])
        w.seat("taker", contract["taker"])
        w.side("declarer_team", contract["declarer_team"])
        w.set("multiplier", int(contract["multiplier"]) - 1)
        w.side("last_raiser_team", contract["last_raiser_team"])
    if view["doubling_step"] is not None:
        w.choice("doubling_step", view["doubling_step"], STEP_NAMES)
    w.set("trick_no", min(int(view["trick_no"]), TRICKS) - 1)
    if view["leader"] is not None and view["leader"] >= 0:
        w.seat("leader", view["leader"])
    for play in view["table"]:
        if isinstance(play, dict):
            w.cards("trick", [play["card"]], w.rel(play["seat"]))
    w.set("lead_ekka", 0, value=float(bool(view["lead_ekka"])))
    for k, trick in enumerate(view["tricks"]):
        for i, card in enumerate(trick["cards"]):
            w.cards("played", [card], w.rel((trick["leader"] + i) % w.n))
        w.seat("trick_winners", trick["winner"], k)
    for card, seat in view["played_by"].items():
        if seat is not None:
            w.cards("played", [card], w.rel(seat))
    w.per_side("tricks_won", view["tricks_won"], TRICKS)
    w.per_side("card_points", view["card_points"], CARD_POINTS)
    projects = view["projects"]
    for seat, declared in enumerate(projects["declared"]):
        w.choice("projects_declared", declared, CLASSES, w.rel(seat))
    w.choice("projects_declare_done", projects["declare_done"], DECLARE_DONE)
    for seat, revealed in enumerate(projects["revealed"]):
        if revealed is not None:
            w.choice("projects_revealed", revealed["kind"], SUBKIND_NAMES, w.rel(seat))
            w.set("projects_revealed", w.rel(seat), len(SUBKIND_NAMES) + SEQ_ORDER.index(revealed["top"]))
    w.side("projects_team", projects["team"])
    for seat, shown in enumerate(projects["shown"]):
        for cards in shown or []:
            w.cards("projects_shown", cards, w.rel(seat))
    for seat in view["baloot"]:
        w.seat("baloot", seat)
    if view["kawesh"] is not None:
        w.seat("kawesh", view["kawesh"]["seat"])
    w.side("match_winner", view["match_winner"])
    last = view["last_deal"]
    if last is not None and "adds" in last:
        w.per_side("last_deal", last["adds"], target)
    fill_recall(w, view["history"], RECALL)
