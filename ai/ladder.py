"""Ladder: a round robin of bot levels in one game, with an Elo per level.

    python -m ai.ladder --game ronda --matches 40 --seed 8107 --jobs 2
    python -m ai.ladder --game trex --levels random,easy,normal --matches 32 --seed 999
    python -m ai.ladder --game marriage --options '{"deals": 5}' --matches 40 --seed 999 --json

Every pair of ``--levels`` (default: every level, random easy normal hard) plays
``--matches`` matches (an even number): the deals ``--first`` .. ``--first + matches/2 - 1``
of series ``--seed``, each dealt twice with the levels swapped (the first time the pair's
lower level is the arena's side A, the second time the higher), so each level of a pair
meets the same cards, the same first dealer and the same seats. A match is
:func:`ai.arena.play_match`'s: A's side turns with the deal's index and the first dealer
every ``sides`` deals, as in the arena. The matches run deal by deal across the pairs, so a
run stopped early (Ctrl-C or ``kill``: the report of the matches finished, exit status
130) has played every pair about as often.

The measure of a match is the arena's: with two sides (Ronda, Baloot, Porrazo, Marriage
with two players) the match result (1 win, 0.5 draw, 0 loss); with more (Trex, Marriage
with 3-4 players) the pairwise share, the share of the other sides a level finished ahead
of (in Trex, a level's one seat against three of the other level). Marriage is played for
points: give its matches several deals (``--options '{"deals": 5}'``) and read the points
per deal beside the multi-deal match win rate.

The report:

* **Elo** per level: the Bradley-Terry model's maximum-likelihood ratings over every match
  (a match's measure is its score, so draws and shares count as fractions), on the Elo
  scale (400 points = odds of 10 to 1), anchored at ``--anchor`` (default easy) = 0, with
  one virtual drawn match per pair (a prior that keeps a level that won every match
  finite). 95 % intervals are bootstrap percentiles: ``--bootstrap`` resamples of the
  deals within each pair (a deal's two matches together), refitted. The gaps between
  adjacent levels (in ``--levels`` order) get their bootstrap intervals too.
* the pairwise table: each pair's win rate (the lower level's score against the higher)
  with a 95 % Wilson interval over its matches (conservative for shares), and the points
  per deal of one minus the other with a 95 % normal interval over the matches;
* per level: points per deal, CPU seconds per decision (``time.process_time`` around each
  decision, in the process that decides, so a busy host does not inflate it) and the mean
  iterations per searched decision.

``--json`` prints the report as one JSON document instead of text; progress goes to
stderr. ``--record FILE`` keeps each finished match in FILE, as the arena's does, so a
round robin longer than one sitting is played in several runs: the same command again
plays only the matches the record lacks, in the schedule's order, and reports them all.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import random
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

from ai.arena import (
    INTERRUPTED,
    MatchResult,
    RecordError,
    _play_indexed,
    code_fingerprint,
    elapsed_and_left,
    fair_decider,
    held_prefix,
    play_in_order,
    read_record,
    record_keeper,
    table_of,
    wilson,
)
from ai.bots import LEVELS, Budget

ELO_PER_NAT = 400 / math.log(10)
"""Elo points per unit of the Bradley-Terry log-strength (400 Elo = odds of 10 to 1)."""


@dataclass(frozen=True)
class Task:
    """One match of the round robin: deal ``index`` of the series between ``low`` and
    ``high`` (a pair in ``--levels`` order), ``swapped`` when ``high`` is the arena's A."""

    low: str
    high: str
    index: int
    swapped: bool

    @property
    def key(self) -> tuple[str, str, int, bool]:
        """The match's name in a record (``--record``)."""
        return (self.low, self.high, self.index, self.swapped)

    @property
    def level_a(self) -> str:
        return self.high if self.swapped else self.low

    @property
    def level_b(self) -> str:
        return self.low if self.swapped else self.high


