"""Screen (session 53): a searching level compares its root's actions in the same worlds.

    .venv/bin/python bench/paired_worlds.py --game porrazo --a normal --b normal \\
        --budget-iterations 500 --matches 400 --first 1900 --seed 5000 --duplicate --jobs 2

The search samples a fresh world for every iteration, so two root actions are valued in
different deals, and in a game whose playouts run far (Porrazo: to the end of the hand,
up to seven deals ahead) the luck of those deals can hide the difference between them.
Side A's search plays the k-th visit of every root action in the k-th world of one
sequence, its playout drawn from that world's own stream (``ismcts.search(paired_worlds=
True)``, common random numbers); side B plays as shipped. Both at the same iterations.
"""

from __future__ import annotations

import sys
from typing import Any

from ai import arena
from ai.bots import Budget, Decision, decide
from ai.policies import PAIRED_WORLDS
from engine.protocol import Game


def paired_decider(
    game: Game[Any], state: Any, seat: int, level: str, budget: Budget | None, seed: int
) -> Decision:
    """Side A's move: ``level``'s own search, its root's actions compared in paired worlds."""
    PAIRED_WORLDS.add(game.id)
    try:
        return decide(
            game, game.view(state, seat), level=level, budget=budget, seed=seed, max_ms=arena.OFFLINE_MAX_MS
        )
    finally:
        PAIRED_WORLDS.discard(game.id)


def main(argv: list[str]) -> int:
    return arena.main(
        argv,
        decide_a=paired_decider,
        a_note=" in paired worlds",
        prog="python bench/paired_worlds.py",
        description=__doc__.splitlines()[0],
    )


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
