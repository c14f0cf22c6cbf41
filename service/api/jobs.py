"""GET /v1/jobs/{id}: a bot search running on the workers; and how a job is started."""

from __future__ import annotations

import math
import uuid
from typing import Any

from flask import current_app, url_for
from flask.views import MethodView
from kombu.exceptions import OperationalError

from ai.bots import Budget
from service import quotas
from service.api.blueprint import Blueprint
from service.api.common import document_errors, job_store, quota_client, runtime
from service.api.session_schemas import JobSchema
from service.errors import ApiError, job_problem
from service.jobs import lost_after
from service.queues import search_queue

blp = Blueprint("jobs", __name__, url_prefix="/v1/jobs", description="Bot searches running as jobs")


def job_url(job_id: str) -> str:
    return url_for("jobs.Job", job_id=job_id)


def with_url(job: dict[str, Any]) -> dict[str, Any]:
    """A job reference the domain made ({id, status}) with its URL: what a 202 answers."""
    return {**job, "url": job_url(job["id"])}


ITERATIONS_PER_SECOND = 5_000
"""A rough search speed of one worker process (docs/bots.md: 150 to 20,000 by game), for
``Retry-After`` only."""
MAX_RETRY_AFTER = 10
"""The longest ``Retry-After``: a client polling by it still sees the job's progress."""


def accepted(job: dict[str, Any], seconds: float) -> tuple[dict[str, Any], int, dict[str, str]]:
    """The 202 answer for ``job``: its reference, ``Location`` (its URL) and ``Retry-After``
    (``seconds``, the job's estimated duration, as whole seconds from 1 to MAX_RETRY_AFTER;
    0 for a job already done)."""
    wait = 0 if job["status"] == "done" else min(MAX_RETRY_AFTER, max(1, math.ceil(seconds)))
    return {"job": job}, 202, {"Location": job["url"], "Retry-After": str(wait)}


def search_seconds(real: Budget | None, parts: int = 1) -> float:
    """The estimated duration of a bot search with budget ``real`` (capped by the server;
    None: a level that does not search) split over ``parts`` root-parallel tasks."""
    if real is None:
        return 0.0
    seconds = (real.ms or 0.0) / 1000.0
    if real.iterations is not None:
        by_iterations = real.iterations / parts / ITERATIONS_PER_SECOND
        seconds = min(seconds, by_iterations) if seconds else by_iterations
    return seconds


def review_seconds(decisions: int, iterations: int) -> float:
    """The estimated duration of a review: every decision searched, one worker process."""
    return decisions * iterations / ITERATIONS_PER_SECOND


def start_search(payload: dict[str, Any], parts: int) -> dict[str, Any]:
    """Record a job and queue its ``parts`` tasks; the job reference answered with 202.

    ``payload``: game, view, seat, level, budget ({iterations, ms}), seed (plain JSON)."""
    runtime().check_room()  # 507 while Redis is nearly full
    kind = quotas.check_job(runtime(), quota_client(), "jobs")
    job_id = uuid.uuid4().hex
    payload = dict(payload, parts=parts)
    job_store().create(job_id, payload, parts)
    queue = search_queue(payload, current_app.config)  # a small search: the interactive pool
    quotas.count_job(runtime(), quota_client(), kind, job_id)
    try:
        for part in range(parts):
            runtime().send_task(
                "majlis.search_part", (job_id, part, payload), task_id=f"{job_id}.{part}", queue=queue
            )
    except OperationalError as error:
        job_store().fail(job_id, "the job queue is unreachable")
        # the broker's text names its keys: service/errors.py answers without it
        raise ApiError(503, "unavailable", "the job queue is unreachable", {"dependency": "redis"}) from error
    return {"id": job_id, "status": "pending", "url": job_url(job_id)}


@blp.route("/<job_id>")
class Job(MethodView):
    @blp.alt_response(200, schema=JobSchema, description="the job's status; its action and stats when done")
    @document_errors(blp, 404, 503)
    def get(self, job_id: str):
        """A job's status: `pending`, `running`, `done` (with `action` and `stats`) or
        `failed` (with `error`: why, and `problem`: the same as problem details, code
        `job_failed`). Jobs are kept for a short while after they end.

        `queued` with `requeued: true`: the worker running the job was lost (no sign of
        life for `MAJLIS_JOB_STALL_SECONDS`); the job waits for the broker to hand it to
        another worker, then shows `running` again, `requeued` still true and `attempts`
        counting every start.

        `progress`: `done` and `total` parts (a review: decisions), `iterations` searched
        so far over all parts (the workers report them about every 0.25 s while they
        search) and `budget`, the iterations planned (null for a budget in time only)."""
        config = current_app.config
        # Keys: 404 for an id never issued
        stall = float(config["JOB_STALL_SECONDS"])
        job = job_store().get(job_id, lost_after(config), int(config["BOT_MAX_ITERATIONS"]), stall)
        if job is None:
            raise ApiError(404, "unknown_job", f"no job {job_id!r} (unknown, or expired)")
        job["url"] = job_url(job_id)
        if job["status"] == "failed":
            job["problem"] = job_problem(job["error"])
        return job
