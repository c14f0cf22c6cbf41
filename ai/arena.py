"""Arena: seeded matches between two bot levels, seats rotated.

    python -m ai.arena --game ronda --a normal --b easy --matches 200 --seed 1
    python -m ai.arena --game ronda --a normal --b easy --matches 200 --seed 1 --budget-iterations 200
    python -m ai.arena --game ronda --a normal --b easy --matches 200 --seed 1 --jobs 2
    python -m ai.arena --game ronda --a normal --b openspiel-ismcts --matches 60 --budget-ms 200
    python -m ai.arena --game marriage --a normal --b easy --matches 100 --seed 7 --first 100
    python -m ai.arena --game porrazo --a hard --b normal --matches 150 --seed 8111 --jobs 2 --duplicate
    python -m ai.arena --game ronda --a hard --b normal --matches 150 --seed 1 --record ronda-1.jsonl

Seed ranges: match ``m`` of series ``--seed s`` deals from ``s * 1_000_003 + m`` (its decisions
from that match seed too), and a run plays matches ``--first`` .. ``--first + --matches - 1``.
A series no test or tuning used (docs/bots.md lists the ones used) gives fresh deals; ``--first``
continues a series or splits it between processes.

Bot A plays one side (the seats of ``sides[m % number_of_sides]`` in match ``m``), bot B
every other seat; the first dealer is seat ``(m // number_of_sides) % players``, so A's side
meets every first dealer in turn. Each bot sees only its seat's view. Prints the win rate of
A with a 95% Wilson interval (a drawn match counts half), the points per deal of A and of B
and A's margin with its interval, and a progress line on stderr. ``--duplicate`` deals each
group of ``number_of_sides`` matches alike, A holding each side's cards once, and adds the
intervals over the groups (the win rate's, the pairwise rate's with more than two sides,
the margin's: :func:`start_match`, :func:`duplicate_interval`). Ctrl-C or
``kill`` (SIGINT, SIGTERM) stops a run: it reports the matches finished so far, says which,
and exits with status 130.

``--record FILE`` keeps each finished match in FILE (a JSON line), so a series longer than
one sitting is played in several runs: the same command again plays only the matches of its
range the record lacks (from where the last run stopped) and reports the whole range. A
record holds one series, played by one code: a run of another series or of changed rules or
bots (:func:`code_fingerprint`) refuses it.

With more than two sides (Trex, Marriage with 3-4 players: every seat for itself) A's win
rate is the rate at which it finishes first against several B seats, whose chance level is
1 / sides. The arena then also prints A's *pairwise* rate: in each match, the share of the
B sides that A finished ahead of (``Game.standings``; a tie counts half), i.e. how often A
beats one B player, whose chance level is 50 % as in a two-sided game, with a 95 % normal
interval over the matches. With two sides the two rates are the same.

``openspiel-ismcts`` (either side) is OpenSpiel's ISMCTSBot searching the game's OpenSpiel
wrapper (ai/openspiel_bot.py; needs ``open-spiel`` installed): an outside opponent. An
explicit budget applies to both sides, so ``--budget-iterations`` compares the searches at
equal iterations and ``--budget-ms`` at equal wall time.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import math
import multiprocessing
import multiprocessing.pool
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ai.bots import LEVELS, Budget, Decision, decide
from engine import get_game
from engine.protocol import Game

OPENSPIEL_LEVEL = "openspiel-ismcts"
"""The outside opponent's level name (ai/openspiel_bot.py; imported only when used)."""

ARENA_LEVELS = (*LEVELS, OPENSPIEL_LEVEL)

OFFLINE_MAX_MS = 600_000.0
"""The wall-time bound of an arena bot's search (10 min). The service bounds a search's
wall time (``decide``'s ``max_ms``, 10 s by default) to protect itself; offline, that bound
would cut a level's search short on a busy host (at load 13, nice 19, hard's 20,000
iterations stopped at ~5,000), so a match would measure the host's load. Here a level
stops at its own budget: its iterations, or its cap of the searching thread's CPU time."""

INTERRUPTED = 130
"""The exit status of a run stopped by Ctrl-C or ``kill`` (128 + SIGINT, as a shell gives for
Ctrl-C), after its report."""


