"""Ronda's internal state: flat slots, card sets as bit masks, cheap clone."""

from __future__ import annotations

from typing import Any

from engine.games.ronda.options import Rules


class RondaState:
    """One Ronda match. Masks use bit ``1 << card``; ``-1`` stands for null.

    ``hist`` / ``decks`` / ``items`` are persistent cons tuples ``(previous, ...)`` so a
    clone shares them. ``stock`` is a tuple (never mutated, only re-sliced)."""

    __slots__ = (
        "o", "n", "nsides", "dealer", "phase", "to_act", "deal_no", "hand_no",
        "hands", "dealt", "table", "trank", "stock", "piles", "scores", "decl",
        "challenged", "withdrawn", "prov_side", "prov_pts", "last_drop", "chain",
        "last_cap", "winner", "rng_state", "hist", "old_hist", "old_len", "decks", "items",
    )  # fmt: skip

    o: Rules
    n: int
    nsides: int
    dealer: int
    phase: int
    to_act: int
    deal_no: int
    hand_no: int
    hands: list[int]
    dealt: list[int]
    table: list[int]
    trank: int
    stock: tuple[int, ...]
    piles: list[int]
    scores: list[int]
    decl: list[int]
    challenged: int
    withdrawn: int
    prov_side: int
    prov_pts: int
    last_drop: int
    chain: tuple[int, int, int, int] | None
    last_cap: int
    winner: int
    rng_state: int | None
    hist: Any
    """This deal's history: cons ``(previous, seat, action)``."""
    old_hist: Any
    """Earlier deals' histories: cons ``(previous, deal_hist)``."""
    old_len: int
    decks: Any
    items: Any

    def clone(self) -> RondaState:
        t = RondaState.__new__(RondaState)
        t.o = self.o
        t.n = self.n
        t.nsides = self.nsides
        t.dealer = self.dealer
        t.phase = self.phase
        t.to_act = self.to_act
        t.deal_no = self.deal_no
        t.hand_no = self.hand_no
        t.hands = self.hands[:]
        t.dealt = self.dealt[:]
        t.table = self.table[:]
        t.trank = self.trank
        t.stock = self.stock
        t.piles = self.piles[:]
        t.scores = self.scores[:]
        t.decl = self.decl[:]
        t.challenged = self.challenged
        t.withdrawn = self.withdrawn
        t.prov_side = self.prov_side
        t.prov_pts = self.prov_pts
        t.last_drop = self.last_drop
        t.chain = self.chain
        t.last_cap = self.last_cap
        t.winner = self.winner
        t.rng_state = self.rng_state
        t.hist = self.hist
        t.old_hist = self.old_hist
        t.old_len = self.old_len
        t.decks = self.decks
        t.items = self.items
        return t


def blank_state(o: Rules, dealer: int) -> RondaState:
    """A state with empty places, before the first deal."""
    s = RondaState.__new__(RondaState)
    n = o.players
    s.o = o
    s.n = n
    s.nsides = o.sides
    s.dealer = dealer
    s.phase = 0
    s.to_act = -1
    s.deal_no = 1
    s.hand_no = 1
    s.hands = [0] * n
    s.dealt = [0] * n
    s.table = []
    s.trank = 0
    s.stock = ()
    s.piles = [0] * s.nsides
    s.scores = [0] * s.nsides
    s.decl = [-1] * n
    s.challenged = 0
    s.withdrawn = 0
    s.prov_side = -1
    s.prov_pts = 0
    s.last_drop = -1
    s.chain = None
    s.last_cap = -1
    s.winner = -1
    s.rng_state = None
    s.hist = None
    s.old_hist = None
    s.old_len = 0
    s.decks = None
    s.items = None
    return s


def cons_list(cons: Any) -> list[Any]:
    """The entries of a persistent cons list ``(previous, *entry)``, oldest first."""
    out = []
    while cons is not None:
        out.append(cons[1:])
        cons = cons[0]
    out.reverse()
    return out
