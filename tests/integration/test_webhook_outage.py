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
from service.queues import WEBHOOKS_QUEUE
from service.redis_conn import EmbeddedRedis, Keys, connect
from service.runtime import RUNTIME_EXTENSION
from tests.integration.conftest import GAME, IntegrationSettings, Worker, wait_for
from tests.integration.test_sessions import auth

pytestmark = pytest.mark.integration

PAUSE = 2.5  # seconds; the app's Redis timeout is 1 s: several calls fail meanwhile
PREFIX = f"majlis-outage-{uuid.uuid4().hex[:8]}"
OUTBOX_GRACE = 1.0


@pytest.fixture(scope="module")
def server():
    redis_server = EmbeddedRedis()
    redis_server.start()
    yield redis_server
    redis_server.proc.send_signal(signal.SIGCONT)
    redis_server.stop()


@pytest.fixture(scope="module")
def app(server):
    return create_app(IntegrationSettings(server.url, PREFIX, WEBHOOK_OUTBOX_GRACE=OUTBOX_GRACE))


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
    tasks.deliver_webhook(app.extensions[RUNTIME_EXTENSION], sid, 1, body)
    return time.monotonic() - started


def record(app, sid: str) -> dict:
    return webhooks.deliveries(app.extensions[RUNTIME_EXTENSION], sid)[1]


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


@pytest.mark.timeout(120)
def test_a_lost_delivery_task_is_sent_again_from_the_outbox_and_delivered_once(app, server, tmp_path):
    receiver = Receiver()
    worker = None
    try:
        client = connect(server.url, 2.0)
        client.delete(WEBHOOKS_QUEUE)  # the other tests' tasks (delivered here by hand)
        sid, _body = moved_session(app, receiver)  # its request queued the delivery ...
        assert client.llen(WEBHOOKS_QUEUE) == 1
        client.delete(WEBHOOKS_QUEUE)  # ... and the task is lost before any worker took it
        outbox = Keys(PREFIX).webhook_outbox()
        assert client.zscore(outbox, f"{sid}:1") is not None  # written with the move
        worker = Worker(server.url, PREFIX, tmp_path / "worker.log", concurrency=1,
                        MAJLIS_WEBHOOK_OUTBOX_GRACE=str(OUTBOX_GRACE))  # fmt: skip
        worker.wait_ready()
        wait_for(lambda: receiver.keys, 30)
        time.sleep(OUTBOX_GRACE + 5)  # a second sweep would have sent it again by now
        assert receiver.keys == [f"{sid}:1"]  # delivered once, rebuilt from the log
        assert record(app, sid)["status"] == "delivered"
        assert client.zrange(outbox, 0, -1) == []  # settled: out of the outbox
        assert f"{sid}:1" in worker.log_path.read_text()  # the sweep's line names it
    finally:
        if worker is not None:
            worker.stop()
        receiver.close()
