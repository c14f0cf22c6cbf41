"""Baloot's state: its data (the slots), the blank match, clone, and the history chain.

The transitions that change it (bidding, dealing, tricks, the end of a deal) are in
``rules``; the deal's scoring and the match end in ``scoring``."""

from __future__ import annotations

from typing import Any

from engine.games.baloot.options import Opts
from engine.games.baloot.projects import EMPTY, ProjectSet
from engine.games.baloot.tables import BIDDING, DOUBLE_STEP, MAIN

Events = list[dict[str, Any]] | None
"""The list a transition appends its events to (None: the search, which needs none)."""


class State:
    """One match of Baloot. Hands are slot masks (see tables). Only ``hands``, ``table``
    and ``seat_played`` are changed in place; other lists are replaced (copy on write)."""

    __slots__ = (
        "ashkal",
        "baloot",
        "bidder",
        "cand_taken",
        "candidate",
        "card_points",
        "deal_no",
        "dealer",
        "decided",
        "declared",
        "dstep",
        "extra_played",
        "gahwa",
        "hands",
        "hist_base",
        "history",
        "hokm_bidder",
        "kawesh",
        "kind",
        "lead_ekka",
        "leader",
        "led",
        "locked",
        "match_winner",
        "mult",
        "opts",
        "phase",
        "played",
        "proj_team",
        "psets",
        "raiser",
        "result",
        "revealed",
        "rng_state",
        "round",
        "scores",
        "seat_played",
        "shown",
        "stage",
        "stock",
        "table",
        "taker",
        "to_act",
        "top_trump",
        "trick_no",
        "tricks",
        "tricks_won",
        "trump",
        "win_seat",
        "win_str",
    )

    opts: Opts
    dealer: int
    phase: int
    to_act: int | None
    scores: list[int]
    deal_no: int
    history: Any
    hist_base: Any
    rng_state: int | None
    hands: list[int]
    candidate: int
    cand_taken: bool
    stock: tuple[int, ...]
    round: int
    stage: int
    hokm_bidder: int
    kind: int
    trump: int
    ashkal: bool
    bidder: int
    taker: int
    mult: int
    locked: bool
    gahwa: bool
    raiser: int
    dstep: int
    trick_no: int
    leader: int
    table: list[int]
    lead_ekka: bool
    led: int
    win_seat: int
    win_str: int
    top_trump: int
    tricks: tuple[tuple[int, tuple[int, ...], int, bool], ...]
    played: int
    seat_played: list[int]
    extra_played: tuple[tuple[int, int], ...]
    tricks_won: list[int]
    card_points: list[int]
    psets: list[ProjectSet]
    declared: list[int]
    decided: bool
    revealed: list[tuple[int, int] | None]
    proj_team: int
    shown: list[tuple[int, ...] | None]
    baloot: tuple[int, ...]
    match_winner: int
    kawesh: tuple[int, int] | None
    result: dict[str, Any] | None

    def __init__(self) -> None:
        """A state with no field set yet: ``blank`` and ``clone`` set every one. (A plain
        constructor: the compiled build allocates the native object directly.)"""

    def clone(self) -> State:
        """An independent copy. Only hands, table and seat_played are mutated in place;
        every other list is replaced whole when it changes, so clones share them."""
        new = State()
        new.opts = self.opts
        new.dealer = self.dealer
        new.phase = self.phase
        new.to_act = self.to_act
        new.scores = self.scores
        new.deal_no = self.deal_no
        new.history = self.history
        new.hist_base = self.hist_base
        new.rng_state = self.rng_state
        new.hands = self.hands[:]
        new.candidate = self.candidate
        new.cand_taken = self.cand_taken
        new.stock = self.stock
        new.round = self.round
        new.stage = self.stage
        new.hokm_bidder = self.hokm_bidder
        new.kind = self.kind
        new.trump = self.trump
        new.ashkal = self.ashkal
        new.bidder = self.bidder
        new.taker = self.taker
        new.mult = self.mult
        new.locked = self.locked
        new.gahwa = self.gahwa
        new.raiser = self.raiser
        new.dstep = self.dstep
        new.trick_no = self.trick_no
        new.leader = self.leader
        new.table = self.table[:]
        new.lead_ekka = self.lead_ekka
        new.led = self.led
        new.win_seat = self.win_seat
        new.win_str = self.win_str
        new.top_trump = self.top_trump
        new.tricks = self.tricks
        new.played = self.played
        new.seat_played = self.seat_played[:]
        new.extra_played = self.extra_played
        new.tricks_won = self.tricks_won
        new.card_points = self.card_points
        new.psets = self.psets
        new.declared = self.declared
        new.decided = self.decided
        new.revealed = self.revealed
        new.proj_team = self.proj_team
        new.shown = self.shown
        new.baloot = self.baloot
        new.match_winner = self.match_winner
        new.kawesh = self.kawesh
        new.result = self.result
        return new