def bot_decide(
    game: Game[Any], view: dict[str, Any], level: str, budget: Budget | None, seed: int
) -> Decision:
    """The move of a bot of ``level`` (one of ARENA_LEVELS) from ``view``."""
    if level == OPENSPIEL_LEVEL:
        from ai import openspiel_bot

        return openspiel_bot.decide(game, view, budget=budget, seed=seed)
    return decide(game, view, level=level, budget=budget, seed=seed, max_ms=OFFLINE_MAX_MS)


Task = TypeVar("Task")
"""What names a match to play: its index in the arena, a pairing and an index in a ladder."""

Decider = Callable[[Game[Any], Any, int, str, "Budget | None", int], Decision]
"""``(game, state, seat, level, budget, seed)`` -> the move of ``seat``'s bot. The arena's
own, :func:`fair_decider`, hands the bot the seat's view only; a measuring stick (e.g.
``bench/clairvoyant_bound.py``) may hand its bot more."""


def fair_decider(
    game: Game[Any], state: Any, seat: int, level: str, budget: Budget | None, seed: int
) -> Decision:
    """The move of a bot of ``level`` that sees only ``seat``'s view."""
    return bot_decide(game, game.view(state, seat), level, budget, seed)


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
    iterations: tuple[int, int] = (0, 0)
    """Search iterations of A's and of B's seats over the match."""
    searches: tuple[int, int] = (0, 0)
    """Decisions of A's and of B's seats that ran a search (more than 0 iterations)."""
    side_decisions: tuple[int, int] = (0, 0)
    """Decisions of A's and of B's seats."""
    cut_short: tuple[int, int] = (0, 0)
    """Searches of A's and of B's seats that a cap stopped before their iterations."""
    cpu_seconds: tuple[float, float] = field(default=(0.0, 0.0), compare=False)
    """CPU seconds of A's and of B's decisions, measured in the deciding process
    (``time.process_time`` around each decision), so other processes on a busy host do not
    count. Not compared: two plays of a match are equal when their moves are."""


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


def spread_interval(values: Sequence[float], z: float = 1.96) -> tuple[float, float, float]:
    """The mean of ``values`` and its normal-approximation interval (95 % for z = 1.96),
    unbounded (for points, which :func:`mean_interval` would clip to [0, 1]).

    >>> tuple(round(x, 3) for x in spread_interval([3.0, -1.0] * 50))
    (1.0, 0.606, 1.394)
    """
    n = len(values)
    if n == 0:
        return (0.0, -math.inf, math.inf)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else math.inf
    half = z * math.sqrt(var / n)
    return (mean, mean - half, mean + half)


def group_means(values: Sequence[float], size: int) -> list[float]:
    """The means of consecutive complete groups of ``size`` values (an unfinished last
    group is left out)."""
    return [sum(values[i : i + size]) / size for i in range(0, len(values) - size + 1, size)]


