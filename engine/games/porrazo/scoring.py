"""Porrazo's scoring (rules file section 5): point values of the scoring events, the
settlement of a deal's combinations, the card count, the match end, and the score report
and search outcome built from them.

Every point goes through :func:`award`, which records the item and ends the match when a
side reaches the target (R25).
"""

from __future__ import annotations

import math
from typing import Final

from engine.games.porrazo.items import ITEMS
from engine.games.porrazo.state import Item, PState, match_deal_no
from engine.games.porrazo.tables import (
    COMBO_NAMES,
    GROUP_MULTIPLIER,
    NO_COMBO,
    P_OVER,
    RANK_VALUE,
    RONDINE,
    RONDINE_MULTIPLIER,
    order_from_left,
)
from engine.protocol import JSON, Event, ScoreReport

Events = list[Event] | None

OUTCOME_SCALE: Final = 12.0
"""Score difference (points) that maps to about 0.88 of the reward range in ``outcome``."""


# --------------------------------------------------------------------------- point values

COMBINATION_ITEMS: Final = tuple(
    tuple(ITEMS.text("combination", combo=name, seat=seat) for seat in range(8)) for name in COMBO_NAMES
)
"""R22's item by combination kind and seat (8 players at most); with R24's, written once
(the search scores them in every playout, and a template filled each time would cost a
Python call in the compiled build's hot loop)."""
CARD_COUNT_ITEM: Final = ITEMS.text("card_count")


def place_points(a: int, b: int, c: int, d: int) -> int:
    """5.6: the best place score of the tendido A B C D over its eight readable sequences."""
    return max(_ace_two(a, b) + _three_four(c, d), _ace_two(c, d) + _three_four(a, b))


def _ace_two(x: int, y: int) -> int:
    """5.6: the place score of a pair read either way as (A, 2): an ace first scores 1, a
    two second scores 2."""
    return max((x >> 2 == 0) * 1 + (y >> 2 == 1) * 2, (y >> 2 == 0) * 1 + (x >> 2 == 1) * 2)


def _three_four(x: int, y: int) -> int:
    """5.6: the place score of a pair read either way as (3, 4): a three first scores 3, a
    four second scores 4."""
    return max((x >> 2 == 2) * 3 + (y >> 2 == 3) * 4, (y >> 2 == 2) * 3 + (x >> 2 == 3) * 4)


def group_points(tendido: tuple[int, ...], table: list[int]) -> int:
    """5.6: for each rank with t >= 1 tendido cards and b on the table before, t+b >= 2
    scores v(r) times 1 / 3 / 6 for a group of 2 / 3 / 4."""
    # plain loops (no set, sort or generator): the compiled build runs them as C loops;
    # each card is counted once by rank, then the 13 ranks are scored
    tendido_count = [0] * 13
    for c in tendido:
        tendido_count[c >> 2] += 1
    table_count = [0] * 13
    for c in table:
        table_count[c >> 2] += 1
    total = 0
    for rank in range(13):
        t = tendido_count[rank]
        if t == 0:
            continue
        size = t + table_count[rank]
        if size >= 2:
            total += GROUP_MULTIPLIER[size] * RANK_VALUE[rank]
    return total


def combo_value(kind: int, rank: int) -> int:
    """5.2: a ronda scores v(r), a rondine 3 v(r)."""
    return RANK_VALUE[rank] * (RONDINE_MULTIPLIER if kind == RONDINE else 1)


def limpia_rank(cards: tuple[int, ...] | list[int], last_in_run: bool, last: int) -> int:
    """R18: the rank a limpia is valued by: the highest captured card, or (Kingsland) the
    rank of ``last``, the last card taken in the run."""
    if last_in_run:
        return last >> 2
    highest = cards[0] >> 2  # a loop, not max() of a generator: C in the compiled build
    for c in cards:
        if c >> 2 > highest:
            highest = c >> 2
    return highest


# --------------------------------------------------------------------------- awarding points


def award(st: PState, side: int, items: list[Item], events: Events) -> bool:
    """R25: add one scoring event's items to ``side``; True when that side reached the target
    (the match is then over)."""
    items = [item for item in items if item[1]]
    total = 0
    for item in items:
        total += item[1]
    if total <= 0:
        return False
    st.scores[side] += total
    st.items = st.items + tuple(items)
    if events is not None:
        for item in items:
            events.append(
                {
                    "type": "points",
                    "side": item[0],
                    "points": item[1],
                    "item": item[2],
                    "rule": item[3],
                }
            )
    if st.scores[side] >= st.o.target:
        end_match(st, side, "target", events)
        return True
    return False


