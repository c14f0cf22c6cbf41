"""Trex scoring (section 5): a deal's penalties item by item, the Trex bonuses, the match's
end, its winners (E4), the score report, standings and the search's outcome."""

from __future__ import annotations

import math
from typing import Final

from engine.protocol import JSON, Event, ScoreReport

from .items import FINISHED_ITEMS, ITEMS
from .state import TrexState, entries
from .tables import (
    CODES,
    COLLECTIONS,
    COMPLEX,
    CONTRACT_NAMES,
    DEAL_OVER,
    DIAMOND_MASK,
    DIAMONDS,
    DOUBLABLE_MASK,
    KH,
    KH_BIT,
    MATCH_OVER,
    PENALTY_MASK,
    QUEEN_CARDS,
    QUEEN_MASK,
    SINGLE_VALUE,
    TREX,
    TREX_BONUS,
    cards_of,
)

TRICK_ITEM: Final = ITEMS.text("trick")
"""S4: a trick's item (written once: the search scores every trick)."""
Events = list[Event] | None
"""A list to append JSON events to, or None on the search's fast path."""
SIDES_SOLO = [[0], [1], [2], [3]]
SIDES_TEAMS = [[0, 2], [1, 3]]
OUTCOME_SCALE: Final = 150.0
"""Points of relative deal score that move a seat's reward by tanh(1)/2 (outcome)."""
TANH: Final = math.tanh
"""``math.tanh``, read by the compiled build as a static (it has no native tanh: without
this it looks the function up in the module ``math`` at every call)."""


# ================================================================ a deal, item by item
def score_points(
    s: TrexState, seat: int, points: int, item: str, rule: str, events: Events, options: tuple[str, ...] = ()
) -> None:
    """S8: ``points`` (before the sign of reversed_scores) to ``seat`` for ``item``, under
    ``rule``; ``options``: the non-default house rules that produced or changed the item
    (section 11), listed in the event's ``options`` (no such key when none did)."""
    pts = points * s.opts.sign
    ds = s.deal_scores
    ds[seat] = ds[seat] + pts  # (not ``+=``: a generic operation in mypyc)
    if events is not None:
        event: Event = {"type": "points", "seat": seat, "points": pts, "item": item, "rule": rule}
        if options:
            event["options"] = list(options)
        events.append(event)


DIAMOND_ITEMS: Final = tuple(ITEMS.text("diamonds" if n > 1 else "diamond", n=n) for n in range(14))
"""S3's item for ``n`` diamonds in one trick (index ``n``)."""
PENALTY_CARD_ITEMS: Final = tuple(ITEMS.text("penalty_card", card=code) for code in CODES)
DOUBLED_ITEMS: Final = {
    key: tuple(ITEMS.text(key, card=code) for code in CODES)
    for key in (
        "doubled",
        "doubled_taken_by_other",
        "doubled_taken_by_doubler",
        "doubled_leader_bonus",
        "doubled_led_and_taken",
        "doubled_next_seat_bonus",
    )
}
FINISHED_TEXTS: Final = tuple(ITEMS.text(key) for key in FINISHED_ITEMS)
"""Items the search scores in every playout, written once from their templates (a
template filled per trick would cost a Python call in the compiled build's hot loop):
indexed by card number, or by count."""


def score_trick(s: TrexState, tmask: int, w: int, leader: int, events: Events) -> None:
    """S1-S5, S7: the penalties of one trick won by ``w`` and led by ``leader``."""
    c = s.contract
    opts = s.opts
    if c == COLLECTIONS or c == COMPLEX:
        score_points(s, w, -opts.tv, TRICK_ITEM, "S4", events)
    pen = tmask & PENALTY_MASK[c]
    if not pen:
        return
    if pen & DIAMOND_MASK and (c == DIAMONDS or c == COMPLEX):
        n = (pen & DIAMOND_MASK).bit_count()
        score_points(s, w, -opts.dv * n, DIAMOND_ITEMS[n], "S3", events)
    pen &= DOUBLABLE_MASK[c]  # the single-valued cards: KH and queens (a queen is not a diamond here)
    if not pen:
        return
    single = pen & ~s.dbl_mask
    if single:
        for card in cards_of(single):
            item = PENALTY_CARD_ITEMS[card]
            score_points(s, w, -SINGLE_VALUE[card], item, "S1" if card == KH else "S2", events)
    doubled = pen & s.dbl_mask
    if doubled:
        for card, d in s.doubled:
            if doubled >> card & 1:
                score_doubled(s, card, d, w, leader, events)


OTHER_NO_GAIN: Final = ("doubled_card_taken_by_other",)
AFTER_NO_GAIN: Final = ("doubler_takes_after_other_lead",)
OWN_LEAD_TAG: Final = ("doubler_leads_and_takes",)
"""The house rules (section 11) an S5 item names in its ``options``."""


