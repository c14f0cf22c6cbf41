"""Fixtures of the Python client's tests: the app in process (fast, no Redis), and the
whole system as ``make run`` starts it (``python -m service.run``) on a free port."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from majlis_client import Client
from majlis_client.transport import Response

from service import create_app
from service.redis_conn import free_port
from service.settings import TestSettings

ROOT = Path(__file__).resolve().parents[2]

# Short matches: a low target, or the fewest deals the game's options allow.
MATCHES = {
    "ronda": {"players": 2, "options": {"target_score": 5}},
    "baloot": {"players": 4, "options": {"target_score": 1}},
    "trex": {"players": 4, "options": {"trex_complex": True}},  # 8 deals, the shortest match
    "porrazo": {"players": 2, "options": {"target_score": 5}},
    "marriage": {"players": 2, "options": {"deals": 1}},
}


class FlaskTransport:
    """The client's transport over Flask's test client: the real app, in this process."""

    def __init__(self, app) -> None:
        self.test_client = app.test_client()

    def __call__(
        self, method: str, url: str, headers: Mapping[str, str], body: bytes | None, timeout: float
    ) -> Response:
        parts = urlsplit(url)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        answer = self.test_client.open(path, method=method, headers=dict(headers), data=body)
        return Response(answer.status_code, answer.get_data(), {k.lower(): v for k, v in answer.headers})


@pytest.fixture(scope="session")
def local() -> Client:
    """A client of the app in process (the stateless API: no Redis)."""
    return Client("http://local", transport=FlaskTransport(create_app(TestSettings())))


def port_is_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def port_is_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    """``python -m service.run`` (embedded Redis, a Celery worker, gunicorn) in its own
    data directory on a free port: its base URL."""
    port = free_port()
    while not port_is_free(port + 1):  # the event streams' server listens on port + 1
        port = free_port()
    data_dir = tmp_path_factory.mktemp("client-data")
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "MAJLIS_EMBEDDED_REDIS_PORT")}
    env.update(
        PYTHONPATH=str(ROOT),
        MAJLIS_BIND=f"127.0.0.1:{port}",
        MAJLIS_DATA_DIR=str(data_dir),
        MAJLIS_WEB_WORKERS="1",
        MAJLIS_SEARCH_WORKERS="1",
        MAJLIS_SESSION_BOT_MS="50",
        MAJLIS_WORKER_HEARTBEAT="1",
        MAJLIS_LOG_LEVEL="WARNING",
        MAJLIS_LOG_REQUESTS="0",
    )
    log_path = data_dir / "server.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "service.run"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
        )
    base = f"http://127.0.0.1:{port}"
    client = Client(base, timeout=5)
    deadline = time.monotonic() + 90
    while not client.ready():  # Redis answers and a worker has reported
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            proc.wait()
            raise RuntimeError("service.run did not get ready:\n" + log_path.read_text()[-3000:])
        time.sleep(0.2)
    while not port_is_open(port + 1):  # the stream server may come up after the API
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            proc.wait()
            raise RuntimeError("the stream server did not listen:\n" + log_path.read_text()[-3000:])
        time.sleep(0.2)
    yield base
    proc.terminate()
    try:
        proc.wait(timeout=40)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
