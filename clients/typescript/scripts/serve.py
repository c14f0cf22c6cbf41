"""The whole service for the TypeScript client's tests, when no MAJLIS_URL is given:
``python -m service.run`` (embedded Redis, a Celery worker, gunicorn, the stream server)
on free ports in a temporary data directory, as the Python tests start it
(tests/service_run.py). Prints the base URL, then serves until its standard input closes
(the test process ends) or it gets SIGTERM, and stops the service.

    python clients/typescript/scripts/serve.py"""

from __future__ import annotations

import signal
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SETTINGS = {  # as the Python client's tests (tests/clients/conftest.py)
    "MAJLIS_WEB_WORKERS": "1",
    "MAJLIS_SEARCH_WORKERS": "1",
    "MAJLIS_SESSION_BOT_MS": "50",
    "MAJLIS_WORKER_HEARTBEAT": "1",
}


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from tests.service_run import running_service

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # so the service is stopped too
    with tempfile.TemporaryDirectory(prefix="majlis-ts-") as data:
        with running_service(Path(data), **SETTINGS) as port:
            print(f"http://127.0.0.1:{port}", flush=True)
            sys.stdin.read()
    return 0


if __name__ == "__main__":
    sys.exit(main())
