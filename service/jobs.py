"""Bot-search jobs in Redis, keyed by job id.

A job is one hash ``job:{id}`` (status, request, result) plus ``job:{id}:parts`` (each
part's root statistics). A job of N parts is N Celery tasks with different seeds; each
part stores its statistics with HSETNX and, only if it was the first to store that part,
increments the ``done`` counter, in one Lua script. The part that brings ``done`` to N
merges the statistics and completes the job. No task waits on another, and a redelivered
part (its worker died) changes nothing that was already recorded.

Progress: while it searches, each part writes the iterations it has done so far into
``iterations:{part}`` of the job hash (every :data:`REPORT_EVERY` seconds, from the
search's ``should_stop`` callback: see :class:`service.tasks.Progress`). A job's
``progress`` is ``{done, total, iterations, budget}``: parts finished (a review's
decisions) of all its parts, the iterations searched so far over every part, and the
iterations planned (None when the budget is a time only, or the bot does not search).

A part whose worker died is run again: at once when only its pool process died, after
the broker's visibility timeout when the whole worker died (see
:mod:`service.celery_app`). A job is failed only when no part has started for
:func:`lost_after` seconds: no live worker took the redelivered part up."""

from __future__ import annotations

import json
import time
from typing import Any, cast

import redis

from service.queues import time_limits, visibility_timeout
from service.redis_conn import Keys
from service.runtime import Runtime

STATUSES = ("pending", "queued", "running", "done", "failed")
"""``queued``: shown for a job whose worker was lost, waiting to run again (see
:meth:`JobStore.get`); it is never stored."""

# KEYS[1] job hash, KEYS[2] parts hash; ARGV: part, stats json, ttl
_FINISH_PART = """
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 1 then
  redis.call('EXPIRE', KEYS[2], ARGV[3])
  return redis.call('HINCRBY', KEYS[1], 'done', 1)
end
return -1
"""

# KEYS[1] job hash; ARGV: status, field, value. Sets a final status unless one is set.
_FINALISE = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status or status == 'done' or status == 'failed' then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1], ARGV[2], ARGV[3], 'finished', ARGV[4])
return 1
"""

# KEYS[1] job hash; ARGV: part, pid, now. Marks the job running, counts the attempt; a
# part started again (Celery redelivered it: its worker died) marks the job requeued.
_START_PART = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return -1 end
if status == 'done' or status == 'failed' then return -2 end
if status == 'pending' then redis.call('HSET', KEYS[1], 'status', 'running') end
redis.call('HSET', KEYS[1], 'pid:' .. ARGV[1], ARGV[2], 'started', ARGV[3], 'seen', ARGV[3])
local attempt = redis.call('HINCRBY', KEYS[1], 'attempts:' .. ARGV[1], 1)
if attempt > 1 then redis.call('HSET', KEYS[1], 'requeued', attempt - 1) end
return attempt
"""