def duplicate_interval(scores: Sequence[float], sides: int) -> tuple[int, float, float, float]:
    """(complete groups, A's mean result, and its 95 % interval) over consecutive groups of
    ``sides`` match results dealt alike: each group's mean is one observation, so the
    interval counts the groups, not the matches, and the deal's luck, the same for both
    within a group, drops out of its spread.

    >>> duplicate_interval([1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0], 2)
    (3, 0.5, 0.0, 1.0)
    """
    groups = group_means(scores, sides)
    mean, low, high = mean_interval(groups)
    return len(groups), mean, low, high


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
    game: Game[Any],
    players: int,
    options: dict[str, Any] | None,
    seed: int,
    index: int,
    duplicate: bool = False,
) -> MatchStart:
    """Match ``index`` of the series ``seed``. A's side turns every match and the first
    dealer every ``sides`` matches, so any ``sides * players`` consecutive matches give A's
    side each first dealer once. (Turned together, as before session 28, they kept A in the
    same place: with two players A always dealt first.) ``duplicate``: each group of
    ``sides`` consecutive matches (from a multiple of ``sides``) deals the same cards, the
    group's first match's, so A holds each side's cards once (as duplicate bridge does):
    the luck of the deal cancels within a group."""
    sides = len(game.score(game.new_state(players, options, 0, seed=seed)).sides)
    match_seed = seed * 1_000_003 + (index - index % sides if duplicate else index)
    dealer = (index // sides) % players
    state = game.new_state(players, options, dealer, seed=match_seed)
    return MatchStart(state, match_seed, index % sides)


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
    decide_a: Decider = fair_decider,
    duplicate: bool = False,
) -> MatchResult:
    """Play match ``index`` of a series to its end and return A's result. Side A's moves
    are ``decide_a``'s (by default, like B's, a bot that sees only its seat's view).
    ``duplicate``: see :func:`start_match`."""
    start = start_match(game, players, options, seed, index, duplicate)
    state, a_side = start.state, start.a_side
    a_seats = set(game.score(state).sides[a_side])
    decisions = 0
    iterations = [0, 0]
    searches = [0, 0]
    side_decisions = [0, 0]
    cut_short = [0, 0]
    cpu_seconds = [0.0, 0.0]
    for step_no in range(max_steps):
        seat = game.to_act(state)
        if seat is None:
            break
        side = 0 if seat in a_seats else 1
        decider = decide_a if side == 0 else fair_decider
        level = (level_a, level_b)[side]
        cpu_before = time.process_time()
        decision = decider(game, state, seat, level, budget, start.decision_seed(step_no))
        cpu_seconds[side] += time.process_time() - cpu_before
        decisions += 1
        side_decisions[side] += 1
        if decision.stats.get("iterations"):
            iterations[side] += decision.stats["iterations"]
            searches[side] += 1
            cut_short[side] += bool(decision.stats.get("cut_short"))
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
        iterations=(iterations[0], iterations[1]),
        searches=(searches[0], searches[1]),
        side_decisions=(side_decisions[0], side_decisions[1]),
        cut_short=(cut_short[0], cut_short[1]),
        cpu_seconds=(cpu_seconds[0], cpu_seconds[1]),
    )


def _play_indexed(
    game_id: str,
    players: int,
    options: dict[str, Any] | None,
    level_a: str,
    level_b: str,
    budget: Budget | None,
    seed: int,
    decide_a: Decider,
    index: int,
    duplicate: bool = False,
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
        decide_a=decide_a,
        duplicate=duplicate,
    )


