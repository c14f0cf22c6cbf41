"""The refusals of the domain (sessions, jobs, reviews, webhooks, quotas, streams, Redis),
without Flask and without HTTP.

Each is a :class:`DomainError`: a code, a message and details (what a client is told),
plus, for a refusal that passes, how long until it may (``retry_after``). The HTTP status
and headers of each are decided in one place, service/errors.py (``DOMAIN_STATUS``), which
turns them into problem documents; the domain raises and catches them by name
(``UnknownSession``, ``StaleVersion``, ...), so a Celery task plays a bot without an HTTP
request or an app context to answer through."""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    """A refusal of the domain: ``code``, ``message`` and ``details`` for the client;
    ``retry_after``: seconds until it may pass (None: not a matter of time)."""

    retry_after: int | None = None

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}


class NotFound(DomainError):
    """No such thing (a session, a job): never issued, or expired."""


class UnknownSession(NotFound):
    """No such session: never issued, or expired."""

    def __init__(self, session_id: str) -> None:
        super().__init__("unknown_session", f"no session {session_id!r} (unknown, or expired)")


class StaleVersion(DomainError):
    """The session is not at the version the move (or hand-over) was made for."""

    def __init__(self, current: int, expected: int) -> None:
        super().__init__(
            "stale_version",
            f"the session is at version {current}, not {expected}: reload it and retry",
            {"version": current, "expected_version": expected},
        )


class SessionEnded(DomainError):
    """The session has ended (its people were silent too long): it takes no more moves."""

    def __init__(self, session_id: str, version: int) -> None:
        super().__init__(
            "session_ended",
            f"session {session_id} has ended (its people were silent too long): it takes no more moves",
            {"version": version},
        )


class SeatClaimed(DomainError):
    """A bot's move for a seat its person has claimed back meanwhile."""

    def __init__(self, seat: int, version: int) -> None:
        super().__init__(
            "seat_claimed",
            f"seat {seat} is played by its person again: the bot's move was not applied",
            {"seat": seat, "version": version},
        )


class Unavailable(DomainError):
    """A dependency (Redis, the broker) cannot serve now."""


class QueueUnreachable(Unavailable):
    """The job queue (Redis, the broker) could not take the task; raised from the broker's
    error, which service/errors.py keeps out of the answer."""

    def __init__(self, message: str = "the job queue is unreachable") -> None:
        super().__init__("unavailable", message, {"dependency": "redis"})


class RedisUnavailable(Unavailable):
    """A deployment without Redis: ``why`` is the operator's own setting, no internal text."""

    retry_after = 5

    def __init__(self, why: str) -> None:
        super().__init__("unavailable", f"Redis is unreachable: {why}", {"dependency": "redis"})


class StreamsFull(Unavailable):
    """This stream server holds as many streams as it allows (others end all the time)."""

    def __init__(self, most: int, retry_after: int) -> None:
        super().__init__(
            "streams_full",
            f"this stream server holds as many streams as it allows ({most})",
            {"retry_after": retry_after},
        )
        self.retry_after = retry_after


class StorageFull(DomainError):
    """Redis is nearly full: no new sessions or jobs for now."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(
            "storage_full",
            "the service is short of storage: no new sessions or jobs for now",
            {"retry_after": retry_after},
        )
        self.retry_after = retry_after


class QuotaExceeded(DomainError):
    """Over one of a client's quotas (service/quotas.py): the quota's name, limit and
    retry_after as members; ``limit`` and ``retry_after`` give the RateLimit-* headers."""

    def __init__(self, quota: str, limit: int, reset: int, what: str) -> None:
        super().__init__(
            "quota_exceeded",
            f"over this client's quota of {limit} {what}: retry in {reset} s",
            {"quota": quota, "limit": limit, "retry_after": reset},
        )
        self.quota, self.limit = quota, limit
        self.retry_after = reset


class Invalid(DomainError):
    """A request the domain refuses as it stands (a field's value)."""


class TooManyDecisions(Invalid):
    """A review asked to search more decisions than it may."""

    def __init__(self, most: int, decisions: int) -> None:
        super().__init__(
            "too_many_decisions", f"a review searches at most {most} decisions", {"decisions": decisions}
        )


class InvalidCallback(Invalid):
    """A session's ``callback_url`` this server will not call."""

    def __init__(self, why: str) -> None:
        super().__init__("invalid_callback", f"callback_url {why}", {"field": "callback_url"})


SESSION_MOVED_ON = (StaleVersion, SessionEnded, SeatClaimed)
"""What a bot's search learns when its move lands too late: the session moved on."""
