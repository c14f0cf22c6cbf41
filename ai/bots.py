"""Bots for every game: one entry point, :func:`decide`, and root-parallel helpers.

Levels:

* ``random``: a seeded uniformly random legal action;
* ``easy``: the game's heuristic policy (:mod:`ai.policies`), a generic greedy one if the
  game has none;
* ``normal``: ISMCTS with a budget of 2,000 iterations;
* ``hard``: ISMCTS with 20,000 iterations (in Trex it also searches the contract choice and
  the doubles, which normal takes from the policy: a game's root candidates name their levels).

A level's budget is iterations, so that a bot is as strong on a busy host as on a quiet
one: its time cap counts the searching thread's CPU time (``Budget.cpu``), which a busy
host does not take away, and only protects the service from a pathological search; the
caller's ``max_ms`` still bounds the wall time. ``stats["cut_short"]`` says when a cap
stopped a search before its iterations were done.

The searching levels use the easy policy as a tie-breaker: when the policy's action has a
mean reward within one rough standard error of the most visited action's, the policy's
action is played (``stats["chosen_by"]`` says which). The search alone cannot separate
actions closer than its noise, and the policy encodes what it cannot see in time.

A bot sees only a view (``view["seat"]`` is the seat to act): hidden cards are sampled
with ``game.sampler(view)``. A caller holding a full state converts it first with
``game.view(state, seat)``.

Root parallelism: several workers each run :func:`search_root` on the same view with
different seeds; :func:`merge_root_stats` adds their per-action visits and rewards and
:func:`best_action` picks the most visited action. :class:`RootStats` is plain JSON.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from ai import ismcts, policies
from engine.protocol import Game, IllegalAction, InvalidState, NotYourTurn

RootStats = dict[str, Any]
"""``{"game", "seat", "iterations", "elapsed_ms", "seeds": [...], "actions":
[{"action": <json>, "visits": n, "total": w}, ...]}`` (root actions in canonical order)."""

LEVELS = ("random", "easy", "normal", "hard")


@dataclass(frozen=True)
class Budget:
    """A search budget: iterations and/or milliseconds (whichever runs out first).

    ``ms`` is wall time, unless ``cpu``: then it counts the searching thread's CPU time,
    which other processes on the host do not use up (the levels' budgets)."""

    iterations: int | None = None
    ms: float | None = None
    cpu: bool = False

    def to_json(self) -> dict[str, Any]:
        """The budget as the statistics and the job payloads show it."""
        return {"iterations": self.iterations, "ms": self.ms, "cpu": self.cpu}


LEVEL_BUDGETS: dict[str, Budget] = {
    # CPU caps well above what the iterations cost compiled (normal: under 0.2 s in every
    # game), hard's at the service's inline limit (3 s) so that its move may stay inline
    "normal": Budget(iterations=2_000, ms=1_000.0, cpu=True),
    "hard": Budget(iterations=20_000, ms=3_000.0, cpu=True),
}
"""The default budget of each searching level (an explicit budget replaces it)."""

HARD_MEASURED_ABOVE_NORMAL = frozenset({"baloot", "porrazo"})
"""The games where ``hard`` beat ``normal`` in the arena at fresh series: Baloot 0.613 over
150 duplicate matches, interval over the 75 pairs [0.553, 0.674] (series 8116; before it
0.662 over 71, 0.650 over 100); Porrazo 0.580 over 150 duplicate matches, interval over the
75 pairs [0.521, 0.639] (series 8112, on the threshold its declaration set). Elsewhere it
did not (Ronda 0.520 over 150 duplicate matches, interval over the 75 pairs [0.473, 0.567],
series 8129; Marriage 0.52; docs/bots.md, "Hard v normal"), or not by issue 32's
0.58, the bar each series' declaration set (Trex 0.579 pairwise over 152 duplicate matches,
interval over the 38 groups [0.532, 0.626], series 8128): a level that does not beat the
one below it is not offered as a higher level."""


def offered_levels(game_id: str) -> tuple[str, ...]:
    """The bot levels a table of ``game_id`` offers its players, weakest first, each one
    measured above the one below it. Every level of :data:`LEVELS` is still accepted by a
    request (``hard`` elsewhere is a longer search, for hints and analysis, not a stronger
    opponent)."""
    return LEVELS if game_id in HARD_MEASURED_ABOVE_NORMAL else tuple(lv for lv in LEVELS if lv != "hard")


def level_sampler(game: Game[Any], view: dict[str, Any], level: str) -> Callable[[random.Random], Any]:
    """The worlds a bot of ``level`` searches: the game's inference's for a level that uses
    one (``policies.INFERENCES``: Ronda's searching levels take declarations at their
    word), else ``game.sampler(view)``, which validates the view (an inference says
    nothing, None, for a view it cannot read, so a bad view is refused here)."""
    inferred = policies.inferred_sampler(game, view, level)
    return inferred if inferred is not None else game.sampler(view)


@dataclass
class Decision:
    """A bot's move: the game's internal action and JSON-ready search statistics."""

    action: Hashable
    stats: dict[str, Any]


def _check_view(game: Game[Any], view: Any) -> int:
    """The seat of ``view`` after checking that it is a view whose seat is to act."""
    if not isinstance(view, dict):
        raise InvalidState("a view must be an object", field="view")
    seat = view.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise InvalidState("the view has no seat", field="view.seat")
    to_act = view.get("to_act")
    if to_act is None:
        raise IllegalAction("match is over", rule="match_over")
    if to_act != seat:
        raise NotYourTurn(f"not your turn: seat {to_act} is to act", rule="turn")
    return seat


def clip_budget(budget: Budget, max_iterations: int, max_ms: float) -> Budget:
    """``budget`` with each limit capped by the maxima; a budget without any limit gets ``max_ms``."""
    iterations = budget.iterations
    ms = budget.ms
    if iterations is not None:
        iterations = max(0, min(int(iterations), max_iterations))
    if ms is not None:
        ms = max(0.0, min(float(ms), max_ms))
    if iterations is None and ms is None:
        ms = max_ms
    elif ms is None:
        ms = max_ms  # an iteration budget is still bounded in time
    return Budget(iterations=iterations, ms=ms, cpu=budget.cpu)


def search_limits(
    budget: Budget,
    max_ms: float,
    clock: Callable[[], float],
    cpu_clock: Callable[[], float],
    should_stop: Callable[[], bool] | None,
) -> tuple[Callable[[], float], Callable[[], bool] | None]:
    """(the clock that ``budget.ms`` counts, the stop to check before each iteration).
    A CPU budget counts ``cpu_clock`` and stops on ``max_ms`` of wall time as well: the
    service's own bound, whatever the host's load."""
    if not budget.cpu:
        return clock, should_stop
    wall_deadline = clock() + max_ms / 1000.0

    def stop() -> bool:
        return clock() >= wall_deadline or (should_stop is not None and should_stop())

    return cpu_clock, stop


def cut_short(budget: Budget, iterations: int) -> bool:
    """True when a cap (time, or a stop) ended a search before its budget's iterations."""
    return budget.iterations is not None and iterations < budget.iterations


def _within_noise(result: ismcts.SearchResult, candidate: int, best: int) -> bool:
    """True when the search cannot tell ``candidate`` from ``best``: its mean reward is
    within one rough standard error (0.5 / sqrt(visits of the best)) of the best's."""
    n_best = result.visits[best]
    n_cand = result.visits[candidate]
    if not n_best or not n_cand:
        return False
    best_mean = result.totals[best] / n_best
    cand_mean = result.totals[candidate] / n_cand
    return cand_mean >= best_mean - 0.5 / math.sqrt(n_best)


def _search(
    game: Game[Any],
    view: dict[str, Any],
    rng: random.Random,
    sample: Callable[[random.Random], Any],
    budget: Budget,
    candidates: list[Hashable] | None,
    should_stop: Callable[[], bool] | None,
    clock: Callable[[], float],
) -> ismcts.SearchResult:
    """The searching levels' ISMCTS, one call for :func:`decide` and :func:`search_root`
    alike (so that a root-parallel search is the same search split over workers): the
    game's playout hook and root candidates, within ``budget``."""
    return ismcts.search(
        game,
        view,
        rng,
        iterations=budget.iterations,
        ms=budget.ms,
        playout=policies.playout_policy(game),
        should_stop=should_stop,
        clock=clock,
        sampler=sample,
        root_candidates=candidates,
    )


def _action_json(game: Game[Any], world: Any, action: Hashable) -> Any:
    return game.action_to_json(world, action)


def decide(
    game: Game[Any],
    view: dict[str, Any],
    *,
    level: str = "normal",
    budget: Budget | None = None,
    seed: int = 0,
    max_iterations: int = 200_000,
    max_ms: float = 10_000,
    should_stop: Callable[[], bool] | None = None,
    clock: Callable[[], float] = time.perf_counter,
    cpu_clock: Callable[[], float] = time.thread_time,
) -> Decision:
    """The action of the seat ``view["seat"]`` (which must be to act) at ``level``.

    The bot sees only the view (it samples hidden cards with ``game.sampler(view)``).
    An explicit ``budget`` replaces the level's; every budget is capped by
    ``max_iterations`` / ``max_ms``. Returns at once (0 iterations) when only one action
    is legal. Raises InvalidState for a bad view, NotYourTurn / IllegalAction when the
    seat cannot act, ValueError for an unknown level."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; levels: {', '.join(LEVELS)}")
    seat = _check_view(game, view)
    start = clock()
    rng = random.Random(seed)
    sample = level_sampler(game, view, level)
    world = sample(rng)
    actions = game.legal_actions(world)
    if not actions:
        raise IllegalAction("the state waits for a caller's deal: a bot cannot deal", rule="deal_over")
    stats: dict[str, Any] = {"level": level, "seed": seed, "iterations": 0}
    if len(actions) == 1 or level in ("random", "easy"):
        if len(actions) == 1:
            action = actions[0]
        elif level == "random":
            action = actions[int(rng.random() * len(actions))]
        else:
            action = policies.choose(game, world, seat, rng)
        stats["elapsed_ms"] = round((clock() - start) * 1000.0, 3)
        stats["actions"] = [
            {"action": _action_json(game, world, a), "visits": 0, "mean": None} for a in actions
        ]
        return Decision(action=action, stats=stats)
    chosen = clip_budget(budget if budget is not None else LEVEL_BUDGETS[level], max_iterations, max_ms)
    candidates = policies.search_candidates(game, world, seat, level)
    if candidates is not None and len(candidates) == 1:
        # the game searches only some decisions (Trex, Marriage): the policy takes this one
        stats["chosen_by"] = "policy"
        stats["elapsed_ms"] = round((clock() - start) * 1000.0, 3)
        stats["budget"] = chosen.to_json()
        stats["actions"] = [
            {"action": _action_json(game, world, a), "visits": 0, "mean": None} for a in actions
        ]
        return Decision(action=candidates[0], stats=stats)
    search_clock, stop = search_limits(chosen, max_ms, clock, cpu_clock, should_stop)
    result = _search(game, view, rng, sample, chosen, candidates, stop, search_clock)
    best = result.best_index()
    chosen_by = "search"
    if result.iterations:
        hint = policies.choose(game, world, seat, random.Random(seed))
        if hint in result.actions:
            index = result.actions.index(hint)
            if index != best and _within_noise(result, index, best):
                best, chosen_by = index, "policy"
    stats["chosen_by"] = chosen_by
    stats["iterations"] = result.iterations
    stats["cut_short"] = cut_short(chosen, result.iterations)
    stats["elapsed_ms"] = round((clock() - start) * 1000.0, 3)
    stats["budget"] = chosen.to_json()
    stats["actions"] = [
        {
            "action": _action_json(game, result.world, a),
            "visits": n,
            "mean": round(w / n, 6) if n else None,
        }
        for a, n, w in zip(result.actions, result.visits, result.totals, strict=True)
    ]
    return Decision(action=result.actions[best], stats=stats)


# --------------------------------------------------------------------------- root parallel


def search_root(
    game: Game[Any],
    view: dict[str, Any],
    budget: Budget,
    seed: int,
    *,
    max_iterations: int = 200_000,
    max_ms: float = 10_000,
    should_stop: Callable[[], bool] | None = None,
    clock: Callable[[], float] = time.perf_counter,
    cpu_clock: Callable[[], float] = time.thread_time,
    level: str = "normal",
) -> RootStats:
    """One worker's share of a root-parallel search at ``level`` (its worlds: see
    :func:`level_sampler`): ISMCTS from ``view`` with ``seed``, returning plain-JSON root
    statistics (per root action: visits and total reward)."""
    seat = _check_view(game, view)
    start = clock()
    chosen = clip_budget(budget, max_iterations, max_ms)
    rng = random.Random(seed)
    sample = level_sampler(game, view, level)
    candidates = policies.search_candidates(game, sample(random.Random(seed)), seat, level)
    search_clock, stop = search_limits(chosen, max_ms, clock, cpu_clock, should_stop)
    result = _search(game, view, rng, sample, chosen, candidates, stop, search_clock)
    return {
        "game": game.id,
        "seat": seat,
        "iterations": result.iterations,
        "cut_short": cut_short(chosen, result.iterations),
        "elapsed_ms": round((clock() - start) * 1000.0, 3),
        "seeds": [seed],
        "actions": [
            {"action": _action_json(game, result.world, a), "visits": n, "total": w}
            for a, n, w in zip(result.actions, result.visits, result.totals, strict=True)
        ],
    }


def _key(action_json: Any) -> str:
    return json.dumps(action_json, sort_keys=True)


def merge_root_stats(parts: list[RootStats]) -> RootStats:
    """Add several workers' root statistics (same game, seat and view) into one.
    Actions keep the first part's order; ``elapsed_ms`` is the slowest worker's."""
    if not parts:
        raise ValueError("nothing to merge")
    first = parts[0]
    merged: dict[str, dict[str, Any]] = {}
    for part in parts:
        if part.get("game") != first.get("game") or part.get("seat") != first.get("seat"):
            raise ValueError("root stats of different games or seats cannot be merged")
        for entry in part["actions"]:
            key = _key(entry["action"])
            slot = merged.get(key)
            if slot is None:
                merged[key] = {"action": entry["action"], "visits": entry["visits"], "total": entry["total"]}
            else:
                slot["visits"] += entry["visits"]
                slot["total"] += entry["total"]
    return {
        "game": first.get("game"),
        "seat": first.get("seat"),
        "iterations": sum(p["iterations"] for p in parts),
        "cut_short": any(p.get("cut_short", False) for p in parts),
        "elapsed_ms": max(p["elapsed_ms"] for p in parts),
        "seeds": [s for p in parts for s in p.get("seeds", [])],
        "actions": list(merged.values()),
    }


def best_action(stats: RootStats) -> Any:
    """The JSON action with the most visits (ties: higher mean, then listed order).
    Convert it with ``game.parse_action(state, action)``."""
    best = None
    best_key = (-1, -1.0)
    for entry in stats["actions"]:
        n = entry["visits"]
        key = (n, entry["total"] / n if n else 0.0)
        if key > best_key:
            best, best_key = entry["action"], key
    if best is None:
        raise ValueError("root stats without actions")
    return best
