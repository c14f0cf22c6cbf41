"""Operations endpoints: ``GET /readyz`` (Redis and workers reachable) and ``GET /metrics``."""

from __future__ import annotations

import logging
import time
from typing import Any

import redis
from flask import Blueprint, Flask, current_app, g, request

from ai import build_info
from service import logs, metrics
from service.errors import error_response, is_out_of_memory
from service.redis_conn import is_nearly_full
from service.runtime import RUNTIME_EXTENSION

FULL = 0.98
"""/readyz says Redis is full from this fraction of its maxmemory on: there, with
``noeviction``, writes fail as soon as a buffer grows (admission stops new work before,
at MAJLIS_REDIS_HIGH_WATER)."""

bp = Blueprint("ops", __name__)
log = logging.getLogger(__name__)


def readiness() -> tuple[bool, str, dict]:
    """(ready, the first problem in words, per-dependency checks). Redis must answer and
    take a write (a Redis at its maxmemory refuses writes: every move would fail), and a
    worker must have reported lately. The words never quote a Redis error (its text may
    name keys): that goes to the log."""
    runtime = current_app.extensions[RUNTIME_EXTENSION]
    client, keys = runtime.client, runtime.keys
    checks: dict = {"redis": "down", "workers": 0}
    if client is None:
        return False, "Redis is not configured: set REDIS_URL (python -m service.run starts one)", checks
    try:
        client.ping()
        beats = client.hgetall(keys.workers())
    except Exception as error:
        log.warning("readiness: Redis: %s", error)
        return False, "Redis is unreachable", checks
    try:
        client.set(f"{keys.prefix}:readyz-probe", "1", px=5000)
        memory = client.info("memory")
        if is_nearly_full(int(memory.get("used_memory", 0)), int(memory.get("maxmemory", 0)), FULL):
            # at its cap Redis takes one small write and refuses the next: not ready
            raise redis.exceptions.OutOfMemoryError("used memory is at maxmemory")
    except Exception as error:
        checks["redis"] = "full" if is_out_of_memory(error) else "read-only"
        log.warning("readiness: Redis refuses writes: %s", error)
        return (
            False,
            "Redis refuses writes (it is full)" if checks["redis"] == "full" else "Redis refuses writes",
            checks,
        )
    checks["redis"] = "ok"
    stale = float(current_app.config["WORKER_STALE"])
    now = time.time()
    checks["workers"] = sum(1 for ts in beats.values() if now - float(ts) < stale)
    if not checks["workers"]:
        return False, f"no Celery worker has reported in the last {stale:g} s", checks
    return True, "", checks


@bp.get("/readyz")
def readyz():
    """Ready when Redis answers and at least one worker heartbeat is recent; else 503."""
    ready, why, checks = readiness()
    if not ready:
        return error_response(503, "unavailable", why, {"checks": checks}, {"Retry-After": "5"})
    return {"status": "ready", "checks": checks, "build": build_info.describe()}  # compiled or interpreted


@bp.get("/metrics")
def prometheus_metrics():
    """Prometheus text format."""
    return metrics.render()


def init_app(app: Flask) -> None:
    """One hook before and one after every request: request id, latency metric, JSON log."""
    logs.configure(app.config.get("LOG_LEVEL", "INFO"))
    log_requests = bool(app.config.get("LOG_REQUESTS", True))
    clock = time.perf_counter

    @app.before_request
    def _before() -> None:
        ctx_g = g._get_current_object()  # type: ignore[attr-defined]
        ctx_g.t0 = clock()
        logs.start_request(ctx_g, request.headers)

    @app.after_request
    def _after(response: Any) -> Any:
        ctx_g = g._get_current_object()  # type: ignore[attr-defined]
        t0 = ctx_g.get("t0")
        if t0 is not None:
            elapsed = clock() - t0
            req = request._get_current_object()  # type: ignore[attr-defined]
            method = req.method
            status = response.status_code
            metrics.observe(method, req.url_rule, status, elapsed)
            logs.finish_request(response, ctx_g.request_id, method, req.path, elapsed, log_requests)
        return response

    app.register_blueprint(bp)
