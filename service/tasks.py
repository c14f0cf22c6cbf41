"""Celery tasks: plain JSON in (game id, view, seat, budget, seed), results to Redis.

``search_part`` is one part of a bot-search job (see :mod:`service.jobs`);
``session_bot_turn`` plays a session's bot seat, on its own turn or as a bot-move job
asked by a seat's token (see :mod:`service.sessions`); ``session_turn_timeout`` plays
for a person whose turn timer ran out (sent by the workers' sweep: :mod:`service.timers`);
``webhook_delivery`` POSTs a session's move to its callback (:mod:`service.webhooks`);
``review_part`` searches one decision of a match review (:mod:`service.review`). None
waits on another task.

No task needs a Flask app: each finds its process's :class:`~service.runtime.Runtime`
(settings, Redis, the Celery app to send with) on its Celery app (:func:`runtime_of`, put
there by service/celery_app.py) and hands it to a body function that takes it as an
argument (``play_bot_turn``, ``play_timeout``, ``run_search_part``, ...), which a test may
call directly."""

from __future__ import annotations

import logging
import os
import random
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from celery import shared_task  # type: ignore[import-untyped]  # celery ships no type information
from celery.exceptions import SoftTimeLimitExceeded  # type: ignore[import-untyped]  # celery ships no type information

from ai.bots import Budget, best_action, decide, merge_root_stats, search_root
from engine import UnknownGame, get_game
from engine.protocol import EngineError
from service import review, sessions, webhooks
from service.dispatch import JSON_SAFE_INT
from service.domain_errors import DomainError
from service.jobs import REPORT_EVERY, JobStore, job_store
from service.runtime import Runtime

log = logging.getLogger(__name__)

PART_SEED_STRIDE = 1_000_003
"""Part ``i`` of a job searches with seed ``seed + i * stride`` (different, reproducible)."""


RUNTIME_ATTRIBUTE = "majlis_runtime"
"""The attribute of a Celery app that holds its process's Runtime (service/celery_app.py)."""


def runtime_of_app(celery: Any) -> Runtime:
    """The Runtime a Celery app holds (service/celery_app.py, ``make_celery``)."""
    return getattr(celery, RUNTIME_ATTRIBUTE)


def runtime_of(task: Any) -> Runtime:
    """The Runtime of the Celery app running ``task`` (a bound task's ``self``)."""
    return runtime_of_app(task.app)


def count(runtime: Runtime, name: str, amount: int = 1) -> None:
    """Cluster-wide counters for /metrics (jobs by outcome, search iterations)."""
    try:
        runtime.redis().hincrby(runtime.keys.counters(), name, amount)
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


def compute_part(config: Any, payload: dict[str, Any], part: int, should_stop) -> dict[str, Any]:
    """One part's answer (within the settings ``config``): a whole decision for a one-part
    job, root statistics otherwise."""
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
    run_search_part(runtime_of(self), job_id, part, payload)


def run_search_part(runtime: Runtime, job_id: str, part: int, payload: dict[str, Any]) -> None:
    store = job_store(runtime)
    ran = run_part(
        runtime,
        store,
        job_id,
        part,
        "running this search",
        "search",
        partial(compute_part, runtime.config, payload, part),
    )
    if ran is None:
        return
    if record_part(runtime, store, job_id, part, *ran) == int(payload.get("parts", 1)):
        result = merged_result(payload, store.parts(job_id))
        if store.complete(job_id, result):
            count(runtime, "jobs_done")


@shared_task(name="majlis.session_bot_turn", bind=True)
def session_bot_turn(self: Any, session_id: str, version: int, order: dict[str, Any] | None = None) -> None:
    """A bot's turn in session ``session_id`` at ``version``: the session's own bot seat
    to act (no ``order``; a no-op if the session moved on), or a bot-move job asked by a
    seat's token (``order``: a :class:`service.sessions.BotOrder` as JSON)."""
    play_bot_turn(runtime_of(self), session_id, version, order, holder=self.request.id)


def play_bot_turn(
    runtime: Runtime,
    session_id: str,
    version: int,
    order: dict[str, Any] | None = None,
    holder: str | None = None,
) -> None:
    """The body of ``session_bot_turn``: what it does, given the process's runtime
    (``holder``: the task's id, which holds the turn's one-time claim)."""
    store = sessions.SessionStore(runtime)
    if order is None:
        sessions.bot_turn(store, session_id, version, holder=holder)
    else:
        run_session_job(runtime, store, session_id, sessions.BotOrder.from_json(order))


def run_session_job(
    runtime: Runtime, store: sessions.SessionStore, session_id: str, order: sessions.BotOrder
) -> None:
    """Play a session bot-move job and record its answer (or why it failed) under the job id."""
    jobs = job_store(runtime)
    job_id = order.job
    assert job_id is not None, "a bot-move job's order names its job (sessions.start_bot_job)"
    ran = run_part(
        runtime,
        jobs,
        job_id,
        0,
        "running this bot",
        "search",
        partial(sessions.bot_job_turn, store, session_id, order),
    )
    if ran is None:
        return
    progress, answer = ran
    progress.report(iterations_of(answer) or progress.iterations)  # no stats for another's seat
    jobs.finish_part(job_id, 0, answer)
    if jobs.complete(job_id, answer):
        count(runtime, "jobs_done")


@shared_task(name="majlis.session_turn_timeout", bind=True)
def session_turn_timeout(self: Any, session_id: str, version: int) -> None:
    """The turn timer of session ``session_id`` set at ``version`` ran out: a bot plays
    that seat's move, if the session is still at that version (else a no-op)."""
    play_timeout(runtime_of(self), session_id, version)


