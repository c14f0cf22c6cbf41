"""Ronda's sampler: worlds that fit a seat's view (the rules' Information section, §7)."""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from itertools import combinations
from math import comb
from typing import Any, Final

from engine.cards import card_code, cards_of_mask
from engine.codec import TEMPLATE, Hidden, refuse
from engine.games.ronda.codec import CODEC
from engine.games.ronda.rules import holding
from engine.games.ronda.state import RondaState, cons_list
from engine.games.ronda.tables import MATCH_OVER_P, NONE, PACK
from engine.protocol import InvalidState
from engine.sampling import index_below, shuffle

DEAL_TRIES: Final = 200
"""Deals of every hidden seat tried before declared holdings are found impossible."""

TRUSTED_TRIES: Final = 2
"""The same when a bot only trusts the declarations: a few tries (each up to 2,000 draws
of a seat's hand), so that a bluff no deal can make true costs milliseconds, not the
~0.4 s of DEAL_TRIES, before the bot gives up trusting it."""

LISTED_HANDS_MAX: Final = 20_000
"""The most hands a declared holding is listed from (every hand of a hidden seat's size
from the unseen cards; 5,456 at a two-player hand's start). A seat that declared a ronda,
a tringa or a double ronda is dealt from the list of hands that hold it: redrawn at random
instead, a tringa fits about one 3-card hand in 200, and those redraws made a world cost
about 1 ms instead of 5 µs (Ronda's normal level then ran out of its CPU cap)."""


def make_sampler(view: Any, *, trust_declarations: bool = False) -> Callable[[random.Random], RondaState]:
    """Validate ``view`` once; return f(rng) dealing the unseen cards at random into the
    other seats' hands (known sizes) and the stock (known size). Exact deductions kept:
    played cards, piles, table and revealed hands are fixed; each seat's dealt cards are
    its (sampled) hand plus what it played this hand (§7).

    ``trust_declarations``: deal only hands whose holding is what their seat declared, as
    with ``auto_declare`` (where that is a rule). Without it a declaration may be a bluff
    (R13), so the rules alone deduce nothing from it; a bot that takes its opponents at
    their word asks for it. Raises InvalidState when no deal matches the declarations."""
    rules, seat, values = CODEC.read_view(view)
    if seat is None:
        raise refuse("seat", "a spectator's view has no hand to sample around: give a seat's view")

    hands_v = values["hands"]
    if isinstance(hands_v[seat], Hidden):
        raise refuse(f"hands[{seat}]", "the viewing seat's own hand must be listed")
    known = 0
    hidden_seats: list[tuple[int, int]] = []
    for t, h in enumerate(hands_v):
        if isinstance(h, Hidden):
            hidden_seats.append((t, h.count))
        else:
            known |= h
    for c in values["table"]:
        known |= 1 << c
    for p in values["piles"]:
        known |= p
    pool = [c for c in PACK if not known >> c & 1]
    stock_n = values["stock"]
    if len(pool) != stock_n + sum(k for _, k in hidden_seats):
        raise InvalidState(
            f"view: {len(pool)} unseen cards but {stock_n} in the stock and "
            f"{sum(k for _, k in hidden_seats)} in hidden hands",
            field="hands",
        )
    played = values["played"]
    full = {key: value for key, value in view.items() if key != "seat"}
    hands_full = list(view["hands"])
    dealt_full = list(view["dealt"])
    pos = 0
    for t, k in hidden_seats:
        hands_full[t] = [card_code(c) for c in pool[pos : pos + k]]
        pos += k
        if isinstance(values["dealt"][t], Hidden):
            dealt_full[t] = hands_full[t] + [card_code(c) for c in cards_of_mask(played[t])]
    full["hands"] = hands_full
    full["dealt"] = dealt_full
    full["stock"] = [card_code(c) for c in pool[pos:]]
    full["rng_state"] = 0
    template = CODEC.load(full, TEMPLATE)
    if CODEC.view(template, seat) != view:
        raise InvalidState("view is not a consistent view of a Ronda state", field="view")
    # With auto_declare a declaration is the seat's true holding: an exact deduction.
    must_hold = (
        (template.o.auto_declare or trust_declarations)
        and template.phase != MATCH_OVER_P
        and all(d >= 0 for d in template.decl)
    )
    sampler = Sampler(
        template, pool, [t for t, _ in hidden_seats], [k for _, k in hidden_seats], played, must_hold
    )
    if must_hold:
        # fails now, not in the search, if impossible; a bot's trust in a bluff that cannot
        # be true is given up after a few tries (its caller then samples as the rules do)
        tries = TRUSTED_TRIES if not template.o.auto_declare else DEAL_TRIES
        sampler.deal_hidden(template.clone(), random.Random(0), tries)
    return sampler


