"""Arena: seeded matches between two bot levels, seats rotated.

    python -m ai.arena --game ronda --a normal --b easy --matches 200 --seed 1
    python -m ai.arena --game ronda --a normal --b easy --matches 200 --seed 1 --budget-iterations 200
    python -m ai.arena --game ronda --a normal --b easy --matches 200 --seed 1 --jobs 2

Bot A plays one side (the seats of ``sides[m % number_of_sides]`` in match ``m``), bot B
every other seat. Each bot sees only its seat's view. Prints the win rate of A with a 95%
Wilson interval (a drawn match counts half), the points per deal of A and of B, and a
progress line on stderr.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import multiprocessing
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ai.bots import LEVELS, Budget, decide
from engine import get_game
from engine.protocol import Game


@dataclass
class MatchResult:
    """One match: A's result (1 win, 0.5 draw, 0 loss), points per deal, deals, decisions."""

    score: float
    a_points: float
    b_points: float
    deals: int
    decisions: int


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% for z = 1.96).

    >>> tuple(round(x, 3) for x in wilson(60, 100))
    (0.502, 0.691)
    """
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def play_match(
    game: Game[Any],
    *,
    players: int,
    options: dict[str, Any] | None,
    level_a: str,
    level_b: str,
    budget: Budget | None,
    seed: int,
    index: int,
    max_steps: int = 100_000,
) -> MatchResult:
    """Play match ``index`` of a series to its end and return A's result."""
    match_seed = seed * 1_000_003 + index
    dealer = index % players
    state = game.new_state(players, options, dealer, seed=match_seed)
    sides = game.score(state).sides
    a_side = index % len(sides)
    a_seats = set(sides[a_side])
    decisions = 0
    for step_no in range(max_steps):
        seat = game.to_act(state)
        if seat is None:
            break
        level = level_a if seat in a_seats else level_b
        view = game.view(state, seat)
        decision = decide(game, view, level=level, budget=budget, seed=match_seed * 7919 + step_no)
        decisions += 1
        game.step(state, decision.action)
    else:
        raise RuntimeError(f"match {index} did not end in {max_steps} steps")
    report = game.score(state)
    if report.winner is None:
        result = 0.5
    else:
        result = 1.0 if report.winner == a_side else 0.0
    deals = max(1, report.deal_no)
    others = [s for i, s in enumerate(report.scores) if i != a_side]
    return MatchResult(
        score=result,
        a_points=report.scores[a_side] / deals,
        b_points=(sum(others) / len(others) if others else 0.0) / deals,
        deals=report.deal_no,
        decisions=decisions,
    )


def _play_indexed(
    game_id: str,
    players: int,
    options: dict[str, Any] | None,
    level_a: str,
    level_b: str,
    budget: Budget | None,
    seed: int,
    index: int,
) -> MatchResult:
    """``play_match`` by game id (picklable, for the worker processes of ``--jobs``)."""
    return play_match(
        get_game(game_id),
        players=players,
        options=options,
        level_a=level_a,
        level_b=level_b,
        budget=budget,
        seed=seed,
        index=index,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ai.arena", description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True)
    parser.add_argument("--a", default="normal", choices=LEVELS)
    parser.add_argument("--b", default="easy", choices=LEVELS)
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=None, help="default: the game's smallest count")
    parser.add_argument("--options", default=None, help="game options as JSON")
    parser.add_argument("--budget-iterations", type=int, default=None)
    parser.add_argument("--budget-ms", type=float, default=None)
    parser.add_argument(
        "--jobs", type=int, default=1, help="matches played at once in worker processes (same results)"
    )
    args = parser.parse_args(argv)

    game = get_game(args.game)
    players = args.players if args.players is not None else min(game.player_counts)
    options = game.parse_options(json.loads(args.options) if args.options else None, players)
    budget = None
    if args.budget_iterations is not None or args.budget_ms is not None:
        budget = Budget(iterations=args.budget_iterations, ms=args.budget_ms)

    wins = 0.0
    a_points = b_points = 0.0
    deals = decisions = 0
    started = time.perf_counter()
    play = functools.partial(
        _play_indexed,
        args.game,
        players,
        options,
        args.a,
        args.b,
        budget,
        args.seed,
    )
    pool = multiprocessing.Pool(args.jobs) if args.jobs > 1 else None
    results = pool.imap(play, range(args.matches)) if pool is not None else map(play, range(args.matches))
    for index, result in enumerate(results):
        wins += result.score
        a_points += result.a_points
        b_points += result.b_points
        deals += result.deals
        decisions += result.decisions
        done = index + 1
        low, high = wilson(wins, done)
        elapsed = time.perf_counter() - started
        print(
            f"\r{args.game} {args.a} v {args.b}: {done}/{args.matches} matches, "
            f"A {wins / done:.1%} [{low:.1%}, {high:.1%}], {elapsed:.0f}s",
            end="",
            file=sys.stderr,
            flush=True,
        )
    if pool is not None:
        pool.close()
        pool.join()
    print(file=sys.stderr)
    n = args.matches
    low, high = wilson(wins, n)
    budget_text = f"iterations={budget.iterations} ms={budget.ms}" if budget is not None else "level default"
    print(f"game {args.game}, players {players}, options {json.dumps(options, sort_keys=True)}")
    print(f"A = {args.a}, B = {args.b}, budget {budget_text}, seed {args.seed}")
    print(f"matches {n}, deals {deals}, decisions {decisions}, {time.perf_counter() - started:.1f}s")
    print(f"A win rate {wins / n:.3f}  95% CI [{low:.3f}, {high:.3f}]  (draws count half)")
    print(f"points per deal: A {a_points / n:.2f}, B {b_points / n:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
