"""Ronda's playout hook (the normal level's playouts), on the sampled world's
``RondaState``: every seat declares its true holding and never challenges; a card that
captures is preferred, the biggest packet first (an este or a missa counts 3 cards more),
else a random card. See ``ai.policies.ronda._ronda_playout_hook`` for why; ``ai.playouts``
for the two functions."""

from __future__ import annotations

import random
from typing import Any

from engine.games.ronda.rules import captured_ranks, holding, is_playout_over, legal_actions, step
from engine.games.ronda.state import RondaState
from engine.games.ronda.tables import CHALLENGE_P, DECLARE_BASE, DECLARE_P, PASS, PLAY_P, RBIT


def choose(s: RondaState, rng: random.Random) -> Any:
    """The action of the seat to act (one draw unless a declaration or a pass is due)."""
    phase = s.phase
    if phase == CHALLENGE_P:
        return PASS
    actions = legal_actions(s)
    if phase == PLAY_P:
        table = s.trank
        if table:
            captures = best_captures(actions, table, s.last_drop, s.o.este_card_stays)
            if captures:
                actions = captures
    elif phase == DECLARE_P:
        wanted = DECLARE_BASE + holding(s.dealt[s.to_act])[0]
        if wanted in actions:
            return wanted
    return actions[int(rng.random() * len(actions))]


def best_captures(cards: list[Any], table: int, last_drop: int, este_card_stays: bool = False) -> list[Any]:
    """The cards that capture the most (empty when none captures): the ranks the rules
    capture (``rules.captured_ranks``, R20), 3 more for an este (the rank of the last drop)
    and for a missa (the whole table; never after an este whose card stays on the table,
    R21's house rule ``este_capturing_card``); ``table`` is the table's rank mask."""
    best = -1
    pool: list[Any] = []
    este_bit = RBIT[last_drop] if last_drop >= 0 else 0
    c: int
    for c in cards:
        run = captured_ranks(table, c)
        if run:
            value = bit_count(run)
            este = RBIT[c] == este_bit
            if este:
                value += 3
            if run == table and not (este and este_card_stays):
                value += 3
            if value > best:
                best, pool = value, [c]
            elif value == best:
                pool.append(c)
    return pool


def bit_count(m: int) -> int:
    """The set bits of ``m`` (C arithmetic when compiled: ``int.bit_count`` is a method
    call there)."""
    n = 0
    while m:
        m &= m - 1
        n += 1
    return n


def play_out(start: RondaState, s: RondaState, rng: random.Random) -> None:
    """``choose`` and ``rules.step`` until ``rules.is_playout_over(start, s)``."""
    while not is_playout_over(start, s):
        step(s, choose(s, rng))
