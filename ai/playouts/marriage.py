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
    """The discards (card actions) with the fewest links to the hand (``link_score``)."""
    same_w, rank_w = (SEEN_SAME, SEEN_RANK) if seen else (UNSEEN_SAME, UNSEEN_RANK)
    best = 1 << 30
    pool: list[int] = []
    for a in actions:
        if type(a) is not int or a >= NCODES:
            continue
        c: int = a
        score = link_score(hand, c, wild, same_w, rank_w)
        if score < best:
            best, pool = score, [c]
        elif score == best:
            pool.append(c)
    return pool


def link_score(hand: list[int], c: int, wild: int, same_w: int, rank_w: int) -> int:
    """How much card ``c`` links with the hand, in half points: identical cards help a
    tunnela (and dublees) before seeing; same-suit neighbours make runs (the ace also above
    the king: QKA; K-A-2 never); same rank makes triplets, which count only once seen; a
    wild card (once seen) or a man is never thrown (score 100)."""
    if wild >> c & 1 or c == XX:
        return 100
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
    return score


def _reads(c: int) -> list[int]:
    """The codes whose count ``link_score(hand, c, ...)`` reads (``c`` included)."""
    if c == XX:
        return [c]
    rank, suit = c >> 2, c & 3
    out = {c} | {rank * 4 + s for s in range(4)}
    for d, _ in NEIGHBOURS:
        r = 0 if rank + d == 13 else rank + d
        if 0 <= r < 13:
            out.add(r * 4 + suit)
    if rank == 0:
        out |= {48 + suit, 44 + suit}
    return sorted(out)


READ_BY: Final[list[list[int]]] = [[c for c in range(NCODES) if x in _reads(c)] for x in range(NCODES)]
"""Per code ``x``, the codes whose ``link_score`` reads ``hand[x]``: the scores to renew
when ``hand[x]`` changes."""


def evolve_hand(st: MState, seat: int, turns: int, rng: random.Random) -> None:
    """Plays ``turns`` draw-and-discard turns of ``seat``'s hidden hand in place, against
    the stock of the world ``st``: draw a random card of the drawable stock, throw the hand's
    least linked card (``least_linked``, ties at random) into the drawn card's place. The
    hand keeps its size and the cards its seat is known to have taken; the stock keeps its
    size, its tiplu and its men; only which hidden cards are in the hand changes. So a
    world sampled uniformly from a view gets a hand shaped as a player's hand is after its
    turns (kept cards link), not a fresh deal. A recycled stock (only known cards) is left
    alone."""
    if st.recycled:
        return
    hand = st.hands[seat]
    keep = [0] * NCODES
    for c in st.taken[seat]:
        keep[c] += 1
    stock = st.stock
    low = (1 if st.tiplu >= 0 else 0) + st.men_rev
    if len(stock) <= low:
        return
    seen = st.route[seat] != UNSEEN
    wild = WILD[st.tiplu] if seen and st.tiplu >= 0 else 0
    same_w, rank_w = (SEEN_SAME, SEEN_RANK) if seen else (UNSEEN_SAME, UNSEEN_RANK)
    # the scores of the cards in hand, kept current: a count's change renews its readers'
    scores = [link_score(hand, c, wild, same_w, rank_w) if hand[c] else 0 for c in range(NCODES)]
    for _ in range(turns):
        i = low + int(rng.random() * (len(stock) - low))
        drawn = stock[i]
        hand[drawn] += 1
        for c in READ_BY[drawn]:
            if hand[c]:
                scores[c] = link_score(hand, c, wild, same_w, rank_w)
        # the least linked of the cards the hand may throw (as ``least_linked``, by code)
        best = 1 << 30
        pool: list[int] = []
        for c in range(NCODES):
            if hand[c] > keep[c]:
                score = scores[c]
                if score < best:
                    best = score
                    pool = [c]
                elif score == best:
                    pool.append(c)
        thrown = pool[int(rng.random() * len(pool))]
        hand[thrown] -= 1
        for c in READ_BY[thrown]:
            if hand[c]:
                scores[c] = link_score(hand, c, wild, same_w, rank_w)
        stock[i] = thrown


def play_out(start: MState, st: MState, rng: random.Random) -> None:
    """``choose`` and ``rules.step`` until ``hand_eval.is_playout_over(start, st)`` (the
    deal's end or the search's horizon of ``PLAYOUT_TURNS`` turns)."""
    while not is_playout_over(start, st):
        step(st, choose(st, rng))
