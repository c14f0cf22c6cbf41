"""``python -m service.run`` for the tests that need the whole system as ``make run``
starts it: its embedded Redis (in a data directory of the test's own), a Celery worker,
gunicorn for the API and the event streams' server on the API's port + 1."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from service.quotas import QUOTA_SETTINGS
from service.redis_conn import free_port

ROOT = Path(__file__).resolve().parents[1]


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


def is_ready(port: int) -> bool:
    """/readyz answers 200: Redis answers and a worker has reported."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5) as answer:
            return answer.status == 200
    except OSError:
        return False


@contextlib.contextmanager
def running_service(data_dir: Path, **settings: str) -> Iterator[int]:
    """Start the system with ``settings`` (MAJLIS_* variables) on free ports; yield the
    API's port once it is ready and the stream server listens; stop it afterwards."""
    port = free_port()
    while not port_is_free(port + 1):  # the event streams' server listens on port + 1
        port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "MAJLIS_EMBEDDED_REDIS_PORT")}
    env.update(
        PYTHONPATH=str(ROOT),
        MAJLIS_BIND=f"127.0.0.1:{port}",
        MAJLIS_DATA_DIR=str(data_dir),
        MAJLIS_LOG_LEVEL="WARNING",
        MAJLIS_LOG_REQUESTS="0",
    )
    # the tests are one client on loopback: the fair-use quotas are off unless a test
    # sets them (tests/integration/test_fair_use_limits.py)
    env.update({f"MAJLIS_{name}": "0" for name in QUOTA_SETTINGS})
    env.update(settings)
    log_path = data_dir / "server.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "service.run"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + 90
        while not (is_ready(port) and port_is_open(port + 1)):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("service.run did not get ready:\n" + log_path.read_text()[-3000:])
            time.sleep(0.2)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=40)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
