"""OpenSpiel's ISMCTS on the Majlis games (engine/openspiel.py): simulations per CPU second,
with the adapter's memo and without it, in one run.

    .venv/bin/python bench/openspiel_adapter.py                     # every game, 3 runs
    .venv/bin/python bench/openspiel_adapter.py --games trex --runs 5 --iterations 500

What is timed: ``ai.openspiel_bot.decide`` (OpenSpiel's Python ``ISMCTSBot``, one random
rollout a simulation, a fresh world from the seat's view every simulation: the arena's
``openspiel-ismcts`` level) at ``--positions`` decisions of each game, the smallest table,
taken from seeded easy-v-easy deals (every decision with several legal actions after the
first few). Each run times every position twice, once with each setting of
``engine.openspiel.keep_memos``, in alternating order, so both sides of the ratio meet the
same load; CPU time (``time.process_time``) is the measure. The two must choose the same
actions (the memo keeps answers, it does not change them): the bench stops if they do not.
It prints each side's simulations per CPU second (median of the runs) and the median of the
per-run ratios.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import time
from typing import Any

import engine.openspiel  # needs open-spiel: pip install -e '.[openspiel]'
from ai import build_info, openspiel_bot
from ai.bots import Budget, decide
from engine import GAME_IDS, get_game
from engine.protocol import Game


def positions(game: Game[Any], count: int, skip: int = 4) -> list[dict[str, Any]]:
    """``count`` views of decisions with several legal actions, the first ``skip`` of each
    seeded easy-v-easy deal left out."""
    views: list[dict[str, Any]] = []
    for seed in range(1000):
        state = game.new_state(min(game.player_counts), None, 0, seed=seed)
        several = 0
        for step in range(2000):
            seat = game.to_act(state)
            if seat is None or not game.legal_actions(state):
                break
            view = game.view(state, seat)
            if len(game.legal_actions(state)) > 1:
                several += 1
                if several > skip:
                    views.append(view)
                    if len(views) == count:
                        return views
            game.step(state, decide(game, view, level="easy", seed=step).action)
    return views


def timed(
    game: Game[Any], views: list[dict[str, Any]], iterations: int, keep: bool
) -> tuple[float, list[Any]]:
    """CPU seconds of one search from each view, and the actions chosen."""
    engine.openspiel.keep_memos(keep)
    try:
        cpu = 0.0
        actions = []
        for i, view in enumerate(views):
            gc.collect()
            start = time.process_time()
            decision = openspiel_bot.decide(game, view, budget=Budget(iterations=iterations), seed=i)
            cpu += time.process_time() - start
            actions.append(decision.action)
        return cpu, actions
    finally:
        engine.openspiel.keep_memos(True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="*", default=list(GAME_IDS))
    parser.add_argument("--iterations", type=int, default=500)
    parser.add_argument("--positions", type=int, default=4)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"build: {build_info.loaded_mode()}; load {os.getloadavg()[0]:.1f}")
    for game_id in args.games:
        game = get_game(game_id)
        views = positions(game, args.positions)
        sims = args.iterations * len(views)
        rates: dict[bool, list[float]] = {True: [], False: []}
        ratios = []
        for run in range(args.runs):
            order = (True, False) if run % 2 == 0 else (False, True)
            cpu: dict[bool, float] = {}
            chosen: dict[bool, list[Any]] = {}
            for keep in order:
                cpu[keep], chosen[keep] = timed(game, views, args.iterations, keep)
                rates[keep].append(sims / cpu[keep])
            if chosen[True] != chosen[False]:
                print(f"{game_id}: the memo changed a choice: {chosen[True]} against {chosen[False]}")
                return 1
            ratios.append(cpu[False] / cpu[True])
        print(
            f"{game_id:9s} {len(views)} positions x {args.iterations} simulations: "
            f"with the memo {statistics.median(rates[True]):7.0f} sims/CPU-s, "
            f"without {statistics.median(rates[False]):7.0f}; "
            f"ratio {statistics.median(ratios):.2f}x (runs {', '.join(f'{r:.2f}' for r in ratios)})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
