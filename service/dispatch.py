"""Sending work to the workers, and the numbers every job and deal is seeded with.

The domain modules (sessions, review, webhooks, the deal-end hold) queue their tasks
here; the HTTP layer (service/api/) uses the same function, never the other way round."""

from __future__ import annotations

import secrets
from typing import Any

from flask import current_app

from service.queues import ROUTES

JSON_SAFE_INT = 2**53
"""Every integer the service writes stays below this: a client that reads JSON numbers as
doubles (JavaScript's ``JSON.parse``) would round a larger one."""


def new_seed() -> int:
    """A fresh seed for a search or a deal, exact in any JSON reader."""
    return secrets.randbits(53)


def send_task(name: str, args: tuple[Any, ...], **options: Any) -> None:
    """Send with this app's own Celery (not the process default: a process may hold
    several apps, e.g. in tests), without publish retries (a dead Redis fails fast).
    ``options`` may name another ``queue`` than the task's route."""
    celery = current_app.extensions["celery"]
    celery.send_task(name, args, retry=False, **{**ROUTES[name], **options})
