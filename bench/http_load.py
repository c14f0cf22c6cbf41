"""HTTP load: serve with gunicorn (the README's run path) and load endpoints with wrk.

Starts ``python -m service.run`` on a free loopback port, builds request bodies with
the engine (a Ronda state a few moves into a deal), and runs ``wrk`` (Debian package
``wrk``) from a second process, bounded in time, against each endpoint. Prints
requests/s and p50/p99 latency as wrk measured them; with ``--runs N`` each endpoint
is loaded N times and the run with the median requests/s is printed. The 1-minute load
average is printed with every figure: this machine is shared, so quote it. Each run also
shows how wrk's connections were spread over the gunicorn workers mid-run (from ``ss``).

    python bench/http_load.py [--seconds 10] [--connections 16] [--runs 3] [--endpoints legal-moves,moves]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from engine import get_game

ROOT = Path(__file__).resolve().parent.parent

LUA = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = io.open("{body}", "r")
wrk.body = f:read("*a")
f:close()
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def sample_bodies(game_id: str = "ronda", players: int = 2, seed: int = 5) -> dict[str, dict]:
    game = get_game(game_id)
    state = game.new_state(players, game.parse_options({}, players), 0, seed=seed)
    rng = random.Random(seed)
    for _ in range(6):
        game.step(state, rng.choice(game.legal_actions(state)))
    seat = game.to_act(state)
    action = game.action_to_json(state, game.legal_actions(state)[0])
    state_json = game.to_json(state)
    return {
        "legal-moves": {"state": state_json},
        "moves": {"state": state_json, "seat": seat, "action": action},
        "score": {"state": state_json},
        "view": {"state": state_json, "seat": seat},
        "bot-move": {"state": state_json, "seat": seat, "level": "normal", "seed": 1},
    }


def wait_ready(base: str, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=2):
                return
        except OSError:
            if proc.poll() is not None:
                raise SystemExit("server exited") from None
            time.sleep(0.2)
    raise SystemExit("server did not start")


def connections_per_worker(port: int) -> str:
    """How wrk's connections are spread over the server's processes right now, e.g. "4/4"
    (from ``ss``; "?" without it). One process holding them all means one core serves."""
    if not shutil.which("ss"):
        return "?"
    out = subprocess.run(
        ["ss", "-tnpH", "state", "established", f"( sport = :{port} )"], capture_output=True, text=True
    ).stdout
    counts: dict[str, int] = {}
    for pid in re.findall(r"pid=(\d+)", out):
        counts[pid] = counts.get(pid, 0) + 1
    return "/".join(str(n) for n in sorted(counts.values())) or "0"


def parse_wrk(output: str) -> dict[str, str]:
    rps = re.search(r"Requests/sec:\s+([\d.]+)", output)
    p50 = re.search(r"^\s+50%\s+(\S+)", output, re.M)
    p99 = re.search(r"^\s+99%\s+(\S+)", output, re.M)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    return {
        "rps": rps.group(1) if rps else "?",
        "p50": p50.group(1) if p50 else "?",
        "p99": p99.group(1) if p99 else "?",
        "non2xx": errors.group(1) if errors else "0",
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--endpoints", default="legal-moves,moves,score,view")
    parser.add_argument("--game", default="ronda")
    parser.add_argument("--runs", type=int, default=1, help="loads per endpoint; the median run is printed")
    args = parser.parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("wrk is needed: apt-get install wrk")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = dict(os.environ, MAJLIS_BIND=f"127.0.0.1:{port}")
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
        wait_ready(base, server)
        bodies = sample_bodies(args.game)
        workers = env.get("MAJLIS_WEB_WORKERS", "cpu")
        median = f", median of {args.runs} runs" if args.runs > 1 else ""
        print(f"wrk -t1 -c{args.connections} -d{args.seconds}s, gunicorn {workers} workers{median}")
        print(
            f"{'endpoint':12} {'req/s':>9} {'p50':>9} {'p99':>9} {'non-2xx':>8} {'load':>5}  "
            "runs (req/s p99 connections-per-worker)"
        )
        with tempfile.TemporaryDirectory() as tmp:
            for endpoint in args.endpoints.split(","):
                body_path = Path(tmp) / f"{endpoint}.json"
                body_path.write_text(json.dumps(bodies[endpoint]))
                script = Path(tmp) / f"{endpoint}.lua"
                script.write_text(LUA.format(body=body_path))
                url = f"{base}/v1/games/{args.game}/{endpoint}"
                runs = []
                for _ in range(max(1, args.runs)):
                    wrk = subprocess.Popen(
                        [
                            "wrk",
                            "-t1",
                            f"-c{args.connections}",
                            f"-d{args.seconds}s",
                            "--latency",
                            "-s",
                            str(script),
                            url,
                        ],
                        stdout=subprocess.PIPE,
                        text=True,
                    )
                    time.sleep(args.seconds / 2)
                    spread = connections_per_worker(port)
                    out, _ = wrk.communicate(timeout=args.seconds + 60)
                    runs.append((parse_wrk(out), os.getloadavg()[0], spread))
                ranked = sorted(runs, key=lambda run: float(run[0]["rps"]) if run[0]["rps"] != "?" else 0.0)
                r, load, _ = ranked[len(ranked) // 2]
                each = "  ".join(f"({x['rps']} {x['p99']} {spread})" for x, _, spread in runs)
                print(
                    f"{endpoint:12} {r['rps']:>9} {r['p50']:>9} {r['p99']:>9} {r['non2xx']:>8} "
                    f"{load:>5.2f}  {each}",
                    flush=True,
                )
    finally:
        server.terminate()
        server.wait(timeout=20)
        data_dir.cleanup()


if __name__ == "__main__":
    main()