@dataclass
class Tally:
    """The sums of a series' match results, for its report."""

    matches: int = 0
    scores: list[float] = field(default_factory=list)
    """A's result in each match, in the order of the series."""
    margins: list[float] = field(default_factory=list)
    """A's points per deal minus B's in each match, in the order of the series."""
    pairwise: list[float] = field(default_factory=list)
    a_points: float = 0.0
    b_points: float = 0.0
    deals: int = 0
    decisions: int = 0
    iterations: list[int] = field(default_factory=lambda: [0, 0])
    searches: list[int] = field(default_factory=lambda: [0, 0])
    side_decisions: list[int] = field(default_factory=lambda: [0, 0])
    cut_short: list[int] = field(default_factory=lambda: [0, 0])
    cpu_seconds: list[float] = field(default_factory=lambda: [0.0, 0.0])
    stopped: bool = False
    """The run was stopped (Ctrl-C or ``kill``): the sums are those of the matches finished
    before it, the first ``matches`` of the run's range."""

    def add(self, result: MatchResult) -> None:
        self.matches += 1
        self.scores.append(result.score)
        self.margins.append(result.a_points - result.b_points)
        self.pairwise.append(result.pairwise)
        self.a_points += result.a_points
        self.b_points += result.b_points
        self.deals += result.deals
        self.decisions += result.decisions
        for side in (0, 1):
            self.iterations[side] += result.iterations[side]
            self.searches[side] += result.searches[side]
            self.side_decisions[side] += result.side_decisions[side]
            self.cut_short[side] += result.cut_short[side]
            self.cpu_seconds[side] += result.cpu_seconds[side]

    @property
    def wins(self) -> float:
        """A's wins, a draw counting half."""
        return sum(self.scores)

    def report(self, sides: int, duplicate: bool = False) -> list[str]:
        """A's win rate (Wilson interval), its pairwise rate with more than two sides,
        points per deal and iterations per search. ``duplicate``: the win rate's interval
        also over the groups of ``sides`` matches dealt alike (:func:`duplicate_interval`),
        the one to read: the matches of a group are not independent."""
        n = self.matches
        low, high = wilson(self.wins, n)
        lines = [f"A win rate {self.wins / n:.3f}  95% CI [{low:.3f}, {high:.3f}]  (draws count half)"]
        if duplicate:
            groups, mean, low, high = duplicate_interval(self.scores, sides)
            lines.append(
                f"A duplicate win rate {mean:.3f}  95% CI [{low:.3f}, {high:.3f}]  "
                f"(over {groups} groups of {sides} matches dealt alike)"
            )
        if sides > 2:
            mean, low, high = mean_interval(self.pairwise)
            lines.append(f"  (A is one of {sides} sides: first place, chance {1 / sides:.3f})")
            lines.append(
                f"A pairwise rate {mean:.3f}  95% CI [{low:.3f}, {high:.3f}]  (B sides A finished ahead of)"
            )
            if duplicate:  # the measure of a game of more than two sides (Trex), its deals' luck out
                groups, mean, low, high = duplicate_interval(self.pairwise, sides)
                lines.append(
                    f"A duplicate pairwise rate {mean:.3f}  95% CI [{low:.3f}, {high:.3f}]  "
                    f"(over {groups} groups of {sides} matches dealt alike)"
                )
        lines.append(f"points per deal: A {self.a_points / n:.2f}, B {self.b_points / n:.2f}")
        margin, low, high = spread_interval(self.margins)
        lines.append(f"A - B points per deal {margin:+.2f}  95% CI [{low:+.2f}, {high:+.2f}]  (over matches)")
        if duplicate:
            margin, low, high = spread_interval(group_means(self.margins, sides))
            lines.append(
                f"A - B points per deal {margin:+.2f}  95% CI [{low:+.2f}, {high:+.2f}]  (over groups)"
            )
        per_search = [
            self.iterations[side] / self.searches[side] if self.searches[side] else 0.0 for side in (0, 1)
        ]
        lines.append(
            f"iterations per search: A {per_search[0]:.0f} ({self.searches[0]} searches), "
            f"B {per_search[1]:.0f} ({self.searches[1]} searches); cut short by a cap: "
            f"A {self.cut_short[0]}, B {self.cut_short[1]}"
        )
        per_decision = [
            self.cpu_seconds[side] / self.side_decisions[side] if self.side_decisions[side] else 0.0
            for side in (0, 1)
        ]
        lines.append(f"CPU seconds per decision: A {per_decision[0]:.4f}, B {per_decision[1]:.4f}")
        return lines


def _stop(signum: int, frame: object) -> None:
    """SIGTERM stops a run as Ctrl-C does (a run started in the background with ``&``
    ignores SIGINT, so ``kill`` is how it is stopped)."""
    raise KeyboardInterrupt


_STOPS = {signal.SIGINT, signal.SIGTERM}


def _leave_stops_to_the_parent() -> None:
    """A worker process ignores Ctrl-C (the parent stops the run and reports) and dies at
    once of SIGTERM (how the parent's pool ends it). It was forked with both signals
    blocked (:func:`_start_workers`): a SIGTERM sent meanwhile ends it here."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)


def _start_workers(jobs: int) -> tuple[multiprocessing.pool.Pool, set[int | signal.Signals]]:
    """``jobs`` worker processes, forked with SIGINT and SIGTERM blocked, and the signal mask
    the caller had: each worker unblocks them once :func:`_leave_stops_to_the_parent` has
    made SIGTERM fatal, and the caller restores its mask once it is ready for a stop (a
    signal that came meanwhile is then delivered, not lost). Forked with
    the parent's handler (:func:`_stop`) instead, a worker that a SIGTERM reached before its
    first line of Python lost it (CPython clears in the child what a Python handler caught
    around the fork: 189 of 200 such signals in a probe), waited for tasks for ever, and the
    parent's ``pool.terminate()`` waited for it: a stopped run hung so on a busy host."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
    try:
        return multiprocessing.Pool(jobs, initializer=_leave_stops_to_the_parent), before
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
        raise


