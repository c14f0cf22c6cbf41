"""CORS on the stream server, which the table page reads with ``fetch()`` and the seat
token from the API's origin (another port, so another origin): a preflight and the
stream itself, under the embedded default of ``python -m service.run`` (the loopback
origins: the page works out of the box) and under production settings (no CORS unless
``MAJLIS_CORS_ORIGINS`` names the page's origin). The app is configured as the stream
server (no ``STREAM_URL``: it serves streams itself) on a real Redis server."""

from __future__ import annotations

import functools
from collections.abc import Iterator

import pytest

from service import create_app
from service.cors import LOOPBACK_ORIGINS
from service.redis_conn import EmbeddedRedis
from service.settings import TestSettings as SettingsForTests
from tests.problems import error_code

PAGE = "http://127.0.0.1:8000"  # the table page, served by the API beside the stream server
PUBLIC_PAGE = "https://play.example"

# (MAJLIS_CORS_ORIGINS, the page's origin, whether the stream server lets it read)
SETTINGS = {
    "embedded default": (LOOPBACK_ORIGINS, PAGE, True),
    "embedded default, localhost": (LOOPBACK_ORIGINS, "http://localhost:8000", True),
    "production": ("", PUBLIC_PAGE, False),
    "production, another origin configured": ("https://app.example", PUBLIC_PAGE, False),
    "production, configured": (f"https://app.example,{PUBLIC_PAGE}", PUBLIC_PAGE, True),
}


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """Kept until the end of the run: each app's event hub (a daemon thread) keeps its
    subscription, and would retry it every second once the server is gone."""
    server = EmbeddedRedis()
    yield server.start()
    server.stop()


@functools.cache
def stream_server(redis_url: str, origins: str):
    """The stream server's app (one per setting: each starts a hub on its first stream)."""
    settings = SettingsForTests()
    settings.REDIS_URL = redis_url
    settings.KEY_PREFIX = "majlis-cors-streams"
    settings.STREAM_URL = None
    settings.CORS_ORIGINS = origins
    return create_app(settings).test_client()


def events_path_and_token(client) -> tuple[str, str]:
    created = client.post("/v1/sessions", json={"game": "ronda", "players": 2, "seed": 5})
    assert created.status_code == 201, created.get_json()
    session = created.get_json()
    return f"/v1/sessions/{session['id']}/events", session["tokens"][0]


@pytest.mark.parametrize("setting", list(SETTINGS))
def test_the_stream_server_answers_the_pages_preflight_only_when_its_origin_is_allowed(redis_url, setting):
    origins, page, allowed = SETTINGS[setting]
    client = stream_server(redis_url, origins)
    path, _token = events_path_and_token(client)
    answer = client.options(
        path,
        headers={
            "Origin": page,
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "authorization, last-event-id",
        },
    )
    if allowed:
        assert answer.status_code == 204
        assert answer.headers["Access-Control-Allow-Origin"] == page
        assert "GET" in answer.headers["Access-Control-Allow-Methods"]
        headers = {h.strip().lower() for h in answer.headers["Access-Control-Allow-Headers"].split(",")}
        assert {"authorization", "last-event-id", "x-api-key"} <= headers
    else:
        assert answer.status_code != 204
        assert "Access-Control-Allow-Origin" not in answer.headers


@pytest.mark.parametrize("setting", list(SETTINGS))
def test_the_stream_itself_names_the_pages_origin_only_when_it_is_allowed(redis_url, setting):
    origins, page, allowed = SETTINGS[setting]
    client = stream_server(redis_url, origins)
    path, token = events_path_and_token(client)
    headers = {"Origin": page, "Authorization": f"Bearer {token}", "Last-Event-ID": "0"}
    answer = client.get(path, headers=headers, buffered=False)
    try:
        assert answer.status_code == 200
        assert answer.mimetype == "text/event-stream"
        assert next(answer.iter_encoded()).startswith(b"retry: ")  # the stream is open
        if origins:  # CORS on: the answer depends on Origin, and says so to caches
            assert "Origin" in answer.headers["Vary"]
        if allowed:
            assert answer.headers["Access-Control-Allow-Origin"] == page
        else:  # the browser refuses to hand the page this answer
            assert "Access-Control-Allow-Origin" not in answer.headers
    finally:
        answer.close()  # the stream's generator ends: it leaves the hub


def test_a_refused_stream_request_still_tells_an_allowed_page_why(redis_url):
    """An error (here a missing token) carries the CORS headers too: the page can read it
    and say why the stream could not be opened."""
    client = stream_server(redis_url, LOOPBACK_ORIGINS)
    path, _token = events_path_and_token(client)
    answer = client.get(path, headers={"Origin": PAGE})
    assert answer.status_code == 401
    assert answer.headers["Access-Control-Allow-Origin"] == PAGE
    assert error_code(answer) == "unauthorized"
