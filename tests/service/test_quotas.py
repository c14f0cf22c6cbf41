"""The quota arithmetic (service/quotas.py), the Redis memory gauge's rule and a stalled
job's rule: pure functions, no Redis."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from service.errors import is_out_of_memory
from service.jobs import stalled
from service.quotas import (
    MAX_RESET,
    Refusal,
    lease_refusal,
    live_refusal,
    reset_seconds,
    session_quotas,
    window_refusal,
)
from service.redis_conn import is_nearly_full


def test_a_window_allows_its_limit_and_refuses_the_next_until_it_ends():
    assert window_refusal("h", 5, 5, now=7200.0, width=3600) is None
    refusal = window_refusal("h", 5, 6, now=7200.0 + 600, width=3600)
    assert refusal == Refusal("h", 5, 5, 3000)
    assert refusal.headers() == {
        "Retry-After": "3000",
        "RateLimit-Limit": "5",
        "RateLimit-Remaining": "0",
        "RateLimit-Reset": "3000",
    }


def test_a_limit_of_zero_is_no_quota():
    assert window_refusal("h", 0, 10_000, now=1.0, width=60) is None


@given(
    limit=st.integers(1, 1000),
    used=st.integers(1, 5000),
    now=st.floats(0, 4e9, allow_nan=False),
    width=st.integers(1, 86_400),
)
def test_a_window_refusal_waits_exactly_for_the_next_window(limit, used, now, width):
    refusal = window_refusal("q", limit, used, now, width)
    if used <= limit:
        assert refusal is None
        return
    assert refusal is not None
    next_window = (now // width + 1) * width
    assert 1 <= refusal.reset <= min(MAX_RESET, max(1, math.ceil(next_window - now)))
    assert refusal.reset == reset_seconds(next_window, now)


def test_reset_seconds_is_whole_at_least_one_and_capped():
    assert reset_seconds(10.2, 10.0) == 1
    assert reset_seconds(9.0, 10.0) == 1  # already past: retry at once (1 s)
    assert reset_seconds(100.5, 10.0) == 91
    assert reset_seconds(1e9, 0.0) == MAX_RESET


def test_a_full_lease_set_frees_when_its_earliest_lease_runs_out():
    assert lease_refusal("streams-per-token", 3, 3, earliest_end=1030.4, now=1000.0) == Refusal(
        "streams-per-token", 3, 3, 31
    )


def test_a_full_live_set_frees_at_its_soonest_expiry_or_a_fallback():
    assert live_refusal("live", 3, 3, soonest=42, fallback=5).reset == 42
    assert live_refusal("jobs", 2, 2, soonest=-1, fallback=5).reset == 5
    assert live_refusal("live", 3, 3, soonest=0, fallback=5).reset == 1
    assert live_refusal("live", 3, 3, soonest=10**6, fallback=5).reset == MAX_RESET


def test_every_session_is_live_and_a_timed_or_webhook_one_counts_there_too():
    assert [q[0] for q in session_quotas(False, False)] == ["live"]
    assert [q[0] for q in session_quotas(True, True)] == ["live", "timed", "webhooks"]
    assert [q[0] for q in session_quotas(False, True)] == ["live", "webhooks"]


def test_redis_is_nearly_full_at_the_high_water_mark_and_never_without_a_cap():
    assert not is_nearly_full(899, 1000, 0.9)
    assert is_nearly_full(900, 1000, 0.9)
    assert not is_nearly_full(10**12, 0, 0.9)  # maxmemory 0: no cap


def test_a_running_job_silent_past_the_stall_time_is_stalled():
    assert not stalled({"started": "100.0"}, now=104.0, after=5.0)
    assert stalled({"started": "100.0"}, now=106.0, after=5.0)
    assert not stalled({"started": "100.0", "seen": "103.0"}, now=106.0, after=5.0)
    assert not stalled({}, now=1e9, after=5.0)  # never started: pending, not stalled


def test_out_of_memory_is_recognised_raised_or_wrapped():
    import redis

    assert is_out_of_memory(redis.exceptions.OutOfMemoryError("command not allowed"))
    script = redis.exceptions.ResponseError("Error running script: -OOM command not allowed when used memory")
    assert is_out_of_memory(script)
    try:
        try:
            raise redis.exceptions.OutOfMemoryError("x")
        except redis.exceptions.OutOfMemoryError as inner:
            raise RuntimeError("wrapped") from inner
    except RuntimeError as outer:
        assert is_out_of_memory(outer)
    assert not is_out_of_memory(redis.exceptions.ConnectionError("refused"))


def test_the_client_is_its_address_or_behind_proxies_the_forwarded_one():
    from service import create_app
    from service.api.common import quota_client
    from service.settings import TestSettings

    def client_seen(hops: int) -> str:
        settings = TestSettings()
        settings.PROXY_HOPS = hops
        app = create_app(settings)
        app.add_url_rule("/whoami", "whoami", lambda: {"client": quota_client()})
        forwarded = {"X-Forwarded-For": "203.0.113.7"}
        return app.test_client().get("/whoami", headers=forwarded).get_json()["client"]

    assert client_seen(0) == "addr:127.0.0.1"  # no proxy: a client's own header is ignored
    assert client_seen(1) == "addr:203.0.113.7"
