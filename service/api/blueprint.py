"""flask-smorest's Blueprint with a fast path for the hot request bodies.

webargs + marshmallow cost about a fifth of a legal-moves request. For the schemas in
``FAST_LOADERS`` (bodies of a few plain fields: a state dict, a seat, an action dict)
a body that is certainly valid is checked here in a few dict look-ups and handed to
the view as marshmallow would have loaded it; anything else (an unknown field, a wrong
type, a seat out of range, ...) goes the ordinary webargs way, so every error keeps its
exact shape and message. The body is read and parsed once on the fast path; only a body
the fast path refuses is parsed again by webargs.

Both paths read the body with :func:`json_body`: a body whose Content-Type is not JSON
is refused with 415, one that is not valid JSON (bad syntax, bad UTF-8, or nested too
deep for the parser) with 400 ``invalid_json``; a body without any Content-Type is read
as JSON (curl and most clients send one; a client that sends none means JSON here).

``alt_response`` only documents (flask-smorest wraps the view in one more call per
documented response; the views here are plain functions, so the wrapper is dropped
and the documentation kept)."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from flask import request
from flask_smorest import Blueprint as SmorestBlueprint  # type: ignore[import-untyped]  # flask-smorest ships no type information
from marshmallow import missing
from webargs.core import is_json
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import HTTPException

from service.api import schemas as s
from service.errors import ApiError

_loads = json.loads
_SEAT_MAX = 15  # schemas.Seat: Range(0, 15)


def _seat_ok(value: Any) -> bool:
    return type(value) is int and 0 <= value <= _SEAT_MAX


def _state_request(body: dict) -> dict | None:
    if len(body) == 1:
        state = body.get("state")
        if type(state) is dict:
            return {"state": dict(state)}
    return None


def _state_or_view_request(body: dict) -> dict | None:
    if len(body) == 1:
        state = body.get("state")
        if type(state) is dict:
            return {"state": dict(state), "view": None}
        view = body.get("view")
        if type(view) is dict:
            return {"state": None, "view": dict(view)}
    return None


def _move_request(body: dict) -> dict | None:
    if len(body) == 3:
        state, seat, action = body.get("state"), body.get("seat"), body.get("action")
        if type(state) is dict and type(action) is dict and _seat_ok(seat):
            return {"state": dict(state), "seat": seat, "action": dict(action)}
    return None


def _view_request(body: dict) -> dict | None:
    if len(body) == 2:
        state, seat = body.get("state"), body.get("seat")
        if type(state) is dict and _seat_ok(seat):
            return {"state": dict(state), "seat": seat}
    return None


# Schema class -> f(body dict) -> what ``Schema().load(body)`` returns, or None when the
# body is not certainly valid (then marshmallow decides and words the error).
FAST_LOADERS: dict[type, Callable[[dict], dict | None]] = {
    s.StateRequest: _state_request,
    s.StateOrViewRequest: _state_or_view_request,
    s.MoveRequest: _move_request,
    s.ViewRequest: _view_request,
}


def json_body(req: Any) -> Any:
    """The request's body parsed as JSON; ``missing`` for an empty body. 415 when the
    Content-Type names something else, 400 ``invalid_json`` when it does not parse."""
    mimetype = req.mimetype
    if mimetype and not is_json(mimetype):
        raise ApiError(
            415,
            "unsupported_media_type",
            f"the request body must be JSON (Content-Type: application/json), not {mimetype}",
            {"expected": "application/json", "received": mimetype},
        )
    try:
        raw = req.get_data(cache=True)
    except HTTPException:  # 413 over MAX_CONTENT_LENGTH, a client gone: answered as they are
        raise
    except Exception as error:  # noqa: BLE001 - the WSGI server's own reader errors (gunicorn:
        # bad chunked framing, a body cut short) say the client's framing is wrong
        raise ApiError(400, "malformed_request", f"the request body could not be read: {error}") from None
    if not raw:
        return missing
    try:
        return _loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise invalid_json(f"it is not UTF-8 ({error.reason} at byte {error.start})") from None
    except ValueError as error:  # JSONDecodeError
        raise invalid_json(str(error)) from None
    except RecursionError:  # the C parser stops at the interpreter's recursion limit
        raise invalid_json("it is nested too deep") from None


def invalid_json(why: str) -> ApiError:
    return ApiError(400, "invalid_json", f"the request body is not valid JSON: {why}", {"reason": why})


class JsonBodyParser(FlaskParser):
    """webargs' parser, reading JSON bodies with :func:`json_body`."""

    def _raw_load_json(self, req: Any) -> Any:
        return json_body(req)


def fast_json_body(loader: Callable[[dict], dict | None]) -> dict | None:
    """The request's JSON body loaded by ``loader``, or None (let webargs decide)."""
    body = json_body(request._get_current_object())  # type: ignore[attr-defined]
    if type(body) is not dict:
        return None
    return loader(body)


class Blueprint(SmorestBlueprint):
    ARGUMENTS_PARSER = JsonBodyParser()

    def arguments(self, schema, *args: Any, **kwargs: Any):  # type: ignore[no-untyped-def]
        slow = super().arguments(schema, *args, **kwargs)
        loader = FAST_LOADERS.get(type(schema))
        location = kwargs.get("location", args[0] if args else "json")
        if loader is None or location != "json" or kwargs.get("as_kwargs") or kwargs.get("validate"):
            return slow

        def decorator(func):  # type: ignore[no-untyped-def]
            parse_slowly = slow(func)

            def view(*f_args: Any, **f_kwargs: Any) -> Any:
                body = fast_json_body(loader)
                if body is None:
                    return parse_slowly(*f_args, **f_kwargs)
                return func(*f_args, body, **f_kwargs)

            return functools.update_wrapper(view, parse_slowly)

        return decorator

    def alt_response(self, *args: Any, **kwargs: Any):  # type: ignore[no-untyped-def]
        document = super().alt_response(*args, **kwargs)

        def decorator(func):  # type: ignore[no-untyped-def]
            func._apidoc = document(func)._apidoc
            return func

        return decorator