def blank(opts: Opts, dealer: int, scores: list[int], rng_state: int | None) -> State:
    """A match state before its first deal (every deal field at its natural value)."""
    st = State()
    st.opts = opts
    st.dealer = dealer
    st.phase = BIDDING
    st.to_act = None
    st.scores = scores
    st.deal_no = 1
    st.history = None
    st.hist_base = None
    st.rng_state = rng_state
    st.match_winner = -1
    st.result = None
    reset_deal(st)
    return st


def reset_deal(st: State) -> None:
    """Every per-deal field at its value before the cards are dealt."""
    st.hands = [0, 0, 0, 0]
    st.candidate = -1
    st.stock = ()
    reset_deal_calls(st)
    st.trick_no = 1
    st.leader = -1
    st.table = []
    st.lead_ekka = False
    st.led = st.win_seat = -1
    st.win_str = st.top_trump = 0
    st.tricks = ()
    st.played = 0
    st.seat_played = [0, 0, 0, 0]
    st.extra_played = ()
    st.tricks_won = [0, 0]
    st.card_points = [0, 0]
    st.psets = [EMPTY, EMPTY, EMPTY, EMPTY]
    st.declared = [0, 0, 0, 0]
    st.decided = False
    st.revealed = [None, None, None, None]
    st.proj_team = -1
    st.shown = [None, None, None, None]
    st.baloot = ()
    st.kawesh = None


def reset_deal_calls(st: State) -> None:
    """The calls of a deal at their opening: no bid, no contract, no double."""
    st.cand_taken = False
    st.round = 1
    st.stage = MAIN
    st.hokm_bidder = -1
    st.kind = 0
    st.trump = -1
    st.ashkal = False
    st.bidder = -1
    st.taker = -1
    st.mult = 1
    st.locked = False
    st.gahwa = False
    st.raiser = -1
    st.dstep = DOUBLE_STEP


# --------------------------------------------------------------------------- the history chain


def history_list(st: State, current_deal: bool = False) -> list[tuple[int, Any]]:
    """The history entries (seat, action), oldest first (only the current deal's when asked)."""
    out = []
    node = st.history
    stop = st.hist_base if current_deal else None
    while node is not None and node is not stop:
        node, entry = node
        out.append(entry)
    out.reverse()
    return out


def set_history(st: State, entries: list[tuple[int, Any]], deal_start: int) -> None:
    """The history as a linked chain of ``entries``, ``hist_base`` where the current deal
    begins (at index ``deal_start``; at most ``len(entries)``)."""
    node: Any = None
    base: Any = None
    for i, entry in enumerate(entries):
        if i == deal_start:
            base = node
        node = (node, entry)
    st.history = node
    st.hist_base = base if deal_start < len(entries) else node


def chain_length(node: Any) -> int:
    """How many entries a history chain holds (``hist_base``: the earlier deals' entries)."""
    n = 0
    while node is not None:
        node = node[0]
        n += 1
    return n
