"""Every error answer, in one shape: RFC 9457 problem details (``application/problem+json``).

An answer reads::

    {"type": "/problems/illegal_move", "title": "Illegal move", "status": 422,
     "detail": "<the message, in the request's language>",
     "instance": "urn:majlis:request:<X-Request-ID>",
     "code": "illegal_move", "rule": "R7", "reason": "...", "legal_actions": [...]}

``type`` is a relative URI the service serves itself (``GET /problems/<code>``: what the
code means); ``code`` repeats its last part for clients that switch on a word. The
error's details are extension members beside them (``rule``, ``reason``,
``legal_actions``, ``field``, ``fields``, ``allowed``, ``version``, ...). A detail whose
name is one of the standard members stays under ``details`` instead (none does today).

Deprecated: ``MAJLIS_ERROR_FORMAT=legacy`` answers the old
``{"error": {"code", "message", "details"}}`` as ``application/json``, for one version.

Engine errors keep their meaning: BadAction and InvalidSetup are unreadable input (422
naming the field), IllegalAction is a rule (422 ``illegal_move`` with the rule and the
legal actions), NotYourTurn is 422 ``not_your_turn``, InvalidState is 422
``invalid_state``. The message is in the request's language (``Accept-Language``); the
code and the details are the same in every language. Nothing escapes as a 500 with a
stack trace: an unexpected exception is logged and answered with a bare
``internal_error``."""

from __future__ import annotations

import html
import logging
from typing import Any

import redis
from flask import Flask, current_app, g, has_request_context, jsonify, request
from werkzeug.exceptions import HTTPException

from engine import UnknownGame
from engine.protocol import (
    BadAction,
    EngineError,
    IllegalAction,
    InvalidSetup,
    InvalidState,
    NotYourTurn,
)
from service import i18n
from service.domain_errors import (
    DomainError,
    Invalid,
    NotFound,
    QuotaExceeded,
    SeatClaimed,
    SessionEnded,
    StaleVersion,
    StorageFull,
    Unavailable,
)
from service.quotas import refusal_headers

log = logging.getLogger(__name__)


class ApiError(Exception):
    """An error answered with ``status`` and ``code``: the HTTP layer raises it for a
    request's own mistakes; the domain raises its :class:`DomainError`s, answered through
    :func:`domain_to_api`."""

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


DOMAIN_STATUS: tuple[tuple[type[DomainError], int], ...] = (
    (NotFound, 404),  # unknown session or job
    (StaleVersion, 409),
    (SessionEnded, 409),
    (SeatClaimed, 409),
    (Invalid, 422),  # too many decisions, a callback_url refused
    (QuotaExceeded, 429),
    (Unavailable, 503),  # Redis or the broker down, a full stream server
    (StorageFull, 507),
)
"""The HTTP status of each kind of domain refusal (the first class it is an instance of)."""


def domain_status(refusal: type[DomainError]) -> int:
    """The HTTP status of a kind of domain refusal (500 for one not in DOMAIN_STATUS:
    tests/clients/test_errors.py finds every refusal's status)."""
    for kind, status in DOMAIN_STATUS:
        if issubclass(refusal, kind):
            return status
    return 500


def domain_headers(error: DomainError) -> dict[str, str]:
    """Retry-After of a refusal that passes with time; a quota's RateLimit-* too."""
    if error.retry_after is None:
        return {}
    if isinstance(error, QuotaExceeded):
        return refusal_headers(error.limit, error.retry_after)
    return {"Retry-After": str(error.retry_after)}


def domain_to_api(error: DomainError) -> ApiError:
    """The HTTP answer of a domain refusal: its status and headers, its code, message and
    details as they are."""
    status, headers = domain_status(type(error)), domain_headers(error)
    api = ApiError(status, error.code, error.message, error.details, headers)
    api.__cause__ = error.__cause__
    return api


PROBLEM_JSON = "application/problem+json"
PROBLEM_TYPES = "/problems/"
"""``type`` of an error: this prefix and its code, served by :func:`problem_type_page`."""
LEGACY = "legacy"
"""``ERROR_FORMAT`` of the old ``{"error": {...}}`` shape (deprecated)."""


def title(code: str) -> str:
    """The short English summary of a problem type: its code in words (``illegal_move``
    reads "Illegal move"); the same for every occurrence, as RFC 9457 wants."""
    return code.replace("_", " ").capitalize()


