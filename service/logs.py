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
from typing import Any

from flask import g, has_request_context, request

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


def start_request() -> None:
    """Take the client's X-Request-ID (when it is a sane token) or make one up."""
    given = request.headers.get("X-Request-ID", "")
    g.request_id = given if REQUEST_ID.match(given) else os.urandom(16).hex()


def finish_request(response: Any, elapsed: float, log_requests: bool) -> None:
    """Send the request id back; write the JSON access line."""
    response.headers["X-Request-ID"] = g.request_id
    if log_requests and access.isEnabledFor(logging.INFO):
        access.info("request", extra={"method": request.method, "path": request.path,
                                      "status": response.status_code, "ms": round(elapsed * 1000, 3)})
