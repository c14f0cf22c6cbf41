"""What a level's playout policy costs: ISMCTS iterations per CPU second with each level's
playout (``ai.policies.playout_policy(game, level)``), the levels interleaved run by run.

    .venv/bin/python bench/playout_cost.py --game trex --levels normal hard --runs 5

Each run searches ``--positions`` seeded positions (a decision with a choice, some steps
into a deal dealt by ``new_state`` seed = position) with ``--iterations`` each, once per
level, the levels in turn, each search after an untimed garbage collection. Prints each
level's median iterations per CPU second (``time.process_time``) and the median of the
per-run ratios to the first level, with the load average before and after.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import sys
import time
from typing import Any

from ai import build_info, ismcts, policies
from engine import get_game


def position(game: Any, seed: int, steps: int) -> dict[str, Any]:
    """The view of the seat to act at the first decision with a choice after ``steps``
    random steps of a deal dealt from ``seed``."""
    players = min(game.player_counts)
    state = game.new_state(players, game.parse_options({}, players), seed % players, seed=seed)
    rng = random.Random(seed)
    for step in range(10_000):
        actions = game.legal_actions(state)
        if step >= steps and len(actions) > 1:
            break
        game.step(state, actions[int(rng.random() * len(actions))])
    return game.view(state, game.to_act(state))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="trex")
    parser.add_argument("--levels", nargs="+", default=["normal", "hard"])
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--positions", type=int, default=4)
    parser.add_argument("--steps", type=int, default=12, help="random steps into the deal first")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    game = get_game(args.game)
    views = [position(game, seed, args.steps) for seed in range(args.positions)]
    load_before = os.getloadavg()
    rates: dict[str, list[float]] = {level: [] for level in args.levels}
    for run in range(args.runs):
        for level in args.levels:
            playout = policies.playout_policy(game, level)
            done, cpu = 0, 0.0
            for i, view in enumerate(views):
                gc.collect()
                c0 = time.process_time()
                result = ismcts.search(
                    game, view, random.Random(run * 1000 + i), iterations=args.iterations, playout=playout
                )
                cpu += time.process_time() - c0
                done += result.iterations
            rates[level].append(done / cpu)
    first = args.levels[0]
    print(
        f"{args.game}, {build_info.loaded_mode()} build, {args.positions} positions x "
        f"{args.iterations} iterations, {args.runs} runs; "
        f"load {load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after"
    )
    for level in args.levels:
        ratio = statistics.median(r / f for r, f in zip(rates[level], rates[first], strict=True))
        print(f"  {level:8} {statistics.median(rates[level]):10,.0f} it/CPU s   x{ratio:.2f} of {first}'s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
