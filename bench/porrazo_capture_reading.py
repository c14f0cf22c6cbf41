"""Screen (session 51): Porrazo's searching levels read the opponent's last discard.

    .venv/bin/python bench/porrazo_capture_reading.py --keep 0.1 --game porrazo --a normal \\
        --b normal --budget-iterations 500 --matches 400 --first 600 --seed 5000 --duplicate --jobs 2

Series 8131 showed that seeing the opponent's three cards is worth most of a Porrazo match
(normal seeing them beat OpenSpiel's ISMCTS 0.867). This screen tries the simplest reading
of them: a seat that has just played a card that captured nothing (a discard, not a declined
capture) probably held no card that would have captured the table it played to, since a
capture is nearly always worth taking. Side A's search draws its worlds from the view as
the game's sampler does, and keeps a world where the opponent's hidden cards include one
that the engine's ``take_run`` says would have captured that table only with probability
``--keep`` (a soft model: the opponent may have had a reason); side B plays as shipped.
Every other option is the arena's.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from typing import Any

from ai import arena
from ai.bots import Budget, Decision, decide
from engine.cards import CODES
from engine.games.porrazo.rules import take_run
from engine.protocol import Game

keep = 0.1
"""A world that contradicts the reading is kept with this probability (set by ``main``)."""

MAX_TRIES = 50
"""Worlds drawn for one kept world at most; then the last drawn is used (the view's rules
hold in every world, so the search never lacks one)."""


def last_discard(view: dict[str, Any]) -> tuple[int, int, list[int]] | None:
    """(the opponent, its card, the table it played to) when the last action of the hand
    was another seat's play of a card now on the table, not a declined capture; else None."""
    history = view.get("history") or []
    if not history:
        return None
    last = history[-1]
    action = last["action"]
    if last["seat"] == view["seat"] or action.get("type") != "play" or action.get("capture") is False:
        return None
    card = CODES.index(action["card"])
    table = [CODES.index(code) for code in view["table"]]
    if card not in table:
        return None  # it captured
    table.remove(card)
    return last["seat"], card, table


def reading_sampler(game: Game[Any], view: dict[str, Any]) -> Callable[[random.Random], Any]:
    """The game's sampler, its worlds kept by the reading of the last discard."""
    sample = game.sampler(view)
    read = last_discard(view)
    if read is None:
        return sample
    opponent, _card, table = read
    could_capture = {rank for rank in range(13) if take_run(table[:], rank)}

    def world(rng: random.Random) -> Any:
        drawn = sample(rng)
        for _ in range(MAX_TRIES):
            if not any(c >> 2 in could_capture for c in drawn.hands[opponent]) or rng.random() < keep:
                return drawn
            drawn = sample(rng)
        return drawn

    return world


class ReadingGame:
    """``game`` unchanged but for its sampler (``reading_sampler``)."""

    def __init__(self, game: Game[Any]) -> None:
        self._game = game

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def sampler(self, view: dict[str, Any]) -> Callable[[random.Random], Any]:
        return reading_sampler(self._game, view)


def reading_decider(
    game: Game[Any], state: Any, seat: int, level: str, budget: Budget | None, seed: int
) -> Decision:
    """Side A's move: ``level``'s own search in worlds kept by the reading."""
    reading: Any = ReadingGame(game)
    return decide(
        reading, game.view(state, seat), level=level, budget=budget, seed=seed, max_ms=arena.OFFLINE_MAX_MS
    )


def main(argv: list[str]) -> int:
    """``--keep p`` sets the model's softness; every other option is the arena's."""
    global keep
    if "--keep" in argv:
        at = argv.index("--keep")
        keep = float(argv[at + 1])
        argv = argv[:at] + argv[at + 2 :]
    return arena.main(
        argv,
        decide_a=reading_decider,
        a_note=f" reading discards (keep {keep})",
        prog="python bench/porrazo_capture_reading.py [--keep p]",
        description=__doc__.splitlines()[0],
    )


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