def problem(
    status: int, code: str, message: str, details: dict[str, Any] | None = None, instance: str | None = None
) -> dict[str, Any]:
    """The problem-details document of an error (a plain dict, no request needed): the
    standard members, ``code``, then each detail as a member of its own (one named like a
    member already there stays under ``details``)."""
    body: dict[str, Any] = {
        "type": PROBLEM_TYPES + code,
        "title": title(code),
        "status": status,
        "detail": message,
    }
    if instance:
        body["instance"] = instance
    body["code"] = code
    clashing = {}
    for name, value in (details or {}).items():
        if name in body or name == "details":
            clashing[name] = value
        else:
            body[name] = value
    if clashing:
        body["details"] = clashing
    return body


def legacy(status: int, code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    """The deprecated shape: ``{"error": {"code", "message", "details"}}``."""
    return {"error": {"code": code, "message": message, "details": details or {}}}


def error_format() -> str:
    """``problem`` (the default) or ``legacy``, from the app's ERROR_FORMAT setting."""
    return str(current_app.config.get("ERROR_FORMAT") or "problem")


def error_response(
    status: int,
    code: str,
    message: str,
    details: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
):
    """The answer of an error, its message in the request's language (service/i18n.py):
    problem details, or the legacy shape when the app is set to it; ``headers`` added."""
    details = details or {}
    message = i18n.error_message(code, message, details)
    if error_format() == LEGACY:
        response = jsonify(legacy(status, code, message, details))
    else:
        response = jsonify(problem(status, code, message, details, request_instance()))
        response.mimetype = PROBLEM_JSON
    response.headers.update(headers or {})
    return response, status


DATA_STORE_DOWN = "Redis (the data store) is unreachable: retry in a few seconds"
"""The only words a client gets about a Redis error: its own text names keys, scripts and
addresses (internal), so it goes to the log, never into an answer."""
DATA_STORE_FULL = "Redis (the data store) is full: no new data is accepted for now"


def data_store_error(error: Exception):
    """The answer of a Redis (or broker) error: 507 ``storage_full`` when Redis refuses
    writes for want of memory, else 503 ``unavailable``; each with Retry-After and no
    internal text. The error itself is logged."""
    log.warning("data store error: %s: %s", type(error).__name__, error)
    if is_out_of_memory(error):
        return error_response(
            507, "storage_full", DATA_STORE_FULL, {"retry_after": 30}, {"Retry-After": "30"}
        )
    return error_response(
        503, "unavailable", DATA_STORE_DOWN, {"dependency": "redis", "retry_after": 2}, {"Retry-After": "2"}
    )


def is_data_store_error(error: BaseException | None) -> bool:
    """A Redis error, or kombu's wrapping of one (the broker is Redis)."""
    if error is None:
        return False
    import redis
    from kombu.exceptions import OperationalError

    return isinstance(error, (redis.exceptions.RedisError, OperationalError))


def is_out_of_memory(error: BaseException) -> bool:
    """A Redis OOM refusal (``OOM command not allowed when used memory > 'maxmemory'``),
    raised as such by redis-py or wrapped by kombu/celery."""
    seen: BaseException | None = error
    for _ in range(5):  # the error and its causes
        if seen is None:
            return False
        if type(seen).__name__ == "OutOfMemoryError" or "OOM command not allowed" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def request_instance() -> str | None:
    """``instance`` of an error: the request's id (``X-Request-ID``, in every log line of
    the request), so a report of a problem finds its logs."""
    request_id = g.get("request_id") if has_request_context() else None
    return f"urn:majlis:request:{request_id}" if request_id else None


HTTP_CODES = {
    400: "malformed_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "request_too_large",
    414: "uri_too_long",
    415: "unsupported_media_type",
    417: "expectation_failed",
    422: "invalid_request",
    429: "rate_limited",
    431: "request_header_fields_too_large",
    500: "internal_error",
    501: "not_implemented",
    503: "unavailable",
    507: "storage_full",
}


def engine_error_to_api(error: EngineError) -> ApiError:
    details = dict(error.details)
    if isinstance(error, NotYourTurn):
        return ApiError(422, "not_your_turn", error.message, details)
    if isinstance(error, IllegalAction):
        if error.rule:
            details.setdefault("rule", error.rule)
        details.setdefault("reason", error.reason)
        return ApiError(422, "illegal_move", error.message, details)
    if isinstance(error, InvalidState):
        if error.field:
            details.setdefault("field", error.field)
        return ApiError(422, "invalid_state", error.message, details)
    if isinstance(error, BadAction):
        details.setdefault("field", error.field)
        return ApiError(422, "invalid_action", error.message, details)
    if isinstance(error, InvalidSetup):
        if error.field:
            details.setdefault("field", error.field)
        return ApiError(422, "invalid_setup", error.message, details)
    return ApiError(422, error.code, error.message, details)


def _validation_details(messages: Any) -> dict[str, Any]:
    """Flatten webargs/marshmallow messages ``{"json": {"seat": ["..."]}}`` into
    ``{"fields": {"seat": "..."}}`` so a client sees which field is wrong."""
    fields: dict[str, str] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for key, sub in value.items():
                walk(f"{prefix}.{key}" if prefix else str(key), sub)
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            fields[prefix] = " ".join(value)
        else:
            fields[prefix] = str(value)

    if isinstance(messages, dict):
        for location, sub in messages.items():
            walk("", sub) if location in {"json", "query", "path", "form"} else walk(location, sub)
    return {"fields": fields}


def handle_http_exception(error: HTTPException):
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    messages = data.get("messages") or data.get("errors")
    if status == 422 and messages:
        details = _validation_details(messages)
        names = ", ".join(details["fields"]) or "request"
        first = next(iter(details["fields"].values()), "invalid value")
        return error_response(422, "invalid_request", f"invalid field {names}: {first}", details)
    if status == 400 and ("messages" in data or "JSON" in str(error.description)):
        # service.api.blueprint.json_body answers bad JSON itself; this is webargs' word
        return error_response(400, "invalid_json", "the request body is not valid JSON")
    if status == 413:
        return error_response(413, "request_too_large", "the request body is too large")
    code = HTTP_CODES.get(status, "error")
    message = data.get("message") or error.description or error.name
    return error_response(status, code, message)


def job_problem(why: str) -> dict[str, Any]:
    """The problem details of a failed job (``problem`` of GET /v1/jobs/{id}): code
    ``job_failed``, ``detail`` saying why (the message in the request's language)."""
    message = i18n.error_message("job_failed", why, {})
    return problem(500, "job_failed", message)


def known_codes() -> set[str]:
    """Every error code with a message: the English catalogue's ``error`` entries."""
    return {code for context, code in i18n.catalogue(i18n.DEFAULT) if context == "error"}


def problem_type_page(code: str):
    """GET /problems/<code>: what the problem type means, in the request's language:
    JSON ``{type, code, title, description}``, or a short HTML page for a browser."""
    if code not in known_codes():
        return error_response(404, "not_found", f"no problem type {code!r}")
    template = i18n.catalogue(i18n.request_language()).get(("error", code), "")
    description = i18n.fill(template, {})
    about = {"type": PROBLEM_TYPES + code, "code": code, "title": title(code), "description": description}
    if request.accept_mimetypes.best_match(["application/json", "text/html"]) == "text/html":
        words = {key: html.escape(str(value)) for key, value in about.items()}
        page = (
            f'<!doctype html><html lang="{i18n.request_language()}"><meta charset="utf-8">'
            f"<title>{words['title']}</title><h1>{words['title']}</h1>"
            f"<p>{words['description']}</p><p>code: <code>{words['code']}</code></p></html>"
        )
        return current_app.response_class(page, mimetype="text/html")
    return about


def init_app(app: Flask) -> None:
    app.add_url_rule("/problems/<code>", "problem_type", problem_type_page)

    @app.errorhandler(ApiError)
    def _api_error(error: ApiError):
        if error.status == 503 and is_data_store_error(error.__cause__):
            # raised with the broker's error as its cause: its text stays in the log
            return data_store_error(error.__cause__)  # type: ignore[arg-type]
        return error_response(error.status, error.code, error.message, error.details, error.headers)

    @app.errorhandler(DomainError)
    def _domain_error(error: DomainError):
        return _api_error(domain_to_api(error))

    @app.errorhandler(redis.exceptions.RedisError)
    def _redis_down(error: Exception):
        # never the error's text: it may name keys (data_store_error)
        return data_store_error(error)

    @app.errorhandler(EngineError)
    def _engine_error(error: EngineError):
        api = engine_error_to_api(error)
        return error_response(api.status, api.code, api.message, api.details)

    @app.errorhandler(UnknownGame)
    def _unknown_game(error: UnknownGame):
        return error_response(404, "unknown_game", str(error))

    @app.errorhandler(Exception)
    def _unexpected(error: Exception):
        if isinstance(error, HTTPException):
            return handle_http_exception(error)
        log.exception("unexpected error")
        return error_response(500, "internal_error", "an unexpected error occurred")
