"""Porrazo's internal state: a flat ``__slots__`` object with a cheap clone.

Cards are ``engine.cards`` ints. Lists that change at every play (hands, table,
scores) are copied by ``clone``; things that change rarely are immutable tuples
shared between clones (dealt hands, piles, the stock, the history cons list).
"""

from __future__ import annotations

from typing import Any

from engine.games.porrazo.options import Options
from engine.games.porrazo.tables import NO_COMBO

Item = tuple[int, int, str, str]
"""A scoring item: (side, points, item name, rule id)."""


class PState:
    """The full truth of a Porrazo match (see the rules file's State section)."""

    __slots__ = (
        "chain",
        "claims",
        "deal_no",
        "dealer",
        "dealt",
        "decks",
        "decl",
        "hand_no",
        "hand_start",
        "hands",
        "held",
        "history",
        "hlen",
        "items",
        "last_capturer",
        "left",
        "o",
        "pending",
        "phase",
        "piles",
        "prev_items",
        "rng_state",
        "scores",
        "stock",
        "table",
        "tendido",
        "tendido_done",
        "to_act",
        "win_reason",
        "winner",
    )

    o: Options
    dealer: int
    hand_no: int
    deal_no: int
    phase: int
    to_act: int | None
    scores: list[int]
    hands: list[list[int]]
    dealt: list[tuple[int, ...]]
    held: list[tuple[int, int]]
    stock: tuple[int, ...]
    table: list[int]
    piles: list[tuple[int, ...]]
    tendido_done: bool
    tendido: tuple[int, ...] | None
    decl: list[int]
    claims: list[int]
    chain: tuple[int, int, int] | None
    pending: tuple[int, int, int, tuple[int, ...]] | None
    last_capturer: int | None
    winner: int | None
    win_reason: str | None
    decks: tuple[tuple[int, ...], ...]
    rng_state: int | None
    history: tuple[Any, ...] | None
    left: int
    items: tuple[Item, ...]
    prev_items: tuple[Item, ...]
    hlen: int
    hand_start: int

    def __init__(self, o: Options | None = None, dealer: int = 0) -> None:
        """A state before the first hand's deck is known (every field at its natural
        value), or with no ``o`` a blank for :meth:`copy` to fill (a real constructor, so
        that the compiled build makes this a native class with typed attributes)."""
        if o is None:
            return
        n = o.players
        self.o = o
        self.dealer = dealer
        self.hand_no = 1
        self.deal_no = 0
        self.phase = 0
        self.to_act = dealer
        self.scores = [0] * o.sides
        self.hands = [[] for _ in range(n)]
        self.dealt = [() for _ in range(n)]
        self.held = [(NO_COMBO, -1)] * n
        self.stock = ()
        self.table = []
        self.piles = [() for _ in range(n)]
        self.tendido_done = False
        self.tendido = None
        self.decl = [NO_COMBO] * n
        self.claims = [-1] * n
        self.chain = None
        self.pending = None
        self.last_capturer = None
        self.winner = None
        self.win_reason = None
        self.decks = ()
        self.rng_state = None
        self.history = None
        self.left = 0
        self.items = ()
        self.prev_items = ()
        self.hlen = 0
        self.hand_start = 0

    def copy(self) -> PState:
        """An independent copy: mutable lists copied, immutable parts shared."""
        new = PState()
        new.o = self.o
        new.dealer = self.dealer
        new.hand_no = self.hand_no
        new.deal_no = self.deal_no
        new.phase = self.phase
        new.to_act = self.to_act
        new.scores = self.scores[:]
        new.hands = [h[:] for h in self.hands]
        new.dealt = self.dealt[:]
        new.held = self.held[:]
        new.stock = self.stock
        new.table = self.table[:]
        new.piles = self.piles[:]
        new.tendido_done = self.tendido_done
        new.tendido = self.tendido
        new.decl = self.decl[:]
        new.claims = self.claims[:]
        new.chain = self.chain
        new.pending = self.pending
        new.last_capturer = self.last_capturer
        new.winner = self.winner
        new.win_reason = self.win_reason
        new.decks = self.decks
        new.rng_state = self.rng_state
        new.history = self.history
        new.left = self.left
        new.items = self.items
        new.prev_items = self.prev_items
        new.hlen = self.hlen
        new.hand_start = self.hand_start
        return new


def blank_state(o: Options, dealer: int) -> PState:
    """A state before the first hand's deck is known (every field at its natural value)."""
    return PState(o, dealer)


def played_of(st: PState, seat: int) -> list[int]:
    """Section 7 (1): the cards ``seat`` has played this deal (public), sorted."""
    hand = st.hands[seat]
    return sorted(c for c in st.dealt[seat] if c not in hand)


def history_list(history: tuple[Any, ...] | None) -> list[tuple[int, Any]]:
    """The cons-list history as a list of (seat, action), oldest first."""
    out = []
    while history is not None:
        history, seat, action = history
        out.append((seat, action))
    out.reverse()
    return out


def public_code(action: Any) -> Any:
    """What the table sees of an action: a caller's deck is hidden (-1)."""
    return -1 if isinstance(action, tuple) else action


def push_history(st: PState, seat: int, action: Any) -> None:
    """Record an action (the table's part of it is read back by :func:`public_history`
    only when asked: nothing is hashed per step)."""
    st.history = (st.history, seat, action)
    st.hlen += 1


def public_history(st: PState) -> tuple[tuple[int, Any], ...]:
    """What the table saw of this hand's actions (from ``hand_start`` on), newest first:
    (seat, :func:`public_code`) pairs, for the search's information-set key."""
    out = []
    history = st.history
    for _ in range(st.hlen - st.hand_start):
        assert history is not None
        history, seat, action = history
        out.append((seat, public_code(action)))
    return tuple(out)


def history_from(entries: list[tuple[int, Any]]) -> tuple[Any, ...] | None:
    """The cons list of ``entries`` (oldest first)."""
    history: tuple[Any, ...] | None = None
    for seat, action in entries:
        history = (history, seat, action)
    return history


def match_deal_no(st: PState) -> int:
    """The deal's number in the whole match (the state JSON's deal_no counts within the hand)."""
    return (st.hand_no - 1) * st.o.deals + st.deal_no
