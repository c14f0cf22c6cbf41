"""The service's errors as exceptions: one class per error code.

Every error the service answers is RFC 9457 problem details (``application/problem+json``:
``type``, ``title``, ``status``, ``detail``, ``instance``, ``code`` and the error's details
as further members) with a 4xx (or 5xx) status; a server set to the deprecated legacy
format answers ``{"error": {"code", "message", "details"}}``, read the same way.
:func:`error_from_response` turns either into the class of its code
(:data:`ERROR_CLASSES`); a code this client does not know yet gets the class of its HTTP
status (:data:`STATUS_CLASSES`), so ``except Conflict`` still catches a new 409.

The details a caller acts on are attributes of every :class:`ApiError` (``None`` when
the answer has none): ``field``, ``fields``, ``allowed``, ``rule``, ``reason``,
``legal_actions``, ``to_act``, ``version`` and ``retry_after``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


class MajlisError(Exception):
    """Base of every error this client raises."""


class TransportError(MajlisError):
    """The service could not be reached, or the connection broke (no HTTP answer)."""


class WaitTimeout(MajlisError):
    """A job, or the turn of a seat, did not come within the time given."""


class JobFailed(MajlisError):
    """A job ended ``failed``; ``job`` is its last status (``job.error`` says why)."""

    def __init__(self, job: Any) -> None:
        super().__init__(f"job {job.id} failed: {job.error}")
        self.job = job


class ApiError(MajlisError):
    """An error answered by the service: ``status``, ``code``, ``message``, ``details``."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details: dict[str, Any] = dict(details or {})
        self.headers: dict[str, str] = {k.lower(): v for k, v in (headers or {}).items()}

    @property
    def request_id(self) -> str | None:
        """The ``X-Request-ID`` of the answer: every server log line of the request has it."""
        return self.headers.get("x-request-id")

    @property
    def field(self) -> str | None:
        """The field at fault (invalid_setup, invalid_state, invalid_action, wrong_seat)."""
        return self.details.get("field")

    @property
    def fields(self) -> dict[str, str] | None:
        """invalid_request: each field of the wrong shape -> what is wrong with it."""
        return self.details.get("fields")

    @property
    def allowed(self) -> list[Any] | None:
        """invalid_setup of ``players``: the counts the game allows."""
        return self.details.get("allowed")

    @property
    def rule(self) -> str | None:
        """illegal_move: the rule id in the game's rules (``docs/rules/<game>.md``)."""
        return self.details.get("rule")

    @property
    def reason(self) -> str | None:
        """illegal_move: why, in words a player understands."""
        return self.details.get("reason")

    @property
    def legal_actions(self) -> list[dict[str, Any]] | None:
        """illegal_move: what the seat to act may do instead."""
        return self.details.get("legal_actions")

    @property
    def to_act(self) -> int | None:
        """illegal_move: the seat to act."""
        return self.details.get("to_act")

    @property
    def version(self) -> int | None:
        """stale_version, seat_claimed: the session's current version."""
        return self.details.get("version")

    @property
    def retry_after(self) -> float | None:
        """rate_limited: seconds to wait (the ``Retry-After`` header, else the details)."""
        raw = self.headers.get("retry-after", self.details.get("retry_after"))
        try:
            return float(raw) if raw is not None else None
        except ValueError:
            return None


# ------------------------------------------------------------------- by HTTP status


class BadRequest(ApiError):
    """400: the request could not be read."""


class Unauthorized(ApiError):
    """401: no or unknown seat token; no or unknown API key."""


class Forbidden(ApiError):
    """403: the credentials do not allow this (a token acting for another seat)."""


class NotFound(ApiError):
    """404: no such game, session, job or path."""


class MethodNotAllowed(ApiError):
    """405."""


class Conflict(ApiError):
    """409: the session moved on meanwhile."""


class RequestTooLarge(ApiError):
    """413: a body over the server's limit."""


