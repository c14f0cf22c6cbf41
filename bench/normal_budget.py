"""What the normal level's time budget buys: ISMCTS iterations per searched decision, per game.

    .venv/bin/python bench/normal_budget.py                          # every game, 200 ms
    .venv/bin/python bench/normal_budget.py --games trex marriage --deals 4 --ms 200
    .venv/bin/python bench/normal_budget.py --agreement --deals 10 --per-deal 10   # normal v hard

The arena's normal runs use an *iteration* budget (reproducible on a shared machine); this
script tells which iteration budget matches the level's 200 ms on this machine. It plays
seeded deals with the easy policy at every seat, and at each decision the normal bot would
search (more than one legal action and more than one root candidate) it runs the normal
level's search with a time budget only (``Budget(ms=...)``, the level's playout hook and
root candidates), then goes on with the easy move. It prints, per game, the median and the
10th/90th percentiles of the iterations done, and iterations per CPU second (less sensitive
to other processes than the wall clock). Run it on a quiet machine.

``--agreement`` instead runs the normal and the hard level with their iteration budgets at
the same positions and seeds and prints how often they choose the same action and, where
they differ, how much better the hard search values its own choice than normal's: a hard
level that agrees with normal almost always cannot beat it by much in the arena.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Iterator
from typing import Any

from ai import policies
from ai.bots import LEVEL_BUDGETS, Budget, decide
from engine import GAME_IDS, get_game
from engine.protocol import Game


def searched_positions(game: Game[Any], deals: int, per_deal: int) -> Iterator[tuple[int, Any, int]]:
    """(step number, state, seat to act) at up to ``per_deal`` decisions the normal bot
    would search (more than one legal action and more than one root candidate) in each of
    ``deals`` seeded easy-v-easy deals, spread evenly over the deal. The state is the live
    one: use it before the next item is asked for."""
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
        # second pass: replay the same deal and stop at the chosen steps
        state = game.new_state(players, game.parse_options({}, players), 0, seed=deal)
        rng = random.Random(deal)
        for step_no in range(max(chosen, default=-1) + 1):
            seat = game.to_act(state)
            assert seat is not None
            if step_no in chosen:
                yield step_no, state, seat
            game.step(state, policies.choose(game, state, seat, rng))


def searched_decisions(
    game: Game[Any], deals: int, per_deal: int, ms: float
) -> list[tuple[int, float, float]]:
    """(iterations, wall ms, CPU ms) of the normal level's search with a time budget only,
    at :func:`searched_positions`."""
    samples: list[tuple[int, float, float]] = []
    for step_no, state, seat in searched_positions(game, deals, per_deal):
        wall0, cpu0 = time.perf_counter(), time.process_time()
        decision = decide(game, game.view(state, seat), level="normal", budget=Budget(ms=ms), seed=step_no)
        wall = (time.perf_counter() - wall0) * 1000.0
        cpu = (time.process_time() - cpu0) * 1000.0
        samples.append((decision.stats["iterations"], wall, cpu))
    return samples


def level_agreement(game: Game[Any], deals: int, per_deal: int) -> list[tuple[bool, float]]:
    """At :func:`searched_positions`, the normal and the hard level's decisions with their
    iteration budgets (no time limit) and the same seed: (same action?, the hard search's
    mean reward of its own choice minus that of normal's choice: what hard thinks normal's
    choice gives up, 0 when they agree)."""
    normal_budget = Budget(iterations=LEVEL_BUDGETS["normal"].iterations)
    hard_budget = Budget(iterations=LEVEL_BUDGETS["hard"].iterations)
    out: list[tuple[bool, float]] = []
    for step_no, state, seat in searched_positions(game, deals, per_deal):
        view = game.view(state, seat)
        normal = decide(game, view, level="normal", budget=normal_budget, seed=step_no)
        hard = decide(game, view, level="hard", budget=hard_budget, seed=step_no)
        if normal.action == hard.action:
            out.append((True, 0.0))
            continue
        means = {json.dumps(a["action"], sort_keys=True): a["mean"] for a in hard.stats["actions"]}
        hard_mean = means.get(json.dumps(game.action_to_json(state, hard.action), sort_keys=True))
        normal_mean = means.get(json.dumps(game.action_to_json(state, normal.action), sort_keys=True))
        if hard_mean is None or normal_mean is None:  # an action the hard search never visited
            out.append((False, 0.0))
        else:
            out.append((False, hard_mean - normal_mean))
    return out


def print_agreement(games: list[str], deals: int, per_deal: int) -> None:
    print(
        f"normal ({LEVEL_BUDGETS['normal'].iterations} iterations) v hard "
        f"({LEVEL_BUDGETS['hard'].iterations}) at the same positions and seeds; "
        f"{deals} deals x up to {per_deal}"
    )
    print(f"{'game':10s} {'decisions':>9s} {'same':>6s} {'mean gap where they differ':>27s}")
    for game_id in games:
        rows = level_agreement(get_game(game_id), deals, per_deal)
        if not rows:
            print(f"{game_id:10s} no searched decisions", file=sys.stderr)
            continue
        gaps = [gap for same, gap in rows if not same]
        same_share = sum(1 for same, _ in rows if same) / len(rows)
        gap_text = f"{statistics.mean(gaps):.4f}" if gaps else "-"
        print(f"{game_id:10s} {len(rows):9d} {same_share:6.1%} {gap_text:>27s}")


def main() -> int:
    parser = argparse.ArgumentParser(description="ISMCTS iterations the normal level's time budget buys")
    parser.add_argument("--games", nargs="*", default=list(GAME_IDS))
    parser.add_argument("--deals", type=int, default=3)
    parser.add_argument("--per-deal", type=int, default=10, help="searched decisions timed per deal")
    parser.add_argument("--ms", type=float, default=200.0)
    parser.add_argument(
        "--agreement",
        action="store_true",
        help="compare the normal and the hard level's decisions at the same positions instead",
    )
    args = parser.parse_args()
    if args.agreement:
        print_agreement(args.games, args.deals, args.per_deal)
        return 0
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
