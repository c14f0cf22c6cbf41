"""Fair use under attack: an unrelated session's first bot move while one client floods.

Starts ``python -m service.run`` (embedded Redis, its own data directory, a free loopback
port) from ``--code`` (default: this checkout; another checkout measures the code before
a change), or uses a running one (``--base``), and runs named scenarios, each on a fresh
server when this script starts it:

* ``webhooks``: 10 bot-only sessions whose callbacks go to local receivers that answer
  one byte every 0.5 s (half of them) or accept and never answer (the other half);
* ``timers``: 100 sessions of two people with a 1-second turn timer, nobody moving, for
  ``--hold`` seconds at least (30: past the timers' 20 s lease);
* ``reviews``: 20 match reviews in flight (a 40-move Ronda match each);
* ``streams``: one address opening event streams until refused, and 10,000 idle streams
  held by one stream process, while another token's new stream is timed to its first
  byte: ``bench/fair_use_streams.py flood`` then ``hold``, run from ``--code`` (streams
  are measured on raw sockets, not as bot moves: that script's output is printed as is);

and for each, measures the first bot move of a new unrelated session (a person and a
bot, the bot to act first: from the create's answer to the version moving) ``--samples``
times, first idle and then under the attack: p50/p95. ``timers`` also says whether any
timer was queued twice (two messages for one session version seen on the queues, which
are sampled every 0.3 s; needs Redis: found in the server's log, or ``--redis``).

    python bench/fair_use.py --scenario all [--samples 10] [--code /tmp/base-checkout]

Every loop is bounded in count and time; traffic goes to 127.0.0.1 only. Prints one JSON
line per scenario and the load (``uptime``) before and after."""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GAME = "ronda"
SCENARIOS = ("webhooks", "timers", "reviews", "streams")


# --------------------------------------------------------------------------- HTTP


def call(base: str, method: str, path: str, body: Any = None, token: str | None = None, timeout: float = 30):
    """(status, JSON answer) of one request."""
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def create(base: str, **body: Any) -> dict[str, Any]:
    status, created = call(base, "POST", "/v1/sessions", {"game": GAME, "players": 2, **body})
    if status != 201:
        raise RuntimeError(f"create answered {status}: {created}")
    return created


def first_bot_move(base: str, timeout: float = 60.0) -> float:
    """Seconds from a new session's create (a person and a bot, the bot to act first) to
    the bot's move."""
    created = create(base, seats=["human", "bot"], options={"target_score": 1000})
    if created["to_act"] != 1:
        raise RuntimeError(f"the bot is not to act first: {created['to_act']}")
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        status, session = call(base, "GET", f"/v1/sessions/{created['id']}", token=created["tokens"][0])
        if status == 200 and session["version"] >= 1:
            return time.monotonic() - start
        time.sleep(0.02)
    return float("inf")


def latencies(base: str, samples: int) -> list[float]:
    return [first_bot_move(base) for _ in range(samples)]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(statistics.median(values), 3),
        "p95": round(percentile(values, 0.95), 3),
        "max": round(max(values), 3),
    }


# --------------------------------------------------------------------------- hostile receivers


class Receiver:
    """A local TCP server playing a bad webhook receiver: ``trickle`` answers
    ``HTTP/1.1 200 OK`` one byte every ``interval`` seconds; ``silent`` accepts and never
    answers; ``garbage`` answers a line that is not HTTP; ``huge`` a head that never ends;
    else the answer is ``status`` (which may be changed while it runs). Holds each
    connection until it is closed or the server stops."""

    def __init__(self, mode: str, interval: float = 0.5, status: int = 200) -> None:
        self.mode, self.interval, self.status = mode, interval, status
        self.requests: list[bytes] = []
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/hook"
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self) -> None:
        while not self.stopped.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            threading.Thread(target=self.handle, args=(conn,), daemon=True).start()

    def read_request(self, conn: socket.socket) -> bytes:
        conn.settimeout(2.0)
        data = b""
        with contextlib.suppress(OSError):
            while b"\r\n\r\n" not in data and len(data) < 65536:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            found = re.search(rb"content-length: *(\d+)", head, re.I)
            while found and len(body) < int(found.group(1)):
                chunk = conn.recv(65536)
                if not chunk:
                    break
                body += chunk
            data = head + b"\r\n\r\n" + body
        return data

    def handle(self, conn: socket.socket) -> None:
        with conn:
            request = self.read_request(conn)
            with self.lock:
                self.requests.append(request)
            try:
                if self.mode == "trickle":
                    for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n":
                        if self.stopped.wait(self.interval):
                            return
                        conn.sendall(bytes([byte]))
                elif self.mode == "silent":
                    self.stopped.wait(120)
                elif self.mode == "garbage":
                    conn.sendall(b"HELLO THERE\r\n\r\n")
                elif self.mode == "huge":
                    conn.sendall(b"HTTP/1.1 200 OK\r\nX-Padding: " + b"a" * 100_000)
                else:
                    conn.sendall(f"HTTP/1.1 {self.status} X\r\nContent-Length: 0\r\n\r\n".encode())
            except OSError:
                pass

    def deliveries(self, session_id: str | None = None) -> list[bytes]:
        with self.lock:
            return [r for r in self.requests if session_id is None or session_id.encode() in r]

    def close(self) -> None:
        self.stopped.set()
        self.sock.close()


