"""Marriage: the state's data. The compact match state (slots), a blank state, its
clone, and the packed discard-pile entries."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from .options import Rules
from .tables import ALL_CODES, DEAL, EXPOSE, NCODES, OVER, PASS, UNSEEN


# ---- discard entries: card | (by + 1) << 6 | by_unseen << 10
def entry(card: int, by: int, by_unseen: bool) -> int:
    return card | (by + 1) << 6 | (1024 if by_unseen else 0)


def entry_card(e: int) -> int:
    return e & 63


def entry_by(e: int) -> int:
    return ((e >> 6) & 15) - 1


def entry_unseen(e: int) -> bool:
    return bool(e & 1024)


class MState:
    """A Marriage match. Hands are count lists (53 codes); the stock is kept
    bottom-first internally (top = last element, so a draw is ``pop()``).

    Every attribute is typed and set by the constructor: the compiled build (mypyc) makes
    this a native class with C fields (no ``__dict__``, no ``__new__`` without ``__init__``).
    The constructor leaves the per-seat lists empty (cheap, for ``copy``):
    :func:`blank_state` makes a match before its first deal, and dealing sets the per-deal
    fields."""

    n: int
    opts: Rules
    dealer: int
    phase: int
    cur: int | None
    hands: list[list[int]]
    tunnelas: list[list[int]]
    shown: list[list[Any]]
    route: list[int]
    stock: list[int]
    tiplu: int
    men_rev: int
    discard: list[int]
    drew: int
    took: int
    tws: bool
    turns: int
    winner: int
    fkind: int
    maal: list[int] | None
    delta: list[int] | None
    result_deal: int
    totals: list[int]
    deal_no: int
    hist: Any
    hkey: int
    rng_state: int | None
    caller: bool
    recycled: tuple[int, ...]
    taken: list[tuple[int, ...]]
    over: bool
    hlen: int
    deal_start: int

    def __init__(self, opts: Rules) -> None:
        self.n = opts.players
        self.opts = opts
        self.dealer = 0
        self.phase = EXPOSE
        self.cur = None
        # the per-seat fields stay empty until a deal (kept cheap: ``copy`` builds on this)
        self.hands = []
        self.tunnelas = []
        self.shown = []
        self.route = []
        self.stock = []
        self.tiplu = -1
        self.men_rev = 0
        self.discard = []
        self.drew = 0
        self.took = -1
        self.tws = False
        self.turns = 0
        self.winner = -1
        self.fkind = UNSEEN
        self.maal = None
        self.delta = None
        self.result_deal = 0
        self.totals = []  # a new match's are set by blank_state (a copy's by copy)
        self.deal_no = 1
        self.hist = None
        self.hkey = 0
        self.rng_state = None
        self.caller = False
        self.recycled = ()
        self.taken = []
        self.over = False
        self.hlen = 0
        self.deal_start = 0

    def copy(self) -> MState:
        """A copy that shares nothing mutable the search's in-place ``step`` changes."""
        new = MState(self.opts)
        new.dealer = self.dealer
        new.phase = self.phase
        new.cur = self.cur
        new.hands = [h[:] for h in self.hands]
        new.tunnelas = self.tunnelas[:]  # inner lists are replaced, never mutated
        new.shown = self.shown[:]
        new.route = self.route[:]
        new.stock = self.stock[:]
        new.tiplu = self.tiplu
        new.men_rev = self.men_rev
        new.discard = self.discard[:]
        new.drew = self.drew
        new.took = self.took
        new.tws = self.tws
        new.turns = self.turns
        new.winner = self.winner
        new.fkind = self.fkind
        new.maal = self.maal
        new.delta = self.delta
        new.result_deal = self.result_deal
        new.totals = self.totals[:]
        new.deal_no = self.deal_no
        new.hist = self.hist
        new.hkey = self.hkey
        new.rng_state = self.rng_state
        new.caller = self.caller
        new.recycled = self.recycled
        new.taken = self.taken[:]
        new.over = self.over
        new.hlen = self.hlen
        new.deal_start = self.deal_start
        return new

    def seen(self, seat: int) -> bool:
        return self.route[seat] != UNSEEN

    def drawable(self) -> int:
        return len(self.stock) - (1 if self.tiplu >= 0 else 0)