def schedule(levels: Sequence[str], first: int, matches: int) -> list[Task]:
    """The matches of a round robin, deal by deal: for each deal of the series, every pair
    plays it twice, the levels swapped (``matches`` per pair, an even number)."""
    if matches % 2:
        raise ValueError("matches per pair must be even: each deal is played twice, the levels swapped")
    pairs = list(combinations(levels, 2))
    return [
        Task(low, high, index, swapped)
        for index in range(first, first + matches // 2)
        for low, high in pairs
        for swapped in (False, True)
    ]


@dataclass(frozen=True)
class Played:
    """A finished match of the round robin, from the pair's lower level's side."""

    task: Task
    result: MatchResult
    score: float
    """The lower level's measure: its match result (two sides) or its pairwise share."""

    @property
    def points(self) -> tuple[float, float]:
        """Points per deal of (low, high); a level with several seats as B (Trex) has the
        mean of its seats'."""
        a, b = self.result.a_points, self.result.b_points
        return (b, a) if self.task.swapped else (a, b)


def measured(task: Task, result: MatchResult, sides: int) -> Played:
    """``result`` (A's, from the arena) as the lower level's measure."""
    a_score = result.score if sides == 2 else result.pairwise
    return Played(task, result, 1.0 - a_score if task.swapped else a_score)


def _play_task(
    game_id: str,
    players: int,
    options: dict[str, Any] | None,
    budget: Budget | None,
    seed: int,
    task: Task,
) -> MatchResult:
    """The arena's match for ``task`` (module level: picklable for ``--jobs``)."""
    return _play_indexed(
        game_id, players, options, task.level_a, task.level_b, budget, seed, fair_decider, task.index
    )


# --- the Elo fit -------------------------------------------------------------------------


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """The solution of a small linear system (Gaussian elimination with partial pivoting)."""
    n = len(vector)
    rows = [row[:] + [vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(col + 1, n):
            factor = rows[r][col] / rows[col][col]
            for c in range(col, n + 1):
                rows[r][c] -= factor * rows[col][c]
    solution = [0.0] * n
    for r in range(n - 1, -1, -1):
        known = sum(rows[r][c] * solution[c] for c in range(r + 1, n))
        solution[r] = (rows[r][n] - known) / rows[r][r]
    return solution


@dataclass
class Ratings:
    """A Bradley-Terry fit on the Elo scale: the ratings and their covariance (Elo squared)
    from the fit's information (the inverse of the log-likelihood's negative Hessian at the
    maximum; the anchor is fixed, so its row is 0)."""

    elo: dict[str, float]
    covariance: dict[tuple[str, str], float]

    def gap_sd(self, low: str, high: str) -> float:
        """The standard error of ``elo[high] - elo[low]``."""
        c = self.covariance
        return math.sqrt(max(0.0, c[high, high] + c[low, low] - 2 * c[high, low]))


def fit_elo(
    outcomes: Iterable[tuple[str, str, float]],
    levels: Sequence[str],
    anchor: str,
    prior_draws: float = 1.0,
) -> Ratings:
    """The maximum-likelihood Bradley-Terry ratings (Elo scale, ``anchor`` = 0) of
    ``levels`` from ``(x, y, x's score in [0, 1])`` outcomes, with ``prior_draws`` virtual
    drawn matches between every pair (which keeps a level that won everything finite and
    joins levels that never met). Newton's method on the log-likelihood, which is concave."""
    where = {level: i for i, level in enumerate(levels)}
    k = len(levels)
    games = [[0.0] * k for _ in range(k)]
    wins = [[0.0] * k for _ in range(k)]
    for i, j in combinations(range(k), 2):
        for a, b in ((i, j), (j, i)):
            games[a][b] += prior_draws
            wins[a][b] += prior_draws / 2
    for x, y, score in outcomes:
        i, j = where[x], where[y]
        games[i][j] += 1
        games[j][i] += 1
        wins[i][j] += score
        wins[j][i] += 1 - score
    free = [i for i in range(k) if levels[i] != anchor]
    strength = [0.0] * k

    def information() -> tuple[list[float], list[list[float]]]:
        """The gradient and the negative Hessian of the log-likelihood at ``strength``."""
        gradient = [0.0] * k
        negative_hessian = [[0.0] * k for _ in range(k)]
        for i in range(k):
            for j in range(k):
                if i != j and games[i][j]:
                    p = 1 / (1 + math.exp(strength[j] - strength[i]))
                    gradient[i] += wins[i][j] - games[i][j] * p
                    weight = games[i][j] * p * (1 - p)
                    negative_hessian[i][i] += weight
                    negative_hessian[i][j] -= weight
        return gradient, [[negative_hessian[i][j] for j in free] for i in free]

    for _ in range(100):
        gradient, matrix = information()
        step = _solve(matrix, [gradient[i] for i in free])
        largest = max((abs(s) for s in step), default=0.0)
        scale = min(1.0, 2.0 / largest) if largest else 1.0  # damped: at most 2 nats a step
        for i, s in zip(free, step, strict=True):
            strength[i] += s * scale
        if largest < 1e-10:
            break
    _, matrix = information()
    columns = [_solve(matrix, [1.0 if r == c else 0.0 for r in range(len(free))]) for c in range(len(free))]
    covariance = {(x, y): 0.0 for x in levels for y in levels}
    for a, i in enumerate(free):
        for b, j in enumerate(free):
            covariance[levels[i], levels[j]] = columns[b][a] * ELO_PER_NAT**2
    return Ratings({level: strength[i] * ELO_PER_NAT for i, level in enumerate(levels)}, covariance)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, interpolated between the sorted values."""
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass
class EloFit:
    """Ratings with two 95 % intervals each, and the adjacent levels' gaps likewise."""

    elo: dict[str, float]
    bootstrap: dict[str, tuple[float, float]]
    information: dict[str, tuple[float, float]]
    gaps: list[dict[str, Any]]
    """``{"low", "high", "gap", "bootstrap": [2.5 %, 97.5 %], "information": [...]}`` for
    each adjacent pair of levels (``high`` - ``low``)."""


def elo_with_intervals(
    played: Sequence[Played],
    levels: Sequence[str],
    anchor: str,
    resamples: int = 1000,
    seed: int = 0,
) -> EloFit:
    """:func:`fit_elo` over ``played``, with two 95 % intervals: the percentiles of
    ``resamples`` bootstrap resamples of the deals within each pair (a deal's two matches,
    levels swapped, stay together: they share the cards), refitted; and +-1.96 standard
    errors from the fit's information. A pair one level swept gives every resample the same
    result, so its bootstrap interval collapses to a point; the information's does not."""

    def outcomes(units: Iterable[list[Played]]) -> list[tuple[str, str, float]]:
        return [(p.task.low, p.task.high, p.score) for unit in units for p in unit]

    units_by_pair: dict[tuple[str, str], dict[int, list[Played]]] = {}
    for p in played:
        units_by_pair.setdefault((p.task.low, p.task.high), {}).setdefault(p.task.index, []).append(p)
    pair_units = [list(units.values()) for units in units_by_pair.values()]
    fit = fit_elo(outcomes(u for units in pair_units for u in units), levels, anchor)
    rng = random.Random(seed)
    samples: list[dict[str, float]] = []
    for _ in range(resamples):
        drawn = [units[rng.randrange(len(units))] for units in pair_units for _ in units]
        samples.append(fit_elo(outcomes(drawn), levels, anchor).elo)

    def bootstrap(values: list[float]) -> tuple[float, float]:
        return (percentile(values, 0.025), percentile(values, 0.975)) if values else (-math.inf, math.inf)

    def information(centre: float, sd: float) -> tuple[float, float]:
        return (centre - 1.96 * sd, centre + 1.96 * sd)

    elo = fit.elo
    gaps = [
        {
            "low": low,
            "high": high,
            "gap": elo[high] - elo[low],
            "bootstrap": list(bootstrap([s[high] - s[low] for s in samples])),
            "information": list(information(elo[high] - elo[low], fit.gap_sd(low, high))),
        }
        for low, high in zip(levels, levels[1:], strict=False)
    ]
    return EloFit(
        elo,
        {level: bootstrap([s[level] for s in samples]) for level in levels},
        {level: information(elo[level], fit.gap_sd(anchor, level)) for level in levels},
        gaps,
    )


# --- the report --------------------------------------------------------------------------


def normal_interval(values: Sequence[float], z: float = 1.96) -> tuple[float, float, float]:
    """The mean of ``values`` and its normal-approximation 95 % interval."""
    n = len(values)
    if n == 0:
        return (0.0, -math.inf, math.inf)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    half = z * math.sqrt(var / n)
    return (mean, mean - half, mean + half)


def pair_rows(played: Sequence[Played], levels: Sequence[str]) -> list[dict[str, Any]]:
    """Each pair's matches from its higher level's side (the later in ``levels``): its win
    rate (Wilson 95 %) and points per deal against the lower level's."""
    rows = []
    for low, high in combinations(levels, 2):
        mine = [p for p in played if (p.task.low, p.task.high) == (low, high)]
        if not mine:
            continue
        score = sum(1.0 - p.score for p in mine)
        lo, hi = wilson(score, len(mine))
        diff, diff_lo, diff_hi = normal_interval([p.points[1] - p.points[0] for p in mine])
        rows.append(
            {
                "level": high,
                "opponent": low,
                "matches": len(mine),
                "deals": sum(p.result.deals for p in mine),
                "win_rate": score / len(mine),
                "win_rate_ci": [lo, hi],
                "points_per_deal": sum(p.points[1] for p in mine) / len(mine),
                "opponent_points_per_deal": sum(p.points[0] for p in mine) / len(mine),
                "points_per_deal_difference": diff,
                "points_per_deal_difference_ci": [diff_lo, diff_hi],
                "cpu_seconds_per_match": sum(sum(p.result.cpu_seconds) for p in mine) / len(mine),
            }
        )
    return rows


def level_rows(played: Sequence[Played], levels: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Per level: matches, points per deal, decisions, CPU seconds per decision and
    iterations per searched decision, over every match it played."""
    sums = {
        level: {
            "matches": 0,
            "points": 0.0,
            "decisions": 0,
            "cpu": 0.0,
            "iterations": 0,
            "searches": 0,
            "cut_short": 0,
        }
        for level in levels
    }
    for p in played:
        r = p.result
        for side, level in ((0, p.task.level_a), (1, p.task.level_b)):
            s = sums[level]
            s["matches"] += 1
            s["points"] += r.a_points if side == 0 else r.b_points
            s["decisions"] += r.side_decisions[side]
            s["cpu"] += r.cpu_seconds[side]
            s["iterations"] += r.iterations[side]
            s["searches"] += r.searches[side]
            s["cut_short"] += r.cut_short[side]
    return {
        level: {
            "matches": s["matches"],
            "points_per_deal": s["points"] / s["matches"] if s["matches"] else None,
            "decisions": s["decisions"],
            "cpu_seconds_per_decision": s["cpu"] / s["decisions"] if s["decisions"] else None,
            "cpu_seconds": s["cpu"],
            "iterations_per_search": s["iterations"] / s["searches"] if s["searches"] else 0.0,
            "searches": s["searches"],
            "searches_cut_short": s["cut_short"],
        }
        for level, s in sums.items()
    }


def report(
    played: Sequence[Played],
    *,
    setup: dict[str, Any],
    levels: Sequence[str],
    anchor: str,
    resamples: int,
    stopped: bool,
    seconds: float,
) -> dict[str, Any]:
    """The ladder's report as a JSON-ready document."""
    doc = {
        **setup,
        "stopped": stopped,
        "played": len(played),
        "deals": sum(p.result.deals for p in played),
        "seconds": seconds,
        "elo": None,
        "pairs": pair_rows(played, levels),
        "per_level": level_rows(played, levels),
    }
    if played:
        fit = elo_with_intervals(played, levels, anchor, resamples, seed=setup["seed"])
        doc["elo"] = {
            "anchor": anchor,
            "method": "Bradley-Terry maximum likelihood, one virtual draw per pair",
            "bootstrap_resamples": resamples,
            "levels": {
                level: {
                    "elo": fit.elo[level],
                    "bootstrap_ci": list(fit.bootstrap[level]),
                    "information_ci": list(fit.information[level]),
                }
                for level in levels
            },
            "adjacent_gaps": fit.gaps,
        }
    return doc


def _interval(bounds: Sequence[float]) -> str:
    return f"[{_number(bounds[0], '+.0f')}, {_number(bounds[1], '+.0f')}]"


def _number(value: float | None, fmt: str) -> str:
    return "-" if value is None or math.isinf(value) else format(value, fmt)


def text(doc: dict[str, Any]) -> str:
    """The report as text: a heading and three Markdown tables."""
    measure = doc["measure"]
    lines = [
        f"game {doc['game']}, players {doc['players']}, options {json.dumps(doc['options'], sort_keys=True)}",
        f"levels {', '.join(doc['levels'])}; budget {doc['budget']}; seed {doc['seed']}, "
        f"deals {doc['first']}-{doc['first'] + doc['matches_per_pair'] // 2 - 1} "
        f"({doc['matches_per_pair']} matches per pair: each deal twice, the levels swapped)",
    ]
    if doc["stopped"]:
        lines.append(f"stopped: {doc['played']} of {doc['scheduled']} matches played")
    lines.append(f"matches {doc['played']}, deals {doc['deals']}, {doc['seconds']:.1f}s; measure: {measure}")
    if doc.get("from_record"):
        lines.append(f"({doc['from_record']} of the matches from the record, played by earlier runs)")
    if not doc["played"]:
        return "\n".join(lines)
    elo = doc["elo"]
    lines += [
        "",
        f"Elo: {elo['method']}, {elo['anchor']} = 0; 95 % intervals from "
        f"{elo['bootstrap_resamples']} bootstrap resamples of the deals within each pair, "
        "and from the fit's information",
        "",
        "| level | Elo | 95 % CI (bootstrap) | 95 % CI (information) | points per deal "
        "| CPU s per decision | iterations per search (cut short) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for level in doc["levels"]:
        rating = elo["levels"][level]
        per = doc["per_level"][level]
        lines.append(
            f"| {level} | {rating['elo']:+.0f} | {_interval(rating['bootstrap_ci'])} "
            f"| {_interval(rating['information_ci'])} | {_number(per['points_per_deal'], '.2f')} "
            f"| {_number(per['cpu_seconds_per_decision'], '.4f')} "
            f"| {per['iterations_per_search']:.0f} ({per['searches_cut_short']} of {per['searches']}) |"
        )
    lines += [
        "",
        "| adjacent levels | Elo gap | 95 % CI (bootstrap) | 95 % CI (information) |",
        "| --- | --- | --- | --- |",
    ]
    for gap in elo["adjacent_gaps"]:
        lines.append(
            f"| {gap['high']} - {gap['low']} | {gap['gap']:+.0f} | {_interval(gap['bootstrap'])} "
            f"| {_interval(gap['information'])} |"
        )
    lines += [
        "",
        f"| x v y | matches | deals | x's {measure} | 95 % Wilson CI "
        "| points per deal x / y | x - y, 95 % CI | CPU s per match |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in doc["pairs"]:
        low, high = row["win_rate_ci"]
        d_low, d_high = row["points_per_deal_difference_ci"]
        lines.append(
            f"| {row['level']} v {row['opponent']} | {row['matches']} | {row['deals']} "
            f"| {row['win_rate']:.3f} | [{low:.3f}, {high:.3f}] "
            f"| {row['points_per_deal']:.2f} / {row['opponent_points_per_deal']:.2f} "
            f"| {row['points_per_deal_difference']:+.2f} [{d_low:+.2f}, {d_high:+.2f}] "
            f"| {row['cpu_seconds_per_match']:.1f} |"
        )
    return "\n".join(lines)


# --- the command -------------------------------------------------------------------------


def _levels(value: str) -> list[str]:
    levels = [v.strip() for v in value.split(",") if v.strip()]
    unknown = [v for v in levels if v not in LEVELS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown level {', '.join(unknown)} (known: {', '.join(LEVELS)})")
    if len(levels) < 2 or len(set(levels)) != len(levels):
        raise argparse.ArgumentTypeError("give two or more different levels")
    return levels


def _even(value: str) -> int:
    n = int(value)
    if n < 2 or n % 2:
        raise argparse.ArgumentTypeError("an even number >= 2: each deal is played twice, the levels swapped")
    return n


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ai.ladder", description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True)
    parser.add_argument(
        "--levels", type=_levels, default=list(LEVELS), help=f"comma-separated (default {','.join(LEVELS)})"
    )
    parser.add_argument("--matches", type=_even, default=20, help="matches per pair (even)")
    parser.add_argument("--seed", type=int, default=1, help="series: deal m from seed*1000003+m")
    parser.add_argument("--first", type=int, default=0, help="the series' first deal index")
    parser.add_argument("--players", type=int, default=None, help="default: the game's smallest count")
    parser.add_argument("--options", default=None, help="game options as JSON")
    parser.add_argument("--budget-iterations", type=int, default=None, help="every searching level's budget")
    parser.add_argument("--budget-ms", type=float, default=None)
    parser.add_argument("--anchor", default=None, help="the level rated 0 (default easy, else the first)")
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for the intervals")
    parser.add_argument("--jobs", type=int, default=1, help="matches played at once in worker processes")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--record",
        type=Path,
        default=None,
        help="a file (JSON lines) that keeps each finished match; a run given it plays only the "
        "matches the record lacks and reports them all (a round robin over several runs)",
    )
    args = parser.parse_args(argv)

    levels: list[str] = args.levels
    anchor = args.anchor or ("easy" if "easy" in levels else levels[0])
    if anchor not in levels:
        parser.error(f"--anchor {anchor} is not one of --levels")
    players, options, budget, sides = table_of(args)
    tasks = schedule(levels, args.first, args.matches)
    play = functools.partial(_play_task, args.game, players, options, budget, args.seed)
    played: list[Played] = []
    keep = None
    if args.record is not None:
        series = {
            "ladder": args.game,
            "players": players,
            "options": options,
            "levels": levels,
            "budget": asdict(budget) if budget is not None else None,
            "seed": args.seed,
            "code": code_fingerprint(),
        }
        try:
            earlier = held_prefix(read_record(args.record, series), [task.key for task in tasks])
        except RecordError as error:
            parser.error(str(error))
        played = [measured(task, result, sides) for task, result in zip(tasks, earlier, strict=False)]
        keep = record_keeper(args.record, series)
    from_record = len(played)
    started = time.perf_counter()

    def add(result: MatchResult) -> None:
        task = tasks[len(played)]
        if keep is not None:
            keep(task.key, result)
        played.append(measured(task, result, sides))
        print(
            f"\rladder {args.game}: {len(played)}/{len(tasks)} matches "
            f"(deal {task.index}, {task.level_a} v {task.level_b}), "
            + elapsed_and_left(started, len(played) - from_record, len(tasks) - len(played)),
            end="",
            file=sys.stderr,
            flush=True,
        )

    stopped = play_in_order(play, tasks[from_record:], args.jobs, add)
    print(" (stopped)" if stopped else "", file=sys.stderr)
    setup = {
        "game": args.game,
        "players": players,
        "options": options,
        "levels": levels,
        "seed": args.seed,
        "first": args.first,
        "matches_per_pair": args.matches,
        "scheduled": len(tasks),
        "from_record": from_record,
        "budget": asdict(budget) if budget is not None else "level default",
        "measure": "match win rate (draws half)" if sides == 2 else f"pairwise rate (1 seat v {sides - 1})",
    }
    doc = report(
        played,
        setup=setup,
        levels=levels,
        anchor=anchor,
        resamples=args.bootstrap,
        stopped=stopped,
        seconds=time.perf_counter() - started,
    )
    print(json.dumps(doc, indent=2) if args.json else text(doc))
    return INTERRUPTED if stopped else 0


if __name__ == "__main__":
    raise SystemExit(main())
