"""Marriage: a model of each opponent's hidden hand, read from what it did this deal.

A player keeps the cards that link with its hand and throws the ones that do not; it takes
the top discard when the card completes a set and lets it pass otherwise. So a hidden card
is less likely to be in a hand whose player threw a card like it (the same card, a
same-suit neighbour, the same rank), or let one pass, and more likely when the player took
one; ``hand_weights`` turns
that into a weight per card code and seat, which the engine's sampler
(``engine.games.marriage.sampling.make_sampler(view, hand_weights=...)``) uses to deal the
hidden hands: the odds of a copy of the card being in the hand rather than elsewhere.

The model is a logistic regression on the features below, fitted by
``bench/marriage_hand_fit.py`` on easy-v-easy deals (its docstring says which series);
``WEIGHTS`` is its output. It only reads the view: what every seat saw happen.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any, Final

from ai.playouts.marriage import evolve_hand
from engine.games.marriage.state import MState
from engine.games.marriage.tables import CODE_TO_CARD, NCODES, XX

FEATURES: Final = (
    "threw_same",
    "threw_neighbour",
    "threw_gap",
    "threw_rank",
    "threw_same_lately",
    "threw_neighbour_lately",
    "passed_same",
    "passed_neighbour",
    "passed_gap",
    "passed_rank",
    "took_same",
    "took_neighbour",
    "took_gap",
    "took_rank",
)
"""A hidden card's features for one opponent: how many of its discards this deal were the
same card, a same-suit neighbour (one rank apart, the ace also above the king), a
same-suit card two ranks apart (a sequence's gap), the same rank in another suit; the same
for its last ``LATELY`` discards (the hand it throws from now); for the discards it let pass
while unseen (drew from the stock instead); for the discards it took. (A man links with
nothing: its weight is 1.)"""

LATELY: Final = 2

WEIGHTS: Final[tuple[float, ...]] = (
    +0.3812,  # threw_same
    -0.4723,  # threw_neighbour
    -0.2449,  # threw_gap
    -0.5899,  # threw_rank
    +0.2117,  # threw_same_lately
    -0.1884,  # threw_neighbour_lately
    +0.8243,  # passed_same
    -0.1807,  # passed_neighbour
    +0.0264,  # passed_gap
    +0.0876,  # passed_rank
    +0.1639,  # took_same
    +0.5262,  # took_neighbour
    +0.1031,  # took_gap
    -0.1030,  # took_rank
)
"""Fitted by ``.venv/bin/python bench/marriage_hand_fit.py --matches 400 --seed 71
--holdout 100`` (two players): held-out log loss 0.4078 a copy against the uniform deal's
0.4165; the copies that are in the hand get 0.160 on average against 0.147."""

CLAMP: Final = 5.0
"""A card's log odds are kept within +-CLAMP (the fit's stay within +-3): no card is ever
ruled out, and the sampler's rejection draws stay few."""

SAME, NEIGHBOUR, GAP, RANK = 1, 2, 3, 4


def relation(a: int, b: int) -> int:
    """How card ``a`` links with card ``b`` for sets: SAME, NEIGHBOUR (same suit, ranks one
    apart, K-A counts), GAP (same suit, two apart, Q-A counts; K-A-2 never), RANK (same
    rank, other suit), or 0. Men link with nothing."""
    if a == XX or b == XX:
        return 0
    if a == b:
        return SAME
    ra, sa, rb, sb = a >> 2, a & 3, b >> 2, b & 3
    if sa == sb:
        lo, hi = min(ra, rb), max(ra, rb)
        if hi - lo == 1 or (lo, hi) == (0, 12):
            return NEIGHBOUR
        if hi - lo == 2 or (lo, hi) == (0, 11):
            return GAP
        return 0
    return RANK if ra == rb else 0


RELATIONS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(relation(a, b) for b in range(NCODES)) for a in range(NCODES)
)


class SeatRecord:
    """What one seat did this deal, in order: the cards it threw, the top discards it let
    pass while unseen, and the discards it took; and how many turns it drew (from the
    stock or the discard)."""

    __slots__ = ("threw", "passed", "took", "draws")

    def __init__(self) -> None:
        self.threw: list[int] = []
        self.passed: list[int] = []
        self.took: list[int] = []
        self.draws = 0


