"""Fixtures of the browser tests: the whole service as ``make run`` starts it
(``python -m service.run``: Redis, a Celery worker, gunicorn) and a real headless Chromium
driven by Playwright. No mocks: the page talks to the real service."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from majlis_client import Client

from service.redis_conn import free_port

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
HOW_TO_GET_ONE = (
    "no Chromium: install Debian's `chromium` (apt-get install -y chromium) and Playwright's Python "
    "package (pip install -e '.[dev]'), or set MAJLIS_CHROMIUM to a Chromium executable"
)


def chromium_path() -> str | None:
    found = os.environ.get("MAJLIS_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    return found if found and Path(found).exists() else None


@pytest.fixture(scope="session")
def chromium() -> str:
    """The Chromium executable. In CI (CI=true) a missing one fails the run; elsewhere the
    browser tests skip, saying how to get one."""
    path = chromium_path()
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        path = None
    if path is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(HOW_TO_GET_ONE)
        pytest.skip(HOW_TO_GET_ONE)
    return path


@pytest.fixture(scope="session")
def browser(chromium: str) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def server(tmp_path_factory, chromium: str) -> Iterator[str]:
    """``python -m service.run`` in its own data directory on a free port: its base URL."""
    port = free_port()
    data_dir = tmp_path_factory.mktemp("page-data")
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "MAJLIS_EMBEDDED_REDIS_PORT")}
    env.update(
        PYTHONPATH=str(ROOT),
        MAJLIS_BIND=f"127.0.0.1:{port}",
        MAJLIS_DATA_DIR=str(data_dir),
        MAJLIS_WEB_WORKERS="2",
        MAJLIS_SEARCH_WORKERS="1",
        MAJLIS_SESSION_BOT_MS="20",
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
    yield base
    proc.terminate()
    try:
        proc.wait(timeout=40)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="session")
def artefacts(tmp_path_factory) -> Path:
    """Where the screenshots go: $MAJLIS_BROWSER_ARTEFACTS, else a pytest temporary folder."""
    chosen = os.environ.get("MAJLIS_BROWSER_ARTEFACTS")
    folder = Path(chosen) if chosen else tmp_path_factory.mktemp("browser-artefacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder
