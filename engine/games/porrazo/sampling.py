"""Section 7: deal a seat's unseen cards at random, consistent with its view.

Exact deductions respected: each hidden hand is its dealt cards minus the public
played ones; a declared ronda (rondine) means exactly two (three) dealt cards of one
rank; with ``declaration_mode: "auto"`` during play an undeclared seat's three dealt
cards are of three different ranks. Nothing else is known (no voids in Porrazo).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Hashable
from typing import Any, Final

from engine.cards import CODES
from engine.codec import TEMPLATE, Hidden, refuse
from engine.games.porrazo.codec import CODEC
from engine.games.porrazo.rules import holding, own_hand_hidden
from engine.games.porrazo.state import PState, played_of, public_history
from engine.games.porrazo.tables import HAND_CARDS, NO_COMBO, P_PLAY, RONDA, RONDINE
from engine.protocol import JSON
from engine.sampling import shuffle

TRIES = 64

NOTHING_HELD: Final[tuple[int, int]] = holding(())
"""What a seat holds with no dealt cards (R9: nothing)."""


def _fits(kind: int | None, dealt: tuple[int, ...]) -> bool:
    """Whether three dealt cards satisfy a seat's known constraint (None: no constraint)."""
    return kind is None or holding(dealt)[0] == kind


def _hidden_counts(values: dict[str, Any], seat: int) -> dict[int, int]:
    """Section 7 (1): the seats whose hands the view hides (other seats', and the
    dealer's own during the tendido choice), each with its card count."""
    counts: dict[int, int] = {}
    for s, (hand, dealt) in enumerate(zip(values["hands"], values["dealt"], strict=True)):
        if not isinstance(hand, Hidden):
            if s != seat:
                raise refuse(f"hands[{s}]", "another seat's hand is a count in a view")
            if isinstance(dealt, Hidden):
                raise refuse(f"dealt[{s}]", "the seat's own dealt cards are shown with its hand")
            continue
        if hand.count > HAND_CARDS:
            raise refuse(f"hands[{s}]", f"must be a whole number from 0 to {HAND_CARDS}")
        if not isinstance(dealt, Hidden) or dealt.count not in (0, HAND_CARDS):
            raise refuse(f"dealt[{s}]", "a hidden dealt hand is a count of 0 or 3")
        counts[s] = hand.count
    return counts


def _constraints(view: JSON, values: dict[str, Any], counts: dict[int, int]) -> dict[int, int | None]:
    """Section 7 (2-3): the combination each hidden seat's dealt cards must make (None:
    anything): a declared one, or none at all with declaration_mode auto in the play."""
    auto = view["options"].get("declaration_mode") == "auto" and values["phase"] == P_PLAY
    out: dict[int, int | None] = {}
    for s in counts:
        kind: int | None = None
        if values["dealt"][s].count == HAND_CARDS:
            declared = values["declarations"][s]
            if declared in (RONDA, RONDINE):
                kind = declared
            elif auto:
                kind = NO_COMBO
        out[s] = kind
    return out


def info_key(state: PState, seat: int) -> Hashable:
    """What ``seat`` knows of ``state`` as a cheap key: equal for two states exactly when
    the seat's views are equal (section 7)."""
    hidden = own_hand_hidden(state, seat)
    return (
        public_history(state),
        state.phase,
        state.to_act,
        state.dealer,
        state.hand_no,
        state.deal_no,
        tuple(state.scores),
        None if hidden else tuple(state.hands[seat]),
        None if hidden else state.dealt[seat],
        tuple(state.table),
        tuple(state.piles),
        tuple(tuple(played_of(state, s)) for s in range(state.o.players)),
        tuple(len(h) for h in state.hands),
        len(state.stock),
        tuple(state.decl),
        tuple(state.claims),
        state.chain,
        state.pending,
        state.last_capturer,
        state.tendido,
        state.tendido_done,
        state.winner,
        state.win_reason,
        state.items,
        state.prev_items,
    )


