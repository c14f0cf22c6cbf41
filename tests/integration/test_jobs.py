"""Async bot searches on a real worker: 202, GET /v1/jobs, root-parallel merge,
idempotent redelivery when a worker process or a whole worker dies, clean failures,
readiness, metrics."""

from __future__ import annotations

import json
import os
import signal
import time

import pytest

from ai import build_info
from engine import get_game
from service import create_app
from service.api.jobs import start_search
from service.jobs import JobStore
from service.redis_conn import EmbeddedRedis, Keys, connect
from tests.integration.conftest import GAME, IntegrationSettings, Worker, assert_error, wait_for
from tests.problems import problem

pytestmark = pytest.mark.integration


def fresh_state(seed: int = 3):
    game = get_game(GAME)
    state = game.new_state(2, game.parse_options({}, 2), 0, seed=seed)
    return game, state


def finished_job(client, url: str, timeout: float = 60.0) -> dict:
    def done():
        body = client.get(url).get_json()
        return body if body["status"] in ("done", "failed") else None

    return wait_for(done, timeout, 0.1)


def test_async_bot_move_end_to_end(client):
    game, state = fresh_state()
    seat = game.to_act(state)
    body = {
        "state": game.to_json(state),
        "seat": seat,
        "async": True,
        "budget": {"iterations": 400},
        "seed": 11,
    }
    answer = client.post(f"/v1/games/{GAME}/bot-move", json=body)
    assert answer.status_code == 202, answer.get_json()
    job = answer.get_json()["job"]
    assert set(job) == {"id", "status", "url"} and job["status"] == "pending"
    assert job["url"] == f"/v1/jobs/{job['id']}"
    result = finished_job(client, job["url"])
    assert result["status"] == "done", result
    legal = [game.action_to_json(state, a) for a in game.legal_actions(state)]
    assert result["action"] in legal
    stats = result["stats"]
    assert stats["parts"] == 2 and result["parts_done"] == 2
    assert stats["iterations"] == 400  # 200 per part, merged
    assert sum(a["visits"] for a in stats["actions"]) == 400
    assert len(set(stats["seeds"])) == 2
    # the same seed gives the same merged decision
    again = finished_job(
        client, client.post(f"/v1/games/{GAME}/bot-move", json=body).get_json()["job"]["url"]
    )
    assert again["action"] == result["action"] and again["stats"]["actions"] == stats["actions"]


def test_large_budget_goes_async_small_stays_inline(client):
    game, state = fresh_state(4)
    seat = game.to_act(state)
    small = client.post(
        f"/v1/games/{GAME}/bot-move",
        json={"state": game.to_json(state), "seat": seat, "budget": {"iterations": 50, "ms": 500}, "seed": 1},
    )
    assert small.status_code == 200 and "action" in small.get_json()
    large = client.post(
        f"/v1/games/{GAME}/bot-move",
        json={"view": game.view(state, seat), "seat": seat, "budget": {"iterations": 1500}, "seed": 1},
    )
    assert large.status_code == 202
    assert finished_job(client, large.get_json()["job"]["url"])["status"] == "done"


def test_non_searching_level_async_is_one_part(client):
    game, state = fresh_state(5)
    seat = game.to_act(state)
    answer = client.post(
        f"/v1/games/{GAME}/bot-move",
        json={"state": game.to_json(state), "seat": seat, "level": "easy", "async": True},
    )
    result = finished_job(client, answer.get_json()["job"]["url"])
    assert result["status"] == "done" and result["parts"] == 1
    assert result["action"] in [game.action_to_json(state, a) for a in game.legal_actions(state)]


def test_unknown_job_is_404(client):
    assert_error(client.get("/v1/jobs/" + "0" * 32), 404, "unknown_job")
    assert_error(client.get("/v1/jobs/not-a-job"), 404, "unknown_job")


def test_failed_job_says_why(app, client):
    with app.test_request_context():
        job = start_search(
            {
                "game": GAME,
                "view": {"seat": 0, "to_act": 0, "game": GAME},
                "seat": 0,
                "level": "normal",
                "budget": {"iterations": 10, "ms": None},
                "seed": 1,
            },
            parts=2,
        )
    result = finished_job(client, job["url"])
    assert result["status"] == "failed" and result["error"], result
    assert problem(result["problem"], 500)["code"] == "job_failed"
    assert result["problem"]["detail"] == result["error"]
    assert "action" not in result


def test_worker_killed_mid_search_job_completes_elsewhere(client, redis_client, prefix):
    game, state = fresh_state(6)
    seat = game.to_act(state)
    body = {"state": game.to_json(state), "seat": seat, "async": True, "budget": {"ms": 2500}, "seed": 5}
    job = client.post(f"/v1/games/{GAME}/bot-move", json=body).get_json()["job"]
    key = Keys(prefix).job(job["id"])
    pid = int(wait_for(lambda: redis_client.hget(key, "pid:0"), 30))
    os.kill(pid, signal.SIGKILL)  # the pool process running part 0 dies mid-search
    result = finished_job(client, job["url"], 90)
    # redelivered (reject_on_worker_lost) and run again by another pool process
    assert result["status"] == "done", result
    assert result["attempts"] >= 3
    assert int(redis_client.hget(key, "pid:0")) != pid
    assert result["action"] in [game.action_to_json(state, a) for a in game.legal_actions(state)]


