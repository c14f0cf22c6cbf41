"""CORS: lets a browser page from an allowed origin call the API directly.

``MAJLIS_CORS_ORIGINS`` is a comma-separated list of origins: exact ones
(``https://app.example``), ``*`` for any origin, or an origin whose port is ``*``
(``http://localhost:*``: that host on any port, or none). Empty (the default): no CORS
headers at all, and a browser refuses cross-origin answers. ``python -m service.run``
with its embedded Redis allows ``http://localhost:*`` and ``http://127.0.0.1:*`` unless
the variable is set (even to nothing).

A preflight (``OPTIONS`` with ``Origin`` and ``Access-Control-Request-Method``) from an
allowed origin is answered 204 here, before the API-key check: a browser sends no key on
a preflight. Every answer to an allowed origin, errors included, names that origin (or
``*``) and exposes the headers a client reads (``Location``, ``Retry-After``, ...). No
credentials (cookies) are allowed: the API authenticates with headers.

The stream server of ``python -m service.run`` (the API's port + 1) reads the same
setting: the table page, served by the API, reads its session's event stream there, from
another origin, with ``fetch()`` and the seat token; under the embedded default the page
on ``localhost`` or ``127.0.0.1`` may, otherwise only an origin listed here."""

from __future__ import annotations

import re
from typing import Any

from flask import Flask, Response, current_app, request

ALLOWED_METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
ALLOWED_HEADERS = "Authorization, Content-Type, X-API-Key, Last-Event-ID, X-Request-ID"
EXPOSED_HEADERS = "Location, Retry-After, X-Request-ID, X-RateLimit-Limit, X-RateLimit-Remaining"
LOOPBACK_ORIGINS = "http://localhost:*,http://127.0.0.1:*"
"""What ``python -m service.run`` allows by default with its embedded Redis."""

EXTENSION = "majlis_cors"


class Origins:
    """The allowed origins of a ``MAJLIS_CORS_ORIGINS`` value."""

    def __init__(self, setting: str) -> None:
        entries = [entry.strip().rstrip("/") for entry in setting.split(",") if entry.strip()]
        self.any = "*" in entries
        self.exact = {entry for entry in entries if not entry.endswith(":*")}
        # "scheme://host:*": that host on any port (digits only), or on its default port
        self.patterns = [
            re.compile(re.escape(entry[:-2]) + r"(:[0-9]{1,5})?") for entry in entries if entry.endswith(":*")
        ]

    def __bool__(self) -> bool:
        return self.any or bool(self.exact) or bool(self.patterns)

    def allow(self, origin: str) -> str | None:
        """The ``Access-Control-Allow-Origin`` value for ``origin``, or None if it is not allowed."""
        if self.any:
            return "*"
        if origin in self.exact or any(p.fullmatch(origin) for p in self.patterns):
            return origin
        return None


def allowed_origin() -> str | None:
    origin = request.headers.get("Origin")
    if not origin:
        return None
    origins: Origins = current_app.extensions[EXTENSION]
    return origins.allow(origin)


def answer_preflight() -> Response | None:
    """204 for a preflight from an allowed origin; anything else goes on to the views."""
    if request.method != "OPTIONS" or "Access-Control-Request-Method" not in request.headers:
        return None
    if allowed_origin() is None:
        return None  # Flask's own OPTIONS answer, without CORS headers: the browser refuses
    response = current_app.response_class(status=204)
    response.headers["Access-Control-Allow-Methods"] = ALLOWED_METHODS
    response.headers["Access-Control-Allow-Headers"] = ALLOWED_HEADERS
    response.headers["Access-Control-Max-Age"] = str(int(current_app.config["CORS_MAX_AGE"]))
    return response


def add_headers(response: Any) -> Any:
    # an answer that depends on Origin must say so, or a cache could serve it to another origin
    response.vary.add("Origin")
    allow = allowed_origin()
    if allow is not None:
        response.headers["Access-Control-Allow-Origin"] = allow
        response.headers["Access-Control-Expose-Headers"] = EXPOSED_HEADERS
    return response


def init_app(app: Flask) -> None:
    """Answer preflights and add the CORS headers, when ``CORS_ORIGINS`` allows any origin.
    Register it before the API-key check, which would refuse a preflight (it has no key)."""
    origins = Origins(str(app.config.get("CORS_ORIGINS") or ""))
    if not origins:
        return
    app.extensions[EXTENSION] = origins
    app.before_request(answer_preflight)
    app.after_request(add_headers)