class UriTooLong(ApiError):
    """414."""


class UnsupportedMediaType(ApiError):
    """415: the body is not sent as JSON."""


class ExpectationFailed(ApiError):
    """417."""


class Unprocessable(ApiError):
    """422: read, but not acceptable (shape, setup, state, action or a rule)."""


class RateLimited(ApiError):
    """429: over the API key's rate limit; ``retry_after`` gives the seconds to wait."""


class HeadersTooLarge(ApiError):
    """431."""


class ServerError(ApiError):
    """5xx."""


# ------------------------------------------------------------------- by code


class InvalidJson(BadRequest):
    """400 invalid_json: the body is not valid JSON (``details.reason`` says where)."""


class MalformedRequest(BadRequest):
    """400 malformed_request: the body could not be read (bad framing)."""


class UnknownGame(NotFound):
    """404 unknown_game."""


class UnknownSession(NotFound):
    """404 unknown_session: no such session, or it expired."""


class UnknownJob(NotFound):
    """404 unknown_job: no such job, or it expired."""


class RulesNotInstalled(NotFound):
    """404 rules_not_installed: the server has no copy of the game's rules reference."""


class UnknownReview(NotFound):
    """404 unknown_review: no finished review of that scope in the session (yet)."""


class ReviewRefused(Forbidden):
    """403 review_refused: during the match a token reviews only its own seat."""


class StaleVersion(Conflict):
    """409 stale_version: the session is at ``version``, not the ``expected_version`` sent.

    Reload the session (its legal actions may have changed) and decide again; see
    :meth:`majlis_client.SessionClient.play`, which does so."""


class SeatClaimed(Conflict):
    """409 seat_claimed: the seat was claimed back by its person; the bot's move was not applied."""


class SessionEnded(Conflict):
    """409 session_ended: the service ended the session (e.g. its people were all silent
    too long); it takes no more moves. ``GET`` the session for ``ended.reason``."""


class InvalidRequest(Unprocessable):
    """422 invalid_request: a field of the wrong shape (``fields`` maps each to what is wrong)."""


class InvalidSetup(Unprocessable):
    """422 invalid_setup: players, options, dealer or deck not acceptable (``field``, ``allowed``)."""


class InvalidState(Unprocessable):
    """422 invalid_state: not a consistent state, view or layout of the game (``field``)."""


class InvalidAction(Unprocessable):
    """422 invalid_action: an action the game cannot read (``field``)."""


class InvalidCallback(Unprocessable):
    """422 invalid_callback: a ``callback_url`` the service may not call (``field``)."""


class TooManyDecisions(Unprocessable):
    """422 too_many_decisions: a review longer than the server searches (``details.decisions``)."""


class IllegalMove(Unprocessable):
    """422 illegal_move: well formed but against a rule (``rule``, ``reason``,
    ``legal_actions``, ``to_act``)."""


class NotYourTurn(IllegalMove):
    """422 not_your_turn: a seat other than the one to act."""


class WrongSeat(Unprocessable):
    """422 wrong_seat: a seat not at the table, or a view of another seat."""


class Busy(RateLimited):
    """429 busy: the server runs as many searches as it allows (a hint); retry after ``retry_after``."""


class QuotaExceeded(RateLimited):
    """429 quota_exceeded: this client holds as many of something (sessions, streams,
    spectators, jobs, hints) as the server allows; ``retry_after`` gives the seconds, and
    the details name the ``quota`` and its ``limit``."""


class StreamsFull(ServerError):
    """503 streams_full: the stream server holds as many streams as it allows; retry after
    ``retry_after``."""


class StorageFull(ServerError):
    """507 storage_full: the server's store is nearly full and takes no new sessions or
    jobs for now; retry after ``retry_after``."""


class InternalError(ServerError):
    """500 internal_error (a bug of the server: it logs the request id)."""


class ServerNotImplemented(ServerError):
    """501 not_implemented."""


