"""Fair use against the real system (``python -m service.run``: embedded Redis with a
small maxmemory, a Celery worker, the API's gunicorn and the gevent stream server).

Each test speaks from its own loopback address (127.0.0.x: Linux routes all of 127/8 to
lo), so that the per-address quotas of one test never touch another's. The tests run in
file order; the last one fills Redis. Every loop is bounded in count and time."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import threading
import time
from pathlib import Path

import pytest
import redis

from engine import get_game
from tests.service_run import running_service

pytestmark = pytest.mark.integration

GAME = "ronda"
INTERNAL = re.compile(r"junk|majlis:(?!request:)|_kombu|unacked|celery|OOM|maxmemory|redis\.", re.IGNORECASE)
"""What no answer may show: a Redis key name (ours, the broker's, the filler's) or its error."""
SETTINGS = {
    "MAJLIS_SEARCH_WORKERS": "1",
    "MAJLIS_REDIS_MAXMEMORY": "16mb",
    "MAJLIS_SESSION_TTL": "8",
    "MAJLIS_QUOTA_LIVE_SESSIONS": "3",
    "MAJLIS_QUOTA_SESSIONS_PER_HOUR": "5",
    "MAJLIS_QUOTA_SPECTATORS": "2",
    "MAJLIS_QUOTA_JOBS": "2",
    "MAJLIS_QUOTA_STREAMS_PER_TOKEN": "3",
    "MAJLIS_QUOTA_STREAMS_PER_ADDRESS": "10",
    "MAJLIS_STREAM_MAX_CONNECTIONS": "16",
    "MAJLIS_STREAM_HEARTBEAT": "2",
    "MAJLIS_SEARCH_SOFT_LIMIT": "3",
    "MAJLIS_SEARCH_HARD_LIMIT": "6",
    "MAJLIS_BROKER_VISIBILITY_TIMEOUT": "10",
    "MAJLIS_BROKER_RESTORE_INTERVAL": "1",
    "MAJLIS_JOB_STALL_SECONDS": "2",
    "MAJLIS_WORKER_HEARTBEAT": "1",
    "MAJLIS_WORKER_STALE": "5",
    # a bot turn whose task was lost is sent again 3 s after its move (not 5): well
    # within the sessions' 8 s lifetime here
    "MAJLIS_BOT_TURN_GRACE": "3",
    # one API process with two inline search slots: one client's hints may hold one
    "MAJLIS_WEB_WORKERS": "1",
    "MAJLIS_INLINE_SEARCHES": "2",
    "MAJLIS_QUOTA_HINTS": "1",
}


class Service:
    def __init__(self, port: int, data_dir: Path) -> None:
        self.port, self.streams, self.dir = port, port + 1, data_dir

    @property
    def log(self) -> str:
        return (self.dir / "server.log").read_text(errors="replace")

    def redis(self) -> redis.Redis:
        url = re.search(r"embedded Redis at (redis://\S+)", self.log).group(1)  # type: ignore[union-attr]
        return redis.Redis.from_url(url.rstrip(","), decode_responses=True, socket_timeout=5)

    def call(self, method: str, path: str, body=None, headers=None, src: str = "127.0.0.1"):
        """(status, headers with lower-case names, JSON body or text)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30, source_address=(src, 0))
        try:
            data = json.dumps(body).encode() if body is not None else None
            conn.request(
                method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})}
            )
            answer = conn.getresponse()
            raw = answer.read().decode()
            head = {k.lower(): v for k, v in answer.getheaders()}
        finally:
            conn.close()
        try:
            return answer.status, head, json.loads(raw)
        except ValueError:
            return answer.status, head, raw

    def new_session(self, src: str, **extra) -> dict:
        status, _head, body = self.call(
            "POST", "/v1/sessions", {"game": GAME, "players": 2, **extra}, src=src
        )
        assert status == 201, body
        return body


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("fair-use")
    with running_service(data_dir, **SETTINGS) as port:
        yield Service(port, data_dir)