class Sampler:
    """``sample(rng)``: a world of the view, the unseen cards dealt at random. A class, not
    a closure, so that the compiled build calls its typed fields natively."""

    def __init__(
        self,
        template: RondaState,
        pool: list[int],
        hidden: list[int],
        sizes: list[int],
        played: list[int],
        must_hold: bool,
    ) -> None:
        self.template = template
        self.pool = pool
        """The unseen cards, canonical order."""
        self.hidden = hidden
        """The seats whose hands are hidden, and how many cards each holds."""
        self.sizes = sizes
        self.played = played
        """What each seat played this hand (its dealt cards are its hand plus these)."""
        self.must_hold = must_hold
        self.n_decks = len(cons_list(template.decks))
        self.listed: list[list[int] | None] = [
            declared_hands(pool, sizes[i], played[t], template.decl[t])
            if must_hold and template.decl[t] != NONE and comb(len(pool), sizes[i]) <= LISTED_HANDS_MAX
            else None
            for i, t in enumerate(hidden)
        ]
        """By hidden seat: the hands that hold what it declared (see LISTED_HANDS_MAX), or
        None where its hand is redrawn until it does (it declared nothing: most hands fit)."""

    def deal_hidden(self, s: RondaState, rng: random.Random, tries: int = DEAL_TRIES) -> list[int]:
        """Deal the unseen cards into the hidden hands of ``s``; returns the rest (the stock).

        Seat by seat: a seat's hand is drawn from its list of fitting hands (apart from the
        cards dealt before it), or redrawn from what is left until its holding is the one
        it declared (joint rejection over every seat is hopeless when several seats must
        hold a tringa). Consistent with the view; only the seats' joint odds differ
        slightly from a uniform deal."""
        hidden = self.hidden
        sizes = self.sizes
        played = self.played
        must_hold = self.must_hold
        for _ in range(tries):
            rest = self.pool[:]
            ok = True
            dealt_hidden = 0  # the cards dealt to hidden seats so far in this try
            for i in range(len(hidden)):
                t = hidden[i]
                k = sizes[i]
                m = 0
                hands = self.listed[i]
                if hands is not None:
                    m = pick_apart(hands, dealt_hidden, rng)
                    if m < 0:
                        ok = False
                        break
                    s.hands[t] = m
                    s.dealt[t] = m | played[t]
                    dealt_hidden |= m
                    rest = [c for c in rest if not m >> c & 1]
                    continue
                for _ in range(2_000):
                    shuffle(rest, rng)
                    m = 0
                    for c in rest[:k]:
                        m |= 1 << c
                    if not must_hold or holding(m | played[t])[0] == s.decl[t]:
                        break
                else:
                    ok = False
                    break
                s.hands[t] = m
                s.dealt[t] = m | played[t]
                dealt_hidden |= m
                rest = rest[k:]
            if ok:
                shuffle(rest, rng)
                return rest
        raise InvalidState(
            "view: no deal of the unseen cards matches the declared holdings", field="declarations"
        )

    def __call__(self, rng: random.Random) -> RondaState:
        s = self.template.clone()
        s.stock = tuple(self.deal_hidden(s, rng))
        decks: Any = None  # a cons list
        for _ in range(self.n_decks):
            deck = list(PACK)
            shuffle(deck, rng)
            decks = (decks, tuple(deck))
        s.decks = decks
        s.rng_state = rng.getrandbits(63)
        return s


def declared_hands(pool: list[int], size: int, played: int, declared: int) -> list[int]:
    """Every hand of ``size`` cards from ``pool`` (as masks) whose holding, with the cards
    its seat played this hand, is ``declared`` (R12)."""
    hands: list[int] = []
    for cards in combinations(pool, size):
        m = 0
        for c in cards:
            m |= 1 << c
        if holding(m | played)[0] == declared:
            hands.append(m)
    return hands


def pick_apart(hands: list[int], taken: int, rng: random.Random) -> int:
    """A hand drawn uniformly from those of ``hands`` that share no card with ``taken``
    (drawn until one does: with few cards taken most do), or -1 when none is found."""
    if not hands:
        return -1
    for _ in range(2_000):
        m = hands[index_below(len(hands), rng)]
        if not m & taken:
            return m
    return -1


def info_key(s: RondaState, seat: int) -> Hashable:
    """What ``seat`` knows in ``s``, as a cheap hashable key (equal exactly when the seat's
    views are equal): hidden hands as counts, the stock as its size."""
    n = s.n
    shown = [s.hands[t] if t == seat or s.challenged >> t & 1 else s.hands[t].bit_count() for t in range(n)]
    return (
        seat, s.o.raw, s.dealer, s.phase, s.to_act, s.deal_no, s.hand_no, tuple(shown),
        tuple(s.dealt[t] & ~s.hands[t] for t in range(n)), tuple(s.table), len(s.stock),
        tuple(s.piles), tuple(s.scores), tuple(s.decl), s.challenged, s.withdrawn, s.prov_side,
        s.prov_pts, s.last_drop, s.chain, s.last_cap, s.winner, s.items, s.hist,
    )  # fmt: skip
