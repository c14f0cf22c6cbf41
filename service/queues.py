"""The task queues, the routes of the tasks to them and the tasks' time limits.

Plain settings the domain (sessions, jobs, webhooks, the dispatch of tasks) and the worker
app (:mod:`service.celery_app`, which explains the pools) both use; this module imports
nothing of the service, so the worker app may import the domain without a circle."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SEARCH_QUEUE = "search"
SESSIONS_QUEUE = "sessions"
TIMERS_QUEUE = "timers"
WEBHOOKS_QUEUE = "webhooks"
ALL_QUEUES = (SESSIONS_QUEUE, TIMERS_QUEUE, SEARCH_QUEUE, WEBHOOKS_QUEUE)
# The levels whose session turns the interactive pool plays (their budget costs well under
# a second of CPU compiled); a session's seat of any other level (hard: 20,000 iterations)
# plays its turns on the search pool, so that its seconds never hold up every table's
# quick turns (issue 32: a session's hard seat was cut to the interactive bound before).
INTERACTIVE_LEVELS = ("random", "easy", "normal")
ROUTES = {
    "majlis.search_part": {"queue": SEARCH_QUEUE},
    "majlis.session_bot_turn": {"queue": SESSIONS_QUEUE},
    "majlis.session_turn_timeout": {"queue": TIMERS_QUEUE},
    "majlis.review_part": {"queue": SEARCH_QUEUE},
    "majlis.webhook_delivery": {"queue": WEBHOOKS_QUEUE},
}


def search_queue(payload: dict[str, Any], config: Mapping[str, Any]) -> str:
    """The queue of a search job's parts: ``sessions`` (interactive) for a budget a request
    could have searched inline (it went to the workers because the web process's inline
    slots were busy), else ``search``: a small search never waits behind long ones."""
    from ai.bots import LEVEL_BUDGETS

    budget = payload.get("budget") or {}
    default = LEVEL_BUDGETS.get(payload.get("level", ""))
    iterations = budget.get("iterations", default.iterations if default else None)
    ms = budget.get("ms", default.ms if default else None)
    small = (
        int(payload.get("parts", 1)) == 1
        and (iterations is not None or ms is not None)
        and (iterations is None or iterations <= int(config["ASYNC_ITERATIONS"]))
        and (ms is None or ms <= float(config["ASYNC_MS"]))
    )
    return SESSIONS_QUEUE if small else SEARCH_QUEUE


def bot_turn_queue(level: str) -> str:
    """The queue of a session's bot turn for a seat of ``level``."""
    return SESSIONS_QUEUE if level in INTERACTIVE_LEVELS else SEARCH_QUEUE


def bot_turn_bound(level: str, config: Mapping[str, Any]) -> float:
    """The wall-clock bound (ms) of a session bot's search at ``level``: a bound that only
    protects the pool that plays it (``SESSION_BOT_MS`` on the interactive pool,
    ``BOT_MAX_MS`` on the search pool). The level's own budget (iterations, and a cap in
    the searching thread's CPU time: ai.bots.LEVEL_BUDGETS) is what a loaded host still
    completes; ``stats.cut_short`` says when a bound cut a search short. Either stays a
    second inside the tasks' soft time limit, whose exception would land inside the
    (compiled) search rather than let it answer."""
    wanted = config["SESSION_BOT_MS"] if bot_turn_queue(level) == SESSIONS_QUEUE else config["BOT_MAX_MS"]
    soft, _hard = time_limits(config)
    return min(float(wanted), max(500.0, (soft - 1.0) * 1000.0))


def time_limits(config: Mapping[str, Any]) -> tuple[float, float]:
    """(soft, hard) time limit of a task in seconds; the hard one at least 1 s later."""
    soft = float(config.get("SEARCH_SOFT_LIMIT", 30.0))
    return soft, max(float(config.get("SEARCH_HARD_LIMIT", 45.0)), soft + 1.0)


def visibility_timeout(config: Mapping[str, Any]) -> float:
    """Seconds after its delivery when a task not yet acknowledged is given to another
    worker. Above the hard limit: a task still running when it passes would run twice."""
    _soft, hard = time_limits(config)
    wanted = config.get("BROKER_VISIBILITY_TIMEOUT")
    return max(float(wanted), hard + 5.0) if wanted else hard + 15.0
