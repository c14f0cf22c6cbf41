"""Screen (session 53): below the root, the search expands the playout policy's action first.

    .venv/bin/python bench/expand_by_playout.py --game porrazo --a normal --b normal \\
        --budget-iterations 500 --matches 400 --first 2300 --seed 5000 --duplicate --jobs 2

A node of the search's tree expands one untried action a visit, chosen at random. An
opponent's replies to the searching seat's move differ by world (the cards it holds), so
a reply met for the first time is a random card of that world's hand, where a playout
(the hook: the biggest capture first) would take the discard with a porrazo.
Side A's search expands, below the root, the hook's action when it is untried (else one at
random, as before); side B plays as shipped. Both at the same iterations.
"""

from __future__ import annotations

import sys
from typing import Any

from ai import arena
from ai.bots import Budget, Decision, decide
from ai.policies.base import EXPAND_BY_PLAYOUT
from engine.protocol import Game


def expanding_decider(
    game: Game[Any], state: Any, seat: int, level: str, budget: Budget | None, seed: int
) -> Decision:
    """Side A's move: ``level``'s own search, expanding the playout policy's action first."""
    EXPAND_BY_PLAYOUT.add(game.id)
    try:
        return decide(
            game, game.view(state, seat), level=level, budget=budget, seed=seed, max_ms=arena.OFFLINE_MAX_MS
        )
    finally:
        EXPAND_BY_PLAYOUT.discard(game.id)


def main(argv: list[str]) -> int:
    return arena.main(
        argv,
        decide_a=expanding_decider,
        a_note=" expanding the playout's action",
        prog="python bench/expand_by_playout.py",
        description=__doc__.splitlines()[0],
    )


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
