"""What the domain works with, given to it rather than looked up: the settings, the Redis
client and key names, the Celery app that sends tasks, the Redis memory gauge.

Built once per process from the settings (service/settings.py): the Flask app holds one
(``app.extensions[RUNTIME_EXTENSION]``, service/__init__.py) and the Celery worker builds
its own at start (service/celery_app.py; each task finds it on its Celery app). So a task
plays a bot with no Flask app or request context, and nothing here imports Flask.
Nothing connects at creation: the stateless endpoints keep working while Redis is down,
and whatever needs Redis raises :class:`~service.domain_errors.RedisUnavailable` or a
redis-py error, which the HTTP layer answers with a 503."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import redis

from service.domain_errors import RedisUnavailable, StorageFull
from service.queues import ROUTES
from service.redis_conn import STREAM_SERVER_CONNECTIONS, Keys, MemoryGauge, connect, is_nearly_full

RUNTIME_EXTENSION = "majlis_runtime"
"""Where the Flask app keeps its :class:`Runtime` (``app.extensions``)."""

STORAGE_RETRY = 30
"""Retry-After of a refusal for want of Redis memory (keys expire, or an operator acts)."""


class Runtime:
    """One process's settings and connections.

    ``config``: the settings as a mapping (``Settings.as_config()``, or the Flask app's
    config, which holds the same names); ``client``: the Redis client (None: no Redis is
    configured); ``celery``: the Celery app tasks are sent with (None: none can be sent)."""

    def __init__(
        self, config: Mapping[str, Any], client: redis.Redis | None = None, celery: Any = None
    ) -> None:
        self.config = config
        self.client = client
        self.keys = Keys(str(config.get("KEY_PREFIX", "majlis")))
        self.celery = celery
        self.gauge = MemoryGauge()
        self.local: dict[str, Any] = {}  # built on first use per process (the event hub)

    @classmethod
    def from_config(cls, config: Mapping[str, Any], celery: Any = None) -> Runtime:
        """A runtime with a (lazy) client of ``REDIS_URL``; a stream server's pool is
        capped (``MAJLIS_STREAM_SERVER``: its thousands of greenlets share a few)."""
        url = config.get("REDIS_URL")
        streams = os.environ.get("MAJLIS_STREAM_SERVER", "") in ("1", "true", "yes", "on")
        most = STREAM_SERVER_CONNECTIONS if streams else None
        client = connect(url, float(config.get("REDIS_TIMEOUT", 1.0)), most) if url else None
        return cls(config, client, celery)

    def redis(self) -> redis.Redis:
        """The Redis client; RedisUnavailable when none is configured."""
        if self.client is None:
            raise RedisUnavailable("no REDIS_URL is set (python -m service.run starts an embedded Redis)")
        return self.client

    def send_task(self, name: str, args: tuple[Any, ...], **options: Any) -> None:
        """Send with this process's own Celery (not the process default: a process may hold
        several apps, e.g. in tests), without publish retries (a dead Redis fails fast).
        ``options`` may name another ``queue`` than the task's route."""
        if self.celery is None:
            raise RuntimeError("this runtime has no Celery app to send tasks with")
        self.celery.send_task(name, args, retry=False, **{**ROUTES[name], **options})

    def check_room(self) -> None:
        """StorageFull before a new session or job when Redis is nearly full
        (MAJLIS_REDIS_HIGH_WATER of its maxmemory): what is already in it keeps working,
        and Redis never reaches the point where it refuses their moves."""
        used, most = self.gauge.read(self.redis())
        if is_nearly_full(used, most, float(self.config.get("REDIS_HIGH_WATER", 0.9))):
            raise StorageFull(STORAGE_RETRY)
