"""Baloot's scoring (S1-S8) and the match end (E2, E3): a finished deal's award item by
item, the match winner, and the standings and outcome the protocol reports."""

from __future__ import annotations

import math
from typing import Any

from engine.games.baloot.items import ITEMS
from engine.games.baloot.options import Opts
from engine.games.baloot.state import Events, State
from engine.games.baloot.tables import (
    BALOOT_POINTS,
    DEAL_OVER,
    DEAL_TOTAL,
    HOKM,
    KABOOT_BASE,
    KIND_NAMES,
    MATCH_OVER,
)
from engine.protocol import JSON, ScoreReport

KABOOT_ITEM = ITEMS.text("kaboot")
PROJECTS_ITEM = ITEMS.text("projects")
BALOOT_ITEM = ITEMS.text("baloot")
CARDS_ITEM = ITEMS.text("cards")
"""S6/S7: the award's items, as engine/games/baloot/items.py writes them."""


def rounded(kind: int, points: int) -> int:
    """S2: a team's card points as game points."""
    if kind == HOKM:
        return (points + 4) // 10
    if points % 10 == 5:
        return points // 5
    return 2 * ((points + 5) // 10)


def tie_winner(kind: int, declarer: int, counted: int, x: int) -> int:
    """S5: the winner of a deal whose totals are equal."""
    u = x % 10
    if kind == HOKM:
        if 2 <= u <= 5:
            return counted
        if u == 1:
            return declarer
        return 1 - counted
    if 1 <= u <= 4:
        return counted
    if 6 <= u <= 9:
        return 1 - counted
    return declarer


def card_game_points(kind: int, counted: int, cards: list[int], both_sides: bool) -> list[int]:
    """S2: the deal's card game points per team. Only the counted team is rounded, the other
    gets the rest of T; with ``hokm_rounding`` ``both_sides``, Hokm points ending in 6 (the
    only case where rounding both sides gives 17: both teams' points then end in 6) are
    rounded on both sides and the larger lowered, so the team with more points gets them
    rounded down (86 / 76 -> 8 / 8 whichever team is counted)."""
    gp = [0, 0]
    x = cards[counted]
    if both_sides and kind == HOKM and x % 10 == 6:
        more = 0 if cards[0] > cards[1] else 1
        gp[more] = cards[more] // 10
        gp[1 - more] = DEAL_TOTAL[HOKM] - gp[more]
        return gp
    gp[counted] = rounded(kind, x)
    gp[1 - counted] = DEAL_TOTAL[kind] - gp[counted]
    return gp


def settle(
    kind: int,
    declarer: int,
    mult: int,
    gahwa: bool,
    raiser: int,
    cards: list[int],
    tricks_won: list[int],
    projects: list[int],
    baloot: list[int],
    opts: Opts,
) -> dict[str, Any]:
    """S1-S8: a finished deal's award. Returns winner, adds, items and the workings.

    ``opts`` carries the house rules of the award (docs/rules/baloot.md, Variants): an item
    whose amount a non-default one changed names it in ``options``."""
    total = DEAL_TOTAL[kind]
    items: list[dict[str, Any]] = []
    adds = [0, 0]
    # S6/S7: projects times 2 in a doubled deal (or times the multiplier, option)
    pm = 1 if mult < 2 else mult if opts.projects_times_mult else 2
    pm_tag = ["projects_when_doubled"] if pm > 2 else []
    # The award is built as one dict literal per branch (in the keys' order of the
    # JSON): the dict is allocated at its final size once, not grown key by key.
    out: dict[str, Any]
    kaboot = 0 if tricks_won[0] == 8 else 1 if tricks_won[1] == 8 else -1
    if kaboot >= 0:
        w = kaboot
        if not gahwa:
            flat = opts.kaboot_flat and mult >= 2
            value = KABOOT_BASE[kind] * (1 if opts.kaboot_flat else mult)
            add_item(items, adds, w, value, KABOOT_ITEM, "S6", ["doubled_kaboot"] if flat else [])
            if opts.kaboot_projects:
                add_item(items, adds, w, projects[w] * pm, PROJECTS_ITEM, "S6", pm_tag)
            elif projects[w]:
                add_zero_item(items, w, PROJECTS_ITEM, "S6", "projects_in_kaboot")
            add_item(items, adds, w, baloot[w], BALOOT_ITEM, "S6", [])
        out = {
            "card_points": list(cards),
            "projects": list(projects),
            "baloot": list(baloot),
            "kaboot": True,
            "winner": w,
            "adds": adds,
            "items": items,
            "gahwa": gahwa,
            "multiplier": mult,
            "declarer_team": declarer,
            "kind": KIND_NAMES[kind],
        }
        return out
    counted = 1 - raiser
    x = cards[counted]
    gp = card_game_points(kind, counted, cards, opts.rounding_both_sides)
    g = [gp[0] + projects[0] + baloot[0], gp[1] + projects[1] + baloot[1]]
    other = 1 - declarer
    if g[declarer] > g[other]:
        w = declarer
    elif g[declarer] < g[other]:
        w = other
    elif opts.rounding_both_sides and kind == HOKM and x % 10 == 6:
        # S5's reason (the team whose rounding lost more wins): the larger was lowered
        w = 0 if cards[0] > cards[1] else 1
    else:
        w = tie_winner(kind, declarer, counted, x)
    # an option changed the rounding only where it gives other game points than S2's
    changed = opts.rounding_both_sides and gp != card_game_points(kind, counted, cards, False)
    cards_tag = ["hokm_rounding"] if changed else []
    if not gahwa:
        if mult == 1 and w == declarer:
            for k in (0, 1):
                add_item(items, adds, k, gp[k], CARDS_ITEM, "S7", cards_tag)
                add_item(items, adds, k, projects[k], PROJECTS_ITEM, "S7", [])
                add_item(items, adds, k, baloot[k], BALOOT_ITEM, "S7", [])
        elif mult == 1:
            add_item(items, adds, w, total, CARDS_ITEM, "S7", cards_tag)
            add_item(items, adds, w, projects[0] + projects[1], PROJECTS_ITEM, "S7", [])
            add_item(items, adds, w, baloot[0] + baloot[1], BALOOT_ITEM, "S7", [])
        elif opts.each_keeps_own and w == declarer:
            # the made contract's undoubled split (each its own), amounts times the multiplier
            for k in (0, 1):
                add_item(items, adds, k, mult * gp[k], CARDS_ITEM, "S7", cards_tag + ["doubled_award"])
                add_item(items, adds, k, pm * projects[k], PROJECTS_ITEM, "S7", pm_tag + ["doubled_award"])
                add_item(items, adds, k, baloot[k], BALOOT_ITEM, "S7", ["doubled_award"])
        else:
            add_item(items, adds, w, mult * total, CARDS_ITEM, "S7", cards_tag)
            add_item(items, adds, w, pm * (projects[0] + projects[1]), PROJECTS_ITEM, "S7", pm_tag)
            add_item(items, adds, w, baloot[0] + baloot[1], BALOOT_ITEM, "S7", [])
    out = {
        "card_points": list(cards),
        "projects": list(projects),
        "baloot": list(baloot),
        "kaboot": False,
        "counted": counted,
        "game_points": gp,
        "totals": g,
        "winner": w,
        "adds": adds,
        "items": items,
        "gahwa": gahwa,
        "multiplier": mult,
        "declarer_team": declarer,
        "kind": KIND_NAMES[kind],
    }
    return out


def add_item(
    items: list[dict[str, Any]],
    adds: list[int],
    side: int,
    points: int,
    name: str,
    rule: str,
    options: list[str],
) -> None:
    """S6/S7: one item of an award (none for 0 points), added to its side's total.
    ``options``: the non-default options that changed it, listed in the item's ``options``
    field (an item no option changed has no such field)."""
    if points:
        item: dict[str, Any] = {"side": side, "points": points, "item": name, "rule": rule}
        if options:
            item["options"] = list(options)  # its own list: a tag list may serve two items
        items.append(item)
        adds[side] += points


def add_zero_item(items: list[dict[str, Any]], side: int, name: str, rule: str, option: str) -> None:
    """An item of 0 points that a non-default option caused (e.g. projects not added to a
    kaboot): listed so that the award says why they are missing."""
    items.append({"side": side, "points": 0, "item": name, "rule": rule, "options": [option]})


def deal_bonuses(st: State) -> tuple[list[int], list[int]]:
    """S1: P (projects of the project team) and B (baloot) per team."""
    proj = [0, 0]
    if st.proj_team >= 0:
        for s in range(4):
            if s & 1 == st.proj_team:
                proj[st.proj_team] += st.psets[s][1]
    bal = [0, 0]
    for s in st.baloot:
        bal[s & 1] += BALOOT_POINTS
    return proj, bal


def deal_result(st: State) -> dict[str, Any]:
    """S1-S8: the award of the deal ``st`` has just finished (its 8 tricks played)."""
    proj, bal = deal_bonuses(st)
    res = settle(
        st.kind,
        st.bidder & 1,
        st.mult,
        st.gahwa,
        st.raiser,
        st.card_points,
        st.tricks_won,
        proj,
        bal,
        st.opts,
    )
    res["deal_no"] = st.deal_no
    return res


def match_winner_after(scores: list[int], target: int) -> int | None:
    """E2: the match winner once a team reaches the target (the higher score if both
    do; None while below it or on equal scores)."""
    a, b = scores
    if (a >= target or b >= target) and a != b:
        return 0 if a > b else 1
    return None


def finish_match(st: State, winner: int, events: Events) -> None:
    """E2/E3: the match is over."""
    st.match_winner = winner
    st.phase = MATCH_OVER
    st.to_act = None
    if events is not None:
        events.append({"type": "match_over", "winner": winner, "scores": list(st.scores)})


def score_report(state: State) -> ScoreReport:
    """The standings: match scores by team, the finished deal's award while it is shown."""
    res = state.result
    finished = state.phase == MATCH_OVER
    current = state.phase in (DEAL_OVER, MATCH_OVER) and res is not None
    items = list(res["items"]) if current and res else []
    deal_points = list(res["adds"]) if current and res else [0, 0]
    extra: JSON = {
        "card_points": list(state.card_points),
        "tricks_won": list(state.tricks_won),
        "last_deal": res,
    }
    return ScoreReport(
        sides=[[0, 2], [1, 3]],
        scores=list(state.scores),
        deal_no=state.deal_no,
        deal_points=deal_points,
        items=items,
        finished=finished,
        winner=state.match_winner if state.match_winner >= 0 else None,
        extra=extra,
    )


def outcome(start: State, end: State) -> list[float]:
    """The search's value of ``end`` per seat: 1/0 for a decided match, else the score
    difference gained since ``start`` squashed into 0..1."""
    if end.phase == MATCH_OVER and end.match_winner >= 0:
        return [1.0 if s & 1 == end.match_winner else 0.0 for s in range(4)]
    diff = (end.scores[0] - start.scores[0]) - (end.scores[1] - start.scores[1])
    v = 0.5 + 0.5 * math.tanh(diff / 26.0)
    return [v, 1.0 - v, v, 1.0 - v]
