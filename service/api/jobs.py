"""GET /v1/jobs/{id}: a bot search running on the workers; and how a job is started."""

from __future__ import annotations

import uuid
from typing import Any

from flask import current_app, url_for
from flask.views import MethodView
from kombu.exceptions import OperationalError

from service.api.blueprint import Blueprint
from service.api.common import document_errors
from service.api.session_schemas import JobSchema
from service.errors import ApiError
from service.jobs import JobStore, lost_after
from service.redis_conn import get_redis, keys

blp = Blueprint("jobs", __name__, url_prefix="/v1/jobs", description="Bot searches running as jobs")


def store() -> JobStore:
    return JobStore(get_redis(), keys(), int(current_app.config["JOB_TTL"]))


def job_url(job_id: str) -> str:
    return url_for("jobs.Job", job_id=job_id)


def send_task(name: str, args: tuple, **options: Any) -> None:
    """Send with this app's own Celery (not the process default: a process may hold
    several apps, e.g. in tests), without publish retries (a dead Redis fails fast).
    ``options`` may name another ``queue`` than the task's route."""
    from service.celery_app import ROUTES

    celery = current_app.extensions["celery"]
    celery.send_task(name, args, retry=False, **{**ROUTES[name], **options})


def start_search(payload: dict[str, Any], parts: int) -> dict[str, Any]:
    """Record a job and queue its ``parts`` tasks; the job reference answered with 202.

    ``payload``: game, view, seat, level, budget ({iterations, ms}), seed (plain JSON)."""
    job_id = uuid.uuid4().hex
    payload = dict(payload, parts=parts)
    store().create(job_id, payload, parts)
    try:
        for part in range(parts):
            send_task("majlis.search_part", (job_id, part, payload), task_id=f"{job_id}.{part}")
    except OperationalError as error:
        store().fail(job_id, "the job queue is unreachable")
        raise ApiError(
            503, "unavailable", f"the job queue (Redis) is unreachable: {error}", {"dependency": "redis"}
        ) from error
    return {"id": job_id, "status": "pending", "url": job_url(job_id)}


@blp.route("/<job_id>")
class Job(MethodView):
    @blp.alt_response(200, schema=JobSchema, description="the job's status; its action and stats when done")
    @document_errors(blp, 404, 503)
    def get(self, job_id: str):
        """A job's status: `pending`, `running`, `done` (with `action` and `stats`) or
        `failed` (with `error`: why). Jobs are kept for a short while after they end."""
        job = store().get(job_id, lost_after(current_app.config))  # Keys: 404 for an id never issued
        if job is None:
            raise ApiError(404, "unknown_job", f"no job {job_id!r} (unknown, or expired)")
        job["url"] = job_url(job_id)
        return job
