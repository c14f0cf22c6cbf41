"""Jobs on a real Redis and a real worker: every 202 names its job in ``Location`` and
gives a ``Retry-After``; a job's ``progress`` counts the iterations the workers have
searched so far, growing while they search (it stayed 0 for a whole 4 s search)."""

from __future__ import annotations

import time

import pytest

from engine import get_game
from tests.integration.conftest import GAME, wait_for

pytestmark = pytest.mark.integration


def fresh_state(seed: int = 3):
    game = get_game(GAME)
    return game, game.new_state(2, game.parse_options({}, 2), 0, seed=seed)


def assert_accepted(answer, most_seconds: int = 10) -> dict:
    """A 202 whose Location is its job's URL and whose Retry-After is a whole number of seconds."""
    assert answer.status_code == 202, answer.get_json()
    job = answer.get_json()["job"]
    assert answer.headers["Location"] == job["url"] == f"/v1/jobs/{job['id']}"
    assert 1 <= int(answer.headers["Retry-After"]) <= most_seconds
    return job


def watch(client, url: str, timeout: float = 60.0) -> tuple[list[int], dict]:
    """The job's ``progress.iterations`` seen while it ran (polled every 0.1 s), and the job done."""
    seen: list[int] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = client.get(url).get_json()
        if job["status"] in ("done", "failed"):
            return seen, job
        if job["status"] == "running":
            seen.append(job["progress"]["iterations"])
        time.sleep(0.1)
    raise AssertionError(f"job {url} did not end within {timeout} s")


def test_a_searching_job_reports_growing_iterations(client):
    game, state = fresh_state()
    body = {"state": game.to_json(state), "async": True, "budget": {"ms": 2500}, "seed": 5}
    job = assert_accepted(client.post(f"/v1/games/{GAME}/bot-move", json=body))
    seen, done = watch(client, job["url"])
    assert done["status"] == "done", done
    growing = sorted(set(n for n in seen if n > 0))
    assert len(growing) >= 3, seen  # reported several times during a 2.5 s search
    assert seen == sorted(seen)  # never goes back
    progress = done["progress"]
    assert progress["done"] == progress["total"] == done["parts"] == 2
    assert progress["iterations"] == done["stats"]["iterations"] >= growing[-1]
    assert progress["budget"] is None  # a budget in time only


def test_the_progress_budget_is_the_planned_iterations(client):
    game, state = fresh_state()
    body = {"state": game.to_json(state), "async": True, "budget": {"iterations": 400}, "seed": 6}
    answer = client.post(f"/v1/games/{GAME}/bot-move", json=body)
    job = assert_accepted(answer)
    assert answer.headers["Retry-After"] == "1"  # 400 iterations: well within a second
    done = wait_for(lambda: (j := client.get(job["url"]).get_json())["status"] in ("done", "failed") and j)
    assert done["progress"] == {"done": 2, "total": 2, "iterations": 400, "budget": 400}


def test_a_long_search_answers_its_time_as_retry_after(client):
    game, state = fresh_state()
    body = {"state": game.to_json(state), "budget": {"ms": 5000}, "seed": 7}  # above ASYNC_MS
    answer = client.post(f"/v1/games/{GAME}/bot-move", json=body)
    job = assert_accepted(answer)
    assert answer.headers["Retry-After"] == "5"
    wait_for(lambda: client.get(job["url"]).get_json()["status"] in ("done", "failed"), timeout=60)


def test_session_bot_jobs_and_reviews_answer_location_and_retry_after(client):
    created = client.post("/v1/sessions", json={"game": GAME, "players": 2, "seed": 4}).get_json()
    auth = {"Authorization": f"Bearer {created['tokens'][1]}"}  # seat 1 is to act
    answer = client.post(
        f"/v1/sessions/{created['id']}/bot-move",
        json={"async": True, "budget": {"ms": 1500}, "seed": 1},
        headers=auth,
    )
    job = assert_accepted(answer)
    seen, done = watch(client, job["url"])
    assert done["status"] == "done", done
    assert done["seat"] == 1 and done["progress"]["iterations"] == done["stats"]["iterations"] > 0
    review = client.post(f"/v1/sessions/{created['id']}/review", json={"iterations": 200}, headers=auth)
    job = assert_accepted(review)
    seen, done = watch(client, job["url"])
    assert done["status"] == "done", done
    decisions = done["review"]["decisions"]
    assert done["progress"]["budget"] == 200 * len(decisions)
    assert done["progress"]["iterations"] == sum(d["iterations"] for d in decisions)
