"""What the normal level's time budget buys: ISMCTS iterations per searched decision, per game.

    .venv/bin/python bench/normal_budget.py                          # every game, 200 ms
    .venv/bin/python bench/normal_budget.py --games trex marriage --deals 4 --ms 200

The arena's normal runs use an *iteration* budget (reproducible on a shared machine); this
script tells which iteration budget matches the level's 200 ms on this machine. It plays
seeded deals with the easy policy at every seat, and at each decision the normal bot would
search (more than one legal action and more than one root candidate) it runs the normal
level's search with a time budget only (``Budget(ms=...)``, the level's playout hook and
root candidates), then goes on with the easy move. It prints, per game, the median and the
10th/90th percentiles of the iterations done, and iterations per CPU second (less sensitive
to other processes than the wall clock). Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from typing import Any

from ai import policies
from ai.bots import Budget, decide
from engine import GAME_IDS, get_game
from engine.protocol import Game


def searched_decisions(
    game: Game[Any], deals: int, per_deal: int, ms: float
) -> list[tuple[int, float, float]]:
    """(iterations, wall ms, CPU ms) of up to ``per_deal`` searched decisions in each of
    ``deals`` seeded easy-v-easy deals, spread evenly over the deal."""
    samples: list[tuple[int, float, float]] = []
    players = min(game.player_counts)
    for deal in range(deals):
        state = game.new_state(players, game.parse_options({}, players), 0, seed=deal)
        rng = random.Random(deal)
        searchable = []
        start = game.clone(state)
        # first pass: find the searched decisions of the deal (steps taken by easy seats)
        for step_no in range(10_000):
            seat = game.to_act(state)
            if seat is None or game.is_playout_over(start, state):
                break
            actions = game.legal_actions(state)
            if not actions:
                break
            candidates = policies.search_candidates(game, state, seat)
            if len(actions) > 1 and (candidates is None or len(candidates) > 1):
                searchable.append(step_no)
            game.step(state, policies.choose(game, state, seat, rng))
        every = max(1, len(searchable) // per_deal)
        chosen = set(searchable[::every][:per_deal])
        # second pass: replay the same deal and search at the chosen steps
        state = game.new_state(players, game.parse_options({}, players), 0, seed=deal)
        rng = random.Random(deal)
        for step_no in range(max(chosen, default=-1) + 1):
            seat = game.to_act(state)
            assert seat is not None
            if step_no in chosen:
                wall0, cpu0 = time.perf_counter(), time.process_time()
                decision = decide(
                    game, game.view(state, seat), level="normal", budget=Budget(ms=ms), seed=step_no
                )
                wall = (time.perf_counter() - wall0) * 1000.0
                cpu = (time.process_time() - cpu0) * 1000.0
                samples.append((decision.stats["iterations"], wall, cpu))
            game.step(state, policies.choose(game, state, seat, rng))
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description="ISMCTS iterations the normal level's time budget buys")
    parser.add_argument("--games", nargs="*", default=list(GAME_IDS))
    parser.add_argument("--deals", type=int, default=3)
    parser.add_argument("--per-deal", type=int, default=10, help="searched decisions timed per deal")
    parser.add_argument("--ms", type=float, default=200.0)
    args = parser.parse_args()
    print(f"time budget {args.ms:g} ms per decision; {args.deals} deals x up to {args.per_deal} decisions")
    print(f"{'game':10s} {'decisions':>9s} {'median it':>10s} {'p10':>7s} {'p90':>7s} {'it/CPU s':>9s}")
    for game_id in args.games:
        game = get_game(game_id)
        samples = searched_decisions(game, args.deals, args.per_deal, args.ms)
        if not samples:
            print(f"{game_id:10s} no searched decisions", file=sys.stderr)
            continue
        iterations = sorted(s[0] for s in samples)
        deciles = (
            statistics.quantiles(iterations, n=10, method="inclusive")
            if len(iterations) > 1
            else iterations * 9
        )
        rate = sum(iterations) / (sum(s[2] for s in samples) / 1000.0)
        print(
            f"{game_id:10s} {len(samples):9d} {statistics.median(iterations):10.0f} "
            f"{deciles[0]:7.0f} {deciles[-1]:7.0f} {rate:9.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
