"""Celery tasks: plain JSON in (game id, view, seat, budget, seed), results to Redis.

``search_part`` is one part of a bot-search job (see :mod:`service.jobs`);
``session_bot_turn`` plays a session's bot seat, on its own turn or as a bot-move job
asked by a seat's token (see :mod:`service.sessions`); ``session_turn_timeout`` plays
for a person whose turn timer ran out (sent by the workers' sweep: :mod:`service.timers`);
``webhook_delivery`` POSTs a session's move to its callback (:mod:`service.webhooks`);
``review_part`` searches one decision of a match review (:mod:`service.review`). None
waits on another task."""

from __future__ import annotations

import logging
import os
import random
import time
from typing import Any

from celery import shared_task  # type: ignore[import-untyped]  # celery ships no type information
from celery.exceptions import SoftTimeLimitExceeded  # type: ignore[import-untyped]  # celery ships no type information
from flask import current_app

from ai.bots import Budget, best_action, decide, merge_root_stats, search_root
from engine import UnknownGame, get_game
from engine.protocol import EngineError
from service import review, sessions, webhooks
from service.dispatch import JSON_SAFE_INT
from service.domain_errors import ApiError
from service.jobs import REPORT_EVERY, JobStore
from service.queues import ROUTES
from service.redis_conn import get_redis, keys

log = logging.getLogger(__name__)

PART_SEED_STRIDE = 1_000_003
"""Part ``i`` of a job searches with seed ``seed + i * stride`` (different, reproducible)."""


def job_store() -> JobStore:
    return JobStore(get_redis(), keys(), int(current_app.config["JOB_TTL"]))


def count(name: str, amount: int = 1) -> None:
    """Cluster-wide counters for /metrics (jobs by outcome, search iterations)."""
    try:
        get_redis().hincrby(keys().counters(), name, amount)
    except Exception:  # metrics never break a job
        log.warning("could not count %s", name)


class Progress:
    """A search part's ``should_stop``: true past ``deadline``; and, since the search calls
    it before every iteration, it counts them and writes the count into the job every
    REPORT_EVERY seconds, so that ``GET /v1/jobs/{id}`` shows the search moving."""

    def __init__(self, store: JobStore, job_id: str, part: int, deadline: float) -> None:
        self.store, self.job_id, self.part = store, job_id, part
        self.deadline = deadline
        self.calls = 0
        self.next_report = time.monotonic() + REPORT_EVERY

    @property
    def iterations(self) -> int:
        """Iterations started so far (the call before the next one counts too)."""
        return max(0, self.calls - 1)

    def __call__(self) -> bool:
        self.calls += 1
        now = time.monotonic()
        if now >= self.next_report:
            self.next_report = now + REPORT_EVERY
            self.report(self.iterations)
        return now > self.deadline

    def report(self, iterations: int) -> None:
        try:
            self.store.report_iterations(self.job_id, self.part, iterations)
        except Exception:  # progress never breaks a search; try again a while later
            log.warning("could not report the progress of job %s", self.job_id)
            self.next_report = time.monotonic() + 20 * REPORT_EVERY


def iterations_of(answer: dict[str, Any]) -> int:
    """The iterations a part's answer says it searched (root statistics, or a decision's)."""
    return int(answer.get("iterations") or (answer.get("stats") or {}).get("iterations") or 0)


def search_deadline(config: Any) -> float:
    """A search stops a second before the soft time limit, and answers its best move so far."""
    return time.monotonic() + max(0.5, float(config["SEARCH_SOFT_LIMIT"]) - 1.0)


