"""Webhooks against a real local HTTP server, a real Redis and a real Celery worker.

This module has its own Redis and its own worker (with a short back-off): it kills and
restarts the worker, and the session-wide worker must not take its deliveries."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import signal
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from engine import get_game
from service import create_app
from service.redis_conn import EmbeddedRedis, Keys, connect
from service.runtime import RUNTIME_EXTENSION
from service.webhooks import deliveries
from tests.integration.conftest import GAME, IntegrationSettings, Worker, assert_error, wait_for
from tests.problems import extensions

pytestmark = pytest.mark.integration

WORKER_ENV = {
    "MAJLIS_WEBHOOK_BACKOFF": "0.2",
    "MAJLIS_WEBHOOK_ATTEMPTS": "4",
    # one receiver serves every test here: its failures must not open its circuit breaker
    # (tested in test_fair_use_work.py)
    "MAJLIS_WEBHOOK_BREAKER_FAILURES": "1000",
    # a task held by a killed worker comes back 12 s after its delivery, swept every second
    "MAJLIS_SEARCH_SOFT_LIMIT": "2",
    "MAJLIS_SEARCH_HARD_LIMIT": "3",
    "MAJLIS_BROKER_VISIBILITY_TIMEOUT": "12",
    "MAJLIS_BROKER_RESTORE_INTERVAL": "1",
}


class Receiver:
    """A local HTTP server that records every POST and answers the statuses it is told
    (then 200): ``fail_next(2, 500)`` makes the next two requests fail."""

    def __init__(self) -> None:
        self.received: list[dict] = []
        self.statuses: list[int] = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers["Content-Length"]))
                with receiver.lock:
                    receiver.received.append({"headers": dict(self.headers), "body": body})
                    status = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def fail_next(self, count: int, status: int) -> None:
        with self.lock:
            self.statuses.extend([status] * count)

    def of(self, session_id: str) -> list[dict]:
        with self.lock:
            return [r for r in self.received if r["headers"]["Majlis-Delivery"].startswith(session_id)]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def own_redis():
    server = EmbeddedRedis()
    yield server.start()
    server.stop()


@pytest.fixture(scope="module")
def own_prefix():
    return f"majlis-hooks-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def hook_worker(own_redis, own_prefix, tmp_path_factory):
    log = tmp_path_factory.mktemp("hook-worker") / "worker.log"
    holder = {"worker": Worker(own_redis, own_prefix, log, concurrency=1, **WORKER_ENV)}
    try:
        holder["worker"].wait_ready()
        yield holder
    finally:
        holder["worker"].stop()


@pytest.fixture(scope="module")
def hook_app(own_redis, own_prefix, hook_worker):
    return create_app(IntegrationSettings(own_redis, own_prefix))


@pytest.fixture()
def hook_client(hook_app):
    return hook_app.test_client()


@pytest.fixture(scope="module")
def receiver():
    server = Receiver()
    yield server
    server.close()


def records(app, session_id: str) -> dict:
    """The delivery records of a session, read with the app's runtime (no app context)."""
    return deliveries(app.extensions[RUNTIME_EXTENSION], session_id)


def kill_tree(pid: int) -> None:
    """SIGKILL a process and its children (the worker's pool processes), by PID."""
    try:
        children = open(f"/proc/{pid}/task/{pid}/children").read().split()
    except OSError:
        children = []
    os.kill(pid, signal.SIGKILL)
    for child in children:
        try:
            os.kill(int(child), signal.SIGKILL)
        except ProcessLookupError:
            pass


def create(client, callback_url, seats=None, seed=11):
    body = {"game": GAME, "players": 2, "seed": seed, "callback_url": callback_url}
    body["options"] = {"target_score": 1000}
    if seats is not None:
        body["seats"] = seats
    answer = client.post("/v1/sessions", json=body)
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def play_first_legal(client, redis_client, prefix, created, times=1):
    """The seat to act plays its first legal action, ``times`` times; the versions made."""
    game = get_game(GAME)
    versions = []
    for _ in range(times):
        raw = redis_client.hgetall(Keys(prefix).session(created["id"]))
        state = game.from_json(json.loads(raw["state"]))
        seat = game.to_act(state)
        action = game.action_to_json(state, game.legal_actions(state)[0])
        answer = client.post(
            f"/v1/sessions/{created['id']}/moves",
            json={"action": action, "expected_version": int(raw["version"])},
            headers={"Authorization": f"Bearer {created['tokens'][seat]}"},
        )
        assert answer.status_code == 200, answer.get_json()
        versions.append(answer.get_json()["version"])
    return versions


