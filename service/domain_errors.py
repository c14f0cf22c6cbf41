"""The refusals of the domain (sessions, jobs, reviews, webhooks), without Flask.

Each is an :class:`ApiError`: a status, a code, a message and details, which
service/errors.py (the one place) turns into a problem document; the domain raises and
catches them by name (``UnknownSession``, ``StaleVersion``, ...), so a Celery task plays a
bot without an HTTP request or an app context to answer through."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """An error answered with ``status`` and ``code`` (service/errors.py writes the problem
    document: the HTTP layer raises it directly for a request's own mistakes)."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details or {}
        self.headers = headers or {}  # e.g. Retry-After and RateLimit-* of a refusal


class UnknownSession(ApiError):
    """No such session: never issued, or expired."""

    def __init__(self, session_id: str) -> None:
        super().__init__(404, "unknown_session", f"no session {session_id!r} (unknown, or expired)")


class StaleVersion(ApiError):
    """The session is not at the version the move (or hand-over) was made for."""

    def __init__(self, current: int, expected: int) -> None:
        super().__init__(
            409,
            "stale_version",
            f"the session is at version {current}, not {expected}: reload it and retry",
            {"version": current, "expected_version": expected},
        )


class SessionEnded(ApiError):
    """The session has ended (its people were silent too long): it takes no more moves."""

    def __init__(self, session_id: str, version: int) -> None:
        super().__init__(
            409,
            "session_ended",
            f"session {session_id} has ended (its people were silent too long): it takes no more moves",
            {"version": version},
        )


class SeatClaimed(ApiError):
    """A bot's move for a seat its person has claimed back meanwhile."""

    def __init__(self, seat: int, version: int) -> None:
        super().__init__(
            409,
            "seat_claimed",
            f"seat {seat} is played by its person again: the bot's move was not applied",
            {"seat": seat, "version": version},
        )


class QueueUnreachable(ApiError):
    """The job queue (Redis, the broker) could not take the task; raised from the broker's
    error, which service/errors.py keeps out of the answer."""

    def __init__(self, message: str = "the job queue is unreachable") -> None:
        super().__init__(503, "unavailable", message, {"dependency": "redis"})


class TooManyDecisions(ApiError):
    """A review asked to search more decisions than it may."""

    def __init__(self, most: int, decisions: int) -> None:
        super().__init__(
            422, "too_many_decisions", f"a review searches at most {most} decisions", {"decisions": decisions}
        )


class InvalidCallback(ApiError):
    """A session's ``callback_url`` this server will not call."""

    def __init__(self, why: str) -> None:
        super().__init__(422, "invalid_callback", f"callback_url {why}", {"field": "callback_url"})


SESSION_MOVED_ON = (StaleVersion, SessionEnded, SeatClaimed)
"""What a bot's search learns when its move lands too late: the session moved on."""
