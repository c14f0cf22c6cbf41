"""API keys required (when ``MAJLIS_API_KEYS`` is on) and per-key rate limits in Redis.

A fixed window per key: ``INCR rate:{key}:{window}`` with an expiry, so every web
process and machine shares the count. Over the limit: 429 with ``Retry-After`` (seconds
until the window ends). Every answer carries ``RateLimit-Limit``, ``-Remaining`` and
``-Reset`` (and the older ``X-RateLimit-*``). What a client may hold at once (sessions,
jobs, streams, ...) is counted by service/quotas.py, against the key found here.
Health, readiness, metrics, the API docs and the problem types' pages need no key."""

from __future__ import annotations

import math
import time
from typing import Any

from flask import Flask, current_app, g, request

from service import keys as api_keys
from service import quotas
from service.errors import error_response
from service.runtime import RUNTIME_EXTENSION

# Hooks for the turn timers (service/quotas.py): a timed session counts against its
# client's quota; a session the service ends itself stops counting.
count_timed_session = quotas.count_timed_session
session_ended = quotas.session_ended

EXEMPT = ("/healthz", "/readyz", "/metrics", "/openapi.json", "/docs", "/play")


def is_exempt(path: str) -> bool:
    """Operations, the API docs and the table page's HTML and assets need no key (the page
    sends the key its user gives it with each API call, its JSON routes included)."""
    if path.startswith("/play/api/"):
        return False
    return path in EXEMPT or path.startswith(("/docs/", "/static/", "/play/", "/problems/"))


def check_key():  # -> response or None
    if is_exempt(request.path):
        return None
    key = request.headers.get("X-API-Key", "")
    if not key:
        return error_response(401, "unauthorized", "an API key is required: send it in the X-API-Key header")
    runtime = current_app.extensions[RUNTIME_EXTENSION]
    client, keys = runtime.redis(), runtime.keys
    found = api_keys.lookup(client, keys, key)
    if found is None:
        return error_response(401, "unauthorized", "this API key is not valid (unknown or revoked)")
    d, record = found
    g.api_key_digest = d  # the client the quotas count against (service/quotas.py)
    config = current_app.config
    limit = int(record.get("rate") or config["RATE_LIMIT"])
    width = int(config["RATE_WINDOW"])
    now = time.time()
    window = int(now // width)
    pipe = client.pipeline()
    pipe.incr(keys.rate(d, window))
    pipe.expire(keys.rate(d, window), width + 1)
    used = int(pipe.execute()[0])
    g.rate = (limit, max(0, limit - used), max(1, math.ceil((window + 1) * width - now)))
    if used > limit:
        retry = max(1, math.ceil((window + 1) * width - now))
        return error_response(
            429,
            "rate_limited",
            f"over this key's rate limit of {limit} requests per {width} s",
            {"limit": limit, "window_seconds": width, "retry_after": retry},
            {"Retry-After": str(retry)},
        )
    return None


def init_app(app: Flask) -> None:
    hops = int(app.config.get("PROXY_HOPS") or 0)
    if hops > 0:  # the client's address as the proxies saw it (quotas count per address)
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops)  # type: ignore[method-assign]
    if not app.config.get("API_KEYS"):
        return
    app.before_request(check_key)

    @app.after_request
    def _rate_headers(response: Any) -> Any:
        rate = g.get("rate")
        if rate is not None:
            response.headers["X-RateLimit-Limit"] = str(rate[0])
            response.headers["X-RateLimit-Remaining"] = str(rate[1])
            # the IETF draft's names too; a quota's refusal (429 quota_exceeded) sets its own
            response.headers.setdefault("RateLimit-Limit", str(rate[0]))
            response.headers.setdefault("RateLimit-Remaining", str(rate[1]))
            response.headers.setdefault("RateLimit-Reset", str(rate[2]))
        return response
