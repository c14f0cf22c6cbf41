"""API keys (created with the CLI, stored hashed), per-key rate limits in Redis,
request ids and JSON logs."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys

import pytest

from service import logs
from service.keys import digest
from service.redis_conn import Keys
from tests.integration.conftest import ROOT, assert_error

pytestmark = pytest.mark.integration


def cli(redis_url, prefix, *args):
    env = dict(os.environ, REDIS_URL=redis_url, MAJLIS_KEY_PREFIX=prefix)
    return subprocess.run(
        [sys.executable, "-m", "service.keys", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_api_keys_and_rate_limits(make_app, redis_url, redis_client, prefix):
    made = cli(redis_url, prefix, "create", "--name", "acme", "--rate", "5")
    assert made.returncode == 0, made.stderr
    key = made.stdout.strip()
    assert key.startswith("mjk_") and len(key) > 40
    record = redis_client.hgetall(Keys(prefix).api_key(digest(key)))
    assert record["name"] == "acme" and key not in json.dumps(record)  # stored hashed
    assert cli(redis_url, prefix, "create", "--name", "acme").returncode == 1  # names are unique
    assert "acme" in cli(redis_url, prefix, "list").stdout

    client = make_app(API_KEYS=True, RATE_WINDOW=60).test_client()
    assert_error(client.get("/v1/games"), 401, "unauthorized")
    assert_error(client.get("/v1/games", headers={"X-API-Key": "mjk_wrong"}), 401, "unauthorized")
    assert client.get("/healthz").status_code == 200  # operations need no key
    statuses = [client.get("/v1/games", headers={"X-API-Key": key}) for _ in range(6)]
    assert [r.status_code for r in statuses[:5]] == [200] * 5
    assert statuses[0].headers["X-RateLimit-Limit"] == "5"
    limited = statuses[5]
    assert_error(limited, 429, "rate_limited")
    assert 1 <= int(limited.headers["Retry-After"]) <= 61

    assert cli(redis_url, prefix, "revoke", "--name", "acme").returncode == 0
    assert_error(client.get("/v1/games", headers={"X-API-Key": key}), 401)


def test_keys_are_off_by_default(client):
    assert client.get("/v1/games").status_code == 200


def test_request_id_in_and_out_and_in_json_logs(make_app):
    app = make_app(LOG_REQUESTS=True)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logs.JsonFormatter())
    access = logging.getLogger("service.access")
    access.addHandler(handler)
    try:
        client = app.test_client()
        answer = client.get("/healthz", headers={"X-Request-ID": "abc-123"})
        assert answer.headers["X-Request-ID"] == "abc-123"
        made_up = client.get("/healthz").headers["X-Request-ID"]
        assert len(made_up) == 32
        bad = client.get("/healthz", headers={"X-Request-ID": "no spaces {allowed}"}).headers["X-Request-ID"]
        assert bad != "no spaces {allowed}"
    finally:
        access.removeHandler(handler)
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert (
        lines[0]["request_id"] == "abc-123" and lines[0]["status"] == 200 and lines[0]["path"] == "/healthz"
    )
    assert lines[1]["request_id"] == made_up
    assert all(set(line) >= {"ts", "level", "msg", "ms"} for line in lines)
