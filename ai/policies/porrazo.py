"""Porrazo: the easy policy (the tendido, captures, porrazos)."""

from __future__ import annotations

import random
from typing import Any

from ai.policies.base import (
    PLAYOUT_FACTORIES,
    Action,
    PlayoutHook,
    PlayoutPolicy,
    best_of,
    greedy_policy,
    register,
)
from engine.protocol import Game

_PORRAZO_RANKS = "A23456789TJQK"
_PORRAZO_VALUE = {"K": 4, "Q": 3, "J": 2}


def _porrazo_play_value(data: dict[str, Any], view: dict[str, Any], seat: int) -> float:
    """How good a play looks from the view (R11 order): San Benito wins the match, a
    counter-porrazo scores 3 v(r), a capture takes its cards (a porrazo and a limpia score
    extra), a discard risks a porrazo by whoever holds the rank."""
    card = data["card"]
    rank = card[0]
    value_r = _PORRAZO_VALUE.get(rank, 1)
    chain = view.get("chain")
    stage = chain.get("stage") if isinstance(chain, dict) else None
    chain_rank = chain.get("rank") if isinstance(chain, dict) else None
    if isinstance(chain_rank, str) and len(chain_rank) == 2:
        chain_rank = chain_rank[0]
    if stage == "counter" and chain_rank == rank:
        return 1000.0
    if stage == "porrazo" and chain_rank == rank:
        return 50.0 + 3 * value_r
    table: list[str] = [c for c in (view.get("table") or []) if isinstance(c, str)]
    table_ranks = [c[0] for c in table]
    if rank in table_ranks and data.get("capture", True) is not False:
        taken = 1
        i = _PORRAZO_RANKS.index(rank)
        for k in range(1, 13):
            if _PORRAZO_RANKS[(i + k) % 13] in table_ranks:
                taken += 1
            else:
                break
        value = 2.0 + taken
        if stage == "discard" and chain_rank == rank:
            value += 3 * value_r
        if taken >= len(table):
            value += 3.0
        return value
    # a set: a card played this deal also lies on the table or on a pile
    seen = set(table)
    for pile in view.get("piles") or []:
        if isinstance(pile, list):
            seen.update(c for c in pile if isinstance(c, str))
    for played in view.get("played") or []:
        if isinstance(played, list):
            seen.update(c for c in played if isinstance(c, str))
    hands = view.get("hands") or []
    if seat < len(hands) and isinstance(hands[seat], list):
        seen.update(hands[seat])
    unseen = 4 - sum(1 for c in seen if c[0] == rank)
    bonus = 0.0
    if rank in "A234" and len(table) + 1 == _PORRAZO_RANKS.index(rank) + 1:
        bonus = 2.0 * (_PORRAZO_RANKS.index(rank) + 1)  # en su lugar (R13)
    return bonus - unseen * value_r


@register("porrazo")
def porrazo_policy(game: Game[Any], state: Any, seat: int, rng: random.Random) -> Action:
    """Easy Porrazo: take the tendido, declare combinations, claim whenever possible, and
    play the card whose capture is worth most (San Benito, counter-porrazo, porrazo,
    limpia), else discard the rank least likely to be matched."""
    view = game.view(state, seat)
    actions = game.legal_actions(state)
    as_json = [game.action_to_json(state, a) for a in actions]
    for wanted in ("tendido", "declare", "claim"):
        for action, data in zip(actions, as_json, strict=True):
            if data.get("type") == wanted:
                return action
    plays = [
        (action, _porrazo_play_value(data, view, seat))
        for action, data in zip(actions, as_json, strict=True)
        if isinstance(data.get("card"), str)
    ]
    best = best_of(plays, rng)
    return best if best is not None else greedy_policy(game, state, seat, rng)


def _porrazo_playout_hook() -> PlayoutPolicy | None:
    """A cheap Porrazo playout policy for the search: every seat takes the tendido,
    declares its true holding and claims what it can; in the play a card that captures is
    preferred, the biggest capture first (a counter-porrazo or San Benito, then a porrazo,
    then the most cards, a limpia counting 3 more), else a random card played face up.
    In uniformly random playouts a seat captures only when chance picks a capturing card,
    and declines captures, declarations and claims at random, so a play was valued by how
    careless seats would answer it; the same search with this hook beats it with random
    playouts at equal iterations (docs/bots.md). It reads the sampled world's
    internal state (a playout runs in a world sampled from the view, so this sees nothing
    the searching seat does not). The code is :mod:`ai.playouts.porrazo`, compiled with
    the engine."""
    try:
        from ai.playouts import porrazo
    except ImportError:  # pragma: no cover - Porrazo not installed
        return None
    return PlayoutHook(porrazo.choose, porrazo.play_out)


PLAYOUT_FACTORIES["porrazo"] = _porrazo_playout_hook
