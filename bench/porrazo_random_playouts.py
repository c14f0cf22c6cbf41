"""Screen (session 52): Porrazo's normal level with uniformly random playouts, not its hook.

    .venv/bin/python bench/porrazo_random_playouts.py --game porrazo --a normal --b normal \\
        --budget-iterations 500 --matches 400 --first 1500 --seed 5000 --duplicate --jobs 2

Session 27 measured Porrazo's playout hook (the biggest capture, else a random card) at
2,000 iterations with playouts to the deal's end. The searching levels now play out to the
hand's end, and the open target is normal against OpenSpiel's ISMCTS at 500 iterations,
whose playouts are uniformly random. This asks whether the hook still pays there: side A
searches with uniformly random playouts (the hook switched off for its decisions only),
side B as shipped. Every other option is the arena's.
"""

from __future__ import annotations

import sys
from typing import Any

from ai import arena
from ai.bots import Budget, Decision, decide
from ai.policies import base
from engine.protocol import Game


def random_playout_decider(
    game: Game[Any], state: Any, seat: int, level: str, budget: Budget | None, seed: int
) -> Decision:
    """Side A's move: ``level``'s search with uniformly random playouts."""
    base.playout_policy(game)  # the cache filled, so the swap below is undone exactly
    kept = base.PLAYOUTS[game.id]
    base.PLAYOUTS[game.id] = None
    try:
        return decide(
            game, game.view(state, seat), level=level, budget=budget, seed=seed, max_ms=arena.OFFLINE_MAX_MS
        )
    finally:
        base.PLAYOUTS[game.id] = kept


def main(argv: list[str]) -> int:
    return arena.main(
        argv,
        decide_a=random_playout_decider,
        a_note=" with random playouts",
        prog="python bench/porrazo_random_playouts.py",
        description=__doc__.splitlines()[0],
    )


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
