"""Section 7: deal a seat's unseen cards at random, consistent with its view.

Exact deductions respected: each hidden hand is its dealt cards minus the public
played ones; a declared ronda (rondine) means exactly two (three) dealt cards of one
rank; with ``declaration_mode: "auto"`` during play an undeclared seat's three dealt
cards are of three different ranks. Nothing else is known (no voids in Porrazo).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Mapping
from typing import Any

from engine.cards import CODES
from engine.games.porrazo import codec
from engine.games.porrazo.codec import OptionsParser, _cards, _fail, _int, _per_seat, load
from engine.games.porrazo.rules import holding
from engine.games.porrazo.state import PState
from engine.games.porrazo.tables import HAND_CARDS, NO_COMBO, PLAYER_COUNTS, RONDA, RONDINE
from engine.protocol import JSON, InvalidState

TRIES = 64


def _fits(kind: int | None, dealt: tuple[int, ...]) -> bool:
    """Whether three dealt cards satisfy a seat's known constraint (None: no constraint)."""
    return kind is None or holding(dealt)[0] == kind


def make_sampler(view: Any, parse_options: OptionsParser) -> Callable[[random.Random], PState]:
    """Validate ``view`` once; return f(rng) -> a full state whose view equals ``view``."""
    if not isinstance(view, Mapping):
        raise InvalidState("a view must be a JSON object", field="view")
    if "seat" not in view:
        raise _fail("seat", "missing field: a view names its seat")
    players = view.get("players")
    if isinstance(players, bool) or players not in PLAYER_COUNTS:
        raise _fail("players", "porrazo is played by 2, 3, 4, 5, 6 or 8 players")
    n = players
    seat = _int(view["seat"], "seat", 0, n - 1)
    for key in ("rng_state", "decks"):
        if key in view:
            raise _fail(key, "a view carries no hidden fields")
    hands_v = _per_seat(view.get("hands"), "hands", n)
    dealt_v = _per_seat(view.get("dealt"), "dealt", n)
    played_v = _per_seat(view.get("played"), "played", n)
    played = [_cards(p, f"played[{s}]", HAND_CARDS) for s, p in enumerate(played_v)]
    known: set[int] = set()
    hidden_seats: list[int] = []
    counts: dict[int, int] = {}
    for s in range(n):
        h = hands_v[s]
        if isinstance(h, list):
            if s != seat:
                raise _fail(f"hands[{s}]", "another seat's hand is a count in a view")
            known.update(_cards(h, f"hands[{s}]", HAND_CARDS))
            if not isinstance(dealt_v[s], list):
                raise _fail(f"dealt[{s}]", "the seat's own dealt cards are shown with its hand")
        else:
            counts[s] = _int(h, f"hands[{s}]", 0, HAND_CARDS)
            hidden_seats.append(s)
            if isinstance(dealt_v[s], bool) or dealt_v[s] not in (0, HAND_CARDS):
                raise _fail(f"dealt[{s}]", "a hidden dealt hand is a count of 0 or 3")
    stock_n = _int(view.get("stock"), "stock", 0, 52)
    for where in ("table",):
        known.update(_cards(view.get(where), where))
    piles_v = _per_seat(view.get("piles"), "piles", n)
    for s, p in enumerate(piles_v):
        known.update(_cards(p, f"piles[{s}]"))
    pool = [c for c in range(52) if c not in known]
    need = sum(counts.values())
    if need + stock_n != len(pool):
        raise _fail(
            "stock",
            f"{len(pool)} unseen cards do not fill the hidden hands ({need}) and stock ({stock_n})",
        )
    # constraints (section 7, 2-3)
    options = view.get("options")
    auto = isinstance(options, Mapping) and options.get("declaration_mode") == "auto"
    decls = _per_seat(view.get("declarations"), "declarations", n)
    constraint: dict[int, int | None] = {}
    for s in hidden_seats:
        kind: int | None = None
        if dealt_v[s] == HAND_CARDS:
            if decls[s] == "ronda":
                kind = RONDA
            elif decls[s] == "rondine":
                kind = RONDINE
            elif auto and view.get("phase") == "play":
                kind = NO_COMBO
        constraint[s] = kind
    constrained = [s for s in hidden_seats if constraint[s] is not None]
    candidates: dict[int, list[tuple[int, ...]]] = {}

    def candidates_of(s: int) -> list[tuple[int, ...]]:
        if s not in candidates:
            own = tuple(played[s])
            candidates[s] = [
                combo
                for combo in itertools.combinations(pool, counts[s])
                if _fits(constraint[s], own + combo)
            ]
        return candidates[s]

    def assign(rng: random.Random) -> dict[int, list[int]] | None:
        cards = pool[:]
        for _ in range(TRIES):
            rng.shuffle(cards)
            out: dict[int, list[int]] = {}
            at = 0
            ok = True
            for s in hidden_seats:
                k = counts[s]
                hand = cards[at : at + k]
                at += k
                if constraint[s] is not None and not _fits(constraint[s], tuple(played[s]) + tuple(hand)):
                    ok = False
                    break
                out[s] = hand
            if ok:
                out[-1] = cards[at:]
                return out
        # many constrained seats (auto mode, 8 players): draw the constrained seats one by
        # one, each by rejection from the cards still free (close to uniform, not exact)
        for _ in range(TRIES):
            free = pool[:]
            rng.shuffle(free)
            out = {}
            for s in constrained:
                k = counts[s]
                for _ in range(TRIES):
                    picks = rng.sample(range(len(free)), k)
                    hand = [free[i] for i in picks]
                    if _fits(constraint[s], tuple(played[s]) + tuple(hand)):
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
        ordered = sorted(constrained, key=lambda seat_: len(candidates_of(seat_)))
        for _ in range(TRIES * 4):
            used: set[int] = set()
            out = {}
            for s in ordered:
                still = [combo for combo in candidates_of(s) if not used.intersection(combo)]
                if not still:
                    break
                pick = still[rng.randrange(len(still))]
                used.update(pick)
                out[s] = list(pick)
            else:
                rest = [c for c in pool if c not in used]
                rng.shuffle(rest)
                at = 0
                for s in hidden_seats:
                    if s not in out:
                        out[s] = rest[at : at + counts[s]]
                        at += counts[s]
                out[-1] = rest[at:]
                return out
        return None

    def fill(st: PState, out: dict[int, list[int]]) -> None:
        for s in hidden_seats:
            hand = out[s]
            st.hands[s] = list(hand)
            st.dealt[s] = tuple(hand) + tuple(played[s]) if dealt_v[s] == HAND_CARDS else ()
            st.held[s] = holding(st.dealt[s])
        st.stock = tuple(out[-1])

    first = assign(random.Random(0))
    if first is None:
        raise _fail("declarations", "no deal of the unseen cards agrees with the declarations")
    full: JSON = {k: v for k, v in view.items() if k != "seat"}
    full["hands"] = [
        list(h) if isinstance(h, list) else [CODES[c] for c in first[s]] for s, h in enumerate(hands_v)
    ]
    full["dealt"] = [
        list(dealt_v[s])
        if isinstance(dealt_v[s], list) and s not in counts
        else [CODES[c] for c in (tuple(first[s]) + tuple(played[s]) if dealt_v[s] == HAND_CARDS else ())]
        for s in range(n)
    ]
    full["stock"] = [CODES[c] for c in first[-1]]
    full["decks"] = []
    full["rng_state"] = 0
    history = full.get("history")
    if isinstance(history, list):
        canonical = list(CODES)
        fixed = []
        for entry in history:
            if (
                isinstance(entry, dict)
                and isinstance(entry.get("action"), dict)
                and entry["action"].get("type") == "deal"
                and entry["action"].get("deck") == 52
            ):
                entry = {"seat": entry.get("seat"), "action": {"type": "deal", "deck": canonical}}
            fixed.append(entry)
        full["history"] = fixed
    template = load(full, parse_options)
    if codec.view(template, seat) != dict(view):
        raise _fail("view", "the view is not a consistent view of a Porrazo state")

    def sample(rng: random.Random) -> PState:
        out = assign(rng)
        assert out is not None
        st = template.copy()
        fill(st, out)
        st.rng_state = rng.getrandbits(62)
        return st

    return sample