class StopBetweenMatches:
    """Ctrl-C or ``kill`` noted by a flag and acted on between matches, in a run that plays
    its matches in this process (``--jobs 1``). An exception raised by a signal handler
    lands wherever the search happens to be, and inside the compiled (mypyc) search it
    aborts the process (``fatal: out of memory``, exit 134) before any report: it ended
    session 30's Marriage ladder. A second signal ends the process at once (no report)."""

    def __init__(self) -> None:
        self.asked = False
        self.previous: dict[int, Any] = {}

    def __enter__(self) -> StopBetweenMatches:
        for stop in (signal.SIGINT, signal.SIGTERM):
            self.previous[stop] = signal.signal(stop, self.note)
        return self

    def __exit__(self, *exc: object) -> None:
        for stop, handler in self.previous.items():
            signal.signal(stop, handler)

    def note(self, signum: int, frame: object) -> None:
        if self.asked:
            print("\nstopped at once: no report", file=sys.stderr, flush=True)
            os._exit(INTERRUPTED)
        self.asked = True
        print("\nstopping after the match being played (again: at once)", file=sys.stderr, flush=True)


def table_of(args: argparse.Namespace) -> tuple[int, dict[str, Any], Budget | None, int]:
    """(players, options, explicit budget or None, sides) named by a command line's
    ``--game``, ``--players``, ``--options`` and ``--budget-*`` (the arena's and the
    ladder's)."""
    game = get_game(args.game)
    players = args.players if args.players is not None else min(game.player_counts)
    options = game.parse_options(json.loads(args.options) if args.options else None, players)
    budget = None
    if args.budget_iterations is not None or args.budget_ms is not None:
        budget = Budget(iterations=args.budget_iterations, ms=args.budget_ms)
    sides = len(game.score(game.new_state(players, options, 0, seed=0)).sides)
    return players, options, budget, sides


def play_in_order(
    play: Callable[[Task], MatchResult],
    indices: Sequence[Task],
    jobs: int,
    on_result: Callable[[MatchResult], None],
) -> bool:
    """Play the matches ``indices`` with ``play`` (picklable when ``jobs`` > 1: the matches
    then run in that many worker processes, with the same results) and hand each result to
    ``on_result`` in the order of ``indices``. Ctrl-C (SIGINT) or ``kill`` (SIGTERM) stops
    the run: returns True if it was stopped, after the results finished in order before the
    stop were handed on. With ``jobs`` 1 the stop waits for the match being played
    (:class:`StopBetweenMatches`); with more, the parent, which waits for its workers and
    searches nothing, stops at once and ends them."""
    if jobs <= 1:
        with StopBetweenMatches() as stop:
            for index in indices:
                try:
                    result = play(index)
                except KeyboardInterrupt:  # raised by a caller's own code
                    return True
                on_result(result)
                if stop.asked:
                    return True
        return False
    stopped = False
    previous = signal.signal(signal.SIGTERM, _stop)
    pool, mask = _start_workers(jobs)
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # a stop that came meanwhile lands here
        for result in pool.imap(play, indices):
            on_result(result)
    except KeyboardInterrupt:
        stopped = True
        pool.terminate()
    finally:
        signal.signal(signal.SIGTERM, previous)
    pool.close()
    pool.join()
    return stopped


def elapsed_and_left(started: float, done: int, left: int) -> str:
    """A progress line's time: seconds since ``started`` and, at the pace of the ``done``
    matches played since, about how long the ``left`` ones will take (a long series says
    early whether it fits the time it has).

    >>> elapsed_and_left(time.perf_counter() - 600, 10, 50)
    '600s, ~50 min left'
    """
    elapsed = time.perf_counter() - started
    if not done or not left:
        return f"{elapsed:.0f}s"
    return f"{elapsed:.0f}s, ~{elapsed / done * left / 60:.0f} min left"


def running_score(tally: Tally) -> str:
    """The progress line's score: A's share of the matches so far, with its 95 % interval."""
    low, high = wilson(tally.wins, tally.matches)
    return f"A {tally.wins / tally.matches:.1%} [{low:.1%}, {high:.1%}], "


