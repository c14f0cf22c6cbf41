"""Prometheus metrics.

Per process (web workers): request latency by endpoint and status. With several
gunicorn workers, ``PROMETHEUS_MULTIPROC_DIR`` (set by ``python -m service.run`` and in
the deploy files) makes /metrics add up every worker process.

Cluster-wide, read from Redis at scrape time: jobs by outcome and search iterations
(counted by the Celery workers), queue depth of each Celery queue, live workers."""

from __future__ import annotations

import os
import time
from typing import Any

from flask import Flask, current_app
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from service.queues import ALL_QUEUES

REQUEST_LATENCY = Histogram(
    "majlis_request_duration_seconds",
    "HTTP request latency",
    ["method", "endpoint", "status"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.5, 5.0, 10.0),
)


class RedisCollector:
    """Counters and gauges kept in Redis, shared by every process and machine."""

    def __init__(self, app: Flask) -> None:
        self.app = app

    def collect(self):  # type: ignore[no-untyped-def]
        from service.runtime import RUNTIME_EXTENSION

        runtime = self.app.extensions.get(RUNTIME_EXTENSION)
        client, keys = (runtime.client, runtime.keys) if runtime else (None, None)
        up = GaugeMetricFamily("majlis_redis_up", "1 when Redis answers")
        if client is None:
            up.add_metric([], 0)
            yield up
            return
        try:
            pipe = client.pipeline()
            pipe.hgetall(keys.counters())
            for queue in ALL_QUEUES:
                pipe.llen(queue)
            pipe.hgetall(keys.workers())
            counters, *depths, workers = pipe.execute()
        except Exception:
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        jobs = CounterMetricFamily("majlis_jobs", "bot-search jobs finished, by outcome", labels=["outcome"])
        jobs.add_metric(["done"], float(counters.get("jobs_done", 0)))
        jobs.add_metric(["failed"], float(counters.get("jobs_failed", 0)))
        yield jobs
        yield CounterMetricFamily(
            "majlis_search_iterations",
            "ISMCTS iterations run by the workers",
            value=float(counters.get("search_iterations", 0)),
        )
        yield CounterMetricFamily(
            "majlis_session_moves", "moves applied in sessions", value=float(counters.get("session_moves", 0))
        )
        depth = GaugeMetricFamily(
            "majlis_queue_depth", "tasks waiting in each Celery queue", labels=["queue"]
        )
        for queue, waiting in zip(ALL_QUEUES, depths, strict=True):
            depth.add_metric([queue], float(waiting))
        yield depth
        stale = float(self.app.config.get("WORKER_STALE", 20.0))
        now = time.time()
        live = sum(1 for ts in workers.values() if now - float(ts) < stale)
        yield GaugeMetricFamily("majlis_workers", "Celery workers with a recent heartbeat", value=float(live))


def render() -> tuple[bytes, int, dict[str, str]]:
    registry = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.MultiProcessCollector(registry)
    else:
        registry.register(_ProcessLocal())
    registry.register(RedisCollector(current_app._get_current_object()))  # type: ignore[attr-defined]
    return generate_latest(registry), 200, {"Content-Type": CONTENT_TYPE_LATEST}


class _ProcessLocal:
    """This process's own metrics (no multiprocess directory: one process serves)."""

    def collect(self):  # type: ignore[no-untyped-def]
        yield from REQUEST_LATENCY.collect()


_series: dict[tuple[str, str, int], Any] = {}


def observe(method: str, url_rule: Any, status: int, elapsed: float) -> None:
    """Record one request's latency (called by the one after-request hook, service.ops).
    Each (method, endpoint, status) series is looked up once per process."""
    rule = url_rule.rule if url_rule is not None else "unmatched"
    key = (method, rule, status)
    series = _series.get(key)
    if series is None:
        series = _series[key] = REQUEST_LATENCY.labels(method, rule, str(status))
    series.observe(elapsed)
