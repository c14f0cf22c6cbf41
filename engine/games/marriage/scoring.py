"""Marriage: scoring. The maal of a holding (R27/R28), the settlement of a finished deal
(R29-R31), the score report item by item, and the match's standings (R34)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from engine.protocol import JSON, ScoreReport

from .items import ITEMS
from .melds import joker_family
from .options import OPTION_SPECS
from .state import MState
from .tables import (
    ALL_CODES,
    DUBLEES,
    MARRIAGE_VALUE,
    OVER,
    POPLU_VALUE,
    TIPLU_VALUE,
    TUNNELA_JOKER,
    TUNNELA_ORDINARY,
    TUNNELA_POPLU_JHIPLU,
    UNSEEN,
    XX,
)

MOST_COUNTED: Final = 64
"""More than any hand holds of one card (a hand has 21 cards or 22)."""
TUNNELA_ITEMS: Final = {
    key: tuple(ITEMS.text(key, card=code) for code in ALL_CODES)
    for key in ("tunnela", "tunnela_ordinary_joker", "tunnela_kept")
}
COUNTED_ITEMS: Final = {
    key: tuple(ITEMS.text(key, n=n) for n in range(MOST_COUNTED))
    for key in ("marriages", "tiplu", "poplu", "jhiplu", "alter", "man")
}
"""The maal's items, written once by card number or by count (the search counts a maal in
every playout, and a template filled each time would cost a Python call in the compiled
build's hot loop)."""


def maal(
    holding: Sequence[int],
    exposed: Sequence[int],
    tiplu: int,
    alter_points: int,
    man_points: int,
) -> tuple[int, list[tuple[str, int]]]:
    """R27/R28: the best maal total of a holding (counts, exposed tunnelas' cards
    included) and its items ``[(item, points), ...]``."""
    fam = joker_family(tiplu)
    fixed: list[tuple[str, int]] = []
    optional: list[tuple[int, int]] = []  # (code, kept value)
    for c in exposed:
        if c in (fam.poplu, fam.jhiplu):
            optional.append((c, TUNNELA_POPLU_JHIPLU))
        elif c == fam.alter and alter_points:
            optional.append((c, TUNNELA_JOKER))
        elif c in fam.ordinary:
            fixed.append((TUNNELA_ITEMS["tunnela_ordinary_joker"][c], TUNNELA_JOKER))
        else:
            fixed.append((TUNNELA_ITEMS["tunnela"][c], TUNNELA_ORDINARY))
    best = -1
    best_items: list[tuple[str, int]] = []
    for mask in range(1 << len(optional)):
        t, p, j, al = (
            holding[fam.tiplu],
            holding[fam.poplu],
            holding[fam.jhiplu],
            holding[fam.alter],
        )
        items = list(fixed)
        for i, (c, value) in enumerate(optional):
            if mask >> i & 1:
                items.append((TUNNELA_ITEMS["tunnela_kept"][c], value))
                if c == fam.poplu:
                    p -= 3
                elif c == fam.jhiplu:
                    j -= 3
                else:
                    al -= 3
        for m in range(min(t, p, j, 2) + 1):
            cand = list(items)
            if m:
                cand.append((COUNTED_ITEMS["marriages"][m], MARRIAGE_VALUE[m]))
            if t - m:
                cand.append((COUNTED_ITEMS["tiplu"][t - m], TIPLU_VALUE[min(t - m, 2)]))
            if p - m:
                cand.append((COUNTED_ITEMS["poplu"][p - m], POPLU_VALUE[min(p - m, 3)]))
            if j - m:
                cand.append((COUNTED_ITEMS["jhiplu"][j - m], POPLU_VALUE[min(j - m, 3)]))
            if alter_points and al:
                cand.append((COUNTED_ITEMS["alter"][al], al * alter_points))
            if holding[XX] and man_points:
                cand.append((COUNTED_ITEMS["man"][holding[XX]], holding[XX] * man_points))
            total = sum(v for _, v in cand)
            if total > best:
                best, best_items = total, cand
    return best, best_items


def holding(st: MState, seat: int) -> list[int]:
    """R25: the seat's 21 cards: hand + exposed tunnelas + shown sets/pairs (+ final sets)."""
    counts = st.hands[seat][:]
    for c in st.tunnelas[seat]:
        counts[c] += 3
    for item in st.shown[seat]:
        if isinstance(item, tuple):
            for c in item:
                counts[c] += 1
        else:
            counts[item] += 2
    return counts


def settle(st: MState) -> tuple[list[int], list[int], list[list[tuple[str, int]]]]:
    """R27-R32: (maal M, deal deltas, maal items per seat) of a finished deal."""
    n, o, w = st.n, st.opts, st.winner
    maals: list[int] = []
    items: list[list[tuple[str, int]]] = []
    for s in range(n):
        m, its = maal(holding(st, s), st.tunnelas[s], st.tiplu, o.alter_points, o.man_points)
        maals.append(m)
        items.append(its)
    adj = maals[:]
    if o.unseen_maal != "count":  # R29
        for s in range(n):
            if s != w and st.route[s] == UNSEEN:
                if o.unseen_maal == "kidnap":
                    adj[w] += adj[s]
                adj[s] = 0
    total = sum(adj)
    bonus = o.dublee_bonus if st.fkind == DUBLEES else 0
    delta = [n * adj[s] - total for s in range(n)]  # R30
    for s in range(n):  # R31
        if s != w:
            g = (o.seen_payment if st.route[s] != UNSEEN else o.unseen_payment) + bonus
            delta[s] -= g
            delta[w] += g
    return adj, delta, items