def play_series(
    play: Callable[[int], MatchResult],
    indices: Sequence[int],
    jobs: int,
    label: str,
    earlier: Sequence[MatchResult] = (),
    keep: Callable[[Any, MatchResult], None] | None = None,
    blind: bool = False,
) -> Tally:
    """Play the matches ``indices`` (:func:`play_in_order`), a progress line on stderr after
    each. A stopped run's tally holds the matches finished in order before the stop and
    says ``stopped``, so a long run cut short still reports its points and iterations.
    ``earlier``: the series' matches played before ``indices`` (read from a record), which
    the tally starts with; ``keep(index, result)`` is told each match as it is added.
    ``blind``: the progress line counts the matches and the time, not the score."""
    tally = Tally()
    for result in earlier:
        tally.add(result)
    total = len(earlier) + len(indices)
    started = time.perf_counter()
    played = iter(indices)

    def add(result: MatchResult) -> None:
        if keep is not None:
            keep(next(played), result)
        tally.add(result)
        timing = elapsed_and_left(started, tally.matches - len(earlier), total - tally.matches)
        score = "" if blind else running_score(tally)
        print(
            f"\r{label}: {tally.matches}/{total} matches, {score}{timing}",
            end="",
            file=sys.stderr,
            flush=True,
        )

    tally.stopped = play_in_order(play, indices, jobs, add)
    print(" (stopped)" if tally.stopped else "", file=sys.stderr)
    return tally


def code_fingerprint(root: Path | None = None) -> str:
    """A digest of the rules' and the bots' source (every ``.py`` file under ``engine/`` and
    ``ai/``): the matches of one series, played in several runs, must come from the same
    code (a compiled build is made from these same files)."""
    root = root or Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in sorted(p for folder in ("engine", "ai") for p in (root / folder).rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


class RecordError(ValueError):
    """A record that cannot continue this run's series (another series, other code, a gap)."""


def read_record(path: Path, series: dict[str, Any]) -> dict[Any, MatchResult]:
    """The matches of ``series`` that the record at ``path`` holds, by the key that names
    each (the arena's: its index; the ladder's: its pair, deal and seating). A record is a
    JSON line per finished match, ``{"series": ..., "match": key, "result": ...}``, and holds
    one series: a line of another series (another game, level, budget, seed, options, or
    other code) is an error, not skipped. A last line cut short (the process killed while
    writing it) is dropped from the file: that match is played again."""
    series = json.loads(json.dumps(series))  # as a line reads back (tuples as lists)
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8")
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
        path.write_text(text, encoding="utf-8")
    held: dict[Any, MatchResult] = {}
    for number, line in enumerate(text.splitlines(), 1):
        try:
            entry = json.loads(line)
            recorded, key, fields = entry["series"], entry["match"], entry["result"]
            result = result_from_json(fields)
            if not isinstance(recorded, dict):
                raise TypeError("its series is not an object")
            key = tuple(key) if isinstance(key, list) else key  # as the run names it
            hash(key)
        except (ValueError, TypeError, KeyError, AttributeError) as error:
            raise RecordError(f"{path}:{number}: not a match of a record ({error})") from None
        if recorded != series:
            differ = sorted(k for k in series.keys() | recorded.keys() if series.get(k) != recorded.get(k))
            raise RecordError(f"{path}:{number}: a match of another series (differs in {', '.join(differ)})")
        held[key] = result
    return held


def result_from_json(fields: dict[str, Any]) -> MatchResult:
    """A match result as a record line holds it (``asdict``; its pairs read back as lists)."""
    values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()}
    return MatchResult(**values)


def held_prefix(held: dict[Any, MatchResult], keys: Sequence[Any]) -> list[MatchResult]:
    """The record's matches of the run's ``keys`` (in the order the run plays them), which
    must be its first ones: a series is continued in order, so that a stopped run's report,
    the groups of duplicate matches and the ladder's balance stay those of the series."""
    count = sum(1 for key in keys if key in held)
    missing = [key for key in keys[:count] if key not in held]
    if missing:
        raise RecordError(f"the record holds matches of the range after a gap (match {missing[0]} missing)")
    return [held[key] for key in keys[:count]]


