"""Porrazo's playout hook (the searching levels' playouts), on the sampled world's
``PState``: every seat takes the tendido, declares its true holding and claims what it
can; in the play the biggest capture is preferred (a counter-porrazo, then a porrazo, a
limpia, then the most cards), else a random card played face up. See
``ai.policies.porrazo._porrazo_playout_hook`` for why; ``ai.playouts`` for the two
functions."""

from __future__ import annotations

import random
from typing import Any

from engine.games.porrazo.playout import is_playout_over
from engine.games.porrazo.rules import legal_actions, step
from engine.games.porrazo.state import PState
from engine.games.porrazo.tables import COUNTER, DECLINE, DISCARD, P_PLAY, PORRAZO


def choose(s: PState, rng: random.Random) -> Any:
    """The action of the seat to act (one draw in the play, none elsewhere)."""
    actions = legal_actions(s)
    if s.phase != P_PLAY:
        return actions[0]  # the tendido, the true declaration, a claim: each comes before the pass
    best = -1
    pool: list[Any] = []
    c: int
    for c in actions:
        if c >= DECLINE:
            continue  # a declined capture: never in a playout
        value = capture_value(s, c)
        if value > best:
            best, pool = value, [c]
        elif value == best:
            pool.append(c)
    return pool[int(rng.random() * len(pool))]


def capture_value(s: PState, card: int) -> int:
    """How much playing ``card`` face up takes (0: nothing): a San Benito or a counter-
    porrazo above all, a porrazo next, then the cards a capture takes (R12: its rank and
    the run above it, one card of each), 3 more when it clears the table (a limpia)."""
    rank = card >> 2
    chain = s.chain
    if chain is not None and chain[1] == rank:
        if chain[0] == COUNTER or chain[0] == PORRAZO:
            return 100
    table = s.table
    present = 0
    for t in table:
        present |= 1 << (t >> 2)
    if not present >> rank & 1:
        return 0
    taken = 0
    k = 0
    while k < 13 and present >> ((rank + k) % 13) & 1:
        taken += 1
        k += 1
    value = taken
    if taken == len(table):
        value += 3
    if chain is not None and chain[0] == DISCARD and chain[1] == rank:
        value += 10
    return value


def play_out(start: PState, s: PState, rng: random.Random) -> None:
    """``choose`` and ``rules.step`` until ``playout.is_playout_over(start, s)``."""
    while not is_playout_over(start, s):
        step(s, choose(s, rng))
