"""Ronda's internal state: flat slots, card sets as bit masks, cheap clone."""

from __future__ import annotations

from typing import Any

from engine.games.ronda.options import Rules


class RondaState:
    """One Ronda match. Masks use bit ``1 << card``; ``-1`` stands for null.

    ``hist`` / ``decks`` / ``items`` are persistent cons tuples ``(previous, ...)`` so a
    clone shares them. ``stock`` is a tuple (never mutated, only re-sliced).

    Every attribute is typed and set in ``__init__``, so that the compiled build (mypyc)
    makes this a native class: attribute reads and writes are C struct accesses, and
    ``clone`` is a direct call, the search's per-iteration copy."""

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

    def __init__(self, o: Rules | None = None, dealer: int = 0) -> None:
        """A state with empty places, before the first deal; with no ``o``, a blank that
        only ``clone`` fills (a compiled class has no bare ``__new__``)."""
        if o is None:
            return
        n = o.players
        self.o = o
        self.n = n
        self.nsides = o.sides
        self.dealer = dealer
        self.phase = 0
        self.to_act = -1
        self.deal_no = 1
        self.hand_no = 1
        self.hands = [0] * n
        self.dealt = [0] * n
        self.table = []
        self.trank = 0
        self.stock = ()
        self.piles = [0] * o.sides
        self.scores = [0] * o.sides
        self.decl = [-1] * n
        self.challenged = 0
        self.withdrawn = 0
        self.prov_side = -1
        self.prov_pts = 0
        self.last_drop = -1
        self.chain = None
        self.last_cap = -1
        self.winner = -1
        self.rng_state = None
        self.hist = None
        self.old_hist = None
        self.old_len = 0
        self.decks = None
        self.items = None

    def clone(self) -> RondaState:
        """An independent copy (lists copied; tuples and cons lists shared)."""
        t = RondaState()
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
    return RondaState(o, dealer)


def cons_list(cons: Any) -> list[Any]:
    """The entries of a persistent cons list ``(previous, *entry)``, oldest first."""
    out = []
    while cons is not None:
        out.append(cons[1:])
        cons = cons[0]
    out.reverse()
    return out
