"""Event streams under the setup ``make run`` uses (``python -m service.run``: the API's
gunicorn and the stream server's), over real sockets: 200 open streams hold none of the
API's threads (the API answers legal-moves as fast as without them, and sends an events
request to the stream server with a 307), and a move reaches every one of them."""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import pytest

from bench.session_streams import System, legal_moves_times, open_streams, while_moving
from service.run import stream_env

pytestmark = pytest.mark.integration

STREAMS = 200
REQUESTS = 200


@pytest.fixture(scope="module")
def system():
    running = System(
        MAJLIS_SEARCH_SOFT_LIMIT="3",
        MAJLIS_SEARCH_HARD_LIMIT="6",
        MAJLIS_STREAM_HEARTBEAT="2",
        # 200 streams of one session's two tokens from one address: past the fair-use
        # quotas (tests/integration/test_fair_use_limits.py tests those)
        MAJLIS_QUOTA_STREAMS_PER_TOKEN="0",
        MAJLIS_QUOTA_STREAMS_PER_SESSION="0",
        MAJLIS_QUOTA_STREAMS_PER_ADDRESS="0",
    )
    yield running
    running.stop()


def ms(times: list[float]) -> str:
    return f"{statistics.median(times) * 1000:.1f}/{p99(times) * 1000:.1f}"


def p99(times: list[float]) -> float:
    return sorted(times)[int(len(times) * 0.99)]


def test_open_streams_hold_none_of_the_apis_threads_and_each_gets_every_move(system):
    legal_moves_times(system.api, 30)  # warm up
    before = legal_moves_times(system.api, REQUESTS)
    session, streams = open_streams(system, STREAMS)  # also checks the API's 307 to the stream server
    try:
        idle = legal_moves_times(system.api, REQUESTS)
        # the API's 8 threads would all be held by 8 of these streams if it served them:
        # every request would wait; the machine is shared, so the bound is loose
        print(f"legal-moves p50/p99 ms: no stream {ms(before)}, {STREAMS} idle streams {ms(idle)}")
        assert p99(idle) < 3 * p99(before) + 0.05
        while_moving(system, session, argparse.Namespace(moves=3, requests=50))
        deadline = time.monotonic() + 30
        while not all("3" in s.arrived for s in streams) and time.monotonic() < deadline:
            time.sleep(0.05)
        for stream in streams:
            assert [k for k in stream.arrived] == ["0", "1", "2", "3"], stream.arrived
    finally:
        for stream in streams:
            stream.close()


def test_the_api_is_pointed_at_the_stream_server_beside_it():
    api, streams = stream_env({"MAJLIS_BIND": "127.0.0.1:9000"})
    assert api["MAJLIS_STREAM_URL"] == "http://127.0.0.1:9001"
    assert (streams["MAJLIS_STREAM_SERVER"], streams["MAJLIS_STREAM_BIND"]) == ("1", "127.0.0.1:9001")
    assert streams["MAJLIS_STREAM_URL"] == ""  # the stream server serves streams itself
    api, streams = stream_env(
        {"MAJLIS_STREAM_BIND": "0.0.0.0:7000", "MAJLIS_STREAM_URL": "https://x.example"}
    )
    assert api["MAJLIS_STREAM_URL"] == "https://x.example" and streams["MAJLIS_STREAM_BIND"] == "0.0.0.0:7000"


def test_stopping_the_system_ends_every_open_stream_at_once(system):
    """The file's last test: it stops the module's system. Told to stop, the stream
    server ends its streams (their clients reconnect after the stream's ``retry``) and
    does not wait out gunicorn's 10 s graceful timeout for them."""
    _, streams = open_streams(system, 20)
    asked = time.monotonic()
    system.stop()
    took = time.monotonic() - asked
    log = (Path(system.dir) / "server.log").read_text()
    print(f"the system stopped in {took:.1f} s; the streams ended after {max_ended(streams, asked):.1f} s")
    assert all(stream.ended is not None for stream in streams)
    assert max_ended(streams, asked) < 5, log[-2000:]
    assert "graceful timeout" not in log, log[-2000:]
    assert "Exception in worker process" not in log, log[-3000:]  # stopped, not crashed


def max_ended(streams, since: float) -> float:
    return max((stream.ended or float("inf")) - since for stream in streams)