def seat_records(view: dict[str, Any]) -> list[SeatRecord]:
    """Replays the view's public history of this deal. The pile starts with the turned-up
    card when it is still at the bottom of the discard pile (else it was taken at the first
    draw, unknown, and counts for nothing). A pile recycled into the stock (R: the stock ran
    out) is not followed: rare, and only later passes and takes are misread."""
    records = [SeatRecord() for _ in range(int(view["players"]))]
    discard = view.get("discard") or []
    pile: list[int | None] = [None]
    if discard and discard[0].get("by") is None:
        pile = [CODE_TO_CARD[discard[0]["card"]]]
    seen = [False] * len(records)
    for entry in view.get("history") or []:
        seat, action = entry["seat"], entry["action"]
        kind = action.get("type")
        record = records[seat]
        if kind in ("draw_stock", "take_discard"):
            record.draws += 1
        if kind == "draw_stock":
            if pile and pile[-1] is not None and not seen[seat]:
                record.passed.append(pile[-1])
        elif kind == "take_discard":
            top = pile.pop() if pile else None
            if top is not None:
                record.took.append(top)
        elif kind in ("discard", "finish", "finish_dublees"):
            card = action.get("card") if kind == "discard" else action.get("discard")
            if isinstance(card, str):
                pile.append(CODE_TO_CARD[card])
                record.threw.append(CODE_TO_CARD[card])
        elif kind in ("show", "show_dublees"):
            seen[seat] = True
    return records


def card_features(record: SeatRecord) -> list[list[float]]:
    """``FEATURES`` of every card code for the seat that made ``record``."""
    rows = [[0.0] * len(FEATURES) for _ in range(NCODES)]
    lately = record.threw[-LATELY:]
    for offset, cards in ((0, record.threw), (6, record.passed), (10, record.took)):
        for b in cards:
            for a in range(NCODES):
                r = RELATIONS[a][b]
                if r:
                    rows[a][offset + r - 1] += 1.0
    for b in lately:
        for a in range(NCODES):
            r = RELATIONS[a][b]
            if r == SAME or r == NEIGHBOUR:
                rows[a][4 + r - 1] += 1.0
    return rows


def hand_weights(view: dict[str, Any], weights: tuple[float, ...] = WEIGHTS) -> list[list[float] | None]:
    """Per seat, the odds weight of each card code being in its hidden hand (None for the
    viewing seat, whose hand is known)."""
    me = int(view["seat"])
    out: list[list[float] | None] = []
    for seat, record in enumerate(seat_records(view)):
        if seat == me:
            out.append(None)
            continue
        out.append(
            [
                math.exp(max(-20.0, min(20.0, sum(w * f for w, f in zip(weights, row, strict=True)))))
                for row in card_features(record)
            ]
        )
    return out


EVOLVED_SHARE: Final = 0.75
"""The share of a seat's turns this deal that ``worlds`` replays on its sampled hand. A
hand that has drawn and thrown for k turns is closer to its sets than a fresh deal of the
same hidden cards: at the draws after turn 8 of easy-v-easy deals (series 71, matches 0-59)
the opponent's hand lacked 3.19 cards for its show and finish on average, a uniform deal of
its hidden cards 4.31, that deal with 0.6, 0.75, 0.9 and all of its turns replayed by the
playout hook's discard 3.26, 3.11, 3.02 and 2.87 (``bench/marriage_hand_fit.py
--shape``)."""


def worlds(
    view: dict[str, Any], base: Callable[[random.Random], MState]
) -> Callable[[random.Random], MState]:
    """The worlds of ``base`` (a sampler of ``view``) with each opponent's hidden hand
    shaped by ``EVOLVED_SHARE`` of its turns (``ai.playouts.marriage.evolve_hand``)."""
    me = int(view["seat"])
    turns = [0 if s == me else round(EVOLVED_SHARE * r.draws) for s, r in enumerate(seat_records(view))]
    if not any(turns):
        return base

    def sample(rng: random.Random) -> MState:
        world = base(rng)
        for seat, k in enumerate(turns):
            if k:
                evolve_hand(world, seat, k, rng)
        return world

    return sample
