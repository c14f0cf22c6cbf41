"""Gunicorn settings; every value can be overridden from the environment."""

import json
import logging
import multiprocessing
import os

import gunicorn.util

bind = os.environ.get("MAJLIS_BIND", "127.0.0.1:8000")
# The engine is CPU-bound pure Python: one process per core, a few threads each to
# overlap request parsing with socket I/O. Measured on the 2-core development machine
# (docs/deploy.md, "Speed"): gthread 2 workers x 4 threads answered legal-moves at the
# same server CPU per request as sync or 3 workers and the best p99; the sync worker
# closes the connection after every request (no keep-alive), which costs more than it
# saves. Note that gunicorn turns "sync" into gthread whenever threads > 1.
workers = int(os.environ.get("MAJLIS_WEB_WORKERS", multiprocessing.cpu_count()))
worker_class = os.environ.get("MAJLIS_WEB_WORKER_CLASS", "gthread")
threads = int(os.environ.get("MAJLIS_WEB_THREADS", 4))
# Each worker opens its own SO_REUSEPORT listener (gunicorn >= 23 does this when
# reuse_port is on), so the kernel spreads new connections over the workers by hash.
# With one shared listener the first worker to wake accepts a whole burst: a client
# with a small pool of keep-alive connections (8 from wrk, or an app backend's pool)
# often ended up with all of them on one worker, i.e. on one core, and got a third of
# the throughput (docs/deploy.md, "Speed").
reuse_port = os.environ.get("MAJLIS_WEB_REUSE_PORT", "1") not in ("0", "false", "no", "off")
# The stream server (MAJLIS_STREAM_SERVER=1, started by ``python -m service.run``) serves
# the sessions' event streams (SSE) on their own port, so the API's few threads are never
# held by a viewer (docs/deploy.md, "Event streams"). It runs gevent's worker: an idle
# stream is a greenlet waiting on an event (a few KB), not a thread, so one process holds
# 10,000 of them (docs/deploy.md, "Fair use and limits"). The app refuses a stream past
# MAJLIS_STREAM_MAX_CONNECTIONS with a 503 + Retry-After; gunicorn's own cap
# (worker_connections) is set above it, so that refusal can always be answered, never
# left in the listen queue.
STREAM_SERVER = os.environ.get("MAJLIS_STREAM_SERVER", "") in ("1", "true", "yes", "on")
if STREAM_SERVER:
    bind = os.environ.get("MAJLIS_STREAM_BIND", "127.0.0.1:8001")
    workers = int(os.environ.get("MAJLIS_STREAM_WORKERS", 1))
    worker_class = os.environ.get("MAJLIS_STREAM_WORKER_CLASS", "gevent")
    stream_cap = int(os.environ.get("MAJLIS_STREAM_MAX_CONNECTIONS", 10_000))
    worker_connections = stream_cap + int(os.environ.get("MAJLIS_STREAM_SPARE_CONNECTIONS", 1_000))
    threads = 1
    # gevent patches the standard library in the worker after the fork: the app must be
    # imported after that (its Redis pool's locks would be real locks otherwise)
    preload_app = False
    backlog = 2048


def raise_open_files_limit(wanted: int) -> int:
    """Raise this process's soft limit of open files towards ``wanted`` (at most the hard
    limit: no privilege needed); the limit now. A stream is one socket."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if target > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):  # above the kernel's nr_open: keep what there is
            pass
    return soft


if STREAM_SERVER:
    # each stream is a socket, and a few more files per worker: the soft limit (often
    # 1,024) would refuse connections long before the cap
    raise_open_files_limit(worker_connections * workers + 256)
timeout = int(os.environ.get("MAJLIS_WEB_TIMEOUT", 60))
graceful_timeout = 10
# The stream server keeps no connection alive after a response: a stream ends only when
# the process stops (or the session expires), and its socket must close then, for the
# client to reconnect to a process that stays, and for this one to stop at once rather
# than wait out an idle keep-alive; its client's next stream is a new connection anyway.
keepalive = 0 if STREAM_SERVER else 5
# A worker is replaced after this many requests (a guard against slow leaks). At the
# 2,000 requests/s goal 10,000 meant a restart every ~10 s per worker, each one a
# latency spike for the connections it held; 200,000 is every half hour or more.
max_requests = int(os.environ.get("MAJLIS_WEB_MAX_REQUESTS", 200_000))
max_requests_jitter = max_requests // 10
accesslog = os.environ.get("MAJLIS_ACCESS_LOG") or None
errorlog = "-"
loglevel = os.environ.get("MAJLIS_LOG_LEVEL", "info").lower()
preload_app = not STREAM_SERVER  # see the stream server above
# Gunicorn answers some requests itself, before the app: a request line longer than
# limit_request_line (414), too many or too long headers (431), a malformed request
# line or header (400), an app crash (500). Its answer is an HTML page; the service's
# errors are all problem details, so its one error writer (gunicorn.util.write_error,
# called by Worker.handle_error only) writes them as the app does (service/errors.py),
# or the deprecated legacy shape under MAJLIS_ERROR_FORMAT=legacy. Workers inherit it
# from the master, which loads this file before forking.


def write_json_error(sock, status_int, reason, mesg):
    """gunicorn.util.write_error's signature, answering ``application/problem+json``."""
    from service.errors import HTTP_CODES, LEGACY, PROBLEM_JSON, legacy, problem

    code = HTTP_CODES.get(status_int, "error")
    if os.environ.get("MAJLIS_ERROR_FORMAT") == LEGACY:
        body, content_type = legacy(status_int, code, mesg or reason), "application/json"
    else:
        body, content_type = problem(status_int, code, mesg or reason), PROBLEM_JSON
    data = json.dumps(body).encode()
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
        f"Content-Type: {content_type}\r\nContent-Length: {len(data)}\r\n\r\n"
    )
    gunicorn.util.write_nonblock(sock, head.encode("latin-1") + data)