def end_match(st: PState, side: int, reason: str, events: Events) -> None:
    """R17 / R25: the match is over, won by ``side``."""
    st.winner = side
    st.win_reason = reason
    st.phase = P_OVER
    st.to_act = None
    if events is not None:
        events.append({"type": "match_over", "winner": side, "reason": reason, "scores": list(st.scores)})


def settlement(st: PState, events: Events) -> bool:
    """R22: the side owning the best entry scores every entry it owns. True if the match ended."""
    o = st.o
    best = None
    entries = []
    for pos, h in enumerate(order_from_left(st.dealer, o.players)):
        kind, rank = st.held[h]
        if kind == NO_COMBO:
            continue
        if st.decl[h] != NO_COMBO:
            owner = h
        elif st.claims[h] >= 0:
            owner = st.claims[h]
        else:
            continue
        key = (kind, rank, -pos)
        entries.append((o.side_of[owner], kind, rank, h))
        if best is None or key > best[0]:
            best = (key, o.side_of[owner])
    if best is None:
        return False
    side = best[1]
    items: list[Item] = [
        (side, combo_value(kind, rank), COMBINATION_ITEMS[kind][h], "R22")
        for s, kind, rank, h in entries
        if s == side
    ]
    return award(st, side, items, events)


def side_counts(st: PState) -> list[int]:
    """R24: the cards in each side's piles (a team's partners together)."""
    o = st.o
    counts = [0] * o.sides
    for s in range(o.players):
        counts[o.side_of[s]] += len(st.piles[s])
    return counts


def count_points(counts: list[int]) -> list[int]:
    """R24 by side: the side with strictly the most cards gets the difference to the next
    highest count, every other side nothing (everybody nothing on a tie for the most)."""
    top = max(counts)
    leaders = [side for side in range(len(counts)) if counts[side] == top]
    out = [0] * len(counts)
    if len(leaders) == 1:
        out[leaders[0]] = top - max(c for side, c in enumerate(counts) if side != leaders[0])
    return out


def card_count(st: PState, events: Events) -> bool:
    """R24: the side with the most cards in its piles scores the difference to the next
    side (nothing on a tie for the most). True if the match ended."""
    counts = side_counts(st)
    if events is not None:
        events.append({"type": "card_count", "counts": counts})
    points = count_points(counts)
    for side in range(len(points)):
        if points[side]:
            if award(st, side, [(side, points[side], CARD_COUNT_ITEM, "R24")], events):
                return True
    return False


# --------------------------------------------------------------------------- reports


def items_json(items: tuple[Item, ...]) -> list[JSON]:
    """Scoring items as the score report and the state JSON write them."""
    return [{"side": s, "points": p, "item": name, "rule": rule} for s, p, name, rule in items]


def score_report(st: PState) -> ScoreReport:
    """Match totals per side, and the current deal's items (section 5)."""
    o = st.o
    sides = [[s for s in range(o.players) if o.side_of[s] == side] for side in range(o.sides)]
    deal_points = [0] * o.sides
    for side, points, _, _ in st.items:
        deal_points[side] += points
    return ScoreReport(
        sides=sides,
        scores=list(st.scores),
        deal_no=match_deal_no(st),
        deal_points=deal_points,
        items=items_json(st.items),
        finished=st.phase == P_OVER,
        winner=st.winner,
        extra={
            "hand_no": st.hand_no,
            "deal_in_hand": st.deal_no,
            "win_reason": st.win_reason,
            "target_score": o.target,
            "last_deal_items": items_json(st.prev_items),
            "pending_porrazo": None
            if st.pending is None
            else {"seat": st.pending[0], "points": st.pending[1] + st.pending[2]},
        },
    )


def outcome(start: PState, end: PState) -> list[float]:
    """Each seat's reward in [0, 1]: 1 or 0 when the match was won in between, else its
    side's score gain over the best other side's, squashed by tanh. A search's playout
    ends with the hand (``playout.is_playout_over``), so the gain includes the card count
    (R24) and every capture counts through it."""
    o = end.o
    if end.winner is not None and start.winner is None:
        return [1.0 if o.side_of[s] == end.winner else 0.0 for s in range(o.players)]
    gains = [end.scores[side] - start.scores[side] for side in range(o.sides)]
    out = []
    for s in range(o.players):
        mine = o.side_of[s]
        best_other = gains[1] if mine == 0 else gains[0]  # there are always two sides or more
        for side in range(o.sides):
            if side != mine and gains[side] > best_other:
                best_other = gains[side]
        diff = gains[mine] - best_other
        out.append(0.5 + 0.5 * math.tanh(diff / OUTCOME_SCALE))
    return out