def assert_refusal(status: int, head: dict, body: dict, code: str, expected_status: int = 429) -> None:
    assert status == expected_status, (status, body)
    assert head["content-type"] == "application/problem+json"
    assert body["code"] == code and body["status"] == expected_status
    assert int(head["retry-after"]) >= 1


def assert_quota_headers(head: dict, limit: int) -> None:
    assert head["ratelimit-limit"] == str(limit)
    assert head["ratelimit-remaining"] == "0"
    assert 1 <= int(head["ratelimit-reset"]) <= 3600
    assert head["retry-after"] == head["ratelimit-reset"]


# --------------------------------------------------------------------------- quotas


def test_live_sessions_are_refused_with_ratelimit_headers_and_come_back_once_expired(service):
    src = "127.0.0.11"
    for _ in range(3):
        service.new_session(src)
    status, head, body = service.call("POST", "/v1/sessions", {"game": GAME, "players": 2}, src=src)
    assert_refusal(status, head, body, "quota_exceeded")
    assert_quota_headers(head, 3)
    assert body["quota"] == "live" and body["limit"] == 3
    assert int(head["ratelimit-reset"]) <= 8  # the soonest session's idle time left
    # another client is not affected
    service.new_session("127.0.0.12")
    # the sessions expire (idle TTL 8 s): the quota comes back, within a bounded wait
    deadline = time.monotonic() + 20
    while True:
        status, head, body = service.call("POST", "/v1/sessions", {"game": GAME, "players": 2}, src=src)
        if status == 201 or time.monotonic() > deadline:
            break
        assert status == 429, body
        time.sleep(min(float(head["retry-after"]), 2.0))
    assert status == 201, body
    # the hour's window: 4 made so far from src; the 5th is allowed, the 6th refused
    assert service.call("POST", "/v1/sessions", {"game": GAME, "players": 2}, src=src)[0] == 201
    status, head, body = service.call("POST", "/v1/sessions", {"game": GAME, "players": 2}, src=src)
    assert_refusal(status, head, body, "quota_exceeded")
    assert body["quota"] == "sessions-per-hour"
    assert_quota_headers(head, 5)


def test_spectators_per_session_are_capped(service):
    session = service.new_session("127.0.0.13")
    auth = {"Authorization": f"Bearer {session['tokens'][0]}"}
    path = f"/v1/sessions/{session['id']}/spectators"
    assert [service.call("POST", path, headers=auth)[0] for _ in range(2)] == [201, 201]
    status, head, body = service.call("POST", path, headers=auth)
    assert_refusal(status, head, body, "quota_exceeded")
    assert body["quota"] == "spectators" and head["ratelimit-limit"] == "2"


def long_job_body(seed: int) -> dict:
    game = get_game(GAME)
    state = game.new_state(2, game.parse_options({}, 2), 0, seed=seed)
    seat = game.to_act(state)
    # runs until the soft time limit (3 s here): in flight long enough to be counted
    return {"state": game.to_json(state), "seat": seat, "async": True, "budget": {"ms": 8000}, "seed": seed}


def test_bot_jobs_in_flight_are_capped_per_client(service):
    src = "127.0.0.14"
    urls = []
    for seed in (1, 2):
        status, _head, body = service.call("POST", f"/v1/games/{GAME}/bot-move", long_job_body(seed), src=src)
        assert status == 202, body
        urls.append(body["job"]["url"])
    status, head, body = service.call("POST", f"/v1/games/{GAME}/bot-move", long_job_body(3), src=src)
    assert_refusal(status, head, body, "quota_exceeded")
    assert body["quota"] == "jobs" and head["ratelimit-limit"] == "2"
    # another client's job is taken
    status, _head, body = service.call(
        "POST", f"/v1/games/{GAME}/bot-move", long_job_body(4), src="127.0.0.15"
    )
    assert status == 202, body
    # once the first two end, the client may start another (bounded wait)
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline:
        if all(service.call("GET", url)[2]["status"] in ("done", "failed") for url in urls):
            break
        time.sleep(0.5)
    status, _head, body = service.call("POST", f"/v1/games/{GAME}/bot-move", long_job_body(5), src=src)
    assert status == 202, body