# --------------------------------------------------------------------------- the server


def free_port() -> int:
    while True:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        with socket.socket() as other:  # the stream server takes port + 1
            if other.connect_ex(("127.0.0.1", port + 1)) != 0:
                return port


@contextlib.contextmanager
def service(code: Path, log_dir: Path, **settings: str) -> Iterator[tuple[str, Path]]:
    """``python -m service.run`` from ``code``: (base URL, its log file)."""
    port = free_port()
    data_dir = Path(tempfile.mkdtemp(prefix="fair-use-", dir=log_dir))
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "MAJLIS_EMBEDDED_REDIS_PORT")}
    env.update(
        PYTHONPATH=str(code),
        MAJLIS_BIND=f"127.0.0.1:{port}",
        MAJLIS_DATA_DIR=str(data_dir),
        MAJLIS_LOG_LEVEL="WARNING",
        MAJLIS_LOG_REQUESTS="0",
    )
    env.update(settings)
    log_path = data_dir / "server.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "service.run"], cwd=code, env=env, stdout=log, stderr=subprocess.STDOUT
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            with contextlib.suppress(OSError, ValueError):
                if call(base, "GET", "/readyz", timeout=3)[0] == 200:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("service.run did not get ready:\n" + log_path.read_text()[-2000:])
            time.sleep(0.3)
        yield base, log_path
    finally:
        proc.terminate()
        try:
            proc.wait(40)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def redis_url_in(log_path: Path) -> str | None:
    found = re.search(r"embedded Redis at (redis://\S+),", log_path.read_text(errors="replace"))
    return found.group(1) if found else None


# --------------------------------------------------------------------------- attacks


def webhook_attack(base: str, sessions: int = 10) -> tuple[list[Receiver], Callable[[], None]]:
    """``sessions`` bot-only sessions calling back trickling and silent receivers: the
    receivers, and what stops them."""
    receivers = [Receiver("trickle"), Receiver("silent")]
    for n in range(sessions):
        create(
            base,
            seats=[{"type": "bot", "level": "easy"}] * 2,
            options={"target_score": 1000},
            callback_url=receivers[n % 2].url,
        )

    def stop() -> None:
        for receiver in receivers:
            receiver.close()

    return receivers, stop


def timer_attack(base: str, sessions: int = 100) -> list[dict[str, Any]]:
    """``sessions`` sessions of two people who never move, with 1-second turn timers."""
    return [create(base, turn_timer={"seconds": 1}, options={"target_score": 1000}) for _ in range(sessions)]


def review_attack(base: str, reviews: int = 20, moves: int = 40) -> list[str]:
    """``reviews`` stateless reviews of a ``moves``-move Ronda match in flight; their job URLs."""
    from engine import get_game

    game = get_game(GAME)
    urls = []
    for n in range(reviews):
        state = game.new_state(2, game.parse_options({}, 2), 0, seed=100 + n)
        initial, actions = state, []
        for _ in range(moves):
            if game.to_act(state) is None:
                break
            action = game.legal_actions(state)[0]
            actions.append(game.action_to_json(state, action))
            state, _ = game.apply(state, game.to_act(state), action)
        status, answer = call(
            base,
            "POST",
            f"/v1/games/{GAME}/review",
            {"state": game.to_json(initial), "actions": actions, "seat": 0, "iterations": 1000},
        )
        if status != 202:
            raise RuntimeError(f"review answered {status}: {answer}")
        urls.append(answer["job"]["url"])
    return urls


