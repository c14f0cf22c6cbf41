"""A webhook delivery survives Redis not answering (issue 35: "every webhook delivered
once"): Redis paused (SIGSTOP, as bench/cluster.py's ``pause`` fault does, and as a
failover looks to a client) before the delivery's POST, or between the POST and its
record. The delivery task (the real one, run in this process against a real Redis of
this module's own) waits for Redis and delivers once; before the fix such a task failed
with a Redis timeout, which drops its message (a lost delivery), or POSTed again."""

from __future__ import annotations

import signal
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from service import create_app, tasks, webhooks
from service.redis_conn import EmbeddedRedis
from tests.integration.conftest import GAME, IntegrationSettings
from tests.integration.test_sessions import auth

pytestmark = pytest.mark.integration

PAUSE = 2.5  # seconds; the app's Redis timeout is 1 s: several calls fail meanwhile


@pytest.fixture(scope="module")
def server():
    redis_server = EmbeddedRedis()
    redis_server.start()
    yield redis_server
    redis_server.proc.send_signal(signal.SIGCONT)
    redis_server.stop()


@pytest.fixture(scope="module")
def app(server):
    return create_app(IntegrationSettings(server.url, f"majlis-outage-{uuid.uuid4().hex[:8]}"))


def pause(server, seconds: float = PAUSE) -> threading.Thread:
    """SIGSTOP the Redis server now; SIGCONT it ``seconds`` later (in a thread)."""
    server.proc.send_signal(signal.SIGSTOP)

    def resume() -> None:
        time.sleep(seconds)
        server.proc.send_signal(signal.SIGCONT)

    thread = threading.Thread(target=resume, daemon=True)
    thread.start()
    return thread


class Receiver:
    """Records each POST's delivery key; ``on_post`` runs before it answers 204."""

    def __init__(self, on_post=None) -> None:
        self.keys: list[str] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                self.rfile.read(int(self.headers["Content-Length"]))
                receiver.keys.append(self.headers["Majlis-Delivery"])
                if on_post is not None:
                    on_post()
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def moved_session(app, receiver: Receiver) -> tuple[str, dict]:
    """A session with a callback and one move made: (id, that move's webhook body)."""
    client = app.test_client()
    body = {"game": GAME, "players": 2, "seed": 5, "callback_url": receiver.url}
    created = client.post("/v1/sessions", json=body).get_json()
    sid, token = created["id"], created["tokens"][created["to_act"]]
    seen = client.get(f"/v1/sessions/{sid}", headers=auth(token)).get_json()
    action = seen["legal_actions"][0]["action"]
    moved = client.post(
        f"/v1/sessions/{sid}/moves", json={"action": action, "expected_version": 0}, headers=auth(token)
    )
    assert moved.status_code == 200, moved.get_json()
    entry = client.get(f"/v1/sessions/{sid}/log", headers=auth(token)).get_json()["entries"][0]
    return sid, {"session": sid, "version": 1, "seat": entry["seat"], "by": "human", "action": action}


def deliver_now(app, sid: str, body: dict) -> float:
    """The real delivery task, run here (no worker): seconds it took."""
    started = time.monotonic()
    with app.app_context():
        tasks.webhook_delivery.run(sid, 1, body)
    return time.monotonic() - started


def record(app, sid: str) -> dict:
    with app.app_context():
        return webhooks.deliveries(sid)[1]


@pytest.mark.timeout(60)
def test_redis_paused_before_the_post_delays_the_delivery_and_loses_none(app, server):
    receiver = Receiver()
    try:
        sid, body = moved_session(app, receiver)
        resumed = pause(server)
        took = deliver_now(app, sid, body)
        resumed.join()
        assert receiver.keys == [f"{sid}:1"]  # delivered, once
        assert took >= PAUSE - 0.5  # it waited for Redis
        assert record(app, sid)["status"] == "delivered" and record(app, sid)["attempts"] == 1
    finally:
        receiver.close()


@pytest.mark.timeout(60)
def test_redis_paused_between_the_post_and_its_record_never_posts_twice(app, server):
    paused: list[threading.Thread] = []
    receiver = Receiver(on_post=lambda: paused.append(pause(server)))
    try:
        sid, body = moved_session(app, receiver)
        deliver_now(app, sid, body)
        paused[0].join()
        assert receiver.keys == [f"{sid}:1"]  # one POST: the record was written after the pause
        assert record(app, sid)["status"] == "delivered" and record(app, sid)["attempts"] == 1
    finally:
        receiver.close()
