"""CORS: off by default; the configured origins get preflights (204) and CORS headers on
every answer, errors included; other origins get none. One check on a real
``python -m service.run`` (gunicorn), whose embedded default allows the loopback origins
and whose log names the address it listens at."""

from __future__ import annotations

import http.client
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from service import create_app
from service.cors import Origins
from service.redis_conn import free_port
from service.settings import TestSettings as SettingsForTests

ROOT = Path(__file__).resolve().parents[2]
APP_ORIGIN = "http://localhost:5173"
PATH = "/v1/games/ronda/legal-moves"


def make_client(origins: str, **overrides: object):
    settings = SettingsForTests()
    settings.CORS_ORIGINS = origins
    for name, value in overrides.items():
        setattr(settings, name, value)
    return create_app(settings).test_client()


def preflight(client, origin: str = APP_ORIGIN, path: str = PATH):
    return client.options(
        path,
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type",
        },
    )


def test_cors_is_off_by_default(client):
    """The production default (Settings): no CORS header, no preflight answer."""
    assert SettingsForTests().CORS_ORIGINS == ""
    response = client.get("/v1/games", headers={"Origin": APP_ORIGIN})
    assert response.status_code == 200
    assert "Access-Control-Allow-Origin" not in response.headers
    answer = preflight(client)
    assert answer.status_code != 204 and "Access-Control-Allow-Origin" not in answer.headers


def test_a_preflight_from_an_allowed_origin_is_answered_204():
    client = make_client("https://app.example, http://localhost:*")
    response = preflight(client)
    assert response.status_code == 204 and response.data == b""
    headers = response.headers
    assert headers["Access-Control-Allow-Origin"] == APP_ORIGIN
    assert "POST" in headers["Access-Control-Allow-Methods"]
    allowed = {h.strip() for h in headers["Access-Control-Allow-Headers"].split(",")}
    assert {"Authorization", "Content-Type", "X-API-Key", "Last-Event-ID", "X-Request-ID"} <= allowed
    assert headers["Access-Control-Max-Age"] == "600"
    assert "Origin" in headers["Vary"]
    assert "Access-Control-Allow-Credentials" not in headers


def test_a_preflight_needs_no_api_key():
    """A browser sends no key on a preflight: it is answered before the key check (which
    would answer 401), and without touching Redis (there is none here)."""
    client = make_client(APP_ORIGIN, API_KEYS=True)
    assert preflight(client).status_code == 204
    refused = client.post(PATH, json={}, headers={"Origin": APP_ORIGIN})
    assert refused.status_code == 401  # the request itself still needs its key...
    assert refused.headers["Access-Control-Allow-Origin"] == APP_ORIGIN  # ...and the page can read why


def test_answers_and_errors_to_an_allowed_origin_carry_cors_headers():
    client = make_client(APP_ORIGIN)
    for response in (
        client.get("/v1/games", headers={"Origin": APP_ORIGIN}),
        client.post("/v1/games/nope/deals", json={}, headers={"Origin": APP_ORIGIN}),  # 404
        client.post(PATH, json={"state": 1}, headers={"Origin": APP_ORIGIN}),  # 422
    ):
        assert response.headers["Access-Control-Allow-Origin"] == APP_ORIGIN, response.status_code
        exposed = {h.strip() for h in response.headers["Access-Control-Expose-Headers"].split(",")}
        assert {"Location", "Retry-After", "X-Request-ID"} <= exposed
        assert "Origin" in response.headers["Vary"]


def test_another_origin_gets_no_cors_headers():
    client = make_client("https://app.example")
    response = client.get("/v1/games", headers={"Origin": "https://evil.example"})
    assert response.status_code == 200
    assert "Access-Control-Allow-Origin" not in response.headers
    answer = preflight(client, "https://evil.example")
    assert answer.status_code != 204 and "Access-Control-Allow-Origin" not in answer.headers


def test_a_star_allows_any_origin():
    client = make_client("*")
    response = client.get("/v1/games", headers={"Origin": "https://anyone.example"})
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert preflight(client, "https://anyone.example").status_code == 204


@pytest.mark.parametrize(
    "origin, allowed",
    [
        ("http://localhost", True),
        ("http://localhost:3000", True),
        ("http://127.0.0.1:8080", True),
        ("https://localhost:3000", False),  # another scheme
        ("http://localhost.evil.example", False),
        ("http://localhost:3000.evil.example", False),
        ("http://127.0.0.2:8080", False),
        ("null", False),
    ],
)
def test_a_port_wildcard_matches_that_host_on_any_port_only(origin, allowed):
    origins = Origins("http://localhost:*,http://127.0.0.1:*")
    assert (origins.allow(origin) == origin) is allowed
    assert not Origins("") and not Origins(" , ")


def test_the_embedded_service_allows_loopback_origins_and_logs_its_address(tmp_path):
    """A real ``python -m service.run`` (embedded Redis, gunicorn, no worker): a page on
    http://localhost:<any port> may call it, another origin may not; and the log says
    where it listens (gunicorn's own line is "Listening at:  (pid)" with reuse_port)."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "MAJLIS_CORS_ORIGINS")}
    env.update(
        MAJLIS_BIND=f"127.0.0.1:{port}",
        MAJLIS_WEB_WORKERS="1",
        MAJLIS_RUN_WORKER="0",
        MAJLIS_DATA_DIR=str(tmp_path / "data"),
    )
    log_path = tmp_path / "server.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "service.run"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
        )
    try:
        wait_healthy(port, proc, log_path)
        status, headers = request(port, "OPTIONS", PATH, APP_ORIGIN)
        assert status == 204 and headers["access-control-allow-origin"] == APP_ORIGIN
        status, headers = request(port, "GET", "/v1/games", "https://elsewhere.example")
        assert status == 200 and "access-control-allow-origin" not in headers
        assert f"Listening at: http://127.0.0.1:{port} (" in log_path.read_text()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def request(port: int, method: str, path: str, origin: str) -> tuple[int, dict[str, str]]:
    headers = {"Origin": origin}
    if method == "OPTIONS":
        headers["Access-Control-Request-Method"] = "POST"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path, headers=headers)
        response = conn.getresponse()
        response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}
    finally:
        conn.close()


def wait_healthy(port: int, proc: subprocess.Popen, log_path) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            if request(port, "GET", "/healthz", APP_ORIGIN)[0] == 200:
                return
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("server did not start:\n" + log_path.read_text()[-3000:])
        time.sleep(0.2)
