"""Screen (session 53): Porrazo's searching levels read that an opponent keeps its court cards.

    .venv/bin/python bench/porrazo_kept_courts.py --game porrazo --a normal --b normal \\
        --budget-iterations 500 --matches 400 --first 2700 --seed 5000 --duplicate --jobs 2

A discard of a king, queen or jack risks a porrazo worth v(r) = 4, 3 or 2 (a counter-porrazo
three times that), so a seat that has played a card of this deal has more often kept its
court cards. A probe (normal v normal at 500 iterations, `new_state` seeds 700000-700011,
seat 0's play decisions once the opponent has played a card of the deal) found the
opponent's last card a court card in 0.286 of 192 positions, where the rules' worlds give
0.199; its two cards held 0.484 court cards against 0.433; its low cards (A-4) matched the
worlds. Side A's search keeps a world of the rules with probability ``LAMBDA ** (c - k)``,
``c`` the court cards among the ``k`` the opponent still holds (rejection from the game's
sampler, at most ``TRIES`` draws), once the opponent has played a card of the deal; side B
plays as shipped.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from typing import Any

from ai import arena
from ai.bots import Budget, Decision, decide
from engine.protocol import Game

LAMBDA = 1.5
"""The likelihood ratio of a kept court card (the probe's 0.286 / 0.199 is about 1.44)."""
TRIES = 20
COURT_RANK = 10
"""Card codes are rank * 4 + suit, ranks from the ace (0): J, Q and K are 10-12."""


def courts_sampler(game: Game[Any], view: dict[str, Any]) -> Callable[[random.Random], Any]:
    """The game's sampler, its worlds kept by how many court cards the opponent still holds."""
    sample: Any = game.sampler(view)
    seat = view["seat"]
    if view["phase"] != "play" or view["players"] != 2:
        return sample
    opponent = 1 - seat
    held = view["hands"][opponent]
    if not isinstance(held, int) or held == 0 or not view["played"][opponent]:
        return sample

    def weighted(rng: random.Random) -> Any:
        world = sample(rng)
        for _ in range(TRIES):
            courts = sum(1 for card in world.hands[opponent] if card // 4 >= COURT_RANK)
            if rng.random() < LAMBDA ** (courts - held):
                return world
            world = sample(rng)
        return world

    return weighted


class CourtsGame:
    """``game`` unchanged but for its sampler (``courts_sampler``)."""

    def __init__(self, game: Game[Any]) -> None:
        self._game = game

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def sampler(self, view: dict[str, Any]) -> Callable[[random.Random], Any]:
        return courts_sampler(self._game, view)


def courts_decider(
    game: Game[Any], state: Any, seat: int, level: str, budget: Budget | None, seed: int
) -> Decision:
    """Side A's move: ``level``'s own search in worlds where the opponent kept its courts."""
    reading: Any = CourtsGame(game)
    return decide(
        reading, game.view(state, seat), level=level, budget=budget, seed=seed, max_ms=arena.OFFLINE_MAX_MS
    )


def main(argv: list[str]) -> int:
    return arena.main(
        argv,
        decide_a=courts_decider,
        a_note=" reading kept courts",
        prog="python bench/porrazo_kept_courts.py",
        description=__doc__.splitlines()[0],
    )


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