class Unavailable(ServerError):
    """503 unavailable: a dependency (Redis, the workers) is down; retry later."""


ERROR_CLASSES: dict[str, type[ApiError]] = {
    "malformed_json": InvalidJson,  # the name docs/api.md used before invalid_json
    "invalid_json": InvalidJson,
    "malformed_request": MalformedRequest,
    "unauthorized": Unauthorized,
    "forbidden": Forbidden,
    "unknown_game": UnknownGame,
    "unknown_session": UnknownSession,
    "unknown_job": UnknownJob,
    "rules_not_installed": RulesNotInstalled,
    "unknown_review": UnknownReview,
    "review_refused": ReviewRefused,
    "not_found": NotFound,
    "method_not_allowed": MethodNotAllowed,
    "stale_version": StaleVersion,
    "seat_claimed": SeatClaimed,
    "session_ended": SessionEnded,
    "quota_exceeded": QuotaExceeded,
    "streams_full": StreamsFull,
    "storage_full": StorageFull,
    "conflict": Conflict,
    "request_too_large": RequestTooLarge,
    "uri_too_long": UriTooLong,
    "unsupported_media_type": UnsupportedMediaType,
    "expectation_failed": ExpectationFailed,
    "invalid_request": InvalidRequest,
    "invalid_setup": InvalidSetup,
    "invalid_state": InvalidState,
    "invalid_action": InvalidAction,
    "illegal_move": IllegalMove,
    "not_your_turn": NotYourTurn,
    "wrong_seat": WrongSeat,
    "invalid_callback": InvalidCallback,
    "too_many_decisions": TooManyDecisions,
    "rate_limited": RateLimited,
    "busy": Busy,
    "request_header_fields_too_large": HeadersTooLarge,
    "internal_error": InternalError,
    "not_implemented": ServerNotImplemented,
    "unavailable": Unavailable,
}

STATUS_CLASSES: dict[int, type[ApiError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    405: MethodNotAllowed,
    409: Conflict,
    413: RequestTooLarge,
    414: UriTooLong,
    415: UnsupportedMediaType,
    417: ExpectationFailed,
    422: Unprocessable,
    429: RateLimited,
    431: HeadersTooLarge,
}


def error_class(status: int, code: str) -> type[ApiError]:
    """The class of ``code``; for a code unknown here, the class of ``status``."""
    known = ERROR_CLASSES.get(code)
    if known is not None:
        return known
    if status >= 500:
        return ServerError
    return STATUS_CLASSES.get(status, ApiError)


PROBLEM_MEMBERS = frozenset({"type", "title", "status", "detail", "instance", "code"})
"""The members of a problem that are not the error's details."""


def read_error(body: bytes) -> tuple[str, str, dict[str, Any]]:
    """``(code, message, details)`` of an error body, problem details or the legacy shape.
    KeyError, TypeError or ValueError when it is neither."""
    document = json.loads(body)
    if "error" in document and "code" not in document:  # the deprecated shape
        error = document["error"]
        details = error.get("details") or {}
        return str(error["code"]), str(error.get("message", "")), details
    details = {name: value for name, value in document.items() if name not in PROBLEM_MEMBERS}
    details.update(details.pop("details", None) or {})  # details named like a standard member
    return str(document["code"]), str(document.get("detail") or document.get("title", "")), details


def error_from_response(status: int, body: bytes, headers: Mapping[str, str] | None = None) -> ApiError:
    """The exception for an error answer. A body without an error shape (a proxy's HTML
    page, say) still gives the class of its status, with code ``"http_<status>"``."""
    try:
        code, message, details = read_error(body)
        if not isinstance(details, dict):
            details = {"value": details}
    except (ValueError, TypeError, KeyError, AttributeError):
        code, details = f"http_{status}", {}
        message = body.decode("utf-8", "replace").strip()[:500] or f"HTTP {status}"
    return error_class(status, code)(status, code, message, details, headers)