def score_doubled(s: TrexState, card: int, d: int, w: int, leader: int, events: Events) -> None:
    """S5: a doubled card of single value v, doubled by ``d``, won by ``w``, trick led by
    ``leader``; with the house rules of section 11 (an item they change names the option)."""
    v = SINGLE_VALUE[card]
    o = s.opts
    if w != d:
        if o.other_gain:
            score_points(s, w, -2 * v, DOUBLED_ITEMS["doubled"][card], "S5", events)
            score_points(s, d, v, DOUBLED_ITEMS["doubled_taken_by_other"][card], "S5", events)
        else:
            score_points(s, w, -2 * v, DOUBLED_ITEMS["doubled"][card], "S5", events, OTHER_NO_GAIN)
    elif not o.leader_bonus:  # self_capture_scoring: single_penalty
        score_points(s, d, -v, DOUBLED_ITEMS["doubled_taken_by_doubler"][card], "S5", events)
    elif leader != d:
        if o.leader_gain:
            score_points(s, d, -2 * v, DOUBLED_ITEMS["doubled_taken_by_doubler"][card], "S5", events)
            score_points(s, leader, v, DOUBLED_ITEMS["doubled_leader_bonus"][card], "S5", events)
        else:
            item = DOUBLED_ITEMS["doubled_taken_by_doubler"][card]
            score_points(s, d, -2 * v, item, "S5", events, AFTER_NO_GAIN)
    elif o.own_lead == 0:
        score_points(s, d, -v, DOUBLED_ITEMS["doubled_taken_by_doubler"][card], "S5", events)
    else:
        item = DOUBLED_ITEMS["doubled_led_and_taken"][card]
        score_points(s, d, -2 * v, item, "S5", events, OWN_LEAD_TAG)
        if o.own_lead == 2:  # double_penalty_opponent_gains
            item = DOUBLED_ITEMS["doubled_next_seat_bonus"][card]
            score_points(s, (d + 1) & 3, v, item, "S5", events, OWN_LEAD_TAG)


def score_finish_order(s: TrexState, events: Events) -> None:
    """S6: the Trex bonuses by finishing position, once all four seats are in ``finish_order``."""
    for pos, seat in enumerate(s.finish_order):
        score_points(s, seat, TREX_BONUS[pos], FINISHED_TEXTS[pos], "S6", events)