def play_timeout(runtime: Runtime, session_id: str, version: int) -> None:
    """The body of ``session_turn_timeout``, given the process's runtime."""
    store = sessions.SessionStore(runtime)
    try:
        sessions.timeout_turn(store, session_id, version)
    except (EngineError, ValueError):  # it would fail again: never retried
        log.exception("turn timeout of session %s failed", session_id)
        store.drop_timer(session_id, version)


def run_part(
    runtime: Runtime,
    store: JobStore,
    job_id: str,
    part: int,
    doing: str,
    what: str,
    compute: Callable[[Progress], dict[str, Any]],
) -> tuple[Progress, dict[str, Any]] | None:
    """Run part ``part`` of ``job_id`` (``compute``, given the part's progress reporter as
    its ``should_stop``): (the reporter, the part's answer), or None when it must not run
    (:func:`begin_part`) or failed, the job then failed saying why: a refusal of the domain
    (the session moved on, the seat was claimed, it expired), the ``what``'s time limit, an
    engine error, or any other error (logged; never a job left pending forever)."""
    progress = begin_part(runtime, store, job_id, part, doing)
    if progress is None:
        return None
    try:
        return progress, compute(progress)
    except DomainError as error:
        why = f"{error.code}: {error.message}"
    except SoftTimeLimitExceeded:
        why = f"the {what} ran past its time limit"
    except (EngineError, UnknownGame, ValueError) as error:
        why = getattr(error, "message", None) or str(error)
    except Exception as error:
        log.exception("%s: part %s of job %s failed", doing, part, job_id)
        why = f"internal error: {type(error).__name__}"
    fail_job(runtime, store, job_id, why)
    return None


def record_part(
    runtime: Runtime, store: JobStore, job_id: str, part: int, progress: Progress, answer: dict[str, Any]
) -> int:
    """Keep a searching part's answer and count its iterations; how many parts of the job
    are done (-1: the job ended meanwhile, e.g. it expired or was failed)."""
    progress.report(iterations_of(answer))
    done = store.finish_part(job_id, part, answer)
    if done >= 0:
        count(runtime, "search_iterations", iterations_of(answer))
    return done


def begin_part(runtime: Runtime, store: JobStore, job_id: str, part: int, doing: str) -> Progress | None:
    """Mark part ``part`` of ``job_id`` started by this process; its progress reporter, or
    None when it must not run: the job expired or ended already (a redelivered task), or
    the workers ``doing`` it died too often (the job is failed, saying so)."""
    attempt = store.start_part(job_id, part, os.getpid())
    if attempt < 0:
        return None
    if attempt > int(runtime.config["JOB_MAX_ATTEMPTS"]):
        fail_job(runtime, store, job_id, f"the worker {doing} died {attempt - 1} times")
        return None
    return Progress(store, job_id, part, search_deadline(runtime.config))


def fail_job(runtime: Runtime, store: JobStore, job_id: str, why: str) -> None:
    if store.fail(job_id, why):
        count(runtime, "jobs_failed")


# --------------------------------------------------------------------------- webhooks, review


@shared_task(name="majlis.webhook_delivery", bind=True)
def webhook_delivery(self: Any, session_id: str, version: int, body: dict[str, Any]) -> None:
    """POST one move of session ``session_id`` to its callback (see :mod:`service.webhooks`);
    on failure, the same task again after a back-off (the attempts are counted in Redis).
    Queued anew rather than ``self.retry``: the failed attempt has logged its one line.
    While Redis does not answer, the task waits for it rather than fail (a failed task's
    message is dropped: that delivery would be lost)."""
    deliver_webhook(runtime_of(self), session_id, version, body)


def deliver_webhook(runtime: Runtime, session_id: str, version: int, body: dict[str, Any]) -> None:
    """The body of ``webhook_delivery``: one attempt, and the next queued after its
    back-off, each through a Redis outage."""
    key = webhooks.delivery_key(session_id, version)
    wait = webhooks.outage_wait(runtime.config)
    # Redis paused or failing over: wait for it (a failed task would drop its message)
    retry_in = webhooks.through_outage(
        lambda: webhooks.deliver(runtime, session_id, version, body), wait, f"webhook {key}"
    )
    if retry_in is not None:
        webhooks.through_outage(
            lambda: runtime.send_task(
                "majlis.webhook_delivery", (session_id, version, body), countdown=retry_in, task_id=key
            ),
            wait,
            f"webhook {key}",
        )


@shared_task(name="majlis.review_part", bind=True)
def review_part(self: Any, job_id: str, part: int, payload: dict[str, Any]) -> None:
    """Search one decision of review job ``job_id`` again (see :mod:`service.review`); the
    part that finishes last merges the review, keeps it with its session and completes the job."""
    run_review_part(runtime_of(self), job_id, part, payload)


def run_review_part(runtime: Runtime, job_id: str, part: int, payload: dict[str, Any]) -> None:
    store = job_store(runtime)

    def compute(progress: Progress) -> dict[str, Any]:
        return review.review_position(get_game(payload["game"]), payload, runtime.config, progress)

    ran = run_part(runtime, store, job_id, part, "reviewing this decision", "review", compute)
    if ran is None:
        return
    done = record_part(runtime, store, job_id, part, *ran)
    if done >= 0 and done == int(store.raw(job_id).get("parts", 0)):
        meta = review.meta_of(store, job_id)
        if review.finish(runtime, job_id, review.merge(meta, store.parts(job_id)), meta):
            count(runtime, "jobs_done")