def test_each_move_is_posted_signed_with_its_idempotency_key_and_no_hidden_card(
    hook_client, receiver, own_redis, own_prefix
):
    r = connect(own_redis, 2.0)
    # seed 11: seat 1 (a person) acts first, then seat 0 (a bot, played by the worker)
    created = create(hook_client, receiver.url, seats=[{"type": "bot", "level": "random"}, "human"])
    sid, secret = created["id"], created["webhook_secret"]
    assert secret and secret not in json.dumps(created["tokens"])
    play_first_legal(hook_client, r, own_prefix, created)
    # the person's move and the bot's answer (played by the worker) both arrive
    got = wait_for(lambda: len(receiver.of(sid)) >= 2 and receiver.of(sid), timeout=30)
    game = get_game(GAME)
    state = game.from_json(json.loads(r.hget(Keys(own_prefix).session(sid), "state")))
    by = set()
    for request in got:
        body, headers = request["body"], request["headers"]
        expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
        assert hmac.compare_digest(headers["Majlis-Signature"], expected)
        delivery = json.loads(body)
        assert headers["Majlis-Delivery"] == f"{sid}:{delivery['version']}"
        assert headers["Majlis-Attempt"] == "1"
        assert set(delivery) == {"session", "version", "seat", "by", "action", "events", "to_act", "finished"}
        by.add(delivery["by"])
    assert by == {"human", "bot"}
    # a spectator's body: no card that some seat cannot see now (hands, stock)
    hidden = {c for seat in range(2) for c in game.hidden_cards(state, seat)}
    shown = json.dumps([json.loads(g["body"])["events"] for g in got])
    assert not any(f'"{card}"' in shown for card in hidden), shown
    # a wrong secret would not verify
    forged = "sha256=" + hmac.new(b"guess", got[0]["body"], hashlib.sha256).hexdigest()
    assert not hmac.compare_digest(got[0]["headers"]["Majlis-Signature"], forged)


def test_a_failing_receiver_is_retried_until_it_answers_and_the_attempts_are_counted(
    hook_client, hook_app, receiver, own_redis, own_prefix
):
    r = connect(own_redis, 2.0)
    created = create(hook_client, receiver.url)
    sid = created["id"]
    receiver.fail_next(2, 500)
    [version] = play_first_legal(hook_client, r, own_prefix, created)
    wait_for(lambda: records(hook_app, sid).get(version, {}).get("status") == "delivered", timeout=30)
    record = records(hook_app, sid)[version]
    got = receiver.of(sid)
    assert [g["headers"]["Majlis-Attempt"] for g in got] == ["1", "2", "3"]
    assert {g["headers"]["Majlis-Delivery"] for g in got} == {f"{sid}:{version}"}
    assert len({g["body"] for g in got}) == 1  # the same signed body each time
    assert record == {"attempts": 3, "status": "delivered", "last_status": "200"}


def test_a_receiver_that_never_answers_2xx_is_given_up_after_the_attempts(
    hook_client, hook_app, receiver, own_redis, own_prefix
):
    r = connect(own_redis, 2.0)
    created = create(hook_client, receiver.url)
    sid = created["id"]
    receiver.fail_next(4, 503)
    [version] = play_first_legal(hook_client, r, own_prefix, created)
    wait_for(lambda: records(hook_app, sid).get(version, {}).get("status") == "failed", timeout=30)
    assert records(hook_app, sid)[version] == {"attempts": 4, "status": "failed", "last_status": "503"}
    assert len(receiver.of(sid)) == 4


