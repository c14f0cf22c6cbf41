"""Arena: seeded matches between two bot levels, seats rotated.

    python -m ai.arena --game ronda --a normal --b easy --matches 200 --seed 1
    python -m ai.arena --game ronda --a normal --b easy --matches 200 --seed 1 --budget-iterations 200
    python -m ai.arena --game ronda --a normal --b easy --matches 200 --seed 1 --jobs 2
    python -m ai.arena --game marriage --a normal --b easy --matches 100 --seed 7 --first 100

Seed ranges: match ``m`` of series ``--seed s`` deals from ``s * 1_000_003 + m`` (its decisions
from that match seed too), and a run plays matches ``--first`` .. ``--first + --matches - 1``.
A series no test or tuning used (docs/bots.md lists the ones used) gives fresh deals; ``--first``
continues a series or splits it between processes.

Bot A plays one side (the seats of ``sides[m % number_of_sides]`` in match ``m``), bot B
every other seat. Each bot sees only its seat's view. Prints the win rate of A with a 95%
Wilson interval (a drawn match counts half), the points per deal of A and of B, and a
progress line on stderr.

With more than two sides (Trex, Marriage with 3-4 players: every seat for itself) A's win
rate is the rate at which it finishes first against several B seats, whose chance level is
1 / sides. The arena then also prints A's *pairwise* rate: in each match, the share of the
B sides that A finished ahead of (``Game.standings``; a tie counts half), i.e. how often A
beats one B player, whose chance level is 50 % as in a two-sided game, with a 95 % normal
interval over the matches. With two sides the two rates are the same.
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
    """One match: A's result (1 win, 0.5 draw, 0 loss), the share of B sides A finished
    ahead of (ties half), points per deal, deals, decisions."""

    score: float
    pairwise: float
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


def mean_interval(values: Sequence[float], z: float = 1.96) -> tuple[float, float, float]:
    """The mean of ``values`` in [0, 1] and its normal-approximation interval (95% for
    z = 1.96), for per-match shares such as the pairwise rate.

    >>> tuple(round(x, 3) for x in mean_interval([1.0, 0.0] * 50))
    (0.5, 0.402, 0.598)
    """
    n = len(values)
    if n == 0:
        return (0.0, 0.0, 1.0)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    half = z * math.sqrt(var / n)
    return (mean, max(0.0, mean - half), min(1.0, mean + half))


def pairwise_share(standings: Sequence[float], a_side: int) -> float:
    """The share of the other sides that side ``a_side`` finished ahead of (ties half).

    >>> pairwise_share([10, 30, 20, 30], 2)
    0.3333333333333333
    """
    others = [v for i, v in enumerate(standings) if i != a_side]
    mine = standings[a_side]
    return sum(1.0 if mine > v else 0.5 if mine == v else 0.0 for v in others) / len(others)


@dataclass
class MatchStart:
    """A seeded match of a series: its state, its seed and A's side (seats rotated)."""

    state: Any
    seed: int
    a_side: int

    def decision_seed(self, step_no: int) -> int:
        """The bot's seed for the decision at ``step_no`` of the match."""
        return self.seed * 7919 + step_no


def start_match(
    game: Game[Any], players: int, options: dict[str, Any] | None, seed: int, index: int
) -> MatchStart:
    """Match ``index`` of the series ``seed``: dealer and A's side rotate with the index."""
    match_seed = seed * 1_000_003 + index
    state = game.new_state(players, options, index % players, seed=match_seed)
    return MatchStart(state, match_seed, index % len(game.score(state).sides))


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
    start = start_match(game, players, options, seed, index)
    state, a_side = start.state, start.a_side
    a_seats = set(game.score(state).sides[a_side])
    decisions = 0
    for step_no in range(max_steps):
        seat = game.to_act(state)
        if seat is None:
            break
        level = level_a if seat in a_seats else level_b
        view = game.view(state, seat)
        decision = decide(game, view, level=level, budget=budget, seed=start.decision_seed(step_no))
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
    pairwise = pairwise_share(game.standings(state), a_side)
    others = [s for i, s in enumerate(report.scores) if i != a_side]
    return MatchResult(
        score=result,
        pairwise=pairwise,
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
    parser.add_argument("--seed", type=int, default=1, help="series: match m deals from seed*1000003+m")
    parser.add_argument("--first", type=int, default=0, help="the series' first match index to play")
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
    pairwise: list[float] = []
    sides = len(game.score(game.new_state(players, options, 0, seed=0)).sides)
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
    indices = range(args.first, args.first + args.matches)
    results = pool.imap(play, indices) if pool is not None else map(play, indices)
    for index, result in enumerate(results):
        wins += result.score
        pairwise.append(result.pairwise)
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
    print(
        f"A = {args.a}, B = {args.b}, budget {budget_text}, seed {args.seed}, "
        f"matches {args.first}-{args.first + n - 1}"
    )
    print(f"matches {n}, deals {deals}, decisions {decisions}, {time.perf_counter() - started:.1f}s")
    print(f"A win rate {wins / n:.3f}  95% CI [{low:.3f}, {high:.3f}]  (draws count half)")
    if sides > 2:
        mean, low, high = mean_interval(pairwise)
        print(f"  (A is one of {sides} sides: first place, chance {1 / sides:.3f})")
        print(f"A pairwise rate {mean:.3f}  95% CI [{low:.3f}, {high:.3f}]  (B sides A finished ahead of)")
    print(f"points per deal: A {a_points / n:.2f}, B {b_points / n:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