def test_one_clients_hints_hold_one_search_slot_and_another_clients_hint_is_answered(service):
    game = get_game(GAME)
    state = game.new_state(2, game.parse_options({}, 2), 0, seed=11)
    body = {"state": game.to_json(state), "seat": game.to_act(state), "level": "hard"}
    path = f"/v1/games/{GAME}/hint"
    answers = {}

    def long_hint() -> None:
        answers["first"] = service.call("POST", path, dict(body, budget={"ms": 2500}), src="127.0.0.21")

    first = threading.Thread(target=long_hint)
    first.start()
    try:
        time.sleep(0.7)  # the first hint is searching
        status, head, refused = service.call("POST", path, dict(body, budget={"ms": 2500}), src="127.0.0.21")
        assert_refusal(status, head, refused, "quota_exceeded")
        assert refused["quota"] == "hints" and head["ratelimit-limit"] == "1"
        # before issue 30 two hints of one client took both slots: this one got 429 busy
        started = time.monotonic()
        status, _head, other = service.call("POST", path, dict(body, budget={"ms": 200}), src="127.0.0.22")
        assert status == 200, other
        assert time.monotonic() - started < 2.0
    finally:
        first.join(30)
    assert answers["first"][0] == 200, answers["first"]


# --------------------------------------------------------------------------- streams


class RawStream:
    """An event stream over a raw socket: the status line and headers, and when its first
    byte came."""

    def __init__(self, port: int, session_id: str, token: str, src: str) -> None:
        started = time.monotonic()
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(src, 0))
        request = (
            f"GET /v1/sessions/{session_id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        data = b""
        while b"\r\n\r\n" not in data and len(data) < 65536:
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            if not data:
                self.first_byte = time.monotonic() - started
            data += chunk
        head, _, self.rest = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        self.status = int(lines[0].split()[1])
        self.headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}

    def body(self) -> dict:
        """The problem document of a refused stream (its whole body)."""
        data = self.rest
        length = int(self.headers.get("content-length", 0))
        while len(data) < length:
            data += self.sock.recv(65536)
        return json.loads(data[:length])

    def close(self) -> None:
        self.sock.close()


def test_one_address_opening_streams_is_refused_and_another_token_still_streams_at_once(service):
    mine = service.new_session("127.0.0.16")
    auth = {"Authorization": f"Bearer {mine['tokens'][0]}"}
    spectators = [
        service.call("POST", f"/v1/sessions/{mine['id']}/spectators", headers=auth, src="127.0.0.16")[2][
            "token"
        ]
        for _ in range(2)
    ]
    tokens = mine["tokens"] + spectators  # 4 tokens x 3 streams each could reach 12
    opened: list[RawStream] = []
    try:
        # one token: its 4th stream is refused
        for _ in range(3):
            opened.append(RawStream(service.streams, mine["id"], tokens[0], "127.0.0.1"))
            assert opened[-1].status == 200, opened[-1].headers
        refused = RawStream(service.streams, mine["id"], tokens[0], "127.0.0.1")
        assert refused.status == 429 and refused.body()["quota"] == "streams-per-token"
        assert_quota_headers(refused.headers, 3)
        refused.close()
        # one address: streams with its other tokens until refused (10 per address)
        refusal = None
        for attempt in range(40):  # bounded
            stream = RawStream(service.streams, mine["id"], tokens[1 + attempt % 3], "127.0.0.1")
            if stream.status != 200:
                refusal = stream
                break
            opened.append(stream)
        assert refusal is not None and refusal.status == 429, "never refused"
        body = refusal.body()
        assert body["code"] == "quota_exceeded" and body["quota"] == "streams-per-address"
        assert_quota_headers(refusal.headers, 10)
        assert len(opened) == 10
        refusal.close()
        # another token, from another address: its first byte at once
        other = service.new_session("127.0.0.17")
        fresh = RawStream(service.streams, other["id"], other["tokens"][0], "127.0.0.2")
        opened.append(fresh)
        assert fresh.status == 200 and fresh.first_byte < 1.0, fresh.first_byte
        # the process cap (16): past it a clean 503 with Retry-After, at once, never silence
        other_auth = {"Authorization": f"Bearer {other['tokens'][0]}"}
        spectator = service.call(
            "POST", f"/v1/sessions/{other['id']}/spectators", headers=other_auth, src="127.0.0.17"
        )[2]["token"]
        t0, t1 = other["tokens"]
        refusal = None
        for token in [t1, t1, t1, t0, t0, spectator, spectator]:  # 11 open: 5 more fill it
            stream = RawStream(service.streams, other["id"], token, "127.0.0.3")
            if stream.status != 200:
                refusal = stream
                break
            opened.append(stream)
        assert refusal is not None, "the stream server never refused"
        assert_refusal(refusal.status, refusal.headers, refusal.body(), "streams_full", 503)
        assert refusal.first_byte < 1.0
        assert len(opened) == 16
    finally:
        for stream in opened:
            stream.close()


