"""Porrazo's playout hook (the searching levels' playouts), on the sampled world's
``PState``: every seat takes the tendido, declares its true holding and claims what it
can; in the play the biggest capture is preferred (a counter-porrazo, then a porrazo, a
limpia, then the most cards), else a random card played face up. Every rule it needs
(what a capture takes, a porrazo, a counter) is the engine's. See
``ai.policies.porrazo._porrazo_playout_hook`` for why; ``ai.playouts`` for the two
functions."""

from __future__ import annotations

import random
from typing import Any

from engine.games.porrazo.playout import is_playout_over
from engine.games.porrazo.rules import (
    is_counter,
    is_porrazo,
    is_san_benito,
    legal_actions,
    step,
    take_run,
)
from engine.games.porrazo.state import PState
from engine.games.porrazo.tables import DECLINE, P_PLAY


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
    """How much the hook likes playing ``card`` face up (0: it takes nothing): a San
    Benito or a counter-porrazo above all (100), else the table cards its capture takes
    (``rules.take_run`` on a copy of the table), 3 more when they are the whole table, 10
    more for a porrazo."""
    rank = card >> 2
    if is_counter(s, rank) or is_san_benito(s, rank):
        return 100
    taken = len(take_run(s.table[:], rank))
    if not taken:
        return 0
    value = taken
    if taken == len(s.table):
        value += 3
    if is_porrazo(s, rank):
        value += 10
    return value


def play_out(start: PState, s: PState, rng: random.Random) -> None:
    """``choose`` and ``rules.step`` until ``playout.is_playout_over(start, s)``."""
    while not is_playout_over(start, s):
        step(s, choose(s, rng))