class Sampler:
    """Deals the unseen cards of one view at random: ``sampler(rng)`` is a full state
    whose view equals the view (built and checked once by :func:`make_sampler`). A class
    rather than a closure, so that the compiled build keeps its fields typed."""

    template: PState
    """The view's state with every unseen card somewhere (each call deals them anew); set
    by :func:`make_sampler` once the first deal has been checked against the view."""

    def __init__(
        self,
        pool: list[int],
        hidden_seats: list[int],
        counts: list[int],
        constraint: list[int | None],
        played: list[tuple[int, ...]],
        dealt_shown: list[bool],
    ) -> None:
        self.pool = pool
        """The unseen cards, ascending."""
        self.hidden_seats = hidden_seats
        self.counts = counts
        """Per seat, the cards in its hand if the view hides it (lists by seat, not dicts:
        the compiled build indexes them in C)."""
        self.constraint = constraint
        """Per seat, the combination its hidden dealt cards must make (None: anything)."""
        self.constrained = [s for s in hidden_seats if constraint[s] is not None]
        self.played = played
        """Per seat, the cards it played this deal (public)."""
        self.dealt_shown = dealt_shown
        """Per seat, whether its dealt cards are known to be three (else: none dealt)."""
        self.candidates: dict[int, list[tuple[int, ...]]] = {}
        starts: list[int] = [0] * len(counts)
        at = 0
        for s in hidden_seats:
            starts[s] = at
            at += counts[s]
        self.starts = starts
        """Per hidden seat, where its hand begins in a shuffled pool (the hidden seats' hands
        in turn, then the stock at ``self.stock_start``): :meth:`assign`'s cut, precomputed."""
        self.stock_start = at

    def __call__(self, rng: random.Random) -> PState:
        """:meth:`assign` then :meth:`fill` without the dict between them: the same shuffles
        of the same list (so the same draws), the same cut, checked and written straight
        from the shuffled pool (the compiled build indexes the per-seat lists in C)."""
        cards = self.pool[:]
        for _ in range(TRIES):
            shuffle(cards, rng)
            if self._cut_fits(cards):
                st = self.template.copy()
                self._fill_cut(st, cards)
                break
        else:
            out = self._assign_constrained(rng)
            assert out is not None
            st = self.template.copy()
            self.fill(st, out)
        # No generator for the next hand's deck (the template's rng_state is None): a search
        # stops at the hand's end (playout.is_playout_over), so the world waits for a
        # caller's deck there instead of shuffling a hand nobody plays (half a playout).
        return st

    def _cut_fits(self, cards: list[int]) -> bool:
        """Whether the shuffled ``cards`` cut as :meth:`assign` cuts them agree with every
        constrained seat (the order of the checks does not change the answer)."""
        starts = self.starts
        counts = self.counts
        constraint = self.constraint
        played = self.played
        for s in self.constrained:
            at: int = starts[s]  # typed: C integers in the compiled build
            if not _fits(constraint[s], played[s] + tuple(cards[at : at + counts[s]])):
                return False
        return True

    def _fill_cut(self, st: PState, cards: list[int]) -> None:
        """:meth:`fill` from the shuffled ``cards`` cut as :meth:`assign` cuts them."""
        starts = self.starts
        counts = self.counts
        played = self.played
        dealt_shown = self.dealt_shown
        for s in self.hidden_seats:
            at: int = starts[s]  # typed: C integers in the compiled build
            hand = cards[at : at + counts[s]]
            st.hands[s] = hand  # a list of its own: each deal builds new ones
            if dealt_shown[s]:
                dealt = tuple(hand) + played[s]
                st.dealt[s] = dealt
                st.held[s] = holding(dealt)
            else:
                st.dealt[s] = ()
                st.held[s] = NOTHING_HELD
        st.stock = tuple(cards[self.stock_start :])

    def candidates_of(self, s: int) -> list[tuple[int, ...]]:
        """Every hand of ``s`` that agrees with its constraint."""
        if s not in self.candidates:
            own = self.played[s]
            self.candidates[s] = [
                combo
                for combo in itertools.combinations(self.pool, self.counts[s])
                if _fits(self.constraint[s], own + combo)
            ]
        return self.candidates[s]

    def assign(self, rng: random.Random) -> dict[int, list[int]] | None:
        """The unseen cards dealt: each hidden seat's hand, and the stock at -1."""
        pool = self.pool
        counts = self.counts
        constraint = self.constraint
        played = self.played
        hidden_seats = self.hidden_seats
        cards = pool[:]
        for _ in range(TRIES):
            shuffle(cards, rng)
            out: dict[int, list[int]] = {}
            at = 0
            ok = True
            for s in hidden_seats:
                k = counts[s]
                hand = cards[at : at + k]
                at += k
                kind = constraint[s]
                if kind is not None and not _fits(kind, played[s] + tuple(hand)):
                    ok = False
                    break
                out[s] = hand
            if ok:
                out[-1] = cards[at:]
                return out
        return self._assign_constrained(rng)

    def _assign_constrained(self, rng: random.Random) -> dict[int, list[int]] | None:
        """:meth:`assign` when 64 shuffles gave no deal that agrees with the constraints."""
        pool = self.pool
        counts = self.counts
        constraint = self.constraint
        played = self.played
        hidden_seats = self.hidden_seats
        # many constrained seats (auto mode, 8 players): draw the constrained seats one by
        # one, each by rejection from the cards still free (close to uniform, not exact)
        for _ in range(TRIES):
            free = pool[:]
            shuffle(free, rng)
            out = {}
            for s in self.constrained:
                k = counts[s]
                for _ in range(TRIES):
                    picks = rng.sample(range(len(free)), k)
                    hand = [free[i] for i in picks]
                    if _fits(constraint[s], played[s] + tuple(hand)):
                        for i in sorted(picks, reverse=True):
                            free.pop(i)
                        out[s] = hand
                        break
                else:
                    break
            else:
                at = 0
                for s in hidden_seats:
                    if s not in out:
                        out[s] = free[at : at + counts[s]]
                        at += counts[s]
                out[-1] = free[at:]
                return out
        # rare constraints: constrained seats in turn (fewest candidates first), each drawn
        # uniformly among its candidates still free; restart on a dead end
        ordered = sorted(self.constrained, key=self._candidate_count)
        for _ in range(TRIES * 4):
            used: set[int] = set()
            out = {}
            for s in ordered:
                still = [combo for combo in self.candidates_of(s) if not used.intersection(combo)]
                if not still:
                    break
                pick = still[rng.randrange(len(still))]
                used.update(pick)
                out[s] = list(pick)
            else:
                rest = [c for c in pool if c not in used]
                shuffle(rest, rng)
                at = 0
                for s in hidden_seats:
                    if s not in out:
                        out[s] = rest[at : at + counts[s]]
                        at += counts[s]
                out[-1] = rest[at:]
                return out
        return None

    def _candidate_count(self, s: int) -> int:
        return len(self.candidates_of(s))

    def dealt_of(self, s: int, hand: list[int]) -> tuple[int, ...]:
        """Seat ``s``'s dealt cards when it holds ``hand``."""
        return tuple(hand) + self.played[s] if self.dealt_shown[s] else ()

    def fill(self, st: PState, out: dict[int, list[int]]) -> None:
        """Put the dealt unseen cards into ``st``."""
        for s in self.hidden_seats:
            hand = out[s]
            dealt = self.dealt_of(s, hand)
            st.hands[s] = hand  # a list of its own: each deal builds new ones
            st.dealt[s] = dealt
            st.held[s] = holding(dealt)
        st.stock = tuple(out[-1])


