"""Celery on Redis: ``make_celery(config)`` and the worker entry point (the worker's top
layer: it builds its :class:`~service.runtime.Runtime` from the settings, with no Flask
app, and starts the sweepers; the queues, routes and time limits the domain needs are in
:mod:`service.queues`). Each task finds the runtime on its Celery app (service/tasks.py).

    celery -A service.celery_app worker -Q sessions,timers --concurrency 2      # interactive
    celery -A service.celery_app worker -Q search --concurrency 1               # long searches
    celery -A service.celery_app worker -Q webhooks -P threads --concurrency 32 # deliveries

Queues, each served by its own pool so that no kind of work waits behind another:
``sessions`` (interactive: a session's bot seats, and search jobs small enough to have run
inside a request), ``timers`` (moves of turn timers that ran out; served by the
interactive pool, which takes from its two queues in turn, so a flood of timers never
holds a bot turn back more than one task), ``search`` (long searches: bot-move jobs
above the inline budget, the parts of a root-parallel job, the decisions of a match
review) and ``webhooks`` (deliveries: network waits, on a threaded pool, never a search
process).
Each worker process reserves one task at a time (prefetch 1), acknowledges it only when
done (acks_late) and a task whose process died is put back on the queue
(reject_on_worker_lost), so another process runs it. A task whose whole worker died
(SIGKILL, machine lost) stays reserved in Redis until its visibility timeout has passed
since its delivery; then the next sweep of any live worker (every
``BROKER_RESTORE_INTERVAL`` seconds) puts it back at the head of its queue. Tasks take
plain JSON and write their results to Redis under the job id, which makes a redelivered
task idempotent. Each worker's main process also sweeps the sessions' turn timers
(:mod:`service.timers`) and queues a task for each one that ran out, and the bot turns
that waited too long for a task that was lost (:mod:`service.bot_turns`)."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from celery import Celery  # type: ignore[import-untyped]  # celery ships no type information
from celery.signals import worker_init, worker_ready, worker_shutdown  # type: ignore[import-untyped]  # celery ships no type information

from service.queues import (  # the routes and limits the domain uses live below the worker app
    ALL_QUEUES,
    ROUTES,
    SEARCH_QUEUE,
    SESSIONS_QUEUE,
    TIMERS_QUEUE,
    WEBHOOKS_QUEUE,
    time_limits,
    visibility_timeout,
)

if TYPE_CHECKING:
    from service.runtime import Runtime

log = logging.getLogger(__name__)


def sentinel_broker(url: str) -> tuple[str, dict[str, Any]]:
    """(Celery's broker and result URL, its Sentinel transport options) for a
    ``redis+sentinel://`` URL (service/redis_conn.py): kombu's form lists each Sentinel as
    ``sentinel://[:password@]host:port/db`` joined by ``;`` and takes the primary's name
    as ``master_name`` (the password in the URL is the primary's; the Sentinels' own goes
    in ``sentinel_kwargs``)."""
    from urllib.parse import quote

    from service.redis_conn import parse_sentinel_url

    target = parse_sentinel_url(url)
    auth = f":{quote(target.password, safe='')}@" if target.password else ""
    hosts = ";".join(
        f"sentinel://{auth}{f'[{h}]' if ':' in h else h}:{p}/{target.db}" for h, p in target.sentinels
    )
    options: dict[str, Any] = {"master_name": target.master}
    if target.sentinel_password:
        options["sentinel_kwargs"] = {"password": target.sentinel_password}
    return hosts, options


def celery_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """Celery settings derived from the service's settings (service/settings.py)."""
    from service.redis_conn import SENTINEL_SCHEME

    url = config.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    sentinel: dict[str, Any] = {}
    if url.startswith(SENTINEL_SCHEME):  # broker and results through the Sentinels too
        url, sentinel = sentinel_broker(url)
    soft, hard = time_limits(config)
    return {
        "broker_url": url,
        "result_backend": url,
        "result_backend_transport_options": dict(sentinel),
        "task_ignore_result": True,  # results are written under the job id by the task
        "result_expires": int(config.get("JOB_TTL", 600)),
        "task_serializer": "json",
        "result_serializer": "json",
        "accept_content": ["json"],
        "task_default_queue": SEARCH_QUEUE,
        "task_routes": ROUTES,  # a worker of several queues reads them in turn (round robin)
        "worker_prefetch_multiplier": 1,
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "task_soft_time_limit": soft,
        "task_time_limit": hard,
        "broker_transport_options": {
            "visibility_timeout": visibility_timeout(config),
            # kombu sweeps for such tasks every interval x throttle seconds (100 s by default)
            "unacked_restore_interval": float(config.get("BROKER_RESTORE_INTERVAL", 5.0)),
            "unacked_restore_throttle": 1,
            "socket_timeout": 5,
            "socket_connect_timeout": 2,
            **sentinel,
        },
        "broker_connection_retry_on_startup": True,
        # Any error answer of Redis to the consumer restarts the consumer, as a lost
        # connection does, instead of stopping the whole worker ("Unrecoverable error",
        # exit 1: once in CI with Redis full). broker_survives_out_of_memory covers the
        # OOM answer itself, not a write refused inside one of kombu's scripts (a plain
        # error answer) nor any other error; one on the write that records a popped
        # task as delivered loses that task to the broker: the bot turn sweeper sends a
        # lost bot turn again (a bot-move job's task lost so stays pending until it
        # expires: known, rare, left as it is).
        "broker_channel_error_retry": True,
        "broker_connection_timeout": 2,
        "task_publish_retry": False,
        "worker_hijack_root_logger": False,
        "worker_send_task_events": False,
        "worker_cancel_long_running_tasks_on_connection_loss": False,
        "include": ["service.tasks"],
    }


def make_celery(config: Mapping[str, Any]) -> Celery:
    """A Celery app by the settings ``config``, with the process's Runtime on it (the
    tasks' settings, Redis and the app to send their next tasks with): plain tasks, no
    Flask app context around them."""
    from service.runtime import Runtime
    from service.tasks import RUNTIME_ATTRIBUTE

    celery = Celery("service")
    celery.config_from_object(celery_config(config))
    celery.set_default()
    setattr(celery, RUNTIME_ATTRIBUTE, Runtime.from_config(config, celery))
    return celery


# --------------------------------------------------------------------------- worker side

_worker_celery: Celery | None = None


def _make_worker_app() -> Celery:
    """The worker's Celery app: its settings read once from the environment (no Flask)."""
    global _worker_celery
    if _worker_celery is None:
        from service import logs
        from service.settings import Settings

        settings = Settings()
        logs.configure(settings.LOG_LEVEL)
        _worker_celery = make_celery(settings.as_config())
    return _worker_celery


def worker_runtime() -> Runtime:
    """The worker's Runtime: its settings, Redis and Celery app (what its tasks are given)."""
    from service.tasks import runtime_of_app

    return runtime_of_app(_make_worker_app())


def __getattr__(name: str) -> Any:
    # ``celery -A service.celery_app`` looks up ``app`` / ``celery`` here; building the
    # app lazily keeps ``import service.celery_app`` free of side effects.
    if name in ("app", "celery"):
        return _make_worker_app()
    raise AttributeError(name)


@worker_init.connect
def _survive_redis_out_of_memory(**_: Any) -> None:
    """A full Redis: reconnect and wait, never exit (service/redis_conn.py)."""
    from service.redis_conn import broker_survives_out_of_memory

    broker_survives_out_of_memory()


@worker_init.connect
def _preload_games(**_: Any) -> None:
    """Import every game in the worker's main process, before the pool forks."""
    from engine import GAME_IDS, get_game

    for game_id in GAME_IDS:
        try:
            get_game(game_id)
        except Exception as error:  # a broken game answers its own error per task
            log.warning("game %s not preloaded: %s", game_id, error)


_heartbeat_stop = threading.Event()
_heartbeat_target: dict[str, str] = {}


def heartbeat_name(hostname: str | None, pid: int) -> str:
    """The worker's name in the heartbeats (/readyz counts them): its Celery node name
    (``-n``; python -m service.run gives ``<pool>-<node>-<pid>@<host>``), made unique on
    its machine with the pid when it is Celery's default ``celery@<host>``: two workers
    started without ``-n`` on one host (or in two containers sharing a host name) would
    otherwise write one heartbeat and be counted as one.

    >>> heartbeat_name("celery@box", 7), heartbeat_name("search-a-9@box", 7), heartbeat_name(None, 7)
    ('celery-7@box', 'search-a-9@box', 'worker-7@unknown')
    """
    if not hostname:
        return f"worker-{pid}@unknown"
    name, _, host = hostname.partition("@")
    return f"celery-{pid}@{host}" if name == "celery" else hostname


@worker_ready.connect
def _start_heartbeat(sender: Any = None, **_: Any) -> None:
    """The worker's main process writes ``hostname -> time`` into Redis every few seconds;
    /readyz wants a recent one."""
    from service.redis_conn import connect

    runtime = worker_runtime()
    config, keys = runtime.config, runtime.keys
    url = config.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    hostname = heartbeat_name(getattr(sender, "hostname", None), os.getpid())
    period = float(config.get("WORKER_HEARTBEAT", 5.0))

    def beat() -> None:
        client = connect(url, 1.0)
        while not _heartbeat_stop.is_set():
            try:
                client.hset(keys.workers(), hostname, f"{time.time():.3f}")
            except Exception as error:  # Redis down: keep trying, /readyz says so meanwhile
                log.warning("worker heartbeat failed: %s", error)
            _heartbeat_stop.wait(period)

    _heartbeat_target.update(url=url, key=keys.workers(), hostname=hostname)
    threading.Thread(target=beat, name="majlis-heartbeat", daemon=True).start()


_sweepers: list[Any] = []


def consumed_queues(sender: Any) -> set[str]:
    """The queues this worker takes from (its ``-Q``)."""
    try:
        return set(sender.app.amqp.queues.consume_from)
    except Exception:
        return set(ALL_QUEUES)


@worker_ready.connect
def _start_sweepers(sender: Any = None, **_: Any) -> None:
    """The main process of a worker that serves the timers queue sends the turn timers
    that ran out to it; one that serves the sessions queue sends again the bot turns that
    waited too long (service/bot_turns.py); one that serves the webhooks queue sends again
    the deliveries parked by a circuit breaker whose cool-down has passed."""
    from service.redis_conn import connect

    runtime = worker_runtime()
    config = runtime.config
    url = config.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    queues = consumed_queues(sender)
    if TIMERS_QUEUE in queues:  # turn timers that ran out
        _sweepers.append(
            task_sweeper(
                url,
                runtime,
                "majlis.session_turn_timeout",
                runtime.keys.turn_timers(),
                "TURN_TIMER",
                (0.2, 20.0, 4),
                TIMERS_QUEUE,
                "turn timer",
            )  # fmt: skip
        )
    if SESSIONS_QUEUE in queues:  # bot turns whose task was lost: sent again
        _sweepers.append(bot_turn_sweeper(url, runtime))
    if WEBHOOKS_QUEUE in queues:
        _sweepers.append(ParkedSweeper(connect(url, 1.0), runtime).start())
        _sweepers.append(outbox_sweeper(connect(url, 1.0), runtime).start())


def bot_turn_sweeper(url: str, runtime: Runtime) -> Any:
    """A started thread that sends again the bot turns whose task was lost, each to its
    seat's pool (a hard seat's to the search pool: :func:`service.queues.bot_turn_queue`)."""
    from service.sessions import SessionStore, bot_turn_queue_of

    store = SessionStore(runtime)
    return task_sweeper(
        url,
        runtime,
        "majlis.session_bot_turn",
        runtime.keys.bot_turns(),
        "BOT_TURN",
        (1.0, 20.0, 8),
        SESSIONS_QUEUE,
        "bot turn",
        route=lambda session_id: bot_turn_queue_of(store, session_id),
    )  # fmt: skip


def task_sweeper(
    url: str,
    runtime: Runtime,
    task: str,
    key: str,
    setting: str,
    defaults: tuple[float, float, int],
    queue: str,
    what: str,
    route: Callable[[str], str] | None = None,
) -> Any:
    """A started thread that sends ``task`` for each ``(session, version)`` of the set
    ``key`` whose time has passed, by the settings ``<setting>_SWEEP``, ``_LEASE`` and
    ``_BACKLOG`` (``defaults`` where unset): the turn timers and the lost bot turns.
    ``route(session_id)``: the queue to send it to (else the task's own); the backlog
    counted is ``queue``'s."""
    from service.redis_conn import connect
    from service.timers import Sweeper

    config = runtime.config
    sweep, lease, backlog = defaults

    def send(session_id: str, version: int) -> None:
        options = {"queue": route(session_id)} if route is not None else {}
        runtime.send_task(task, (session_id, version), **options)

    return Sweeper(
        connect(url, 1.0),
        key,
        send,
        float(config.get(f"{setting}_SWEEP", sweep)),
        float(config.get(f"{setting}_LEASE", lease)),
        backlog=int(config.get(f"{setting}_BACKLOG", backlog)),
        queue=queue,
        what=what,
    ).start()


def outbox_sweeper(client: Any, runtime: Runtime) -> Any:
    """The delivery pool's thread that queues again the webhooks of the outbox whose time
    has passed: a delivery whose task (or whose request's publish) was lost
    (service/webhooks.py, "Outbox")."""
    from service.timers import Sweeper
    from service.webhooks import body_again, delivery_key

    keys, config = runtime.keys, runtime.config

    def send_again(session_id: str, version: int) -> None:
        body = body_again(client, keys.session(session_id), keys.session_log(session_id), session_id, version)
        if body is None:  # the session expired
            client.zrem(keys.webhook_outbox(), delivery_key(session_id, version))
            return
        runtime.send_task(
            "majlis.webhook_delivery", (session_id, version, body), task_id=delivery_key(session_id, version)
        )

    # a lease past one attempt's deadline: a delivery sent again is not sent a third time
    # while it runs (its attempt pushes its time on anyway)
    lease = float(config.get("WEBHOOK_TIMEOUT", 5.0)) + float(config.get("WEBHOOK_OUTBOX_GRACE", 15.0))
    return Sweeper(client, keys.webhook_outbox(), send_again, 2.0, lease, backlog=100, queue=WEBHOOKS_QUEUE,
                   what="webhook")  # fmt: skip


class ParkedSweeper:
    """The delivery pool's thread that queues again the parked deliveries of destinations
    whose breaker cool-down has passed (every second)."""

    def __init__(self, client: Any, runtime: Runtime, period: float = 1.0) -> None:
        self.client, self.runtime, self.period = client, runtime, period
        self.stopped = threading.Event()

    def start(self) -> ParkedSweeper:
        threading.Thread(target=self.run, name="majlis-parked-webhooks", daemon=True).start()
        return self

    def stop(self) -> None:
        self.stopped.set()

    def send(self, session_id: str, version: int, body: dict[str, Any]) -> None:
        self.runtime.send_task("majlis.webhook_delivery", (session_id, version, body))

    def run(self) -> None:
        from service.webhooks import release_parked

        while not self.stopped.is_set():
            try:
                released = release_parked(self.client, self.runtime.keys.prefix, self.send, time.time())
                if released:
                    log.info("webhooks: %d parked deliveries queued again", released)
            except Exception as error:  # Redis down: try again at the next sweep
                log.warning("parked webhooks: %s", error)
            self.stopped.wait(self.period)


@worker_shutdown.connect
def _stop_heartbeat(**_: Any) -> None:
    for sweeper in _sweepers:
        sweeper.stop()
    _heartbeat_stop.set()
    if _heartbeat_target:
        from service.redis_conn import connect

        try:
            connect(_heartbeat_target["url"], 1.0).hdel(
                _heartbeat_target["key"], _heartbeat_target["hostname"]
            )
        except Exception:
            pass
