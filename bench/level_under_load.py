"""Whether a level's search does all its iterations on a busy host.

    .venv/bin/python bench/level_under_load.py --load 8 --deals 2 --per-deal 10
    .venv/bin/python bench/level_under_load.py --load 0          # the same on a quiet host

It starts ``--load`` busy processes (spin loops at the bot's own priority), then, for each
game, at the decisions the normal bot searches in seeded easy-v-easy deals
(``bench.normal_budget.searched_positions``), runs the normal level with two budgets,
interleaved decision by decision so that both meet the same load:

* ``level``: the level's budget (``ai.bots.LEVEL_BUDGETS``: 2,000 iterations, a time cap
  counted in the searching thread's CPU time, which the other processes do not use up);
* ``session``: the level's budget within the bound of a session's bot turn on the
  interactive pool (``SESSION_BOT_MS`` of wall time, service/queues.py ``bot_turn_bound``),
  what a session's normal seat does (``level`` is bounded by the stateless API's
  ``BOT_MAX_MS``, 10 s); ``s-500ms``: the same within the former session bound, 500 ms;
* ``wall``: the former budget, 2,000 iterations or 200 ms of wall time, whichever first.

It prints, per game and budget, the searched decisions, the share that did at least 95 %
of their iterations, and the median iterations, wall ms and CPU ms of a decision. The load
processes end with the run (and with Ctrl-C). The target (issue: budgets that do not
depend on load): the level's budget does >= 95 % of its iterations on every decision at
load 8 on 2 cores.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script: bench/ is not installed

from ai.bots import LEVEL_BUDGETS, Budget, decide  # noqa: E402
from bench.normal_budget import searched_positions  # noqa: E402
from engine import GAME_IDS, get_game  # noqa: E402
from service.queues import bot_turn_bound  # noqa: E402
from service.settings import Settings  # noqa: E402

FORMER_SESSION_BOUND = 500.0
"""The bound of a session's bot turn until session 31 (``MAJLIS_SESSION_BOT_MS``'s old default)."""

WALL_BUDGET = Budget(iterations=2_000, ms=200.0)
"""The normal level's budget before it counted CPU time: 2,000 iterations or 200 ms."""


def spin(stop_at: float) -> None:
    """A busy process (the load), until ``stop_at`` on the monotonic clock."""
    x = 0
    while time.monotonic() < stop_at:
        x = (x * 31 + 7) % 1_000_003


def one_decision(
    game: Any, view: dict[str, Any], budget: Budget, max_ms: float, seed: int
) -> tuple[float, float, float]:
    """(share of the budget's iterations done, wall ms, CPU ms) of one normal decision
    bounded by ``max_ms`` of wall time."""
    wall0, cpu0 = time.perf_counter(), time.thread_time()
    decision = decide(game, view, level="normal", budget=budget, seed=seed, max_ms=max_ms)
    wall = (time.perf_counter() - wall0) * 1000.0
    cpu = (time.thread_time() - cpu0) * 1000.0
    wanted = budget.iterations or 1
    return decision.stats["iterations"] / wanted, wall, cpu


def measure(game_id: str, deals: int, per_deal: int) -> dict[str, list[tuple[float, float, float]]]:
    game = get_game(game_id)
    config = Settings().as_config()
    level = LEVEL_BUDGETS["normal"]
    budgets = {
        "level": (level, float(config["BOT_MAX_MS"])),
        "session": (level, bot_turn_bound("normal", config)),
        "s-500ms": (level, FORMER_SESSION_BOUND),
        "wall": (WALL_BUDGET, float(config["BOT_MAX_MS"])),
    }
    rows: dict[str, list[tuple[float, float, float]]] = {name: [] for name in budgets}
    for step_no, state, seat in searched_positions(game, deals, per_deal):
        view = game.view(state, seat)
        for name, (budget, max_ms) in budgets.items():
            rows[name].append(one_decision(game, view, budget, max_ms, step_no))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description="a level's iterations on a busy host")
    parser.add_argument("--games", nargs="*", default=list(GAME_IDS))
    parser.add_argument("--load", type=int, default=8, help="busy processes started beside the bot")
    parser.add_argument("--deals", type=int, default=2)
    parser.add_argument("--per-deal", type=int, default=10)
    parser.add_argument("--minutes", type=float, default=30.0, help="the load stops after this at the latest")
    args = parser.parse_args()
    stop_at = time.monotonic() + args.minutes * 60.0
    load = [multiprocessing.Process(target=spin, args=(stop_at,), daemon=True) for _ in range(args.load)]
    for process in load:
        process.start()
    try:
        time.sleep(1.0 if load else 0.0)
        print(f"load processes {args.load}, load average {os.getloadavg()[0]:.1f}, cores {os.cpu_count()}")
        print(
            f"{'game':10s} {'budget':7s} {'decisions':>9s} {'>=95% its':>9s} {'iters p50':>9s} "
            f"{'wall ms p50':>11s} {'cpu ms p50':>10s}"
        )
        for game_id in args.games:
            for name, rows in measure(game_id, args.deals, args.per_deal).items():
                if not rows:
                    continue
                full = sum(1 for share, _, _ in rows if share >= 0.95) / len(rows)
                its = statistics.median(share for share, _, _ in rows) * (WALL_BUDGET.iterations or 0)
                wall = statistics.median(w for _, w, _ in rows)
                cpu = statistics.median(c for _, _, c in rows)
                print(
                    f"{game_id:10s} {name:7s} {len(rows):9d} {full:9.1%} {its:9.0f} {wall:11.1f} {cpu:10.1f}"
                )
        print(f"load average at the end {os.getloadavg()[0]:.1f}")
    finally:
        for process in load:
            process.terminate()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
