"""JSON logs, one object a line, each with the request id.

The request id comes from the client's ``X-Request-ID`` header (when it is a sane
token) or is made up; it is sent back in ``X-Request-ID`` and appears in every log line
written while the request is served."""

from __future__ import annotations

import json
import logging
import os
import random
import re
import sys
import time
from typing import Any

from flask import g, has_request_context

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
_service = logging.getLogger("service")
_INFO = logging.INFO
_dumps = json.JSONEncoder(separators=(",", ":")).encode


# Made-up request ids: 128 random bits from a generator seeded from os.urandom in each
# process (again after a fork, so workers never share a sequence); an id is a label,
# not a secret, and this saves a system call per request.
_ids = random.Random()
os.register_at_fork(after_in_child=_ids.seed)


def start_request(g: Any, headers: Any) -> str:
    """Take the client's X-Request-ID (when it is a sane token) or make one up."""
    given = headers.get("X-Request-ID", "")
    g.request_id = request_id = given if REQUEST_ID.match(given) else f"{_ids.getrandbits(128):032x}"
    return request_id


def _direct_handler() -> logging.StreamHandler | None:
    """The one JSON stream handler an access record would reach through plain
    propagation (no filters, no other handler, level passes), else None."""
    if access.handlers or access.filters or not access.propagate or access.disabled:
        return None
    parent = access.parent
    if parent is not _service or _service.filters or _service.propagate or _service.disabled:
        return None
    handlers = _service.handlers
    if len(handlers) != 1:
        return None
    handler = handlers[0]
    if (
        type(handler) is not logging.StreamHandler
        or type(handler.formatter) is not JsonFormatter
        or handler.filters
        or handler.level > _INFO
    ):
        return None
    return handler


def finish_request(
    response: Any, request_id: str, method: str, path: str, elapsed: float, log_requests: bool
) -> None:
    """Send the request id back; write the JSON access line.

    The usual case (the line goes only to the JSON stderr handler ``configure`` set up)
    writes exactly what JsonFormatter would, without building a LogRecord; with any
    other handler or filter attached the line goes through logging as usual."""
    response.headers["X-Request-ID"] = request_id
    if not log_requests or not access.isEnabledFor(_INFO):
        return
    status, ms = response.status_code, round(elapsed * 1000, 3)
    handler = _direct_handler()
    if handler is None:
        access.info(
            "request",
            extra={"request_id": request_id, "method": method, "path": path, "status": status, "ms": ms},
        )
        return
    line = _dumps(
        {
            "ts": round(time.time(), 3),
            "level": "info",
            "logger": "service.access",
            "msg": "request",
            "request_id": request_id,
            "method": method,
            "path": path,
            "status": status,
            "ms": ms,
        }
    )
    handler.acquire()
    try:
        handler.stream.write(line + handler.terminator)
        handler.flush()
    except Exception:  # noqa: BLE001 - as logging.Handler.handleError: a log line never fails a request
        pass
    finally:
        handler.release()