class QueueWatch:
    """Samples the Celery queues in Redis every 0.3 s: the session versions whose turn
    timer was queued as two different messages (a timer fired twice)."""

    QUEUES = ("timers", "sessions", "search")

    def __init__(self, redis_url: str) -> None:
        import redis

        self.client = redis.Redis.from_url(redis_url, socket_timeout=2)
        self.seen: dict[tuple[str, int], set[str]] = {}
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        while not self.stopped.wait(0.3):
            for queue in self.QUEUES:
                with contextlib.suppress(Exception):
                    for raw in self.client.lrange(queue, 0, 5000):
                        self.note(json.loads(raw))

    def note(self, message: dict[str, Any]) -> None:
        if message.get("headers", {}).get("task") != "majlis.session_turn_timeout":
            return
        args = json.loads(base64.b64decode(message["body"]))[0]
        tag = message["properties"]["delivery_tag"]
        self.seen.setdefault((args[0], int(args[1])), set()).add(tag)

    def stop(self) -> dict[str, int]:
        self.stopped.set()
        self.thread.join(5)
        twice = sum(1 for tags in self.seen.values() if len(tags) > 1)
        return {"timer_versions_seen_queued": len(self.seen), "queued_twice": twice}


# --------------------------------------------------------------------------- scenarios


def run_scenario(
    name: str, base: str, samples: int, redis_url: str | None, log_path: Path | None, hold: float = 30.0
):
    idle = latencies(base, max(3, samples // 2))
    result: dict[str, Any] = {"scenario": name, "idle": summary(idle)}
    if name == "webhooks":
        _receivers, stop = webhook_attack(base)
        time.sleep(2.0)  # the deliveries are under way
        try:
            result["attack"] = summary(latencies(base, samples))
        finally:
            stop()
    elif name == "timers":
        watch = QueueWatch(redis_url) if redis_url else None
        started = time.monotonic()
        timer_attack(base)
        time.sleep(3.0)  # the timers run out, again and again
        result["attack"] = summary(latencies(base, samples))
        # held past the timers' 20 s lease: a backlog older than that queued timers twice
        time.sleep(max(2.0, hold - (time.monotonic() - started)))
        result["attack_seconds"] = round(time.monotonic() - started, 1)
        if watch is not None:
            result.update(watch.stop())
        if log_path is not None:
            fired = re.findall(r"turn timer (\w+:\d+) ran out", log_path.read_text(errors="replace"))
            result["timer_log_lines"] = len(fired)
            result["timer_fired_twice_in_log"] = len(fired) - len(set(fired))
    elif name == "reviews":
        urls = review_attack(base)
        time.sleep(2.0)
        result["attack"] = summary(latencies(base, samples))
        done = sum(1 for url in urls if call(base, "GET", url)[1]["status"] == "done")
        result["reviews_done_meanwhile"] = done
    return result


def run_stream_scenarios(code: Path, samples: int) -> None:
    """The streams scenario: bench/fair_use_streams.py's two parts on ``code``'s service."""
    script = ROOT / "bench" / "fair_use_streams.py"
    for part in ("flood", "hold"):
        env = dict(os.environ, PYTHONPATH=str(code))
        command = [sys.executable, str(script), part, "--samples", str(min(samples, 5))]
        done = subprocess.run(command, cwd=code, env=env, capture_output=True, text=True, timeout=900)
        print(done.stdout, end="", flush=True)
        if done.returncode:
            print(json.dumps({"scenario": f"streams {part}", "error": done.stderr[-2000:]}), flush=True)


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=(*SCENARIOS, "all"), default="all")
    parser.add_argument("--samples", type=int, default=10, help="first bot moves measured per phase")
    parser.add_argument("--base", help="a running service (else one is started per scenario)")
    parser.add_argument("--redis", help="its Redis URL, to watch the queues (with --base)")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose service.run to start")
    parser.add_argument("--hold", type=float, default=30.0, help="seconds the timer attack lasts at least")
    args = parser.parse_args()
    names = SCENARIOS if args.scenario == "all" else (args.scenario,)
    print(json.dumps({"load_before": uptime(), "code": str(args.code)}), flush=True)
    with tempfile.TemporaryDirectory(prefix="fair-use-bench-") as tmp:
        for name in names:
            if name == "streams":
                run_stream_scenarios(args.code, args.samples)
                continue
            if args.base:
                result = run_scenario(name, args.base.rstrip("/"), args.samples, args.redis, None, args.hold)
            else:
                settings = {"MAJLIS_LOG_LEVEL": "INFO"} if name == "timers" else {}
                with service(args.code, Path(tmp), **settings) as (base, log_path):
                    result = run_scenario(
                        name, base, args.samples, redis_url_in(log_path), log_path, args.hold
                    )
            print(json.dumps(result), flush=True)
    print(json.dumps({"load_after": uptime()}), flush=True)


if __name__ == "__main__":
    main()
