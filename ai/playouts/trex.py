"""Trex's playout hook (the normal level's playouts): the easy policy's trick play in its
cheapest form, on the sampled world's ``TrexState``. See ``ai.policies.trex.make_trex_playout``
for why it plays this way; ``ai.playouts`` for the two functions."""

from __future__ import annotations

import random
from typing import Any, Final

from engine.games.trex.rules import is_playout_over, legal_actions, step
from engine.games.trex.state import TrexState
from engine.games.trex.tables import PENALTY_MASK, TRICKS

EPSILON: Final = 0.1
"""Share of playout turns played uniformly at random (keeps the playouts varied)."""


def choose(s: TrexState, rng: random.Random) -> Any:
    """The action of the seat to act: in the trick phase, one time in ten a random legal
    card, else lead the lowest card, duck under the winner, shed penalty cards when void;
    the layout, doubling and contract choice at random. One action: no draw."""
    actions = legal_actions(s)
    n = len(actions)
    if n == 1:
        return actions[0]
    if s.phase != TRICKS or rng.random() < EPSILON:
        return actions[int(rng.random() * n)]
    # card numbers: suit * 13 + rank, rank 0 = 2 ... 12 = ace; actions ascend
    trick = s.trick
    penalty: int = PENALTY_MASK[s.contract]
    card: int
    if not trick:  # lead the lowest rank (ties: the first suit; R10 is the engine's)
        return lowest_rank(actions)
    first: int = actions[0]
    if first // 13 == trick[0] // 13:  # following suit: every action is of the led suit
        best = s.best
        if first < best:  # duck under the winner with the highest card that loses
            duck = first
            for card in actions:
                if card < best:
                    duck = card
            return duck
        if len(trick) == 3:  # last and winning anyway: shed the highest safe card
            safe = [c for c in actions if not penalty >> c & 1] or actions
            return safe[-1]
        return first  # a later seat may still overtake: play low
    # void in the led suit: shed a penalty card, else the highest card
    shed = [c for c in actions if penalty >> c & 1] or actions
    return highest_rank(shed)


def lowest_rank(cards: list[Any]) -> int:
    """The first card of lowest rank (``min(cards, key=rank)``)."""
    chosen: int = cards[0]
    low = chosen % 13
    card: int
    for card in cards:
        if card % 13 < low:
            chosen, low = card, card % 13
    return chosen


def highest_rank(cards: list[Any]) -> int:
    """The first card of highest rank (``max(cards, key=rank)``)."""
    chosen: int = cards[0]
    high = chosen % 13
    card: int
    for card in cards:
        if card % 13 > high:
            chosen, high = card, card % 13
    return chosen


def play_out(start: TrexState, s: TrexState, rng: random.Random) -> None:
    """``choose`` and ``rules.step`` until ``rules.is_playout_over(start, s)``."""
    while not is_playout_over(start, s):
        step(s, choose(s, rng))