def make_sampler(view: Any) -> Callable[[random.Random], PState]:
    """Validate ``view`` once; return f(rng) -> a full state whose view equals ``view``."""
    _, seat, values = CODEC.read_view(view)
    if seat is None:
        raise refuse("seat", "a spectator's view has no hand to sample around: give a seat's view")
    played = [tuple(cards) for cards in values["played"]]
    counts = _hidden_counts(values, seat)
    hidden_seats = list(counts)
    known: set[int] = set(values["table"])
    for hand in values["hands"]:
        if not isinstance(hand, Hidden):
            known.update(hand)
    for pile in values["piles"]:
        known.update(pile)
    pool = [c for c in range(52) if c not in known]
    need = sum(counts.values())
    stock_n = values["stock"]
    if need + stock_n != len(pool):
        raise refuse(
            "stock",
            f"{len(pool)} unseen cards do not fill the hidden hands ({need}) and stock ({stock_n})",
        )
    constraint = _constraints(view, values, counts)
    dealt_shown = [isinstance(d, Hidden) and d.count == HAND_CARDS for d in values["dealt"]]
    seats = range(len(values["hands"]))
    sampler = Sampler(
        pool,
        hidden_seats,
        [counts.get(s, 0) for s in seats],
        [constraint.get(s) for s in seats],
        played,
        dealt_shown,
    )
    first = sampler.assign(random.Random(0))
    if first is None:
        raise refuse("declarations", "no deal of the unseen cards agrees with the declarations")
    full: JSON = {k: v for k, v in view.items() if k != "seat"}
    full["hands"] = [[CODES[c] for c in first[s]] if s in counts else h for s, h in enumerate(view["hands"])]
    full["dealt"] = [
        [CODES[c] for c in sampler.dealt_of(s, first[s])] if s in counts else d
        for s, d in enumerate(view["dealt"])
    ]
    full["stock"] = [CODES[c] for c in first[-1]]
    full["decks"] = []
    full["rng_state"] = None
    sampler.template = CODEC.load(full, TEMPLATE)
    if CODEC.view(sampler.template, seat) != view:
        raise refuse("view", "the view is not a consistent view of a Porrazo state")
    return sampler