def public_action(action: Any) -> Any:
    """The part of an action the whole table sees (a dealt deck is only its size)."""
    if isinstance(action, tuple) and action[0] == DEAL and not isinstance(action[1], int):
        return (DEAL, len(action[1]))
    return action


def blank_state(rules: Rules) -> MState:
    """A match before its first deal: no scores, no history, deal 1 next (the per-deal
    fields are set by dealing, the generator by the caller)."""
    st = MState(rules)
    st.totals = [0] * rules.players
    return st


def cards_in_play(st: MState) -> list[str]:
    """Every card of the match where it lies: hands, exposed tunnelas, shown sets and
    pairs, the stock and the discard pile."""
    out: list[str] = []
    for s in range(st.n):
        out += [ALL_CODES[c] for c in range(NCODES) for _ in range(st.hands[s][c])]
        out += [ALL_CODES[c] for c in st.tunnelas[s] for _ in range(3)]
        for x in st.shown[s]:
            out += [ALL_CODES[c] for c in x] if isinstance(x, tuple) else [ALL_CODES[x]] * 2
    out += [ALL_CODES[c] for c in st.stock]
    out += [ALL_CODES[entry_card(e)] for e in st.discard]
    return out


def info_key(st: MState, seat: int) -> Hashable:
    """What ``seat`` knows of the state, as a hashable key (the search's information
    sets): its own hand, the others' sizes, the public fields and the history's key."""
    over = st.phase == OVER
    hands = (
        tuple(tuple(h) for h in st.hands)
        if over
        else (tuple(st.hands[seat]), tuple(sum(h) for h in st.hands))
    )
    tiplu = st.tiplu if (over or st.route[seat] != UNSEEN) else st.tiplu >= 0
    return (
        seat,
        st.phase,
        st.cur,
        st.dealer,
        st.deal_no,
        hands,
        tuple(map(tuple, st.tunnelas)),
        tuple(map(tuple, st.shown)),
        tuple(st.route),
        len(st.stock),
        tiplu,
        st.men_rev,
        tuple(st.discard),
        st.drew,
        st.took,
        st.tws,
        st.turns,
        st.winner,
        st.fkind,
        tuple(st.totals),
        st.recycled,
        tuple(st.taken),
        st.hkey,
        None if st.maal is None else tuple(st.maal),
        None if st.delta is None else tuple(st.delta),
        st.result_deal,
        st.caller,
    )


GAP = "gap"
"""Root of a history whose earlier deals are unknown (a world sampled from a view):
``(GAP, k)`` stands for k entries; they are written as passes by seat 0."""


def history_entries(st: MState, this_deal: bool) -> list[tuple[int, Any]]:
    """The match's history (``this_deal``: only this deal's entries, as views show it);
    the unknown earlier entries of a world sampled from a view are passes by seat 0."""
    out: list[tuple[int, Any]] = []
    node = st.hist
    left = st.hlen - st.deal_start if this_deal else st.hlen
    while node is not None and left > 0:
        if node[0] == GAP:
            out.extend((0, PASS) for _ in range(min(left, node[1])))
            break
        left -= 1
        node, seat, action = node
        out.append((seat, action))
    out.reverse()
    return out


def set_history(st: MState, entries: list[tuple[int, Any]], start: int, view: bool) -> None:
    """The history from its ``entries`` (the inverse of :func:`history_entries`): a cons
    list, its length and this deal's public key. A view holds only this deal's entries,
    after ``start`` earlier ones (kept as a gap)."""
    hist: Any = (GAP, start) if view and start else None
    first = 0 if view else start
    hkey = 0
    for i, (seat, action) in enumerate(entries):
        hist = (hist, seat, action)
        if i >= first:
            hkey = hash((hkey, seat, public_action(action)))
    st.hist, st.hkey, st.hlen, st.deal_start = hist, hkey, len(entries) + (start if view else 0), start