def test_an_events_path_with_a_line_feed_is_a_clean_404_and_a_redirect_location_is_encoded(service):
    status, _head, body = service.call("GET", "/v1/sessions/abc%0Adef/events")
    assert status == 404 and body["code"] == "unknown_session"
    sid = "0123456789abcdef0123456789abcdef"
    status, head, _body = service.call("GET", f"/v1/sessions/{sid}/events?x=%0D%0Ay%20z")
    assert status == 307
    location = head["location"]
    assert "\r" not in location and "\n" not in location and " " not in location
    assert location.endswith(f"/v1/sessions/{sid}/events?x=%0D%0Ay%20z")


# --------------------------------------------------------------------------- a lost worker


def test_a_job_whose_worker_was_killed_says_it_is_queued_again(service):
    client = service.redis()
    status, _head, body = service.call(
        "POST", f"/v1/games/{GAME}/bot-move", long_job_body(7), src="127.0.0.18"
    )
    assert status == 202, body
    job_id, url = body["job"]["id"], body["job"]["url"]
    key = f"majlis:job:{job_id}"  # the default MAJLIS_KEY_PREFIX
    deadline = time.monotonic() + 30
    while not client.hget(key, "pid:0") and time.monotonic() < deadline:
        time.sleep(0.1)
    pool_pid = int(client.hget(key, "pid:0"))
    worker_pid = int(Path(f"/proc/{pool_pid}/stat").read_text().split(")")[1].split()[1])  # its parent
    os.kill(worker_pid, signal.SIGKILL)  # the whole worker: its task waits for the broker
    os.kill(pool_pid, signal.SIGKILL)
    seen = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job = service.call("GET", url)[2]
        seen.append(job["status"])
        if job["status"] in ("done", "failed"):
            break
        time.sleep(0.3)
    assert "queued" in seen, seen  # not "running" with no progress for a minute
    assert job["status"] == "done" and job["requeued"] is True and job["attempts"] >= 2, job
    stalled_polls = seen.index("queued")
    assert stalled_polls * 0.3 < 10, seen  # said so within seconds of the kill


# --------------------------------------------------------------------------- Redis full


