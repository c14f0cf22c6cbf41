"""Marriage's playout hook (the normal level's playouts), on the sampled world's ``MState``:
a cheap greedy player, so that playouts reach the end of the deal in tens of turns instead
of hundreds. See ``ai.policies.marriage._marriage_playout_hook`` for how it plays;
``ai.playouts`` for the two functions."""

from __future__ import annotations

import random
from typing import Any, Final

from engine.games.marriage.hand_eval import is_playout_over
from engine.games.marriage.melds import joker_family
from engine.games.marriage.rules import legal_actions, step
from engine.games.marriage.state import MState, entry_card
from engine.games.marriage.tables import (
    ACT,
    DRAW,
    DRAW_STOCK,
    EXPOSE,
    FINISH,
    FINISH_DUBLEES,
    NCODES,
    TAKE_DISCARD,
    UNSEEN,
    WINDOWS,
    XX,
)

EPSILON: Final = 0.1
"""Share of discards played as a uniformly random legal action (keeps playouts varied)."""

SEEN_SAME: Final = 0
"""Discard weights in half points: an identical card once seen (never a tunnela then) ..."""
SEEN_RANK: Final = 4
"""... a same-rank card once seen (triplets count only once seen) ..."""
UNSEEN_SAME: Final = 4
"""... an identical card before seeing (a tunnela, a dublee) ..."""
UNSEEN_RANK: Final = 2
"""... and a same-rank card before seeing."""

WILD: Final[list[int]] = [joker_family(tiplu).wild for tiplu in range(52)]
"""The wild-card mask (R4) by tiplu."""

NEIGHBOURS: Final[tuple[tuple[int, int], ...]] = ((-2, 2), (-1, 4), (1, 4), (2, 2))
"""(rank offset, half points) of a same-suit card that links with a card."""


def choose(st: MState, rng: random.Random) -> Any:
    """The action of the seat to act: expose every tunnela; when seen, take the discard
    whenever the engine allows it (only to finish); when unseen, take it when it completes
    a pure set of the hand; otherwise draw; finish, then show, whenever the engine offers
    it; discard the card with the fewest links, ties at random; with probability
    ``EPSILON`` a uniformly random legal action instead of the discard."""
    phase = st.phase
    actions = legal_actions(st)
    if phase == EXPOSE:
        return actions[0]  # expose_tunnela first, pass last
    if phase == DRAW:
        if len(actions) > 1:
            seat = seat_to_act(st)
            if st.route[seat] != UNSEEN:
                return TAKE_DISCARD
            if completes_pure(st.hands[seat], entry_card(st.discard[-1])):
                return TAKE_DISCARD
        return DRAW_STOCK
    if phase != ACT:
        return actions[int(rng.random() * len(actions))]
    if type(actions[-1]) is tuple:  # a show or a finish on offer (they come last)
        for a in actions:
            if type(a) is tuple and (a[0] == FINISH or a[0] == FINISH_DUBLEES):
                return a
        for a in actions:
            if type(a) is tuple:
                return a
    if rng.random() < EPSILON:
        return actions[int(rng.random() * len(actions))]
    seat = seat_to_act(st)
    seen = st.route[seat] != UNSEEN
    wild = WILD[st.tiplu] if seen and st.tiplu >= 0 else 0
    pool = least_linked(actions, st.hands[seat], wild, seen)
    if not pool:
        return actions[int(rng.random() * len(actions))]
    return pool[int(rng.random() * len(pool))]


def seat_to_act(st: MState) -> int:
    seat = st.cur
    assert seat is not None  # a draw or an act: a seat is to act
    return seat


def completes_pure(hand: list[int], card: int) -> bool:
    """Whether ``card`` makes a pure set with the hand: a third identical card (a tunnela)
    or the missing card of a same-suit run (``WINDOWS``)."""
    if card >= 52:
        return False
    if hand[card] >= 2:
        return True
    rank, suit = card >> 2, card & 3
    for w in WINDOWS:
        if rank in w:
            if all(hand[r * 4 + suit] for r in w if r != rank):
                return True
    return False


def least_linked(actions: list[Any], hand: list[int], wild: int, seen: bool) -> list[int]:
    """The discards (card actions) with the fewest links to the hand, in half points:
    identical cards help a tunnela (and dublees) before seeing; same-suit neighbours make
    runs (the ace also above the king: QKA; K-A-2 never); same rank makes triplets, which
    count only once seen; a wild card (once seen) or a man is never thrown (score 100)."""
    same_w, rank_w = (SEEN_SAME, SEEN_RANK) if seen else (UNSEEN_SAME, UNSEEN_RANK)
    best = 1 << 30
    pool: list[int] = []
    for a in actions:
        if type(a) is not int or a >= NCODES:
            continue
        c: int = a
        if wild >> c & 1 or c == XX:
            score = 100
        else:
            rank, suit = c >> 2, c & 3
            score = same_w * (hand[c] - 1)
            for d, w in NEIGHBOURS:
                r = rank + d
                if r == 13:
                    r = 0  # the ace above the king (QKA)
                if 0 <= r < 13 and hand[r * 4 + suit]:
                    score += w
            if rank == 0:  # the ace also sits above the king (QKA)
                score += (4 if hand[48 + suit] else 0) + (2 if hand[44 + suit] else 0)
            for s in range(4):
                if s != suit and hand[rank * 4 + s]:
                    score += rank_w
        if score < best:
            best, pool = score, [c]
        elif score == best:
            pool.append(c)
    return pool


def play_out(start: MState, st: MState, rng: random.Random) -> None:
    """``choose`` and ``rules.step`` until ``hand_eval.is_playout_over(start, st)`` (the
    deal's end or the search's horizon of ``PLAYOUT_TURNS`` turns)."""
    while not is_playout_over(start, st):
        step(st, choose(st, rng))