def score_report(st: MState) -> ScoreReport:
    """R30-R32: the match totals and the last finished deal item by item: after a finish,
    the maal exchange and the game payments (with each seat's maal items); after a void
    deal or in a later deal, that deal's result."""
    n = st.n
    items: list[JSON] = []
    extra: JSON = {"maal": st.maal, "void": False}
    deal_points = list(st.delta) if st.delta is not None else [0] * n
    deal_no = st.result_deal or st.deal_no
    if st.phase == OVER and st.winner >= 0:
        maal_m, delta, maal_items = settle(st)
        total = sum(maal_m)
        g_total = 0
        exchange_notes = unseen_maal_note(st)  # and the options behind any seat's maal items
        for its in maal_items:
            for name, _ in its:
                exchange_notes += [n for n in maal_item_notes(st, name) if n not in exchange_notes]
        for s in range(n):
            exchange = {
                "side": s,
                "points": n * maal_m[s] - total,
                "item": ITEMS.text("maal_exchange"),
                "rule": "R30",
            }
            items.append(named(exchange, exchange_notes))
        received: list[str] = []
        for s in range(n):
            if s == st.winner:
                continue
            g = delta[s] - (n * maal_m[s] - total)
            g_total -= g
            notes = payment_notes(st, s)
            received += [note for note in notes if note not in received]
            item = ITEMS.text("game_payment", seat=st.winner)
            items.append(named({"side": s, "points": g, "item": item, "rule": "R31"}, notes))
        winner_item = {
            "side": st.winner,
            "points": g_total,
            "item": ITEMS.text("game_payments_received"),
            "rule": "R31",
        }
        items.append(named(winner_item, received))
        extra["maal_items"] = [
            [named({"item": name, "points": v}, maal_item_notes(st, name)) for name, v in its]
            for its in maal_items
        ]
        extra["finish_kind"] = ("sets", "dublees")[st.fkind - 1]
        deal_points = delta
    elif st.delta is not None:
        for s in range(n):
            items.append(
                {
                    "side": s,
                    "points": st.delta[s],
                    "item": ITEMS.text("deal_result", deal=deal_no),
                    "rule": "R32",
                }
            )
    extra["void"] = st.delta is not None and st.phase == OVER and st.winner < 0
    return ScoreReport(
        sides=[[s] for s in range(n)],
        scores=list(st.totals),
        deal_no=deal_no,
        deal_points=deal_points,
        items=items,
        finished=st.over,
        winner=match_winner(st),
        extra=extra,
    )


# ---- the options behind an item (issue 31): a settlement item that a non-default value of a
# money option produced or changed names it in its ``options``, e.g. ``{"item": "game payment
# to seat 0", ..., "options": ["seen_payment"]}``; with the default values no item has one.
DEFAULTS: dict[str, object] = {spec.name: spec.default for spec in OPTION_SPECS}


def named(item: JSON, notes: Sequence[str]) -> JSON:
    """``item`` with the options behind it in ``options`` (none: ``item`` as it is)."""
    if notes:
        item["options"] = list(notes)
    return item


def _note(st: MState, name: str) -> list[str]:
    """``[name]`` when the match's option ``name`` is not at its default."""
    value = dict(st.opts.raw)[name]
    return [] if value == DEFAULTS[name] else [name]


def unseen_maal_note(st: MState) -> list[str]:
    """R29: murder or kidnap changed the exchange when a non-winner ended unseen."""
    unseen = any(s != st.winner and st.route[s] == UNSEEN for s in range(st.n))
    return _note(st, "unseen_maal") if unseen else []


def payment_notes(st: MState, seat: int) -> list[str]:
    """R31: the payment options behind ``seat``'s game payment."""
    notes = _note(st, "unseen_payment" if st.route[seat] == UNSEEN else "seen_payment")
    if st.fkind == DUBLEES:
        notes += _note(st, "dublee_bonus")
    return notes


def maal_item_notes(st: MState, item: str) -> list[str]:
    """R27: alter cards are maal only by ``alter_points``, men exist only by ``man_cards``."""
    if item.endswith(" alter") or (item.startswith("exposed tunnela") and _is_alter_tunnela(st, item)):
        return _note(st, "alter_points")
    if item.endswith(" man"):
        return _note(st, "man_cards") + _note(st, "man_points")
    return []


def _is_alter_tunnela(st: MState, item: str) -> bool:
    """An ``exposed tunnela <card> kept`` item of an alter card (kept only by alter_points)."""
    return item.split()[2] == ALL_CODES[joker_family(st.tiplu).alter]


def match_winner(st: MState) -> int | None:
    """R34: the seat with the highest total once the match is over (None on a tie)."""
    if not st.over:
        return None
    best = max(st.totals)
    return st.totals.index(best) if st.totals.count(best) == 1 else None


def outcome(start: MState, end: MState) -> list[float]:
    """The search's reward from ``start`` to the end of a deal or match: at the match's end
    the standings (1 first, 0 last, ties shared); after a deal, the points won in it
    squashed into (0, 1)."""
    n = end.n
    if end.over and not start.over:
        ranked = sorted(set(end.totals), reverse=True)
        if len(ranked) == 1:
            return [0.5] * n
        return [1.0 - ranked.index(t) / (len(ranked) - 1) for t in end.totals]
    return [0.5 + 0.5 * math.tanh((end.totals[s] - start.totals[s]) / 30.0) for s in range(n)]
