"""Session moves under load: gunicorn + Redis (the README's run path), many sessions.

Starts ``python -m service.run`` on a free loopback port (embedded Redis, one worker),
creates sessions with known seeds, replays each match locally (same seed, random legal
play) to know every move in advance, then T client threads play their sessions move by
move over keep-alive connections (``POST /v1/sessions/{id}/moves`` with the seat token
and ``expected_version``) for D seconds. Prints requests/s and p50/p99 latency.

The client is Python threads on the same machine (wrk cannot follow a session's
versions), so it takes CPU from the server: the figures are a lower bound.

    python bench/session_load.py [--seconds 10] [--threads 8] [--sessions 120]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import get_game  # noqa: E402
from service.redis_conn import free_port  # noqa: E402


def request(conn: http.client.HTTPConnection, method: str, path: str, body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
    response = conn.getresponse()
    return response.status, json.loads(response.read() or b"null")


def wait_ready(port: int, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            if request(conn, "GET", "/readyz")[0] == 200:
                return
        except OSError:
            pass
        if proc.poll() is not None:
            raise SystemExit("server exited")
        time.sleep(0.3)
    raise SystemExit("server not ready")


def plan(game, seed: int, cap: int = 400) -> list[tuple[int, dict]]:
    state = game.new_state(2, game.parse_options({}, 2), 0, seed=seed)
    rng = random.Random(seed)
    moves = []
    while game.to_act(state) is not None and len(moves) < cap:
        seat = game.to_act(state)
        action = rng.choice(game.legal_actions(state))
        moves.append((seat, game.action_to_json(state, action)))
        game.step(state, action)
    return moves


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--sessions", type=int, default=120)
    parser.add_argument("--game", default="ronda")
    args = parser.parse_args()
    game = get_game(args.game)
    port = free_port()
    env = dict(os.environ, MAJLIS_BIND=f"127.0.0.1:{port}", MAJLIS_LOG_REQUESTS="0")
    data_dir = tempfile.TemporaryDirectory(prefix="majlis-bench-")  # not the user's sessions
    env["MAJLIS_DATA_DIR"] = data_dir.name
    server = subprocess.Popen(
        [sys.executable, "-m", "service.run"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_ready(port, server)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        queue = []
        for i in range(args.sessions):
            status, created = request(
                conn, "POST", "/v1/sessions", {"game": args.game, "players": 2, "seed": i}
            )
            assert status == 201, created
            queue.append((created["id"], created["tokens"], plan(game, i)))
        lock = threading.Lock()
        latencies: list[float] = []
        errors = [0]
        stop_at = time.monotonic() + args.seconds

        def client() -> None:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            mine = []
            while time.monotonic() < stop_at:
                with lock:
                    if not queue:
                        return
                    sid, tokens, moves = queue.pop()
                for version, (seat, action) in enumerate(moves):
                    if time.monotonic() >= stop_at:
                        break
                    t0 = time.perf_counter()
                    status, body = request(
                        c,
                        "POST",
                        f"/v1/sessions/{sid}/moves",
                        {"action": action, "expected_version": version},
                        {"Authorization": f"Bearer {tokens[seat]}"},
                    )
                    mine.append(time.perf_counter() - t0)
                    if status != 200:
                        with lock:
                            errors[0] += 1
                        break
            with lock:
                latencies.extend(mine)

        threads = [threading.Thread(target=client) for _ in range(args.threads)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.monotonic() - t0
        latencies.sort()
        p = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000  # noqa: E731
        print(
            f"session moves: {len(latencies) / wall:.0f} req/s, p50 {p(0.5):.1f} ms, p99 {p(0.99):.1f} ms, "
            f"{len(latencies)} moves, {errors[0]} errors, {args.threads} client threads, "
            f"median {statistics.median(latencies) * 1000:.1f} ms"
        )
    finally:
        server.terminate()
        server.wait(30)
        data_dir.cleanup()


if __name__ == "__main__":
    main()