def record_keeper(path: Path, series: dict[str, Any]) -> Callable[[Any, MatchResult], None]:
    """Appends each finished match (its key and result) to the record at ``path``, one line
    written at once."""

    def keep(key: Any, result: MatchResult) -> None:
        line = json.dumps({"series": series, "match": key, "result": asdict(result)}, sort_keys=True)
        with path.open("a", encoding="utf-8") as record:
            record.write(line + "\n")

    return keep


def series_of(
    args: argparse.Namespace, players: int, options: dict[str, Any], budget: Budget | None, a_note: str
) -> dict[str, Any]:
    """What makes a run's matches one series with a record's: everything that decides
    them, and the code that plays them."""
    series = {
        "game": args.game,
        "players": players,
        "options": options,
        "a": args.a + a_note,
        "b": args.b,
        "budget": None if budget is None else {"iterations": budget.iterations, "ms": budget.ms},
        "seed": args.seed,
        "duplicate": args.duplicate,
        "code": code_fingerprint(),
    }
    return series


def main(
    argv: Sequence[str] | None = None,
    *,
    decide_a: Decider = fair_decider,
    a_note: str = "",
    prog: str = "python -m ai.arena",
    description: str | None = None,
) -> int:
    """The command line. A measuring stick built on the arena (bench/clairvoyant_bound.py)
    passes its own ``decide_a`` (a module-level function: ``--jobs`` pickles it) and says
    what it does in ``a_note``."""
    parser = argparse.ArgumentParser(prog=prog, description=description or __doc__.splitlines()[0])
    parser.add_argument("--game", required=True)
    parser.add_argument("--a", default="normal", choices=ARENA_LEVELS)
    parser.add_argument("--b", default="easy", choices=ARENA_LEVELS)
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
    parser.add_argument(
        "--duplicate",
        action="store_true",
        help="each group of (sides) matches deals the same cards, A holding each side's once",
    )
    parser.add_argument(
        "--record",
        type=Path,
        default=None,
        help="a file (JSON lines) that keeps each finished match; a run given it plays only the "
        "matches of its range the record lacks and reports them all (a series over several runs)",
    )
    parser.add_argument(
        "--blind",
        action="store_true",
        help="no score until the whole range is played: the progress line and the report of a "
        "run that stops short say only how many matches are done (a declared series in parts)",
    )
    args = parser.parse_args(argv)

    players, options, budget, sides = table_of(args)
    if args.duplicate and (args.first % sides or args.matches % sides):
        parser.error(
            f"--duplicate plays groups of {sides} matches: --first and --matches must be multiples of {sides}"
        )
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
        decide_a,
        duplicate=args.duplicate,
    )
    indices = range(args.first, args.first + args.matches)
    earlier: list[MatchResult] = []
    keep = None
    if args.record is not None:
        series = series_of(args, players, options, budget, a_note)
        try:
            earlier = held_prefix(read_record(args.record, series), list(indices))
        except RecordError as error:
            parser.error(str(error))
        keep = record_keeper(args.record, series)
    label = f"{args.game} {args.a}{a_note} v {args.b}"
    tally = play_series(play, indices[len(earlier) :], args.jobs, label, earlier, keep, args.blind)
    budget_text = f"iterations={budget.iterations} ms={budget.ms}" if budget is not None else "level default"
    print(f"game {args.game}, players {players}, options {json.dumps(options, sort_keys=True)}")
    played = f"matches {indices.start}-{indices.stop - 1}"
    if tally.stopped:
        done = f"{indices.start}-{indices.start + tally.matches - 1}" if tally.matches else "none"
        played = f"{played}, stopped: {done} played"
    if earlier:
        played = f"{played} ({len(earlier)} of them from the record {args.record})"
    dealt = ", duplicate" if args.duplicate else ""
    print(f"A = {args.a}{a_note}, B = {args.b}, budget {budget_text}, seed {args.seed}{dealt}, {played}")
    print(
        f"matches {tally.matches}, deals {tally.deals}, decisions {tally.decisions}, "
        f"{time.perf_counter() - started:.1f}s"
    )
    if args.blind and tally.matches < len(indices):
        print(f"--blind: no score before the whole range is played ({tally.matches} of {len(indices)})")
    elif tally.matches:
        print("\n".join(tally.report(sides, args.duplicate)))
    return INTERRUPTED if tally.stopped else 0


if __name__ == "__main__":
    raise SystemExit(main())
