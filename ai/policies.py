"""Heuristic policies: the "easy" level and optional cheap playout hooks.

A policy is ``choose(game, state, seat, rng) -> action`` for the seat to act. It must
look only at what ``seat`` may see: the per-game policies read ``game.view(state, seat)``
(the JSON view of the rules file's State section) and nothing else of the state, so they
behave the same on the real state and on any world sampled from the seat's view.

Games without a policy of their own use :func:`greedy_policy` (one step of look-ahead
valued by ``game.outcome``).
"""

from __future__ import annotations

import math
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


def greedy_policy(game: Game[Any], state: Any, seat: int, rng: random.Random) -> Action:
    """The generic heuristic: one step of look-ahead on a world sampled from the seat's
    view, valued by ``game.outcome(state, after)[seat]`` (a won match is 1, else the
    game's mapping of the score change); ties broken at random."""
    actions = game.legal_actions(state)
    best: list[Action] = []
    best_value = -math.inf
    for action in actions:
        nxt = game.clone(state)
        game.step(nxt, action)
        value = game.outcome(state, nxt)[seat]
        if value > best_value:
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


# --------------------------------------------------------------------------- Ronda

_RONDA_RANKS = "A234567JQK"


def _ronda_holding(cards: list[str]) -> str:
    """R8 table: the holding of a hand's dealt cards ("none", "ronda", "tringa", "double_ronda")."""
    counts: dict[str, int] = {}
    for code in cards:
        counts[code[0]] = counts.get(code[0], 0) + 1
    most = max(counts.values(), default=0)
    pairs = sum(1 for n in counts.values() if n == 2)
    if most == 4:
        return "double_ronda"
    if most == 3:
        return "tringa"
    if pairs == 2:
        return "double_ronda"
    if pairs == 1:
        return "ronda"
    return "none"


def _ronda_play_value(card: str, view: dict[str, Any], players: int) -> float:
    """How good playing ``card`` looks from the view: captured cards count 1 each, este,
    missa and chain bonuses their points (weighted up); a drop is scored by the risk that
    an opponent matches it (unseen cards of its rank)."""
    rank = card[0]
    table: list[str] = list(view.get("table") or [])
    table_ranks = {c[0] for c in table}
    chain = view.get("chain")
    if isinstance(chain, dict) and players >= 3 and view.get("options", {}).get("chain_bonuses", True):
        chain_rank = chain.get("rank")
        if isinstance(chain_rank, int) and 0 <= chain_rank < len(_RONDA_RANKS):
            chain_rank = _RONDA_RANKS[chain_rank]
        if chain_rank == rank:
            return 100.0
    if rank in table_ranks:
        taken = 1
        index = _RONDA_RANKS.index(rank) + 1
        while index < len(_RONDA_RANKS) and _RONDA_RANKS[index] in table_ranks:
            taken += 1
            index += 1
        value = 2.0 + taken
        last_drop = view.get("last_drop")
        if isinstance(last_drop, str) and last_drop[0] == rank:
            value += 3.0  # este
        if taken == len(table):
            value += 3.0  # missa (ignoring the last-play exception)
        return value
    # a drop: fewer unseen cards of this rank = less risk of an este against us
    seen = [c for c in table]
    for pile in view.get("piles") or []:
        if isinstance(pile, list):
            seen.extend(pile)
    hands = view.get("hands") or []
    seat = view.get("seat")
    own = hands[seat] if isinstance(seat, int) and seat < len(hands) and isinstance(hands[seat], list) else []
    seen.extend(own)
    unseen = 4 - sum(1 for c in seen if c[0] == rank)
    # dropping next to a table rank also feeds a run capture
    index = _RONDA_RANKS.index(rank)
    feeds_run = index + 1 < len(_RONDA_RANKS) and _RONDA_RANKS[index + 1] in table_ranks
    return -1.0 * unseen - (0.5 if feeds_run else 0.0)


@register("ronda")
def ronda_policy(game: Game[Any], state: Any, seat: int, rng: random.Random) -> Action:
    """Easy Ronda: declare the true holding, never challenge (a genuine declaration
    challenged wins the match for its side), capture the most valuable packet (este and
    missa count extra), otherwise drop the card least likely to be matched."""
    view = game.view(state, seat)
    actions = game.legal_actions(state)
    as_json = [game.action_to_json(state, a) for a in actions]
    phase = view.get("phase")
    if phase == "declare":
        dealt = view.get("dealt")
        own = dealt[seat] if isinstance(dealt, list) and isinstance(dealt[seat], list) else view["hands"][seat]
        holding = _ronda_holding(own)
        for action, data in zip(actions, as_json):
            if holding == "none" and data.get("type") == "pass":
                return action
            if data.get("type") == "declare" and data.get("combo") == holding:
                return action
    if phase == "challenge":
        for action, data in zip(actions, as_json):
            if data.get("type") == "pass":
                return action
    players = int(view.get("players", 2))
    best: list[Action] = []
    best_value = -math.inf
    for action, data in zip(actions, as_json):
        card = data.get("card")
        if not isinstance(card, str):
            continue
        value = _ronda_play_value(card, view, players)
        if value > best_value:
            best, best_value = [action], value
        elif value == best_value:
            best.append(action)
    if not best:
        return greedy_policy(game, state, seat, rng)
    return best[int(rng.random() * len(best))]