gunicorn.util.write_error = write_json_error


def child_exit(server, worker):  # noqa: ARG001 - gunicorn's hook signature
    """Prometheus multiprocess mode: forget a dead worker's live gauges."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


def listening_at(bind: list[str]) -> str:
    """The addresses of ``bind`` as gunicorn writes them ("http://127.0.0.1:8000")."""
    return ",".join(b if b.startswith(("unix:", "fd://")) else f"http://{b}" for b in bind)


def when_ready(server):
    """Import every game in the master before the
    workers fork (preload_app), so no worker pays a game's import on its first request.
    A game that fails to import is left to answer its own error at request time."""
    from engine import GAME_IDS, get_game

    for game_id in GAME_IDS:
        try:
            get_game(game_id)
        except Exception as error:  # noqa: BLE001
            server.log.warning("game %s not preloaded: %s", game_id, error)


def post_fork(server, worker):  # noqa: ARG001
    """A web process may run an inline bot search (INLINE_SEARCHES, up to ASYNC_MS)
    beside its quick requests: hand the GIL over every millisecond, not every 5 ms, so
    a legal-moves thread waits less behind the searching thread at each of its steps.

    The stream server's process runs at a lower CPU priority: when a move wakes hundreds
    of streams at once, the API's requests on the same cores go first."""
    import sys

    sys.setswitchinterval(0.001)
    if STREAM_SERVER:
        os.nice(int(os.environ.get("MAJLIS_STREAM_NICE", 5)))


def post_worker_init(worker):
    """On SIGTERM, end this worker's event streams before gunicorn's graceful stop waits
    for its open requests: an idle stream would otherwise hold the stop for the whole
    ``graceful_timeout`` (10 s), its client hearing nothing all that while before it is
    cut off. Ended at once, a stream's client reconnects (after ``retry``) to a process
    that stays. A thread does it (a signal handler should not take locks); in the gevent
    worker a greenlet does, as gunicorn's own handlers there: its handler runs in the
    event loop, where starting a (patched) thread would block and kill the worker."""
    import signal
    import threading

    stop_worker = worker.handle_exit

    def on_sigterm(sig, frame):
        from service.events import close_all_streams

        if _gevent_patched():
            import gevent

            gevent.spawn(close_all_streams)
        else:
            threading.Thread(target=close_all_streams, name="majlis-close-streams", daemon=True).start()
        stop_worker(sig, frame)

    signal.signal(signal.SIGTERM, on_sigterm)
    signal.siginterrupt(signal.SIGTERM, False)  # as gunicorn had it: no request's read is cut


def _gevent_patched() -> bool:
    """Whether this process runs gunicorn's gevent worker (which patches threading)."""
    import sys

    return "gevent.monkey" in sys.modules and sys.modules["gevent.monkey"].is_module_patched("threading")


# ---- control socket and start log (issue 33)
# gunicorn >= 25 opens a control socket (for ``gunicornc``) at one path per user by
# default, which the API's and the stream server's masters (and any other gunicorn of the
# user) would share: none unless MAJLIS_CONTROL_SOCKET names one, the stream server's
# then with ``.streams`` added.
control_socket_disable = not os.environ.get("MAJLIS_CONTROL_SOCKET")
if not control_socket_disable:
    control_socket = os.environ["MAJLIS_CONTROL_SOCKET"] + (".streams" if STREAM_SERVER else "")


class _NameTheAddress(logging.Filter):
    """With reuse_port the master opens no socket (each worker binds its own), so
    gunicorn's own start line would read "Listening at:  (pid)": it names the address."""

    def __init__(self, address: str) -> None:
        super().__init__()
        self.address = address

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == "Listening at: %s (%s)" and record.args and not record.args[0]:
            record.args = (f"{self.address} (one SO_REUSEPORT socket per worker)", *record.args[1:])
        return True


def on_starting(server):
    server.log.error_log.addFilter(_NameTheAddress(listening_at(server.cfg.bind)))