def penalty_value(s: TrexState, taken: int) -> int:
    """The total (positive) penalty of the cards in ``taken`` under the contract (S1-S4, S7)."""
    c = s.contract
    o = s.opts
    pen = taken & PENALTY_MASK[c]
    v = 0
    if c == COLLECTIONS or c == COMPLEX:
        v += o.tv * (taken.bit_count() // 4)
    if c in (DIAMONDS, COMPLEX):
        v += o.dv * (pen & DIAMOND_MASK).bit_count()
    pen &= DOUBLABLE_MASK[c]
    if pen & KH_BIT:
        v += SINGLE_VALUE[KH]
    v += SINGLE_VALUE[QUEEN_CARDS[0]] * (pen & QUEEN_MASK).bit_count()
    return v


def running_totals(s: TrexState) -> list[int]:
    """Match totals plus the running deal's scores (not yet recorded)."""
    return [running_total(s, 0), running_total(s, 1), running_total(s, 2), running_total(s, 3)]


def running_total(s: TrexState, seat: int) -> int:
    """``seat``'s match total plus its running deal score (not yet recorded): once the deal
    is over its score is in ``match_scores`` already."""
    if s.phase == DEAL_OVER or s.phase == MATCH_OVER:
        return s.match_scores[seat]
    return s.match_scores[seat] + s.deal_scores[seat]


def match_result(s: TrexState) -> tuple[list[int], bool]:
    """E4: the winning sides (seats, or teams 0 = {0,2} / 1 = {1,3}) and whether it is a draw."""
    sign = s.opts.sign  # reversed: lowest wins, i.e. highest of the negated totals
    ms = [v * sign for v in s.match_scores]
    if not s.opts.partnership:
        best = max(ms)
        return [i for i in range(4) if ms[i] == best], False
    if not s.opts.lowest_player_loses:
        t = [ms[0] + ms[2], ms[1] + ms[3]]
        if t[0] == t[1]:
            return [], True
        return [0 if t[0] > t[1] else 1], False
    low = min(ms)
    losing = {i & 1 for i in range(4) if ms[i] == low}
    if len(losing) == 2:
        return [], True
    return [1 - losing.pop()], False


def deal_items(s: TrexState) -> list[JSON]:
    """The current deal's score, item by item (replayed from ``played``); anything the
    replay cannot explain (a layout that started mid-deal) is one 'earlier play' item."""
    scratch = s.clone()
    scratch.deal_scores = [0, 0, 0, 0]
    events: list[Event] = []
    if s.contract == TREX:
        if len(s.finish_order) == 4:
            score_finish_order(scratch, events)
    elif s.contract >= 0:
        tricks: dict[int, list[tuple[int, int]]] = {}
        for seat, action, no in entries(s.played):
            if no:
                tricks.setdefault(no, []).append((seat, action))
        for no in sorted(tricks):
            t = tricks[no]
            if len(t) != 4 or no > s.tricks_played:
                continue
            led = t[0][1] // 13
            w = max((c, seat) for seat, c in t if c // 13 == led)[1]
            tm = sum(1 << c for _, c in t)
            score_trick(scratch, tm, w, t[0][0], events)
    items: list[JSON] = []
    for e in events:
        if e["type"] == "points":
            item: JSON = {"seat": e["seat"], "points": e["points"], "item": e["item"], "rule": e["rule"]}
            if "options" in e:
                item["options"] = e["options"]
            items.append(item)
    for i in range(4):
        rest = s.deal_scores[i] - scratch.deal_scores[i]
        if rest:
            items.append({"seat": i, "points": rest, "item": ITEMS.text("earlier_play"), "rule": "S9"})
    return items


# ================================================================ the match
def score_report(s: TrexState) -> ScoreReport:
    """The protocol's score: match totals per side, this deal's points item by item, and
    once the match is over its winners (E4)."""
    opts = s.opts
    sides = SIDES_TEAMS if opts.partnership else SIDES_SOLO
    team_mask = 1 if opts.partnership else 3  # a seat's side: its team, or itself
    ms = s.match_scores
    scores = [sum(ms[i] for i in side) for side in sides]
    items = deal_items(s)
    for it in items:
        it["side"] = it["seat"] & team_mask
    deal_points = [sum(s.deal_scores[i] for i in side) for side in sides]
    finished = s.phase == MATCH_OVER
    winners, draw = match_result(s) if finished else ([], False)
    return ScoreReport(
        sides=[list(x) for x in sides],
        scores=scores,
        deal_no=s.deal_no,
        deal_points=deal_points,
        items=items,
        finished=finished,
        winner=winners[0] if len(winners) == 1 else None,
        extra={
            "match_scores": list(ms),
            "deal_scores": list(s.deal_scores),
            "contract": CONTRACT_NAMES[s.contract] if s.contract >= 0 else None,
            "winners": winners,
            "draw": draw,
        },
    )


def standings(s: TrexState) -> list[float]:
    """The totals per side, higher is better: S8/E4, with reversed_scores the lowest total wins."""
    sign = s.opts.sign
    return [float(v * sign) for v in score_report(s).scores]


def outcome(start: TrexState, end: TrexState) -> list[float]:
    """The search's reward per seat in [0, 1]: the match result once it is over (E4), else
    the deal's points relative to the other seats (or the other team), squashed by tanh."""
    if end.phase == MATCH_OVER:
        winners, draw = match_result(end)
        if draw:
            return [0.5] * 4
        if end.opts.partnership:
            return [1.0 if (i & 1) in winners else 0.0 for i in range(4)]
        return [1.0 if i in winners else 0.0 for i in range(4)]
    # per seat in locals, not lists: the search calls this once per iteration
    sign = end.opts.sign
    c0 = (running_total(end, 0) - running_total(start, 0)) * sign
    c1 = (running_total(end, 1) - running_total(start, 1)) * sign
    c2 = (running_total(end, 2) - running_total(start, 2)) * sign
    c3 = (running_total(end, 3) - running_total(start, 3)) * sign
    tanh = TANH
    if end.opts.partnership:  # a team's change less the other team's, halved
        d0 = (c0 + c2 - (c1 + c3)) / 2
        d1 = (c1 + c3 - (c0 + c2)) / 2
        r0 = 0.5 + 0.5 * tanh(d0 / OUTCOME_SCALE)
        r1 = 0.5 + 0.5 * tanh(d1 / OUTCOME_SCALE)
        return [r0, r1, r0, r1]
    mean = (c0 + c1 + c2 + c3) / 4  # a seat's change less the others' mean
    return [
        0.5 + 0.5 * tanh((c0 - mean) * 4 / 3 / OUTCOME_SCALE),
        0.5 + 0.5 * tanh((c1 - mean) * 4 / 3 / OUTCOME_SCALE),
        0.5 + 0.5 * tanh((c2 - mean) * 4 / 3 / OUTCOME_SCALE),
        0.5 + 0.5 * tanh((c3 - mean) * 4 / 3 / OUTCOME_SCALE),
    ]
