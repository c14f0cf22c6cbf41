"""Screen (session 52): Porrazo's searching levels read a porrazo the opponent did not take.

    .venv/bin/python bench/porrazo_porrazo_reading.py --keep 0 --game porrazo --a normal \\
        --b normal --budget-iterations 500 --matches 400 --first 1900 --seed 5000 --duplicate --jobs 2

A porrazo (R15: capturing the card the other side has just played, with its rank) is worth
points on top of the capture, so a seat that could take one nearly always does. When a
card this seat played this deal is still on the table and the opponent's play right after
it was not a declined capture, the opponent most likely held no card of its rank then, so
holds none now (a hand only shrinks within a deal). Side A's search keeps a world whose
opponent hand holds such a rank only with probability ``--keep`` (rejection from the
game's sampler, at most 50 draws); side B plays as shipped. ``--probe`` instead plays as
shipped and counts, at side A's decisions where the reading says something, how often the
opponent's true hand and the rules' worlds break it. Every other option is the arena's.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from typing import Any

from ai import arena
from ai.bots import Budget, Decision, decide
from engine.cards import CODES
from engine.protocol import Game

keep = 0.0
"""A world that contradicts the reading is kept with this probability (set by ``main``)."""

MAX_TRIES = 50
probe = False
counts = {"positions": 0, "true_breaks": 0, "worlds": 0, "world_breaks": 0}


def forbidden_ranks(view: dict[str, Any]) -> tuple[int, set[int]] | None:
    """(the opponent, the ranks it most likely does not hold), from this deal's plays."""
    seat = view["seat"]
    opponent = 1 - seat
    plays_this_deal = sum(len(cards) for cards in view["played"])
    plays = [entry for entry in view["history"] if entry["action"].get("type") == "play"]
    deal = plays[len(plays) - plays_this_deal :] if plays_this_deal else []
    table = set(view["table"])
    ranks: set[int] = set()
    for mine, after in zip(deal, deal[1:], strict=False):
        if mine["seat"] != seat or after["seat"] != opponent:
            continue
        card = mine["action"]["card"]
        if card in table and after["action"].get("capture") is not False:
            ranks.add(CODES.index(card) >> 2)
    return (opponent, ranks) if ranks else None


def breaks(hand: Any, ranks: set[int]) -> bool:
    return any(c >> 2 in ranks for c in hand)


def reading_sampler(game: Game[Any], view: dict[str, Any]) -> Callable[[random.Random], Any]:
    sample = game.sampler(view)
    read = forbidden_ranks(view)
    if read is None:
        return sample
    opponent, ranks = read

    def world(rng: random.Random) -> Any:
        drawn = sample(rng)
        for _ in range(MAX_TRIES):
            if not breaks(drawn.hands[opponent], ranks) or rng.random() < keep:
                return drawn
            drawn = sample(rng)
        return drawn

    return world


class ReadingGame:
    def __init__(self, game: Game[Any]) -> None:
        self._game = game

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def sampler(self, view: dict[str, Any]) -> Callable[[random.Random], Any]:
        return reading_sampler(self._game, view)


def reading_decider(
    game: Game[Any], state: Any, seat: int, level: str, budget: Budget | None, seed: int
) -> Decision:
    view = game.view(state, seat)
    if probe:
        read = forbidden_ranks(view) if view["phase"] == "play" and game.players(state) == 2 else None
        if read is not None:
            opponent, ranks = read
            counts["positions"] += 1
            counts["true_breaks"] += breaks(state.hands[opponent], ranks)
            sample = game.sampler(view)
            rng = random.Random(seed)
            for _ in range(20):
                counts["worlds"] += 1
                counts["world_breaks"] += breaks(sample(rng).hands[opponent], ranks)
            print("probe", counts, file=sys.stderr, flush=True)
        return decide(game, view, level=level, budget=budget, seed=seed, max_ms=arena.OFFLINE_MAX_MS)
    reading: Any = ReadingGame(game)
    return decide(reading, view, level=level, budget=budget, seed=seed, max_ms=arena.OFFLINE_MAX_MS)


def main(argv: list[str]) -> int:
    """``--keep p`` sets the model's softness, ``--probe`` counts instead; the rest is the arena's."""
    global keep, probe
    if "--keep" in argv:
        at = argv.index("--keep")
        keep = float(argv[at + 1])
        argv = argv[:at] + argv[at + 2 :]
    if "--probe" in argv:
        probe = True
        argv = [a for a in argv if a != "--probe"]
    return arena.main(
        argv,
        decide_a=reading_decider,
        a_note=" (probe)" if probe else f" reading untaken porrazos (keep {keep})",
        prog="python bench/porrazo_porrazo_reading.py [--keep p] [--probe]",
        description=__doc__.splitlines()[0],
    )


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
