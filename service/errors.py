"""One JSON error shape for every failure: ``{"error": {"code", "message", "details"}}``.

Engine errors keep their meaning: BadAction and InvalidSetup are unreadable input (422
naming the field), IllegalAction is a rule (422 ``illegal_move`` with the rule and the
legal actions), NotYourTurn is 422 ``not_your_turn``, InvalidState is 422
``invalid_state``. The message is in the request's language (``Accept-Language``); the
code and the details are the same in every language. Nothing escapes as a 500 with a
stack trace: an unexpected exception is logged and answered with a bare
``internal_error``."""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, jsonify
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

log = logging.getLogger(__name__)


class ApiError(Exception):
    """An error answered as JSON with ``status`` and ``code``."""

    def __init__(self, status: int, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details or {}


def error_response(status: int, code: str, message: str, details: dict[str, Any] | None = None):
    """The JSON answer of an error; its message in the request's language (service/i18n.py)."""
    details = details or {}
    message = i18n.error_message(code, message, details)
    body = {"error": {"code": code, "message": message, "details": details}}
    return jsonify(body), status


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


def init_app(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def _api_error(error: ApiError):
        return error_response(error.status, error.code, error.message, error.details)

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
