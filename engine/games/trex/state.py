"""Trex state data: the compact state ``TrexState``, its clone and its history lists.

Hands are 52-bit masks of Trex card indices (see ``tables``). The history is kept as cons
lists (cheap to extend and to share between clones): ``played`` holds this deal's entries,
``past`` the deals finished since the state was loaded (a playout's record; no rule reads
it and it is never written). A state's JSON holds the current deal only: what later rules
need of earlier deals is in ``deal_results``, ``match_scores``, ``contracts_used`` and
``dealer``, and the whole record stays in a session's log. An old state's earlier deals
(written before states were cut to the current deal) are checked on loading, then folded
away (``fold_past``). A ``played`` node is one entry
``(previous, seat, action, trick_no)``, or a run of trick plays ``(previous, start, data)``
that the fused playout writes in one piece (see ``entries``): one tuple of small ints per
playout instead of one tuple per card, which the garbage collector tracks and frees one by one.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from .options import Opts
from .tables import CHOOSE, CODES, JACK_MASK, TWO_MASK, codes_of

Entry = tuple[int, Any, int]
"""``(seat, action, trick_no)``: one history entry; trick_no 0 unless a trick play. The
action is an int, or ``("deal", deck)`` for a caller's deal."""


class TrexState:
    """A Trex match. Mutable; ``clone`` copies the few small lists.

    ``played`` is a cons list ``(previous, entry)`` of this deal's entries; ``past`` a cons
    list of the deals finished since it was loaded (never written)."""

    __slots__ = (
        "best",
        "best_seat",
        "cards_won",
        "contract",
        "contracts_used",
        "dbl_mask",
        "deal_no",
        "deal_results",
        "deal_scores",
        "dealer",
        "decks",
        "doubled",
        "doubling_turn",
        "finish_order",
        "first_owner",
        "hands",
        "lay_mask",
        "layout_turns",
        "leader",
        "match_scores",
        "opts",
        "past",
        "past_json",
        "phase",
        "played",
        "rng_state",
        "table",
        "taken",
        "to_act",
        "trick",
        "tricks_played",
        "tricks_won",
        "twos_exposed",
    )

    def __init__(self, opts: Opts | None = None) -> None:
        if opts is None:
            return  # a blank for clone() to fill (mypyc's classes have no bare __new__)
        self.opts = opts
        self.rng_state: int | None = None
        self.decks: tuple[tuple[int, ...], ...] = ()
        self.deal_no = 1
        self.dealer = 0
        self.first_owner = 0
        self.phase = CHOOSE
        self.to_act = 0
        self.contracts_used: tuple[int, ...] = ()
        self.contract = -1
        self.hands = [0, 0, 0, 0]
        self.doubled: tuple[tuple[int, int], ...] = ()  # (card, doubler), in doubling order
        self.dbl_mask = 0
        self.doubling_turn = 0
        self.trick: list[int] = []
        self.leader = 0
        self.best = -1
        self.best_seat = -1
        self.tricks_played = 0
        self.tricks_won = [0, 0, 0, 0]
        self.cards_won = [0, 0, 0, 0]
        self.taken = 0  # union of cards_won
        self.played: Any = None
        self.past: Any = None
        self.past_json: list[Any] | None = []  # the JSON of ``past``, once written (codec)
        self.lay_mask = JACK_MASK  # Trex: the cards that fit the layout now
        self.table = 0  # Trex: cards on the layout
        self.finish_order: list[int] = []
        self.layout_turns = 0
        self.twos_exposed = False
        self.deal_scores = [0, 0, 0, 0]
        self.match_scores = [0, 0, 0, 0]
        self.deal_results: tuple[tuple[int, int, int, tuple[int, ...]], ...] = ()

    def clone(self) -> TrexState:
        """An independent copy (lists copied, immutable parts shared). ``finish_order`` and
        ``match_scores`` are shared too: the rules replace them, never change them in place
        (they change a few times a deal at most; the search clones twice an iteration)."""
        new = TrexState()
        new.opts = self.opts
        new.rng_state = self.rng_state
        new.decks = self.decks
        new.deal_no = self.deal_no
        new.dealer = self.dealer
        new.first_owner = self.first_owner
        new.phase = self.phase
        new.to_act = self.to_act
        new.contracts_used = self.contracts_used
        new.contract = self.contract
        new.hands = self.hands[:]
        new.doubled = self.doubled
        new.dbl_mask = self.dbl_mask
        new.doubling_turn = self.doubling_turn
        new.trick = self.trick[:]
        new.leader = self.leader
        new.best = self.best
        new.best_seat = self.best_seat
        new.tricks_played = self.tricks_played
        new.tricks_won = self.tricks_won[:]
        new.cards_won = self.cards_won[:]
        new.taken = self.taken
        new.played = self.played
        new.past = self.past
        new.past_json = self.past_json
        new.lay_mask = self.lay_mask
        new.table = self.table
        new.finish_order = self.finish_order  # shared: replaced, never changed in place
        new.layout_turns = self.layout_turns
        new.twos_exposed = self.twos_exposed
        new.deal_scores = self.deal_scores[:]
        new.match_scores = self.match_scores  # shared: replaced, never changed in place
        new.deal_results = self.deal_results
        return new

    # ---- derived public facts
    @property
    def kingdom_index(self) -> int:
        return (self.deal_no - 1) // self.opts.deals_per_kingdom

    @property
    def owner(self) -> int:
        return (self.first_owner + self.kingdom_index) & 3


