"""Does a move cost the same late in a match as early? (issue 33)

Three measures on one seeded 4-player Trex match, played with random legal moves:

- ``engine``: the stateless path of every move in-process (state JSON read and checked,
  legal actions, the move applied, the state written back), timed per move; printed as the
  mean cost per move in buckets of 100 moves, and the whole match's cost against the
  number of moves times the cost of moves 1-100 (1.0: linear in the moves).
- ``http``: ``python -m service.run`` serving (embedded Redis, gunicorn), then a stateless
  ``POST /v1/games/trex/legal-moves`` for the state at move 6 and the one at move 950,
  alternated on one keep-alive connection; p50 of each and their ratio.
- ``session``: on the same server, two sessions of the same match (one client): one played
  to move 950, the other to move 50, then their next 100 moves alternately, each timed;
  p50 of each window and their ratio (alternating gives both windows the same load). Then
  the Redis bytes the finished session holds (``MEMORY USAGE`` of its hash and its log)
  and the log's mean bytes per move.

    python bench/match_length.py [--root PATH] [--parts engine,http,session] [--requests 300]

``--root`` runs another checkout's code (e.g. a worktree of the main branch, for the
figures before a change): its engine is imported and its ``service.run`` served. The load
(``uptime``) is printed with the figures; quote medians of several runs.
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
import time
from pathlib import Path

SEED = 7


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def match_moves(game, seed: int = SEED) -> list[tuple[int, dict]]:
    state = game.new_state(4, game.parse_options({}, 4), 0, seed=seed)
    rng = random.Random(seed)
    moves = []
    while game.to_act(state) is not None:
        seat = game.to_act(state)
        action = rng.choice(game.legal_actions(state))
        moves.append((seat, game.action_to_json(state, action)))
        game.step(state, action)
    return moves


def state_at(game, moves: list[tuple[int, dict]], n: int) -> dict:
    state = game.new_state(4, game.parse_options({}, 4), 0, seed=SEED)
    for _seat, action in moves[:n]:
        game.step(state, game.parse_action(state, action))
    return game.to_json(state)


def engine_part(game, moves: list[tuple[int, dict]]) -> None:
    doc = json.loads(json.dumps(game.to_json(game.new_state(4, game.parse_options({}, 4), 0, seed=SEED))))
    costs = []
    for seat, action in moves:
        t0 = time.perf_counter()
        state = game.from_json(doc)
        game.legal_actions(state)
        state, _events = game.apply(state, seat, game.parse_action(state, action))
        doc = json.loads(json.dumps(game.to_json(state)))
        costs.append(time.perf_counter() - t0)
    print(f"engine: a whole Trex match, {len(moves)} moves, the stateless path of each move ({load()})")
    print("| moves | mean cost per move (ms) | state JSON at the bucket's end (B) |")
    print("| --- | --- | --- |")
    sizes = {}
    for end in range(100, len(moves) + 100, 100):
        sizes[end] = len(json.dumps(state_at(game, moves, min(end, len(moves)))))
    for start in range(0, len(moves), 100):
        bucket = costs[start : start + 100]
        end = min(start + 100, len(moves))
        print(f"| {start + 1}-{end} | {1000 * statistics.mean(bucket):.2f} | {sizes[start + 100]} |")
    first = statistics.mean(costs[:100])
    print(
        f"whole match {sum(costs):.2f} s = {sum(costs) / (first * len(moves)):.2f} x "
        f"(moves x the mean cost of moves 1-100)"
    )


def request(conn, method: str, path: str, body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
    response = conn.getresponse()
    return response.status, json.loads(response.read() or b"null")


def p50(values: list[float]) -> float:
    return 1000 * statistics.median(values)


def http_part(game, moves, port: int, requests: int) -> None:
    bodies = {n: json.dumps({"state": state_at(game, moves, n)}).encode() for n in (6, 950)}
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    times: dict[int, list[float]] = {6: [], 950: []}
    for i in range(2 * requests + 20):
        n = 6 if i % 2 else 950
        t0 = time.perf_counter()
        conn.request(
            "POST", "/v1/games/trex/legal-moves", body=bodies[n], headers={"Content-Type": "application/json"}
        )
        response = conn.getresponse()
        response.read()
        assert response.status == 200, response.status
        if i >= 20:  # warm-up
            times[n].append(time.perf_counter() - t0)
    print(
        f"http legal-moves p50: move 6 {p50(times[6]):.2f} ms ({len(bodies[6])} B), "
        f"move 950 {p50(times[950]):.2f} ms ({len(bodies[950])} B), "
        f"ratio {p50(times[950]) / p50(times[6]):.2f} "
        f"({requests} each; {load()})"
    )


def session_part(moves, port: int, root: Path) -> None:
    """Two sessions of the same match: one is played to move 950, the other to move 50
    (untimed), then their next 100 moves are played alternately, one each, and timed: the
    two windows see the same server and the same load (this machine's load drifts within
    seconds). Then the first session is played to its end and its Redis bytes read."""
    import redis

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    sessions = []
    for _ in range(2):
        status, created = request(conn, "POST", "/v1/sessions", {"game": "trex", "players": 4, "seed": SEED})
        assert status == 201, created
        sessions.append(created)

    def play(created: dict, version: int) -> float:
        seat, action = moves[version]
        t0 = time.perf_counter()
        status, body = request(
            conn,
            "POST",
            f"/v1/sessions/{created['id']}/moves",
            {"action": action, "expected_version": version},
            {"Authorization": f"Bearer {created['tokens'][seat]}"},
        )
        assert status == 200, body
        return time.perf_counter() - t0

    late_session, early_session = sessions
    for version in range(949):
        play(late_session, version)
    for version in range(49):
        play(early_session, version)
    early, late = [], []
    for k in range(101):
        early.append(play(early_session, 49 + k))
        late.append(play(late_session, 949 + k))
    print(
        f"session move p50 (alternated): moves 50-150 {p50(early):.2f} ms, "
        f"moves 950-1050 {p50(late):.2f} ms, "
        f"ratio {p50(late) / p50(early):.2f} ({load()})"
    )
    for version in range(1050, len(moves)):
        play(late_session, version)
    sid = late_session["id"]
    url = os.environ.get("REDIS_URL") or (root / "var" / "redis-url").read_text().strip()
    r = redis.Redis.from_url(url)
    keys = [k for k in r.scan_iter(match=f"*{sid}*")]
    held = sum(r.memory_usage(k, samples=0) or 0 for k in keys)
    log_key = next(k for k in keys if k.endswith(b":log"))
    entries = r.lrange(log_key, 0, -1)
    print(
        f"redis: the finished session holds {held / 1000:.0f} KB in {len(keys)} keys; "
        f"log {sum(map(len, entries)) / len(entries):.0f} B per move over {len(entries)} moves"
    )


def wait_ready(port: int, proc, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            if request(conn, "GET", "/v1/games")[0] == 200:
                return
        except OSError:
            pass
        if proc.poll() is not None:
            raise SystemExit("the server exited")
        time.sleep(0.3)
    raise SystemExit("server not ready")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    parser.add_argument("--parts", default="engine,http,session")
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    root = Path(args.root).resolve()
    sys.path.insert(0, str(root))
    from engine import get_game
    from service.redis_conn import free_port

    game = get_game("trex")
    moves = match_moves(game)
    parts = args.parts.split(",")
    print(f"code: {root}; {len(moves)} moves in the match (seed {SEED})")
    if "engine" in parts:
        engine_part(game, moves)
    if "http" in parts or "session" in parts:
        port = free_port()
        env = dict(os.environ, MAJLIS_BIND=f"127.0.0.1:{port}", MAJLIS_LOG_REQUESTS="0", PYTHONPATH=str(root))
        env["MAJLIS_STREAM_BIND"] = f"127.0.0.1:{free_port()}"
        env["MAJLIS_RUN_WORKER"] = "0"  # no bot plays here: the search's worker is not needed
        data_dir = tempfile.TemporaryDirectory(prefix="majlis-bench-")
        env["MAJLIS_DATA_DIR"] = data_dir.name
        server = subprocess.Popen(
            [sys.executable, "-m", "service.run"],
            cwd=root,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_ready(port, server)
            if "http" in parts:
                http_part(game, moves, port, args.requests)
            if "session" in parts:
                session_part(moves, port, root)
        finally:
            server.terminate()
            server.wait(30)


if __name__ == "__main__":
    main()
