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