def test_no_duplicate_delivery_after_the_worker_is_killed_and_restarted(
    hook_client, hook_app, hook_worker, receiver, own_redis, own_prefix, tmp_path
):
    r = connect(own_redis, 2.0)
    created = create(hook_client, receiver.url)
    sid = created["id"]
    versions = play_first_legal(hook_client, r, own_prefix, created, times=3)
    wait_for(lambda: all(records(hook_app, sid).get(v, {}).get("status") == "delivered" for v in versions))
    assert len(receiver.of(sid)) == 3
    # the whole worker dies (SIGKILL: no clean shutdown, nothing acknowledged on the way out)
    old = hook_worker["worker"]
    kill_tree(old.proc.pid)
    old.proc.wait(10)
    old.stop()
    new = Worker(own_redis, own_prefix, tmp_path / "worker2.log", concurrency=1, **WORKER_ENV)
    hook_worker["worker"] = new
    new.wait_ready()
    # the broker hands the restarted worker the same deliveries again (what it does with a
    # task whose worker died before acknowledging it): same task id, same arguments
    celery = hook_app.extensions["celery"]
    for version in versions:
        raw = receiver.of(sid)[version - 1]["body"]
        celery.send_task(
            "majlis.webhook_delivery",
            (sid, version, json.loads(raw)),
            task_id=f"{sid}:{version}",
            queue="sessions",
        )
    # a new move after the restart is delivered: the redelivered tasks ran before it
    [later] = play_first_legal(hook_client, r, own_prefix, created)
    wait_for(lambda: records(hook_app, sid).get(later, {}).get("status") == "delivered", timeout=30)
    seen = records(hook_app, sid)
    keys = [g["headers"]["Majlis-Delivery"] for g in receiver.of(sid)]
    assert sorted(keys) == sorted(f"{sid}:{v}" for v in [*versions, later]), keys
    assert all(seen[v]["attempts"] == 1 for v in versions)


def restart_worker(holder, url, prefix, log_path, **env) -> None:
    old = holder["worker"]
    kill_tree(old.proc.pid)
    old.proc.wait(10)
    old.stop()
    holder["worker"] = Worker(url, prefix, log_path, concurrency=1, **{**WORKER_ENV, **env})
    holder["worker"].wait_ready()


def test_a_retry_pending_when_its_worker_is_killed_is_delivered_once_by_the_next_worker(
    hook_client, hook_app, hook_worker, receiver, own_redis, own_prefix, tmp_path
):
    r = connect(own_redis, 2.0)
    # a worker whose retries wait 6 s: it holds the retry (unacknowledged) when killed
    restart_worker(hook_worker, own_redis, own_prefix, tmp_path / "slow.log", MAJLIS_WEBHOOK_BACKOFF="6")
    created = create(hook_client, receiver.url)
    sid = created["id"]
    receiver.fail_next(1, 500)
    [version] = play_first_legal(hook_client, r, own_prefix, created)
    wait_for(lambda: records(hook_app, sid).get(version, {}).get("last_status") == "500", interval=0.05)
    restart_worker(hook_worker, own_redis, own_prefix, tmp_path / "next.log")
    wait_for(lambda: records(hook_app, sid)[version]["status"] == "delivered", timeout=40)
    time.sleep(1.0)  # nothing else comes
    assert records(hook_app, sid)[version] == {"attempts": 2, "status": "delivered", "last_status": "200"}
    assert [g["headers"]["Majlis-Attempt"] for g in receiver.of(sid)] == ["1", "2"]


@pytest.mark.parametrize(
    "url, allow_private",
    [
        ("ftp://example.com/hook", True),
        ("not a url", True),
        ("http:///no-host", True),
        ("https://user:pw@example.com/hook", True),
        ("http://127.0.0.1:9/hook", False),
        ("http://10.1.2.3/hook", False),
        ("http://[::1]/hook", False),
        ("http://169.254.169.254/latest/meta-data", False),
    ],
)
def test_a_callback_url_that_is_not_http_or_not_allowed_is_refused(own_redis, own_prefix, url, allow_private):
    settings = IntegrationSettings(
        own_redis, own_prefix, WEBHOOK_ALLOW_PRIVATE=allow_private, WEBHOOK_ALLOW_LOOPBACK=False
    )
    answer = (
        create_app(settings)
        .test_client()
        .post("/v1/sessions", json={"game": GAME, "players": 2, "seed": 1, "callback_url": url})
    )
    error = assert_error(answer, 422, "invalid_callback")
    assert extensions(error) == {"field": "callback_url"}


def test_a_public_callback_address_is_accepted_when_private_ones_are_not(own_redis, own_prefix):
    app = create_app(IntegrationSettings(own_redis, own_prefix, WEBHOOK_ALLOW_PRIVATE=False))
    answer = app.test_client().post(
        "/v1/sessions",
        json={"game": GAME, "players": 2, "seed": 1, "callback_url": "https://93.184.216.34/hook"},
    )
    assert answer.status_code == 201, answer.get_json()
    assert answer.get_json()["webhook_secret"]


def test_a_session_without_callback_has_no_secret_and_posts_nothing(hook_client, receiver):
    answer = hook_client.post("/v1/sessions", json={"game": GAME, "players": 2, "seed": 3})
    assert answer.status_code == 201 and "webhook_secret" not in answer.get_json()