def kingdom_owner_of(first_owner: int, deal_no: int, opts: Opts) -> int:
    """R5: the owner of deal ``deal_no``'s kingdom."""
    return (first_owner + (deal_no - 1) // opts.deals_per_kingdom) & 3


def entries(cons: Any) -> list[Entry]:
    """The entries ``(seat, action, trick_no)`` of a ``played`` cons list, oldest first. A
    node ``(previous, seat, action, trick_no)`` is one entry; a node ``(previous, start, data)``
    is a run of trick plays (``run_node``)."""
    out: list[Entry] = []
    while cons is not None:
        if len(cons) == 3:
            _, start, data = cons
            count, first_trick, in_trick = start >> 8, start >> 2 & 63, start & 3
            run = [(b >> 6, b & 63, first_trick + (in_trick + i) // 4) for i, b in enumerate(data[:count])]
            run.reverse()
            out.extend(run)
        else:
            out.append(cons[1:])
        cons = cons[0]
    out.reverse()
    return out


def run_node(previous: Any, trick_no: int, in_trick: int, plays: list[int], count: int) -> Any:
    """A ``played`` node holding the trick plays ``plays[:count]`` (each ``64 * seat + card``,
    in play order) after ``previous``; the first goes to trick ``trick_no``, which held
    ``in_trick`` cards before it, and every trick holds 4 cards. The same entries as one
    node per play, ``(previous, seat, card, trick_no)``. The node is ``(previous, start,
    data)``: ``start`` packs ``count``, ``trick_no`` and ``in_trick``; ``data`` is
    ``tuple(plays)`` (the playout fills a list of 52 by index: no growth, no slice). A tuple,
    not ``bytes``: ``bytes`` of a list converts item by item through the number protocol,
    about six times the cost of copying the pointers (the search writes one per playout)."""
    return (previous, count << 8 | trick_no << 2 | in_trick, tuple(plays))


def chunks(cons: Any) -> list[Any]:
    """The chunks of the ``past`` cons list ``(previous, chunk)``, oldest first."""
    out = []
    while cons is not None:
        cons, e = cons
        out.append(e)
    out.reverse()
    return out


def push_past(s: TrexState, chunk: Any) -> None:
    """Append a finished deal's ``played`` cons list (or a caller's deal) to ``past``."""
    s.past = (s.past, chunk)
    s.past_json = None


def fold_past(s: TrexState) -> None:
    """Forget the entries of earlier deals: their effects are in the match record already
    (``deal_results``, ``match_scores``, ``contracts_used``, ``dealer``)."""
    s.past = None
    s.past_json = []


def load_history(s: TrexState, history: list[tuple[int, Any]], played: list[Entry]) -> None:
    """A loaded state's ``played`` entries, and the earlier entries of its ``history``
    (all but the last ``len(played)``) as one chunk of ``past``."""
    earlier = history[: len(history) - len(played)]
    if earlier:
        chunk: Any = None  # a cons list (previous, seat, action, trick_no)
        for seat, action in earlier:
            chunk = (chunk, seat, action, 0)
        push_past(s, chunk)
    cons: Any = None
    for e in played:
        cons = (cons, *e)
    s.played = cons


def history_entries_past(s: TrexState) -> list[Entry]:
    """The entries of earlier deals, oldest first."""
    out: list[Entry] = []
    for chunk in chunks(s.past):
        out.extend(entries(chunk))
    return out


# ================================================================ facts about the cards
def info_key(s: TrexState, seat: int) -> Hashable:
    """What ``seat`` knows of the match (ISMCTS's information set): its own hand, the hand
    sizes and every public field."""
    h = s.hands
    return (
        seat,
        h[seat],
        h[0].bit_count(),
        h[1].bit_count(),
        h[2].bit_count(),
        h[3].bit_count(),
        s.deal_no,
        s.phase,
        s.to_act,
        s.first_owner,
        s.dealer,
        s.contract,
        s.contracts_used,
        s.doubled,
        s.doubling_turn,
        tuple(s.trick),
        s.leader,
        tuple(s.cards_won),
        s.table,
        tuple(s.finish_order),
        s.layout_turns,
        (h[0] & TWO_MASK, h[1] & TWO_MASK, h[2] & TWO_MASK, h[3] & TWO_MASK) if s.twos_exposed else None,
        tuple(s.deal_scores),
        tuple(s.match_scores),
        s.deal_results,
        s.played,
    )


def cards_in_play(s: TrexState) -> list[str]:
    """Every card of the deal, wherever it is: hands, the trick, tricks won, the layout."""
    out = [CODES[c] for c in s.trick]
    for mask in s.hands + s.cards_won + [s.table]:
        out += codes_of(mask)
    return out


def hidden_cards(s: TrexState, seat: int) -> list[str]:
    """The cards ``seat`` cannot see: the other hands but their doubled cards and, once
    exposed (R18), their 2s."""
    public = s.dbl_mask | (TWO_MASK if s.twos_exposed else 0)
    out: list[str] = []
    for i in range(4):
        if i != seat:
            out += codes_of(s.hands[i] & ~public)
    return out