# KEYS[1] job hash; ARGV: field, value, now. Never recreates an expired job (it would
# never expire). ``seen``: when a part last showed it was alive.
_REPORT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2], 'seen', ARGV[3])
return 1
"""

REPORT_EVERY = 0.25
"""Seconds between two progress reports of a searching part."""


def planned_iterations(request: dict[str, Any], parts: int, cap: int | None = None) -> int | None:
    """The iterations a job's searches are planned to run in all (each capped by ``cap``):
    a review's per-decision budget times its decisions; a bot's budget (None: time only,
    or a level that does not search)."""
    if "review" in request:
        return int(request["review"]["iterations"]) * parts
    iterations = (request.get("budget") or {}).get("iterations")
    if iterations is None:
        return None
    return int(iterations) if cap is None else min(int(iterations), cap)


def lost_after(config: dict[str, Any]) -> float:
    """Seconds after a running job's last part started when it is given up: the part's
    redelivery (visibility timeout, plus a sweep), then a wait for a free worker process
    (at most a hard time limit), plus 5 s of slack."""
    _soft, hard = time_limits(config)
    return visibility_timeout(config) + float(config.get("BROKER_RESTORE_INTERVAL", 5.0)) + hard + 5.0


def stalled(raw: dict[str, str], now: float, after: float) -> bool:
    """No part of this running job showed a sign of life (its start, a progress report)
    for ``after`` seconds: its worker is gone (a search reports about every 0.25 s)."""
    last = raw.get("seen") or raw.get("started")
    return last is not None and now - float(last) > after


class JobStore:
    def __init__(self, client: redis.Redis, keys: Keys, ttl: int) -> None:
        self.r = client
        self.keys = keys
        self.ttl = ttl
        self._finish = client.register_script(_FINISH_PART)
        self._finalise = client.register_script(_FINALISE)
        self._start = client.register_script(_START_PART)
        self._report = client.register_script(_REPORT)

    def create(self, job_id: str, request: dict[str, Any], parts: int) -> None:
        key = self.keys.job(job_id)
        pipe = self.r.pipeline()
        pipe.hset(
            key,
            mapping={
                "status": "pending",
                "parts": parts,
                "done": 0,
                "created": f"{time.time():.3f}",
                "request": json.dumps(request),
            },
        )
        pipe.expire(key, self.ttl)
        pipe.execute()

    def start_part(self, job_id: str, part: int, pid: int) -> int:
        """The attempt number of this part (1 the first time); -1 for an unknown (expired)
        job, -2 for a job that is already done or failed."""
        return int(self._start(keys=[self.keys.job(job_id)], args=[part, pid, f"{time.time():.3f}"]))

    def finish_part(self, job_id: str, part: int, stats: dict[str, Any]) -> int:
        """How many parts are done after this one, or -1 if this part was already recorded."""
        return int(
            self._finish(
                keys=[self.keys.job(job_id), self.keys.job_parts(job_id)],
                args=[part, json.dumps(stats), self.ttl],
            )
        )

    def report_iterations(self, job_id: str, part: int, iterations: int) -> None:
        """Part ``part`` has searched ``iterations`` so far (nothing if the job expired)."""
        args: list[str | int] = [f"iterations:{part}", int(iterations), f"{time.time():.3f}"]
        self._report(keys=[self.keys.job(job_id)], args=args)

    def parts(self, job_id: str) -> list[dict[str, Any]]:
        raw = self.r.hgetall(self.keys.job_parts(job_id))
        return [json.loads(raw[k]) for k in sorted(raw, key=int)]

    def complete(self, job_id: str, result: dict[str, Any]) -> bool:
        return bool(
            self._finalise(
                keys=[self.keys.job(job_id)],
                args=["done", "result", json.dumps(result), f"{time.time():.3f}"],
            )
        )

    def fail(self, job_id: str, why: str) -> bool:
        return bool(
            self._finalise(keys=[self.keys.job(job_id)], args=["failed", "error", why, f"{time.time():.3f}"])
        )

    def get(
        self,
        job_id: str,
        stuck_after: float | None = None,
        iteration_cap: int | None = None,
        stall_after: float | None = None,
    ) -> dict[str, Any] | None:
        """The job as the API shows it. A job still running ``stuck_after`` seconds after
        its last part started (:func:`lost_after`: its worker died and no worker ran the
        redelivered part) is failed here, once. ``iteration_cap``: the server's cap on a
        search's iterations (BOT_MAX_ITERATIONS), for the planned budget.

        A running job none of whose parts has shown a sign of life (started, or reported
        progress: a search does about every 0.25 s) for ``stall_after`` seconds lost its
        worker: it is shown ``queued`` with ``requeued: true`` until the broker gives
        the part to another worker (``requeued_at``: when). Once a part runs again,
        ``requeued`` stays true and ``attempts`` counts its starts."""
        raw = self.raw(job_id)
        if not raw or "status" not in raw:
            return None
        if (
            stuck_after is not None
            and raw["status"] == "running"
            and time.time() - float(raw.get("started", time.time())) > stuck_after
        ):
            self.fail(job_id, "its worker was lost and no other worker took the search up in time")
            raw = self.raw(job_id) or raw
        job: dict[str, Any] = {"id": job_id, "status": raw["status"]}
        if int(raw.get("requeued", 0) or 0):
            job["requeued"] = True
        if raw["status"] == "running" and stall_after is not None and stalled(raw, time.time(), stall_after):
            job["status"] = "queued"
            job["requeued"] = True
            job["requeued_at"] = round(float(raw.get("seen") or raw.get("started") or 0) + stall_after, 3)
        job["parts"] = int(raw.get("parts", 1))
        job["parts_done"] = int(raw.get("done", 0))
        job["progress"] = {
            "done": job["parts_done"],
            "total": job["parts"],
            "iterations": sum(int(v) for k, v in raw.items() if k.startswith("iterations:")),
            "budget": planned_iterations(json.loads(raw.get("request") or "{}"), job["parts"], iteration_cap),
        }
        job["attempts"] = sum(int(v) for k, v in raw.items() if k.startswith("attempts:"))
        if raw["status"] == "done":
            job.update(json.loads(raw["result"]))
        elif raw["status"] == "failed":
            job["error"] = raw.get("error", "failed")
        return job

    def raw(self, job_id: str) -> dict[str, str]:
        return cast("dict[str, str]", self.r.hgetall(self.keys.job(job_id)))  # decode_responses: str


def job_store(runtime: Runtime) -> JobStore:
    """The jobs of ``runtime``'s Redis, kept JOB_TTL seconds."""
    return JobStore(runtime.redis(), runtime.keys, int(runtime.config["JOB_TTL"]))
