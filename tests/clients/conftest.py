"""Fixtures of the Python client's tests: the app in process (fast, no Redis), and the
whole system as ``make run`` starts it (``python -m service.run``) on a free port."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from majlis_client import Client
from majlis_client.transport import Response

from service import create_app
from service.settings import TestSettings
from tests.service_run import running_service

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


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    """``python -m service.run`` (embedded Redis, a Celery worker, gunicorn, the stream
    server) in its own data directory on a free port: its base URL."""
    settings = dict(
        MAJLIS_WEB_WORKERS="1",
        MAJLIS_SEARCH_WORKERS="1",
        MAJLIS_SESSION_BOT_MS="50",
        MAJLIS_WORKER_HEARTBEAT="1",
    )
    with running_service(tmp_path_factory.mktemp("client-data"), **settings) as port:
        yield f"http://127.0.0.1:{port}"
