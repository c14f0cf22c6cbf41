"""Heuristic policies: the "easy" level and optional cheap playout hooks.

A policy is ``choose(game, state, seat, rng) -> action`` for the seat to act. It must
look only at what ``seat`` may see: the per-game policies read ``game.view(state, seat)``
(the JSON view of the rules file's State section) and nothing else of the state, so they
behave the same on the real state and on any world sampled from the seat's view.

Games without a policy of their own use :func:`greedy_policy` (maximise the seat's side's
deal points after one action, by ``game.score``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from typing import Any

from engine.protocol import Game

Action = Hashable
Policy = Callable[[Game[Any], Any, int, random.Random], Action]

POLICIES: dict[str, Policy] = {}
"""Game id -> its heuristic policy (the "easy" level)."""

PLAYOUTS: dict[str, Callable[[Game[Any], Any, random.Random], Action]] = {}
"""Game id -> a cheap playout policy for ISMCTS (absent: uniformly random playouts)."""


def register(game_id: str) -> Callable[[Policy], Policy]:
    """Decorator: make ``fn`` the heuristic policy of ``game_id``."""

    def deco(fn: Policy) -> Policy:
        POLICIES[game_id] = fn
        return fn

    return deco


def _side_of(sides: list[list[int]], seat: int) -> int:
    for i, members in enumerate(sides):
        if seat in members:
            return i
    return seat


def greedy_policy(game: Game[Any], state: Any, seat: int, rng: random.Random) -> Action:
    """The generic heuristic: the action after which the seat's side leads the other sides
    by the most deal points (by ``game.score``); ties broken at random."""
    actions = game.legal_actions(state)
    best: list[Action] = []
    best_value = None
    for action in actions:
        nxt = game.clone(state)
        game.step(nxt, action)
        report = game.score(nxt)
        points = report.deal_points
        side = _side_of(report.sides, seat)
        if not points:
            value = 0.0
        else:
            mine = points[side] if side < len(points) else 0
            others = [p for i, p in enumerate(points) if i != side]
            value = float(mine - (max(others) if others else 0))
        if best_value is None or value > best_value:
            best, best_value = [action], value
        elif value == best_value:
            best.append(action)
    return best[int(rng.random() * len(best))]


def choose(game: Game[Any], state: Any, seat: int, rng: random.Random) -> Action:
    """The easy level's action for ``seat`` (to act in ``state``)."""
    policy = POLICIES.get(game.id, greedy_policy)
    return policy(game, state, seat, rng)


def playout_policy(game: Game[Any]) -> Callable[[Game[Any], Any, random.Random], Action] | None:
    """The game's cheap playout policy, or None for uniformly random playouts."""
    return PLAYOUTS.get(game.id)
