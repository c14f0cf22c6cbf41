"""The numbers every job and deal is seeded with (tasks are sent through the process's
:class:`service.runtime.Runtime`: ``runtime.send_task``)."""

from __future__ import annotations

import secrets

JSON_SAFE_INT = 2**53
"""Every integer the service writes stays below this: a client that reads JSON numbers as
doubles (JavaScript's ``JSON.parse``) would round a larger one."""


def new_seed() -> int:
    """A fresh seed for a search or a deal, exact in any JSON reader."""
    return secrets.randbits(53)
