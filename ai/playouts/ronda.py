"""Ronda's playout hook (the normal level's playouts), on the sampled world's
``RondaState``: every seat declares its true holding and never challenges; a card that
captures is preferred, the biggest packet first (an este or a missa counts 3 cards more);
else, 9 times in 10, a careful drop as the easy level makes one (the rank with the fewest
copies the dropper has not seen, and not just below a table rank), else a random card.
See ``ai.policies.ronda._ronda_playout_hook`` for why; ``ai.playouts`` for the two
functions."""

from __future__ import annotations

import random
from typing import Any, Final

from engine.games.ronda.rules import captured_ranks, holding, is_playout_over, legal_actions, step
from engine.games.ronda.state import RondaState
from engine.games.ronda.tables import CHALLENGE_P, DECLARE_BASE, DECLARE_P, PASS, PLAY_P, RBIT

CARELESS: Final = 0.1
"""The share of drops made at random: the opponent (easy) drops carefully, but a playout
that always drops the same way explores too little."""

SAME_RANK: Final[tuple[int, ...]] = tuple(15 << (c & ~3) for c in range(52))
"""The card mask of the four cards of each card's rank (a card is ``rank * 4 + suit``,
``engine.cards``); a table, as mypyc may shift an i64 by a card in 32 bits."""


def choose(s: RondaState, rng: random.Random) -> Any:
    """The action of the seat to act (one draw unless a declaration or a pass is due; a
    careful drop draws once more)."""
    phase = s.phase
    if phase == CHALLENGE_P:
        return PASS
    actions = legal_actions(s)
    if phase == PLAY_P:
        table = s.trank
        captures = best_captures(actions, table, s.last_drop) if table else []
        if captures:
            actions = captures
        elif len(actions) > 1 and rng.random() >= CARELESS:
            seen = s.hands[s.to_act]
            for pile in s.piles:
                seen |= pile
            actions = safest_drops(actions, table, seen)
    elif phase == DECLARE_P:
        wanted = DECLARE_BASE + holding(s.dealt[s.to_act])[0]
        if wanted in actions:
            return wanted
    return actions[int(rng.random() * len(actions))]


def best_captures(cards: list[Any], table: int, last_drop: int) -> list[Any]:
    """The cards that capture the most (empty when none captures): the ranks the rules
    capture (``rules.captured_ranks``, R20), 3 more for an este (the rank of the last drop)
    and for a missa (the whole table); ``table`` is the table's rank mask."""
    best = -1
    pool: list[Any] = []
    este_bit = RBIT[last_drop] if last_drop >= 0 else 0
    c: int
    for c in cards:
        run = captured_ranks(table, c)
        if run:
            value = bit_count(run)
            if RBIT[c] == este_bit:
                value += 3
            if run == table:
                value += 3
            if value > best:
                best, pool = value, [c]
            elif value == best:
                pool.append(c)
    return pool


def safest_drops(cards: list[Any], table: int, seen: int) -> list[Any]:
    """The drops (``cards`` capture nothing) least likely to be matched, as the easy level
    judges them (``ai.policies.ronda``): the fewest cards of the rank not in ``seen`` (the
    dropper's hand and every pile: the cards it knows the others cannot hold; no card of a
    dropped rank is on the table), then not a rank just below a table rank (a capture of
    it would take the run above too); ``table`` is the table's rank mask."""
    best = 99
    pool: list[Any] = []
    c: int
    for c in cards:
        risk = 2 * (4 - bit_count(seen & SAME_RANK[c]))
        if table & (RBIT[c] << 1):
            risk += 1
        if risk < best:
            best, pool = risk, [c]
        elif risk == best:
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