def test_redelivered_part_is_idempotent(app, client, redis_client, prefix):
    """A part whose task runs twice (redelivery) records its statistics once."""
    store = JobStore(redis_client, Keys(prefix), 60)
    store.create("a" * 32, {"level": "normal", "seed": 1}, 2)
    stats = {
        "game": GAME,
        "seat": 0,
        "iterations": 5,
        "elapsed_ms": 1.0,
        "seeds": [1],
        "actions": [{"action": {"type": "pass"}, "visits": 5, "total": 2.0}],
    }
    assert store.finish_part("a" * 32, 0, stats) == 1
    assert store.finish_part("a" * 32, 0, stats) == -1
    assert store.finish_part("a" * 32, 1, dict(stats, seeds=[2])) == 2
    assert json.loads(redis_client.hget(Keys(prefix).job("a" * 32), "done")) == 2


def test_readyz_and_metrics(client):
    ready = client.get("/readyz")
    assert ready.status_code == 200, ready.get_json()
    assert ready.get_json()["checks"]["workers"] >= 1
    assert ready.get_json()["build"] == build_info.describe()  # which build of the search runs
    text = client.get("/metrics").get_data(as_text=True)
    assert "majlis_redis_up 1.0" in text
    assert 'majlis_queue_depth{queue="search"}' in text
    assert 'majlis_jobs_total{outcome="done"}' in text
    assert "majlis_search_iterations_total" in text
    assert "majlis_request_duration_seconds_bucket" in text


def test_soft_time_limit_answers_the_best_move_so_far(client):
    """The worker runs with a 4 s soft limit: a 6 s search stops at about 3 s with a move."""
    game, state = fresh_state(7)
    seat = game.to_act(state)
    body = {"state": game.to_json(state), "seat": seat, "async": True, "budget": {"ms": 6000}, "seed": 3}
    result = finished_job(
        client, client.post(f"/v1/games/{GAME}/bot-move", json=body).get_json()["job"]["url"]
    )
    assert result["status"] == "done", result
    assert result["stats"]["elapsed_ms"] < 4500 and result["stats"]["iterations"] > 0
    assert result["action"] in [game.action_to_json(state, a) for a in game.legal_actions(state)]


def test_whole_worker_killed_mid_search_job_completes_on_a_new_worker(tmp_path):
    """SIGKILL of the worker's main process (its pool processes die with it): nothing
    rejects the task, it stays reserved in Redis; a worker started afterwards puts it
    back on the queue once the visibility timeout has passed and completes the job."""
    server = EmbeddedRedis(directory=str(tmp_path))
    url = server.start()
    timing = {"SEARCH_SOFT_LIMIT": 4.0, "SEARCH_HARD_LIMIT": 6.0, "BROKER_VISIBILITY_TIMEOUT": 12.0}
    env = {f"MAJLIS_{name}": f"{value:g}" for name, value in timing.items()}
    env["MAJLIS_BROKER_RESTORE_INTERVAL"] = "1"
    prefix = "majlis-lost"
    first = Worker(url, prefix, tmp_path / "first.log", concurrency=1, **env)
    second = None
    try:
        first.wait_ready()
        client = create_app(
            IntegrationSettings(url, prefix, BROKER_RESTORE_INTERVAL=1.0, **timing)
        ).test_client()
        game, state = fresh_state(8)
        seat = game.to_act(state)
        body = {"state": game.to_json(state), "seat": seat, "async": True, "budget": {"ms": 2500}, "seed": 9}
        job = client.post(f"/v1/games/{GAME}/bot-move", json=body).get_json()["job"]
        key = Keys(prefix).job(job["id"])
        redis_client = connect(url, 2.0)
        pid = int(wait_for(lambda: redis_client.hget(key, "pid:0"), 30))
        os.kill(first.proc.pid, signal.SIGKILL)  # the whole worker: main process and pool
        first.proc.wait(10)
        wait_for(lambda: not os.path.exists(f"/proc/{pid}"), 10)
        second = Worker(url, prefix, tmp_path / "second.log", concurrency=1, **env)
        result = finished_job(client, job["url"], 60)
        assert result["status"] == "done", result
        assert int(redis_client.hget(key, "attempts:0")) == 2
        assert int(redis_client.hget(key, "pid:0")) != pid
        assert result["action"] in [game.action_to_json(state, a) for a in game.legal_actions(state)]
    finally:
        first.stop()
        if second is not None:
            second.stop()
        server.stop()


def test_a_job_is_given_up_only_after_a_redelivery_had_its_chance(make_app, worker, redis_client, prefix):
    """Running, its part started 60 s ago (past the 45 s hard limit): its worker may have
    died and the part may yet be redelivered (visibility timeout 60 s), so it is not failed;
    silent that long, it is shown queued again (issue 30), not running."""
    store = JobStore(redis_client, Keys(prefix), 60)
    store.create("c" * 32, {"level": "normal", "seed": 1}, 1)
    store.start_part("c" * 32, 0, 12345)
    long_ago = f"{time.time() - 60:.3f}"
    redis_client.hset(Keys(prefix).job("c" * 32), mapping={"started": long_ago, "seen": long_ago})
    app = make_app(SEARCH_HARD_LIMIT=45.0, BROKER_VISIBILITY_TIMEOUT=60.0)
    job = app.test_client().get("/v1/jobs/" + "c" * 32).get_json()
    assert (job["status"], job["requeued"]) == ("queued", True)


def test_a_job_whose_worker_vanished_fails_cleanly(make_app, worker, redis_client, prefix):
    """A part started long ago and never finished (a whole worker lost, none came back)
    is failed on read."""
    store = JobStore(redis_client, Keys(prefix), 60)
    store.create("b" * 32, {"level": "normal", "seed": 1}, 1)
    store.start_part("b" * 32, 0, 12345)
    redis_client.hset(Keys(prefix).job("b" * 32), "started", f"{time.time() - 3600:.3f}")
    result = make_app().test_client().get("/v1/jobs/" + "b" * 32).get_json()
    assert result["status"] == "failed" and "worker was lost" in result["error"]
