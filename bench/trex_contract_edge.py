"""Session 56's probe: where Trex's hard level gains on normal, contract by contract.

    .venv/bin/python bench/trex_contract_edge.py --deals 24 --jobs 2

Each deal (``new_state(4, seed=561000 + i)``, its first owner made to choose the contract)
is played four times for each trick contract (king of hearts, queens, diamonds,
collections), the hard level in each seat in turn and the normal level in the other three,
each at its default budget; the hard level searches the doubles, normal takes them from the
easy policy, as in the arena. Printed per contract: hard's pairwise share against the
three normal seats and its points over their mean, with 95 % intervals over the deals.
(The Trex contract itself: ``bench/trex_layout_hook.py``'s side B.)
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from ai.bots import decide
from engine import get_game
from engine.games.trex.rules import step
from engine.games.trex.tables import (
    CHOOSE_BASE,
    COLLECTIONS,
    CONTRACT_NAMES,
    DIAMONDS,
    KING_OF_HEARTS,
    QUEENS,
)

CONTRACTS = (KING_OF_HEARTS, QUEENS, DIAMONDS, COLLECTIONS)


def play_deal(args: tuple[int, int, int]) -> tuple[int, int, int, list[int], float]:
    """Deal ``i`` in ``contract`` with the hard level in ``seat``: the four seats' points."""
    i, contract, seat = args
    game = get_game("trex")
    state = game.new_state(4, None, 0, seed=561000 + i)
    step(state, CHOOSE_BASE + contract)
    before = list(state.match_scores)
    deal_no = state.deal_no
    started = time.process_time()
    k = 0
    while state.deal_no == deal_no and game.to_act(state) is not None:
        actor = game.to_act(state)
        level = "hard" if actor == seat else "normal"
        game.step(state, decide(game, game.view(state, actor), level=level, seed=1000 * i + k).action)
        k += 1
    points = [a - b for a, b in zip(state.match_scores, before, strict=True)]
    return i, contract, seat, points, time.process_time() - started


def mean_ci(xs: list[float]) -> str:
    m = statistics.fmean(xs)
    half = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs))
    return f"{m:+.3f} [{m - half:+.3f}, {m + half:+.3f}]"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=24)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    deals = range(args.first, args.first + args.deals)
    tasks = [(i, c, seat) for c in CONTRACTS for i in deals for seat in range(4)]
    results: dict[tuple[int, int, int], list[int]] = {}
    cpu = 0.0
    started = time.time()
    with ProcessPoolExecutor(args.jobs) as pool:
        for n, (i, c, seat, points, seconds) in enumerate(pool.map(play_deal, tasks), 1):
            results[(i, c, seat)] = points
            cpu += seconds
            print(
                f"\r{n} of {len(tasks)} plays, {time.time() - started:.0f} s",
                end="",
                file=sys.stderr,
                flush=True,
            )
    print(file=sys.stderr)
    print(f"trex deals {deals.start}-{deals.stop - 1} (new_state seeds 561000+i), hard in each seat v normal")
    for c in CONTRACTS:
        pairwise, margin = [], []
        for i in deals:
            rows = [(results[(i, c, s)], s) for s in range(4)]
            pairwise.append(
                statistics.fmean(
                    sum(1.0 if p[s] > q else 0.5 if p[s] == q else 0.0 for j, q in enumerate(p) if j != s) / 3
                    for p, s in rows
                )
            )
            margin.append(
                statistics.fmean(p[s] - sum(q for j, q in enumerate(p) if j != s) / 3 for p, s in rows)
            )
        print(f"  {CONTRACT_NAMES[c]}: pairwise {mean_ci(pairwise)}, points over normal {mean_ci(margin)}")
    print(f"  {cpu:.0f} s of CPU, {time.time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