def test_a_redis_error_answer_to_the_worker_stops_no_worker_and_loses_no_bot_turn(service):
    """Redis at its maxmemory may refuse the write that records a task as delivered just
    after the worker popped it (the next test can hit that race). The worker must live
    on, and the bot turn whose task was lost be sent again. The broker's record of
    delivered tasks made a string here gives the same error answer every time, race or no
    race."""
    client = service.redis()
    log_start = len(service.log)
    deadline = time.monotonic() + 30
    while client.hlen("unacked") and time.monotonic() < deadline:  # no task of another test in flight
        time.sleep(0.2)
    assert client.type("unacked") in ("none", "hash") and not client.hlen("unacked")
    client.set("unacked", "not a hash")
    try:
        session = service.new_session("127.0.0.18", seats=["human", {"type": "bot", "level": "easy"}])
        auth = {"Authorization": f"Bearer {session['tokens'][0]}"}
        view = service.call("GET", f"/v1/sessions/{session['id']}", headers=auth)[2]
        if view["legal_actions"]:  # the human is first: the bot's turn comes after one move
            move = {"action": view["legal_actions"][0]["action"], "expected_version": view["version"]}
            status, _head, view = service.call("POST", f"/v1/sessions/{session['id']}/moves", move, auth)
            assert status == 200, view
        waiting_version = view["version"]
        deadline = time.monotonic() + 15
        while "(server:ResponseError)" not in service.log[log_start:] and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "(server:ResponseError)" in service.log[log_start:]  # the bot turn's task was popped, and lost
    finally:
        client.delete("unacked")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        status, _head, view = service.call("GET", f"/v1/sessions/{session['id']}", headers=auth)
        if status != 200 or view["version"] > waiting_version:
            break
        time.sleep(0.2)
    assert status == 200 and view["version"] > waiting_version, view  # its turn was sent again
    assert "bot turns sent again" in service.log[log_start:]
    assert "worker exited" not in service.log[log_start:]


def test_redis_filled_to_its_cap_gives_only_problem_documents_and_recovers(service):
    client = service.redis()
    log_start = len(service.log)  # an earlier test killed a worker: only what follows counts
    before = service.new_session("127.0.0.19", seats=["human", {"type": "bot", "level": "easy"}])
    game = get_game(GAME)
    filled = 0
    try:
        for i in range(200_000):  # bounded: 16 MB of 1 KB values is about 13,000
            client.set(f"junk:{i}", "x" * 1000, ex=120)
            filled = i + 1
    except redis.exceptions.OutOfMemoryError:
        pass
    assert filled < 200_000
    time.sleep(1.2)  # the admission gauge is read at most once a second
    answers = []
    auth = {"Authorization": f"Bearer {before['tokens'][0]}"}
    for _ in range(3):
        answers.append(service.call("POST", "/v1/sessions", {"game": GAME, "players": 2}, src="127.0.0.19"))
        answers.append(service.call("POST", f"/v1/games/{GAME}/bot-move", long_job_body(9), src="127.0.0.19"))
        answers.append(service.call("GET", "/readyz"))
        answers.append(service.call("GET", f"/v1/sessions/{before['id']}", headers=auth))
        view = answers[-1][2]
        if answers[-1][0] == 200 and view["legal_actions"]:
            move = {"action": view["legal_actions"][0]["action"], "expected_version": view["version"]}
            answers.append(service.call("POST", f"/v1/sessions/{before['id']}/moves", move, auth))
    del game
    for status, head, body in answers:
        assert not INTERNAL.search(json.dumps(body)), body
        if status >= 500:
            assert status in (503, 507), (status, body)
            assert head["content-type"] == "application/problem+json" and int(head["retry-after"]) >= 1
    statuses = [(a[0], a[2].get("code") if isinstance(a[2], dict) else None) for a in answers]
    assert (507, "storage_full") in statuses, statuses
    readyz = [a for a in answers if isinstance(a[2], dict) and "checks" in a[2]]
    assert readyz and all(a[0] == 503 and a[2]["checks"]["redis"] == "full" for a in readyz), readyz
    # the worker lives through it (the supervisor would log a restart)
    time.sleep(3)
    assert "worker exited" not in service.log[log_start:]
    # recovery once the junk is gone
    for start in range(0, filled, 1000):
        client.delete(*[f"junk:{i}" for i in range(start, min(filled, start + 1000))])
    deadline = time.monotonic() + 30
    while service.call("GET", "/readyz")[0] != 200 and time.monotonic() < deadline:
        time.sleep(0.5)
    assert service.call("GET", "/readyz")[0] == 200
    time.sleep(1.2)
    after = service.new_session("127.0.0.20", seats=["human", {"type": "bot", "level": "easy"}])
    assert after["id"]
    assert "worker exited" not in service.log[log_start:]