def part_budget(payload: dict[str, Any]) -> Budget:
    budget = payload.get("budget") or {}
    parts = int(payload.get("parts", 1))
    iterations = budget.get("iterations")
    if iterations is not None and parts > 1:
        iterations = -(-int(iterations) // parts)
    return Budget(iterations=iterations, ms=budget.get("ms"), cpu=bool(budget.get("cpu", False)))


def compute_part(payload: dict[str, Any], part: int, should_stop) -> dict[str, Any]:
    """One part's answer: a whole decision for a one-part job, root statistics otherwise."""
    config = current_app.config
    game = get_game(payload["game"])
    view = payload["view"]
    parts = int(payload.get("parts", 1))
    seed = (int(payload["seed"]) + part * PART_SEED_STRIDE) % JSON_SAFE_INT  # shown in the stats
    limits = {"max_iterations": config["BOT_MAX_ITERATIONS"], "max_ms": config["BOT_MAX_MS"]}
    if parts == 1:
        budget = part_budget(payload) if payload.get("budget") else None
        decision = decide(
            game, view, level=payload["level"], budget=budget, seed=seed, should_stop=should_stop, **limits
        )
        world = game.sampler(view)(random.Random(0))
        return {"action": game.action_to_json(world, decision.action), "stats": decision.stats}
    return search_root(
        game, view, part_budget(payload), seed, should_stop=should_stop, level=payload["level"], **limits
    )


def merged_result(payload: dict[str, Any], parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The job's answer from its parts' root statistics."""
    if len(parts) == 1 and "action" in parts[0]:
        return parts[0]
    merged = merge_root_stats(parts)
    stats = {
        "level": payload["level"],
        "seed": payload["seed"],
        "iterations": merged["iterations"],
        "elapsed_ms": merged["elapsed_ms"],
        "parts": len(parts),
        "seeds": merged["seeds"],
        "actions": [
            {
                "action": a["action"],
                "visits": a["visits"],
                "mean": round(a["total"] / a["visits"], 6) if a["visits"] else None,
            }
            for a in merged["actions"]
        ],
    }
    return {"action": best_action(merged), "stats": stats}


@shared_task(name="majlis.search_part", bind=True)
def search_part(self: Any, job_id: str, part: int, payload: dict[str, Any]) -> None:
    """Run part ``part`` of job ``job_id`` and, if it is the last part to finish, merge."""
    config = current_app.config
    store = job_store()
    progress = begin_part(store, job_id, part, config, "running this search")
    if progress is None:
        return
    try:
        stats = compute_part(payload, part, progress)
    except SoftTimeLimitExceeded:
        if store.fail(job_id, "the search ran past its time limit"):
            count("jobs_failed")
        return
    except (EngineError, UnknownGame, ValueError) as error:
        if store.fail(job_id, getattr(error, "message", None) or str(error)):
            count("jobs_failed")
        return
    except Exception as error:  # never leave a job pending forever
        log.exception("search part failed")
        if store.fail(job_id, f"internal error: {type(error).__name__}"):
            count("jobs_failed")
        return
    progress.report(iterations_of(stats))
    done = store.finish_part(job_id, part, stats)
    if done < 0:
        return
    count("search_iterations", iterations_of(stats))
    if done == int(payload.get("parts", 1)):
        result = merged_result(payload, store.parts(job_id))
        if store.complete(job_id, result):
            count("jobs_done")


@shared_task(name="majlis.session_bot_turn", bind=True)
def session_bot_turn(self: Any, session_id: str, version: int, order: dict[str, Any] | None = None) -> None:
    """A bot's turn in session ``session_id`` at ``version``: the session's own bot seat
    to act (no ``order``; a no-op if the session moved on), or a bot-move job asked by a
    seat's token (``order``: a :class:`service.sessions.BotOrder` as JSON)."""
    if order is None:
        sessions.bot_turn(session_id, version, holder=self.request.id)
    else:
        run_session_job(session_id, sessions.BotOrder.from_json(order))


def run_session_job(session_id: str, order: sessions.BotOrder) -> None:
    """Play a session bot-move job and record its answer (or why it failed) under the job id."""
    config = current_app.config
    store = job_store()
    job_id = order.job
    assert job_id is not None, "a bot-move job's order names its job (sessions.start_bot_job)"
    progress = begin_part(store, job_id, 0, config, "running this bot")
    if progress is None:
        return
    try:
        answer = sessions.bot_job_turn(session_id, order, progress)
    except ApiError as error:  # the session moved on, the seat was claimed, expired
        fail_job(store, job_id, f"{error.code}: {error.message}")
        return
    except SoftTimeLimitExceeded:
        fail_job(store, job_id, "the search ran past its time limit")
        return
    except (EngineError, ValueError) as error:
        fail_job(store, job_id, getattr(error, "message", None) or str(error))
        return
    except Exception as error:  # never leave a job pending forever
        log.exception("session bot job failed")
        fail_job(store, job_id, f"internal error: {type(error).__name__}")
        return
    progress.report(iterations_of(answer) or progress.iterations)  # no stats for another's seat
    store.finish_part(job_id, 0, answer)
    if store.complete(job_id, answer):
        count("jobs_done")


@shared_task(name="majlis.session_turn_timeout", bind=True)
def session_turn_timeout(self: Any, session_id: str, version: int) -> None:
    """The turn timer of session ``session_id`` set at ``version`` ran out: a bot plays
    that seat's move, if the session is still at that version (else a no-op)."""
    try:
        sessions.timeout_turn(session_id, version)
    except (EngineError, ValueError):  # it would fail again: never retried
        log.exception("turn timeout of session %s failed", session_id)
        sessions.store().drop_timer(session_id, version)


def begin_part(store: JobStore, job_id: str, part: int, config: Any, doing: str) -> Progress | None:
    """Mark part ``part`` of ``job_id`` started by this process; its progress reporter, or
    None when it must not run: the job expired or ended already (a redelivered task), or
    the workers ``doing`` it died too often (the job is failed, saying so)."""
    attempt = store.start_part(job_id, part, os.getpid())
    if attempt < 0:
        return None
    if attempt > int(config["JOB_MAX_ATTEMPTS"]):
        fail_job(store, job_id, f"the worker {doing} died {attempt - 1} times")
        return None
    return Progress(store, job_id, part, search_deadline(config))


def fail_job(store: JobStore, job_id: str, why: str) -> None:
    if store.fail(job_id, why):
        count("jobs_failed")


# --------------------------------------------------------------------------- webhooks, review


@shared_task(name="majlis.webhook_delivery", bind=True)
def webhook_delivery(self: Any, session_id: str, version: int, body: dict[str, Any]) -> None:
    """POST one move of session ``session_id`` to its callback (see :mod:`service.webhooks`);
    on failure, the same task again after a back-off (the attempts are counted in Redis).
    Queued anew rather than ``self.retry``: the failed attempt has logged its one line.
    While Redis does not answer, the task waits for it rather than fail (a failed task's
    message is dropped: that delivery would be lost)."""
    config = current_app.config
    key = webhooks.delivery_key(session_id, version)
    wait = webhooks.outage_wait(config)
    # Redis paused or failing over: wait for it (a failed task would drop its message)
    retry_in = webhooks.through_outage(
        lambda: webhooks.deliver(session_id, version, body, config), wait, f"webhook {key}"
    )
    if retry_in is not None:
        webhooks.through_outage(
            lambda: webhook_delivery.apply_async(
                (session_id, version, body),
                countdown=retry_in,
                task_id=key,
                **ROUTES["majlis.webhook_delivery"],
            ),
            wait,
            f"webhook {key}",
        )


@shared_task(name="majlis.review_part", bind=True)
def review_part(self: Any, job_id: str, part: int, payload: dict[str, Any]) -> None:
    """Search one decision of review job ``job_id`` again (see :mod:`service.review`); the
    part that finishes last merges the review, keeps it with its session and completes the job."""
    config = current_app.config
    store = job_store()
    progress = begin_part(store, job_id, part, config, "reviewing this decision")
    if progress is None:
        return
    try:
        decision = review.review_position(get_game(payload["game"]), payload, config, progress)
    except SoftTimeLimitExceeded:
        fail_job(store, job_id, "the review ran past its time limit")
        return
    except (EngineError, UnknownGame, ValueError) as error:
        fail_job(store, job_id, getattr(error, "message", None) or str(error))
        return
    except Exception as error:  # never leave a job pending forever
        log.exception("review part failed")
        fail_job(store, job_id, f"internal error: {type(error).__name__}")
        return
    progress.report(iterations_of(decision))
    done = store.finish_part(job_id, part, decision)
    if done < 0:
        return
    count("search_iterations", iterations_of(decision))
    if done == int(store.raw(job_id).get("parts", 0)):
        meta = review.meta_of(store, job_id)
        session_ttl = int(config["SESSION_TTL"])
        if review.finish(store, job_id, review.merge(meta, store.parts(job_id)), meta, session_ttl):
            count("jobs_done")
