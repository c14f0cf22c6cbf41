"""Bound (session 53): what knowing how many court cards the opponent holds is worth to Porrazo's normal.

    .venv/bin/python bench/porrazo_courts_bound.py --game porrazo --a normal --b normal \\
        --budget-iterations 500 --matches 400 --first 3100 --seed 5000 --duplicate --jobs 2

Side A's search deals, in the play, only worlds whose opponent holds exactly as many
court cards (K, Q, J) as it truly does (rejection from the game's sampler, at most
``TRIES`` draws, else the rules' world): a clairvoyance of one number, the most any model
of the kept court cards could know. Side B plays as shipped. If this is level too, no
reading of the court cards can lift the level.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from typing import Any

from ai import arena
from ai.bots import Budget, Decision, decide
from engine.protocol import Game

TRIES = 200
COURT_RANK = 10
"""Card codes are rank * 4 + suit, ranks from the ace (0): J, Q and K are 10-12."""


def courts(hand: list[int]) -> int:
    return sum(1 for card in hand if card // 4 >= COURT_RANK)


class CourtsSeenGame:
    """``game`` unchanged but for its sampler: the opponent's true court count is kept."""

    def __init__(self, game: Game[Any], true_courts: int | None, opponent: int) -> None:
        self._game = game
        self._courts = true_courts
        self._opponent = opponent

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def sampler(self, view: dict[str, Any]) -> Callable[[random.Random], Any]:
        sample: Any = self._game.sampler(view)
        if self._courts is None:
            return sample
        wanted, opponent = self._courts, self._opponent

        def seen(rng: random.Random) -> Any:
            world = sample(rng)
            for _ in range(TRIES):
                if courts(world.hands[opponent]) == wanted:
                    return world
                world = sample(rng)
            return world

        return seen


def courts_seen_decider(
    game: Game[Any], state: Any, seat: int, level: str, budget: Budget | None, seed: int
) -> Decision:
    """Side A's move: ``level``'s search in worlds with the opponent's true court count."""
    view = game.view(state, seat)
    opponent = 1 - seat
    hidden = view["phase"] == "play" and view["players"] == 2 and isinstance(view["hands"][opponent], int)
    true_courts = courts(state.hands[opponent]) if hidden and view["hands"][opponent] else None
    seeing: Any = CourtsSeenGame(game, true_courts, opponent)
    return decide(seeing, view, level=level, budget=budget, seed=seed, max_ms=arena.OFFLINE_MAX_MS)


def main(argv: list[str]) -> int:
    return arena.main(
        argv,
        decide_a=courts_seen_decider,
        a_note=" seeing the opponent's court count",
        prog="python bench/porrazo_courts_bound.py",
        description=__doc__.splitlines()[0],
    )


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
