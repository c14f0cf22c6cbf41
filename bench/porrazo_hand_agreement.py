"""Screen (session 52): which of two Porrazo searches agrees more often with one that sees the other hand.

    .venv/bin/python bench/porrazo_hand_agreement.py --seed 1 --matches 8

A match between two searches measures a model of the opponent's hand through a lot of
noise (400 normal-v-normal matches give an interval of about +-0.035). This asks the
question position by position: from positions of normal-v-normal play (``--matches``
matches at 500 iterations, dealt from ``--seed``), at each play decision where the
opponent is silent (it declared nothing) and the seat to act has more than one card, it
runs the shipped normal search and normal reading silent seats
(``bench/porrazo_silent_reading.py``), each at 500 iterations with ``--repeats`` seeds, and
normal seeing the other hand (``bench/clairvoyant_bound.py --sees hands``) at
``--oracle-iterations``. Where the two differ, the count of decisions in which the
seeing search sides with each is a sign test, and the seeing search's mean reward of each
move (its root statistics) says by how much: a model that reads the hand better should
side with it more often, and choose moves the seeing search values more. Nothing here
plays a match; it is a screen, not a strength claim.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script: bench/ is not installed

from ai.arena import OFFLINE_MAX_MS  # noqa: E402
from ai.bots import Budget, decide  # noqa: E402
from bench.clairvoyant_bound import HandSeeingGame  # noqa: E402
from bench.porrazo_silent_reading import SilentGame  # noqa: E402
from engine import get_game  # noqa: E402

SEARCH = Budget(iterations=500)


def positions(game: Any, seed: int, matches: int) -> list[tuple[Any, int]]:
    """(state, seat) at every play decision of normal-v-normal matches where the
    opponent is silent and the seat to act holds more than one card."""
    rng = random.Random(seed)
    found: list[tuple[Any, int]] = []
    for match in range(matches):
        state = game.new_state(2, game.parse_options({}, 2), match % 2, seed=rng.randrange(10**9))
        while (seat := game.to_act(state)) is not None:
            view = game.view(state, seat)
            opponent = 1 - seat
            if (
                view["phase"] == "play"
                and view["declarations"][opponent] is None
                and len(state.dealt[opponent]) == 3
                and len(view["hands"][seat]) > 1
            ):
                found.append((game.clone(state), seat))
            move = decide(
                game, view, level="normal", budget=SEARCH, seed=rng.randrange(10**9), max_ms=OFFLINE_MAX_MS
            )
            game.step(state, move.action)
    return found


def sign_interval(wins: int, losses: int) -> tuple[float, float, float]:
    """The share of ``wins`` among the decided pairs, with a normal 95 % interval."""
    n = wins + losses
    if not n:
        return 0.5, 0.0, 1.0
    p = wins / n
    half = 1.96 * math.sqrt(p * (1 - p) / n)
    return p, p - half, p + half


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python bench/porrazo_hand_agreement.py", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--seed", type=int, default=1, help="deals the positions' matches")
    parser.add_argument(
        "--matches", type=int, default=8, help="normal-v-normal matches to take positions from"
    )
    parser.add_argument(
        "--repeats", type=int, default=3, help="seeds of each 500-iteration search a position"
    )
    parser.add_argument(
        "--oracle-iterations", type=int, default=4000, help="the hand-seeing search's iterations"
    )
    args = parser.parse_args(argv)
    game = get_game("porrazo")
    found = positions(game, args.seed, args.matches)
    oracle_budget = Budget(iterations=args.oracle_iterations)
    agree = {"shipped": 0, "silent": 0}
    sides = {"shipped": 0, "silent": 0}  # where the two differ: which one the seeing search took
    decisions = differ = 0
    gains: list[float] = []  # where the two differ: the seeing search's mean of silent's move minus shipped's
    for state, seat in found:
        view = game.view(state, seat)
        seeing: Any = HandSeeingGame(game, state)
        seen = decide(seeing, view, level="normal", budget=oracle_budget, seed=7, max_ms=OFFLINE_MAX_MS)
        oracle = seen.action
        worth = {
            json.dumps(entry["action"], sort_keys=True): entry["mean"] for entry in seen.stats["actions"]
        }
        for seed in range(args.repeats):
            shipped = decide(
                game, view, level="normal", budget=SEARCH, seed=seed, max_ms=OFFLINE_MAX_MS
            ).action
            reading: Any = SilentGame(game)
            silent = decide(
                reading, view, level="normal", budget=SEARCH, seed=seed, max_ms=OFFLINE_MAX_MS
            ).action
            decisions += 1
            agree["shipped"] += shipped == oracle
            agree["silent"] += silent == oracle
            if shipped != silent:
                differ += 1
                sides["shipped"] += shipped == oracle
                sides["silent"] += silent == oracle
                gains.append(worth[key(game, state, silent)] - worth[key(game, state, shipped)])
    share, low, high = sign_interval(sides["silent"], sides["shipped"])
    print(f"positions {len(found)}, decisions {decisions}")
    print(f"agree with the hand-seeing search: shipped {agree['shipped']}, silent reading {agree['silent']}")
    print(
        f"the two differ in {differ}; the seeing search sides with the silent reading in {sides['silent']}, "
        f"with shipped in {sides['shipped']}: share {share:.3f} [{low:.3f}, {high:.3f}]"
    )
    if len(gains) > 1:
        mean = statistics.fmean(gains)
        half = 1.96 * statistics.stdev(gains) / math.sqrt(len(gains))
        print(
            "the seeing search's mean reward of the silent reading's move minus shipped's, where "
            f"they differ: {mean:+.4f} [{mean - half:+.4f}, {mean + half:+.4f}]"
        )
    return 0


def key(game: Any, state: Any, action: Any) -> str:
    """An action as the search's statistics name it (JSON), as a dict key."""
    return json.dumps(game.action_to_json(state, action), sort_keys=True)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
