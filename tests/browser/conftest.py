"""Fixtures of the browser tests: the whole service as ``make run`` starts it
(``python -m service.run``: Redis, a Celery worker, gunicorn) and a real headless Chromium
driven by Playwright. No mocks: the page talks to the real service.

axe-core (the accessibility checker the tests load into each page) is the npm package
pinned in tests/browser/package.json and package-lock.json: ``npm ci`` installs it here
when node_modules lacks it (Debian's ``npm``; .ci/run installs it when missing). It is
never fetched at run time by the page, and the service never serves it."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.service_run import running_service

# Another name for the loopback address: a page reached by it has an origin that the
# stream server's CORS does not allow (the embedded default allows localhost and 127.0.0.1)
OTHER_HOST = "table.test"
CHROMIUM_ARGS = [
    "--headless",
    f"--host-resolver-rules=MAP {OTHER_HOST} 127.0.0.1",
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
        missing(HOW_TO_GET_ONE)
    return path


@pytest.fixture(scope="session")
def browser(chromium: str) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


HERE = Path(__file__).resolve().parent
AXE = HERE / "node_modules" / "axe-core" / "axe.min.js"


def missing(why: str) -> None:
    """Fail in CI (CI=true), skip elsewhere, saying why."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(why)
    pytest.skip(why)


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe-core's script, installed with ``npm ci`` from the lock file when missing (`make
    test` installs it first). The lock: the suite's workers (pytest-xdist) may all get here at
    once, and two ``npm ci`` in one folder break each other's node_modules."""
    with open(HERE / ".npm-ci.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not AXE.exists():
            npm = shutil.which("npm")
            if npm is None:
                missing("no npm to install axe-core: apt-get install -y npm (or run .ci/run)")
            done = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund"], cwd=HERE, capture_output=True, text=True, timeout=300
            )
            if done.returncode != 0 or not AXE.exists():
                missing("npm ci could not install axe-core:\n" + done.stdout[-2000:] + done.stderr[-2000:])
    return AXE.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def server_data(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("page-data")


@pytest.fixture(scope="session")
def server(server_data: Path, chromium: str) -> Iterator[str]:
    """``python -m service.run`` in its own data directory on a free port: its base URL."""
    settings = dict(
        MAJLIS_WEB_WORKERS="2",
        MAJLIS_SEARCH_WORKERS="1",
        MAJLIS_SESSION_BOT_MS="20",
        MAJLIS_WORKER_HEARTBEAT="1",
    )
    with running_service(server_data, **settings) as port:
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="session")
def artefacts(tmp_path_factory) -> Path:
    """Where the screenshots go: $MAJLIS_BROWSER_ARTEFACTS, else a pytest temporary folder."""
    chosen = os.environ.get("MAJLIS_BROWSER_ARTEFACTS")
    folder = Path(chosen) if chosen else tmp_path_factory.mktemp("browser-artefacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder
