"""Event streams against the API: legal-moves latency with and without N open streams.

Starts ``python -m service.run`` (as ``make run`` does: an embedded Redis, a worker, the
API's gunicorn and the stream server) on free loopback ports, creates a session, then
times ``legal-moves`` calls (one connection each, one after another) three ways: with
no stream open, with N streams open and idle, and with N streams open while each of a
few moves is sent to all of them. Prints p50/p99 and how long the last move took to
reach every stream. The 1-minute load average is printed: this machine is shared.

    python bench/session_streams.py [--streams 200] [--requests 400]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from engine import get_game

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def call(port: int, method: str, path: str, body=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        data = json.dumps(body).encode() if body is not None else None
        conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


class System:
    """``python -m service.run`` on free ports, with its own data directory."""

    def __init__(self, **env: str) -> None:
        self.api, self.streams = free_port(), free_port()
        self.dir = tempfile.mkdtemp(prefix="majlis-streams-")
        full = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "MAJLIS_EMBEDDED_REDIS_PORT")}
        full.update(
            MAJLIS_BIND=f"127.0.0.1:{self.api}",
            MAJLIS_STREAM_BIND=f"127.0.0.1:{self.streams}",
            MAJLIS_DATA_DIR=self.dir,
            MAJLIS_LOG_LEVEL="WARNING",
            MAJLIS_LOG_REQUESTS="0",
            **env,
        )
        self.log = open(Path(self.dir) / "server.log", "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "service.run"],
            cwd=ROOT,
            env=full,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 90
        while not self.ready():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the server did not get ready")
            time.sleep(0.2)

    def ready(self) -> bool:
        try:
            return (
                call(self.api, "GET", "/readyz")[0] == 200 and call(self.streams, "GET", "/healthz")[0] == 200
            )
        except OSError:
            return False

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(40)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


class Stream:
    """One open event stream; a thread reads it and notes when each event arrives."""

    def __init__(self, port: int, path: str, token: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        self.response = self.conn.getresponse()
        assert self.response.status == 200, (self.response.status, self.response.read())
        self.arrived: dict[str, float] = {}  # event id: when it arrived
        self.ended: float | None = None  # when the server closed the stream
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self) -> None:
        try:
            for raw in self.response.fp:
                line = raw.decode().rstrip("\n")
                if line.startswith("id: "):
                    self.arrived[line[4:]] = time.monotonic()
            self.ended = time.monotonic()
        except (OSError, ValueError):
            pass  # closed here

    def close(self) -> None:
        self.conn.sock and self.conn.sock.shutdown(socket.SHUT_RDWR)
        self.conn.close()


def legal_moves_times(port: int, count: int) -> list[float]:
    game = get_game("ronda")
    state = game.to_json(game.new_state(2, game.parse_options({}, 2), 0, seed=5))
    times = []
    for _ in range(count):
        start = time.perf_counter()
        status, _, _ = call(port, "POST", "/v1/games/ronda/legal-moves", {"state": state})
        times.append(time.perf_counter() - start)
        assert status == 200
    return times


def quantiles(times: list[float]) -> str:
    ms = sorted(t * 1000 for t in times)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return f"p50 {statistics.median(ms):.1f} ms, p99 {p99:.1f} ms (n={len(ms)})"


def new_session(system: System) -> dict:
    _, _, raw = call(system.api, "POST", "/v1/sessions", {"game": "ronda", "players": 2, "seed": 3})
    return json.loads(raw)


def while_moving(system: System, session: dict, args: argparse.Namespace) -> list[float]:
    """legal-moves times while another client plays ``args.moves`` moves of ``session``."""
    mover = threading.Thread(target=play_moves, args=(system, session, args.moves))
    mover.start()
    times = legal_moves_times(system.api, args.requests)
    mover.join()
    return times


def open_streams(system: System, count: int) -> tuple[dict, list[Stream]]:
    session = new_session(system)
    path = f"/v1/sessions/{session['id']}/events"
    status, headers, _ = call(
        system.api, "GET", path, headers={"Authorization": f"Bearer {session['tokens'][0]}"}
    )
    assert status == 307 and headers["Location"].endswith(f":{system.streams}{path}"), (status, headers)
    streams = [Stream(system.streams, path, session["tokens"][i % 2]) for i in range(count)]
    deadline = time.monotonic() + 30
    while not all("0" in s.arrived for s in streams):  # every stream got its hello
        assert time.monotonic() < deadline, "the streams did not all open"
        time.sleep(0.05)
    return session, streams


def play_moves(system: System, session: dict, moves: int) -> None:
    """``moves`` moves of the session (each by the seat to act, its first legal action)."""
    for _ in range(moves):
        for token in session["tokens"]:
            _, _, raw = call(system.api, "GET", f"/v1/sessions/{session['id']}", headers=auth(token))
            seen = json.loads(raw)
            if seen["legal_actions"]:
                body = {"action": seen["legal_actions"][0]["action"], "expected_version": seen["version"]}
                status, _, raw = call(
                    system.api, "POST", f"/v1/sessions/{session['id']}/moves", body, auth(token)
                )
                assert status == 200, raw
                break


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def report(what: str, times: list[float]) -> None:
    print(f"load {os.getloadavg()[0]:.2f}; legal-moves, {what}: {quantiles(times)}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--moves", type=int, default=5)
    args = parser.parse_args()
    # N streams of one session's two tokens from one address: past the fair-use quotas
    system = System(
        MAJLIS_QUOTA_STREAMS_PER_TOKEN="0",
        MAJLIS_QUOTA_STREAMS_PER_SESSION="0",
        MAJLIS_QUOTA_STREAMS_PER_ADDRESS="0",
    )
    try:
        legal_moves_times(system.api, 50)  # warm up
        report("no stream open", legal_moves_times(system.api, args.requests))
        report(f"no stream open, {args.moves} moves", while_moving(system, new_session(system), args))
        session, streams = open_streams(system, args.streams)
        report(f"{args.streams} idle streams open", legal_moves_times(system.api, args.requests))
        sent = time.monotonic()
        times = while_moving(system, session, args)
        report(f"{args.streams} streams, {args.moves} moves sent to them", times)
        last = str(args.moves)
        deadline = time.monotonic() + 30
        while not all(last in s.arrived for s in streams) and time.monotonic() < deadline:
            time.sleep(0.05)
        got = sum(all(str(v) in s.arrived for v in range(1, args.moves + 1)) for s in streams)
        spread = max(s.arrived.get(last, float("inf")) for s in streams) - sent
        print(f"{got}/{len(streams)} streams got all {args.moves} moves in order; every stream had the last")
        print(f"one {spread:.2f} s after the first move was sent")
        for stream in streams:
            stream.close()
    finally:
        system.stop()


if __name__ == "__main__":
    main()
