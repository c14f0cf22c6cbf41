"""JSON logs, one object a line, each with the request id.

The request id comes from the client's ``X-Request-ID`` header (when it is a sane
token) or is made up; it is sent back in ``X-Request-ID`` and appears in every log line
written while the request is served."""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time
from typing import Any

from flask import Flask, g, has_request_context, request

REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        request_id = getattr(record, "request_id", None)
        if request_id is None and has_request_context():
            request_id = g.get("request_id")
        if request_id:
            out["request_id"] = request_id
        for key in ("method", "path", "status", "ms", "job_id", "session_id"):
            if hasattr(record, key):
                out[key] = getattr(record, key)
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, separators=(",", ":"))


def configure(level: str = "INFO") -> None:
    """Send the ``service`` loggers' records to stderr as JSON (once per process)."""
    logger = logging.getLogger("service")
    if any(isinstance(h.formatter, JsonFormatter) for h in logger.handlers):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    logger.addHandler(handler)
    logger.setLevel(level.upper())
    logger.propagate = False


access = logging.getLogger("service.access")


def init_app(app: Flask) -> None:
    configure(app.config.get("LOG_LEVEL", "INFO"))
    log_requests = bool(app.config.get("LOG_REQUESTS", True))

    @app.before_request
    def _request_id() -> None:
        given = request.headers.get("X-Request-ID", "")
        g.request_id = given if REQUEST_ID.match(given) else os.urandom(16).hex()
        g.majlis_log_t0 = time.perf_counter()

    @app.after_request
    def _send_request_id(response: Any) -> Any:
        request_id = g.get("request_id")
        if request_id:
            response.headers["X-Request-ID"] = request_id
        if log_requests and access.isEnabledFor(logging.INFO):
            t0 = g.get("majlis_log_t0")
            access.info(
                "request",
                extra={
                    "method": request.method,
                    "path": request.path,
                    "status": response.status_code,
                    "ms": round((time.perf_counter() - t0) * 1000, 3) if t0 else None,
                },
            )
        return response
