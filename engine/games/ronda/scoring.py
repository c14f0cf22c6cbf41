"""Ronda's scoring: points awarded item by item (the deal's breakdown), the match end
and its winner (R32), the score report and the search's outcome."""

from __future__ import annotations

import math
from typing import Any

from engine.games.ronda.options import Rules
from engine.games.ronda.state import RondaState, cons_list
from engine.games.ronda.tables import CHAIN_BONUS, MATCH_OVER_P
from engine.protocol import ScoreReport

Events = list[dict[str, Any]] | None
"""A list to append JSON events to, or None on the search's fast path."""


def award(s: RondaState, side: int, points: int, item: str, rule: str, events: Events) -> None:
    """Add ``points`` to ``side`` and record the item for the deal's breakdown."""
    s.scores[side] += points
    s.items = (s.items, side, points, item, rule)
    if events is not None:
        event: dict[str, Any] = {"type": "points", "side": side, "points": points, "item": item, "rule": rule}
        options = item_options(s.o, item, rule)
        if options:
            event["options"] = options
        events.append(event)


def item_options(o: Rules, item: str, rule: str) -> list[str]:
    """The non-default house rules (docs/rules/ronda.md, section 11) that produced or
    changed a deal item, for its ``options``: an este under ``este_capturing_card``
    ``stays_on_table`` (R21); a chain claim (R24) that only ``chain_bonus_players`` ``any``
    allows, or that ``chain_bonus_values`` pays otherwise. Worked out from the item and
    the match's options, so a state's ``deal_items`` keep their shape."""
    if rule == "R21":
        return ["este_capturing_card"] if o.este_card_stays else []
    if rule != "R24":
        return []
    level = 2 if item.startswith(CHAIN_BONUS[2][1]) else 1  # b'achra, else b'khamsa
    options: list[str] = []
    if level >= o.players - 1:  # the default: b'khamsa with 3-4 players, b'achra with 4
        options.append("chain_bonus_players")
    if o.chain_bonus[level - 1] != CHAIN_BONUS[level][0]:
        options.append("chain_bonus_values")
    return options


def end_match(s: RondaState, side: int, events: Events) -> None:
    """The match is over: ``side`` won."""
    s.winner = side
    s.phase = MATCH_OVER_P
    s.to_act = -1
    if events is not None:
        events.append({"type": "match_over", "winner": side, "scores": s.scores[:]})


def target_winner(scores: list[int], target: int) -> int | None:
    """R32: the side with at least ``target`` points and strictly more than every other
    side, or None (below the target, or the highest score is shared)."""
    # one pass, no builtins: C arithmetic in the compiled build (it runs after every award)
    best = scores[0]
    side = 0
    shared = False
    for i in range(1, len(scores)):
        points = scores[i]
        if points > best:
            best, side, shared = points, i, False
        elif points == best:
            shared = True
    if best >= target and not shared:
        return side
    return None


def r32_match_over(s: RondaState, events: Events) -> bool:
    """R32: after a scoring batch, a side with at least the target and strictly more than
    every other side wins at once. Returns True when the match ended."""
    side = target_winner(s.scores, s.o.target)
    if side is not None:
        end_match(s, side, events)
        return True
    return False


def score_report(s: RondaState) -> ScoreReport:
    """Match totals per side and this deal's items so far (their points add up)."""
    ns = s.nsides
    items: list[dict[str, Any]] = []
    for side, points, item, rule in cons_list(s.items):
        entry: dict[str, Any] = {"side": side, "points": points, "item": item, "rule": rule}
        options = item_options(s.o, item, rule)
        if options:
            entry["options"] = options
        items.append(entry)
    deal_points = [0] * ns
    for item in items:
        deal_points[item["side"]] += item["points"]
    return ScoreReport(
        sides=[[seat for seat in range(s.n) if seat % ns == side] for side in range(ns)],
        scores=s.scores[:],
        deal_no=s.deal_no,
        deal_points=deal_points,
        items=items,
        finished=s.winner >= 0,
        winner=None if s.winner < 0 else s.winner,
        extra={
            "hand_number": s.hand_no,
            "provisional_award": None if s.prov_side < 0 else {"side": s.prov_side, "points": s.prov_pts},
            "piles": [p.bit_count() for p in s.piles],
        },
    )


def outcome(start: RondaState, end: RondaState) -> list[float]:
    """1/0 when the match was won/lost, else the score gain over the best other side
    mapped into (0, 1); partners share one value."""
    ns = end.nsides
    if end.winner >= 0:
        return [1.0 if seat % ns == end.winner else 0.0 for seat in range(end.n)]
    gain = [end.scores[side] - start.scores[side] for side in range(ns)]
    out = []
    for seat in range(end.n):
        mine = gain[seat % ns]
        best_other = max(g for side, g in enumerate(gain) if side != seat % ns)
        out.append(0.5 + 0.5 * math.tanh((mine - best_other) / 5.0))
    return out
