"""OpenSpiel's ISMCTS as an outside opponent: the arena level ``openspiel-ismcts``.

Needs ``open-spiel`` (``pip install -e '.[openspiel]'``). The bot is OpenSpiel's Python
``ISMCTSBot`` (``open_spiel.python.algorithms.ismcts``) with its ``RandomRolloutEvaluator``
(one uniformly random rollout per simulation), a fresh world per simulation, the final
move by visit count and ``uct_c`` = :data:`ai.ismcts.UCT_C` (0.7, for rewards in [0, 1],
as ours). It searches ``majlis_<game>`` (engine/openspiel.py) from the seat's view: a world
sampled from the view is the root, and every simulation resamples from it with the
engine's sampler, so it sees no more than our bots do. OpenSpiel's C++ ISMCTSBot does not
accept Python games (their states have no C++ ``ResampleFromInfostate``: the search
crashes), hence the Python one.

Budgets: ``Budget(iterations=n)`` runs n simulations; ``Budget(ms=t)`` stops at the first
simulation that would start after t milliseconds, the third at the earliest (OpenSpiel's
bot has no clock: the resampler, called once before each simulation, ends the search by
raising, and the final policy is read from the root as ``run_search`` would).
"""

from __future__ import annotations

import functools
import json
import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from open_spiel.python.algorithms import ismcts as os_ismcts
from open_spiel.python.algorithms import mcts as os_mcts

from ai.bots import LEVEL_BUDGETS, Budget, Decision
from ai.ismcts import UCT_C
from engine.openspiel import MajlisGame, MajlisState
from engine.protocol import Game

LEVEL = "openspiel-ismcts"
"""The arena's name for this bot."""


MIN_SIMULATIONS = 2
"""A timed search runs at least this many simulations: OpenSpiel's first simulation only
evaluates the root, and its final policy needs a root visit."""


class _TimeUp(Exception):
    """Raised by the resampler to end a timed search."""


@functools.lru_cache(maxsize=32)
def _openspiel_game(game_id: str, players: int, options_json: str) -> MajlisGame:
    return MajlisGame(game_id, {"players": players, **json.loads(options_json)})


def openspiel_game(game: Game[Any], view: dict[str, Any]) -> MajlisGame:
    """``majlis_<game>`` for the table and options of ``view`` (cached)."""
    return _openspiel_game(game.id, int(view["players"]), json.dumps(view["options"], sort_keys=True))


def decide(
    game: Game[Any],
    view: dict[str, Any],
    *,
    budget: Budget | None = None,
    seed: int = 0,
    clock: Callable[[], float] = time.perf_counter,
) -> Decision:
    """OpenSpiel's ISMCTS move for the seat ``view["seat"]`` (which must be to act) within
    ``budget`` (default: the normal level's, 2,000 iterations or 200 ms). Seeded: with an
    iteration budget the same view and seed give the same move."""
    start_time = clock()
    chosen = budget if budget is not None else LEVEL_BUDGETS["normal"]
    rng = random.Random(seed)
    world = game.sampler(view)(rng)
    os_game = openspiel_game(game, view)
    root = os_game.state_from(world)
    legal = root.legal_actions()
    stats: dict[str, Any] = {"level": LEVEL, "seed": seed, "iterations": 0}
    if len(legal) == 1:
        action_id = legal[0]
    else:
        action_id, stats["iterations"] = _search(os_game, root, rng, chosen, seed, start_time, clock)
    stats["elapsed_ms"] = round((clock() - start_time) * 1000.0, 3)
    return Decision(action=os_game.table.to_action(world, action_id), stats=stats)


def _search(
    os_game: MajlisGame,
    root: MajlisState,
    rng: random.Random,
    budget: Budget,
    seed: int,
    start_time: float,
    clock: Callable[[], float],
) -> tuple[int, int]:
    """Run OpenSpiel's ISMCTSBot from ``root``; (the action id, simulations run)."""
    random_state = np.random.RandomState(seed % (1 << 32))
    bot = os_ismcts.ISMCTSBot(
        os_game,
        os_mcts.RandomRolloutEvaluator(1, random_state),
        UCT_C,
        budget.iterations if budget.iterations is not None else 1 << 40,
        random_state=random_state,
    )
    deadline = start_time + budget.ms / 1000.0 if budget.ms is not None else None
    done = 0

    def resample(state: MajlisState, player: int) -> MajlisState:
        nonlocal done
        if deadline is not None and done >= MIN_SIMULATIONS and clock() >= deadline:
            raise _TimeUp
        done += 1
        return state.resample(player, rng)

    bot.set_resampler(resample)
    try:
        policy = bot.run_search(root)
    except _TimeUp:
        policy = bot.get_final_policy(root, bot._root_node)
    actions, probs = zip(*policy, strict=True)
    return int(random_state.choice(actions, p=probs)), done
