"""Settings, read once from ``MAJLIS_*`` environment variables (plus ``REDIS_URL``).

Defaults run on one machine with nothing else installed: without ``REDIS_URL``,
``python -m service.run`` starts an embedded Redis server and exports its URL to the
web and worker processes it starts."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def _env(name: str, default: Any, cast: type = str) -> Any:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    if cast is bool:
        return raw.strip().lower() in {"1", "true", "yes", "on"}
    return cast(raw)


def default_data_dir() -> str:
    """``$XDG_DATA_HOME/majlis``, else ``~/.local/share/majlis`` (the XDG default)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return str(Path(base) / "majlis")


class Settings:
    """Production-ish defaults; every value can be overridden from the environment."""

    def __init__(self) -> None:
        # Largest request body accepted (a Marriage state with a long history is ~60 KB).
        self.MAX_CONTENT_LENGTH: int = _env("MAJLIS_MAX_BODY_BYTES", 1_000_000, int)
        # Bot budgets: the most any request may ask for, and what the levels use.
        self.BOT_MAX_ITERATIONS: int = _env("MAJLIS_BOT_MAX_ITERATIONS", 200_000, int)
        self.BOT_MAX_MS: float = _env("MAJLIS_BOT_MAX_MS", 10_000.0, float)
        # A bot-move whose budget is above either threshold runs as a job (202).
        self.ASYNC_ITERATIONS: int = _env("MAJLIS_ASYNC_ITERATIONS", 50_000, int)
        self.ASYNC_MS: float = _env("MAJLIS_ASYNC_MS", 3_000.0, float)
        # Searches one web process runs inside requests at once; more go to the workers (202),
        # so that the process's other threads stay free for the quick endpoints.
        self.INLINE_SEARCHES: int = _env("MAJLIS_INLINE_SEARCHES", 1, int)
        # Root parallelism: a job's budget is split into this many tasks (seeds differ).
        self.SEARCH_PARTS: int = _env("MAJLIS_SEARCH_PARTS", 2, int)
        # Celery task limits (seconds): at the soft limit the search stops and answers its
        # best move so far; the hard limit kills the worker process.
        self.SEARCH_SOFT_LIMIT: float = _env("MAJLIS_SEARCH_SOFT_LIMIT", 30.0, float)
        self.SEARCH_HARD_LIMIT: float = _env("MAJLIS_SEARCH_HARD_LIMIT", 45.0, float)
        # How long a job's record (and its result) is kept.
        self.JOB_TTL: int = _env("MAJLIS_JOB_TTL", 600, int)
        # A job attempted this many times (its worker died each time) is failed.
        self.JOB_MAX_ATTEMPTS: int = _env("MAJLIS_JOB_MAX_ATTEMPTS", 3, int)
        # Redis: a real deployment sets REDIS_URL; without it an embedded server is started.
        self.REDIS_URL: str | None = _env("REDIS_URL", None)
        self.REDIS_TIMEOUT: float = _env("MAJLIS_REDIS_TIMEOUT", 1.0, float)
        # ---- Redis behind Sentinel (issue 35; docs/deploy.md, "Redis with Sentinel") -------
        # MAJLIS_REDIS_SENTINELS: the Sentinels, "host:port,host:port,..."; when set, every
        # Redis client (sessions, jobs, events and their pub/sub, heartbeats, timers) asks
        # them for the current primary of MAJLIS_REDIS_SENTINEL_MASTER, and Celery's broker
        # and results use kombu's ``sentinel://`` transport: REDIS_URL is then derived from
        # them (a ``redis+sentinel://`` URL, service/redis_conn.py) and must not be set.
        # REDIS_PASSWORD: the primary's (and replica's) password; SENTINEL_PASSWORD: the
        # Sentinels' own, if they require one; REDIS_DB: the database number.
        # REDIS_WAIT_REPLICAS: an acknowledged move is answered only after this many
        # replicas hold it (Redis WAIT, up to REDIS_WAIT_MS): a failover then loses no
        # acknowledged move. 0 (the default without Sentinel) skips it.
        self.REDIS_SENTINELS: str = _env("MAJLIS_REDIS_SENTINELS", "")
        self.REDIS_SENTINEL_MASTER: str = _env("MAJLIS_REDIS_SENTINEL_MASTER", "mymaster")
        self.REDIS_PASSWORD: str = _env("MAJLIS_REDIS_PASSWORD", "")
        self.REDIS_SENTINEL_PASSWORD: str = _env("MAJLIS_REDIS_SENTINEL_PASSWORD", "")
        self.REDIS_DB: int = _env("MAJLIS_REDIS_DB", 0, int)
        self.REDIS_WAIT_REPLICAS: int = _env(
            "MAJLIS_REDIS_WAIT_REPLICAS", 1 if self.REDIS_SENTINELS else 0, int
        )
        self.REDIS_WAIT_MS: int = _env("MAJLIS_REDIS_WAIT_MS", 500, int)
        if self.REDIS_SENTINELS:
            from service.redis_conn import sentinel_url

            self.REDIS_URL = sentinel_url(
                self.REDIS_SENTINELS,
                self.REDIS_SENTINEL_MASTER,
                self.REDIS_DB,
                self.REDIS_PASSWORD,
                self.REDIS_SENTINEL_PASSWORD,
                self.REDIS_WAIT_REPLICAS,
                self.REDIS_WAIT_MS,
            )
        # ---- end of Redis behind Sentinel ---------------------------------------------------
        # A task reserved by a worker that died entirely (SIGKILL, machine lost) is put back
        # on its queue this many seconds after it was delivered. Unset: the hard limit plus
        # 15 s; never at or below the hard limit (a task still running would run twice).
        self.BROKER_VISIBILITY_TIMEOUT: float | None = _env("MAJLIS_BROKER_VISIBILITY_TIMEOUT", None, float)
        # How often each worker looks for such tasks (seconds).
        self.BROKER_RESTORE_INTERVAL: float = _env("MAJLIS_BROKER_RESTORE_INTERVAL", 5.0, float)
        # The embedded Redis of ``python -m service.run`` keeps its append-only file here,
        # so sessions survive a restart of Redis or of the whole service.
        self.DATA_DIR: str = _env("MAJLIS_DATA_DIR", default_data_dir())
        self.KEY_PREFIX: str = _env("MAJLIS_KEY_PREFIX", "majlis")
        # Sessions: idle time before a session expires (refreshed on every move). Fair use:
        # 6 h (it was 24 h); a match ends, so a session's size and life are bounded by its
        # game's length plus this idle time.
        self.SESSION_TTL: int = _env("MAJLIS_SESSION_TTL", 6 * 3600, int)
        # The wall-clock bound (ms) of a bot turn on the interactive pool (a session's
        # random, easy and normal seats; turn timers' moves): a bound that protects the
        # pool, high enough that a loaded host still completes normal's 2,000 iterations
        # (under 0.3 s of CPU compiled; its own CPU cap is 1 s). A session's hard seat plays
        # on the search pool, bounded by BOT_MAX_MS (service/queues.py, bot_turn_bound).
        self.SESSION_BOT_MS: float = _env("MAJLIS_SESSION_BOT_MS", 3_000.0, float)
        # Turn timers (a session's ``turn_timer``): the longest limit per move a session may
        # set (seconds); how often each worker looks for timers that ran out; and how long
        # a worker that took one has to play it before another worker takes it again.
        # at most the idle session lifetime: a longer timer would outlive the session it times
        self.TURN_SECONDS_MAX: int = _env("MAJLIS_TURN_SECONDS_MAX", 6 * 3600, int)
        self.TURN_TIMER_SWEEP: float = _env("MAJLIS_TURN_TIMER_SWEEP", 0.2, float)
        self.TURN_TIMER_LEASE: float = _env("MAJLIS_TURN_TIMER_LEASE", 20.0, float)
        # Bot turns (service/bot_turns.py): a version waiting for a bot this long (seconds)
        # with no task playing it has its bot turn sent again (a lost task); how often each
        # interactive worker looks; how long a task that took a turn has before it may be
        # sent again; the most tasks waiting on the interactive queue for a turn to be sent.
        self.BOT_TURN_GRACE: float = _env("MAJLIS_BOT_TURN_GRACE", 5.0, float)
        self.BOT_TURN_SWEEP: float = _env("MAJLIS_BOT_TURN_SWEEP", 1.0, float)
        self.BOT_TURN_LEASE: float = _env("MAJLIS_BOT_TURN_LEASE", 20.0, float)
        self.BOT_TURN_BACKLOG: int = _env("MAJLIS_BOT_TURN_BACKLOG", 8, int)
        # Session event streams (SSE): a comment line and a look at the version this often
        # (seconds). STREAM_URL: where this deployment serves them (the stream server of
        # ``python -m service.run``); when set, the API answers an events request with a
        # 307 to it, so that an idle stream never holds one of the API's threads.
        self.STREAM_HEARTBEAT: float = _env("MAJLIS_STREAM_HEARTBEAT", 10.0, float)
        self.STREAM_URL: str | None = _env("MAJLIS_STREAM_URL", None)
        # API keys for third-party clients: off by default so the README's curl examples run.
        self.API_KEYS: bool = _env("MAJLIS_API_KEYS", False, bool)
        self.RATE_LIMIT: int = _env("MAJLIS_RATE_LIMIT", 600, int)  # requests per key
        self.RATE_WINDOW: int = _env("MAJLIS_RATE_WINDOW", 60, int)  # seconds
        # Workers heartbeat into Redis; /readyz wants one seen within this many seconds.
        self.WORKER_HEARTBEAT: float = _env("MAJLIS_WORKER_HEARTBEAT", 5.0, float)
        self.WORKER_STALE: float = _env("MAJLIS_WORKER_STALE", 20.0, float)
        # ---- fair use: isolated work, webhooks, timers (issue 30; service/webhooks.py,
        # service/timers.py, service/celery_app.py). Pool sizes of ``python -m service.run``
        # are read by it from the environment: MAJLIS_INTERACTIVE_WORKERS (2),
        # MAJLIS_SEARCH_WORKERS (1), MAJLIS_DELIVERY_THREADS (32); see docs/deploy.md.
        # Webhooks (a session's callback_url): each move is POSTed by the delivery pool,
        # WEBHOOK_ATTEMPTS attempts in all, WEBHOOK_BACKOFF x 2^(attempt-1) s apart.
        self.WEBHOOK_ATTEMPTS: int = _env("MAJLIS_WEBHOOK_ATTEMPTS", 5, int)
        self.WEBHOOK_BACKOFF: float = _env("MAJLIS_WEBHOOK_BACKOFF", 2.0, float)
        # One attempt: seconds to connect; seconds in all (connect, TLS, send, the answer's
        # head); bytes of the answer read at most (only its status line counts).
        self.WEBHOOK_CONNECT_TIMEOUT: float = _env("MAJLIS_WEBHOOK_CONNECT_TIMEOUT", 3.0, float)
        self.WEBHOOK_TIMEOUT: float = _env("MAJLIS_WEBHOOK_TIMEOUT", 5.0, float)
        self.WEBHOOK_MAX_RESPONSE_BYTES: int = _env("MAJLIS_WEBHOOK_MAX_RESPONSE_BYTES", 16_384, int)
        # Circuit breaker per destination: this many failed attempts in a row park its
        # deliveries for the cool-down (seconds); then they are sent again.
        self.WEBHOOK_BREAKER_FAILURES: int = _env("MAJLIS_WEBHOOK_BREAKER_FAILURES", 5, int)
        self.WEBHOOK_BREAKER_COOLDOWN: float = _env("MAJLIS_WEBHOOK_BREAKER_COOLDOWN", 60.0, float)
        # Outbox: a move's delivery not settled this long (seconds) after the move, or after
        # its last attempt began, was lost (its task, or its request's publish): the
        # delivery pool sends it again.
        self.WEBHOOK_OUTBOX_GRACE: float = _env("MAJLIS_WEBHOOK_OUTBOX_GRACE", 15.0, float)
        # Callback addresses: only public ones by default. ALLOW_LOOPBACK: loopback too
        # (``python -m service.run`` with its embedded Redis turns it on, for local
        # development, and logs it); ALLOW_PRIVATE: any address (a private network's own
        # receivers).
        self.WEBHOOK_ALLOW_LOOPBACK: bool = _env("MAJLIS_WEBHOOK_ALLOW_LOOPBACK", False, bool)
        self.WEBHOOK_ALLOW_PRIVATE: bool = _env("MAJLIS_WEBHOOK_ALLOW_PRIVATE", False, bool)
        # Turn timers: the most timer moves waiting on the timers queue at once (the
        # sweeper claims no more until they are played: a flood of timers waits in Redis,
        # not ahead of other sessions' bots); a session whose human seats have all been
        # silent this long (seconds; 0: never) stops playing itself and ends ("abandoned").
        self.TURN_TIMER_BACKLOG: int = _env("MAJLIS_TURN_TIMER_BACKLOG", 4, int)
        self.SILENT_SESSION_SECONDS: float = _env("MAJLIS_SILENT_SESSION_SECONDS", 600.0, float)
        # ---- end of fair use (isolated work, webhooks, timers)
        # Match review: the search budget of each reviewed decision (iterations), its cap.
        self.REVIEW_ITERATIONS: int = _env("MAJLIS_REVIEW_ITERATIONS", 400, int)
        self.REVIEW_MAX_ITERATIONS: int = _env("MAJLIS_REVIEW_MAX_ITERATIONS", 5_000, int)
        # CORS: origins whose browser pages may call the API, comma-separated ("*": any;
        # "http://localhost:*": that host on any port). Empty (the default): no CORS headers;
        # ``python -m service.run`` with its embedded Redis allows the loopback origins.
        self.CORS_ORIGINS: str = _env("MAJLIS_CORS_ORIGINS", "")
        self.CORS_MAX_AGE: int = _env("MAJLIS_CORS_MAX_AGE", 600, int)  # seconds a preflight is cached
        # Error answers: RFC 9457 problem details (the default), or "legacy" for the old
        # {"error": {code, message, details}} shape: deprecated, kept for one version.
        self.ERROR_FORMAT: str = _env("MAJLIS_ERROR_FORMAT", "problem")
        # ---- Fair use (docs/deploy.md, "Fair use and limits") -------------------------------
        # Quotas per client: its API key when MAJLIS_API_KEYS is on, else its address. Kept in
        # Redis (shared by every process). 0 turns one off. Over one: 429 ``quota_exceeded``
        # with Retry-After and RateLimit-Limit / -Remaining / -Reset.
        # Proxies in front that append the client's address to X-Forwarded-For: with N > 0 the
        # address the quotas count is the one the Nth proxy saw (werkzeug's ProxyFix).
        # Leave 0 without a proxy: a client could send any X-Forwarded-For itself.
        self.PROXY_HOPS: int = _env("MAJLIS_PROXY_HOPS", 0, int)
        self.QUOTA_SESSIONS_PER_HOUR: int = _env("MAJLIS_QUOTA_SESSIONS_PER_HOUR", 120, int)
        self.QUOTA_LIVE_SESSIONS: int = _env("MAJLIS_QUOTA_LIVE_SESSIONS", 30, int)
        self.QUOTA_TIMED_SESSIONS: int = _env("MAJLIS_QUOTA_TIMED_SESSIONS", 10, int)
        self.QUOTA_WEBHOOK_SESSIONS: int = _env("MAJLIS_QUOTA_WEBHOOK_SESSIONS", 10, int)
        self.QUOTA_SPECTATORS: int = _env("MAJLIS_QUOTA_SPECTATORS", 50, int)  # per session
        self.QUOTA_REVIEWS: int = _env("MAJLIS_QUOTA_REVIEWS", 2, int)  # review jobs in flight
        self.QUOTA_JOBS: int = _env("MAJLIS_QUOTA_JOBS", 8, int)  # other bot jobs in flight
        self.QUOTA_HINTS: int = _env("MAJLIS_QUOTA_HINTS", 1, int)  # hints searching at once
        # A hint waits this long for one of its process's search slots before 429 ``busy``.
        self.HINT_WAIT: float = _env("MAJLIS_HINT_WAIT", 1.5, float)
        # Event streams open at once: per seat or spectator token, per session, per address.
        self.QUOTA_STREAMS_PER_TOKEN: int = _env("MAJLIS_QUOTA_STREAMS_PER_TOKEN", 4, int)
        self.QUOTA_STREAMS_PER_SESSION: int = _env("MAJLIS_QUOTA_STREAMS_PER_SESSION", 200, int)
        self.QUOTA_STREAMS_PER_ADDRESS: int = _env("MAJLIS_QUOTA_STREAMS_PER_ADDRESS", 100, int)
        # Streams one stream-server process holds; past it a new one gets 503 + Retry-After.
        self.STREAM_MAX_CONNECTIONS: int = _env("MAJLIS_STREAM_MAX_CONNECTIONS", 10_000, int)
        # Redis memory: new sessions and jobs are refused (507 ``storage_full``) once Redis
        # uses this fraction of its maxmemory (checked at most once a second per process).
        # The embedded Redis of ``python -m service.run`` gets REDIS_MAXMEMORY (noeviction).
        self.REDIS_HIGH_WATER: float = _env("MAJLIS_REDIS_HIGH_WATER", 0.9, float)
        self.REDIS_MAXMEMORY: str = _env("MAJLIS_REDIS_MAXMEMORY", "512mb")
        # A running job whose parts have all been silent this long (a search reports about
        # every 0.25 s) is shown as ``queued`` with ``requeued: true``: its worker is gone.
        self.JOB_STALL_SECONDS: float = _env("MAJLIS_JOB_STALL_SECONDS", 5.0, float)
        # ---- end of fair use ----------------------------------------------------------------
        self.LOG_LEVEL: str = _env("MAJLIS_LOG_LEVEL", "INFO")
        self.LOG_REQUESTS: bool = _env("MAJLIS_LOG_REQUESTS", True, bool)

    def as_config(self) -> dict[str, Any]:
        """The settings as a mapping of their names (the Flask app's config holds them too;
        service/runtime.py gives them to the domain)."""
        return {k: v for k, v in vars(self).items() if k.isupper()}


class TestSettings(Settings):
    """Settings for the test suite: small caps so a test can never run long."""

    def __init__(self) -> None:
        super().__init__()
        self.TESTING = True
        self.BOT_MAX_ITERATIONS = 5_000
        self.BOT_MAX_MS = 2_000.0
        # Unit tests run without Redis: only an explicit "async": true makes a job.
        self.ASYNC_ITERATIONS = self.BOT_MAX_ITERATIONS
        self.ASYNC_MS = self.BOT_MAX_MS
        self.LOG_REQUESTS = False
        # fair use: the suite is one client making many sessions and jobs; the quotas
        # have tests of their own (tests/integration/test_fair_use_limits.py)
        from service.quotas import QUOTA_SETTINGS

        for name in QUOTA_SETTINGS:
            setattr(self, name, 0)
