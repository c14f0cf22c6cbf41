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

``--agreement`` instead runs two bots at the same positions and seeds (``--a``, ``--b``:
by default the normal and the hard level, each with its iteration budget; ``--iterations``
gives both the same, as it must for OpenSpiel's ISMCTS) and prints how often they choose
the same action and, where they differ, how much better ``b``'s search values its own
choice than ``a``'s: a hard level that agrees with normal almost always cannot beat it by
much in the arena.

    .venv/bin/python bench/normal_budget.py --agreement --a normal --b openspiel-ismcts --iterations 500

``--a-iterations`` / ``--b-iterations`` give one side its own budget, and ``--b-seed-offset``
seeds ``b`` apart from ``a``: the same level at two budgets says whether a longer search
would change its choices, and at one budget with two seeds how often its own noise does.

    .venv/bin/python bench/normal_budget.py --agreement --games trex --a hard --b hard --b-iterations 40000
    .venv/bin/python bench/normal_budget.py --agreement --games trex --a hard --b hard --b-seed-offset 1000
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
from ai.arena import OPENSPIEL_LEVEL, bot_decide
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


def side_budget(level: str, iterations: int | None) -> Budget:
    """``iterations`` if given, else the level's own iteration budget (no time limit)."""
    if iterations is None:
        if level not in LEVEL_BUDGETS:
            raise SystemExit(f"{level} has no budget of its own: give --iterations")
        iterations = LEVEL_BUDGETS[level].iterations
    return Budget(iterations=iterations)


def side_budgets(
    a: str, b: str, iterations: int | None, a_iterations: int | None, b_iterations: int | None
) -> tuple[Budget, Budget]:
    """Each side's budget: its own ``*_iterations`` if given, else the shared ``iterations``,
    else its level's (:func:`side_budget`)."""
    return (
        side_budget(a, a_iterations if a_iterations is not None else iterations),
        side_budget(b, b_iterations if b_iterations is not None else iterations),
    )


def level_agreement(
    game: Game[Any],
    deals: int,
    per_deal: int,
    a: str = "normal",
    b: str = "hard",
    iterations: int | None = None,
    a_iterations: int | None = None,
    b_iterations: int | None = None,
    b_seed_offset: int = 0,
) -> list[tuple[bool, float | None]]:
    """At :func:`searched_positions`, the decisions of bots ``a`` and ``b`` (levels, or
    OpenSpiel's ISMCTS) with iteration budgets (no time limit; a side's own
    ``*_iterations`` before the shared ``iterations``) and the same seed, unless
    ``b_seed_offset`` moves ``b``'s: (same
    action?, ``b``'s search's mean reward of its own choice minus that of ``a``'s choice:
    what ``b`` thinks ``a``'s choice gives up; 0 when they agree, None where ``b``'s search
    does not say: OpenSpiel's, or an action it never visited)."""
    a_budget, b_budget = side_budgets(a, b, iterations, a_iterations, b_iterations)
    out: list[tuple[bool, float | None]] = []
    for step_no, state, seat in searched_positions(game, deals, per_deal):
        view = game.view(state, seat)
        a_move = bot_decide(game, view, a, a_budget, step_no)
        b_move = bot_decide(game, view, b, b_budget, step_no + b_seed_offset)
        if a_move.action == b_move.action:
            out.append((True, 0.0))
            continue
        means = {json.dumps(x["action"], sort_keys=True): x["mean"] for x in b_move.stats.get("actions", [])}
        b_mean, a_mean = (
            means.get(json.dumps(game.action_to_json(state, move.action), sort_keys=True))
            for move in (b_move, a_move)
        )
        out.append((False, None if b_mean is None or a_mean is None else b_mean - a_mean))
    return out


def print_agreement(
    games: list[str],
    deals: int,
    per_deal: int,
    a: str,
    b: str,
    iterations: int | None,
    a_iterations: int | None = None,
    b_iterations: int | None = None,
    b_seed_offset: int = 0,
) -> None:
    a_budget, b_budget = side_budgets(a, b, iterations, a_iterations, b_iterations)
    seeds = f"b's seeds {b_seed_offset} above a's" if b_seed_offset else "the same seeds"
    print(
        f"{a} ({a_budget.iterations} iterations) v {b} ({b_budget.iterations}) at the same "
        f"positions, {seeds}; {deals} deals x up to {per_deal}"
    )
    print(f"{'game':10s} {'decisions':>9s} {'same':>6s} {'mean gap where they differ':>27s}")
    for game_id in games:
        rows = level_agreement(
            get_game(game_id), deals, per_deal, a, b, iterations, a_iterations, b_iterations, b_seed_offset
        )
        if not rows:
            print(f"{game_id:10s} no searched decisions", file=sys.stderr)
            continue
        gaps = [gap for same, gap in rows if not same and gap is not None]
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
        help="compare two bots' decisions at the same positions instead (--a, --b)",
    )
    parser.add_argument("--a", default="normal", help="--agreement: the first bot's level")
    parser.add_argument(
        "--b", default="hard", help=f"--agreement: the second's (a level or {OPENSPIEL_LEVEL})"
    )
    parser.add_argument(
        "--iterations", type=int, help="--agreement: both bots' iterations (default: each level's)"
    )
    parser.add_argument("--a-iterations", type=int, help="--agreement: the first bot's own iterations")
    parser.add_argument("--b-iterations", type=int, help="--agreement: the second bot's own iterations")
    parser.add_argument("--b-seed-offset", type=int, default=0, help="--agreement: seed the second bot apart")
    args = parser.parse_args()
    if args.agreement:
        print_agreement(
            args.games,
            args.deals,
            args.per_deal,
            args.a,
            args.b,
            args.iterations,
            args.a_iterations,
            args.b_iterations,
            args.b_seed_offset,
        )
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
