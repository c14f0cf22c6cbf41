"""The quota counts' Redis scripts (service/quotas.py) against a real Redis: leases that
run out by themselves, live sets that forget what ended, and windows."""

from __future__ import annotations

import time
import uuid

import pytest

from service.quotas import Quotas, session_ended
from service.redis_conn import Keys, connect

pytestmark = pytest.mark.integration


@pytest.fixture()
def quotas(redis_url):
    keys = Keys(f"majlis-quota-{uuid.uuid4().hex[:8]}")
    client = connect(redis_url, 2.0)
    yield Quotas(client, keys)
    for key in client.scan_iter(f"{keys.prefix}:*", count=1000):
        client.delete(key)


def test_a_lease_set_holds_its_limit_frees_on_drop_and_forgets_a_holder_whose_lease_ran_out(quotas):
    key = quotas.key("streams", "token", "t")
    sets = [("streams-per-token", key, 2)]
    assert quotas.take_lease(sets, "a", 60) is None
    assert quotas.take_lease(sets, "b", 0.3) is None
    refusal = quotas.take_lease(sets, "c", 60)
    assert refusal is not None and (refusal.quota, refusal.limit, refusal.used) == ("streams-per-token", 2, 2)
    assert refusal.reset == 1  # b's lease ends in 0.3 s
    time.sleep(0.4)  # b's lease ran out (its process died, say)
    assert quotas.take_lease(sets, "c", 60) is None
    assert quotas.take_lease(sets, "d", 60) is not None
    quotas.drop_lease([key], "a")
    assert quotas.take_lease(sets, "d", 60) is None


def test_a_lease_over_several_sets_is_taken_in_all_or_none(quotas):
    wide, narrow = quotas.key("streams", "address", "x"), quotas.key("streams", "token", "y")
    assert quotas.take_lease([("addr", wide, 10), ("token", narrow, 1)], "a", 60) is None
    refusal = quotas.take_lease([("addr", wide, 10), ("token", narrow, 1)], "b", 60)
    assert refusal is not None and refusal.quota == "token"
    assert quotas.r.zcard(wide) == 1  # b was not counted in the wider set either


def test_a_renewed_lease_outlives_its_first_end(quotas):
    key = quotas.key("streams", "session", "s")
    sets = [("streams-per-session", key, 1)]
    assert quotas.take_lease(sets, "a", 0.3) is None
    quotas.renew_lease([key], "a", 60)
    time.sleep(0.4)
    assert quotas.take_lease(sets, "b", 60) is not None


def test_a_live_set_of_sessions_forgets_expired_and_released_ones(quotas):
    r, prefix = quotas.r, quotas.keys.prefix
    ids = [uuid.uuid4().hex for _ in range(3)]
    for session_id in ids:
        r.hset(f"{prefix}:session:{session_id}", "version", 0)
        r.expire(f"{prefix}:session:{session_id}", 50)
        assert quotas.add_live("live", "addr:1", session_id, 3, "session", 100) is None
    refusal = quotas.add_live("live", "addr:1", "", 3, "session", 100, add=False)
    assert refusal is not None and refusal.used == 3 and 1 <= refusal.reset <= 50
    assert quotas.add_live("live", "addr:2", "", 3, "session", 100, add=False) is None  # another client
    r.delete(f"{prefix}:session:{ids[0]}")  # expired
    assert quotas.add_live("live", "addr:1", "", 3, "session", 100, add=False) is None
    assert quotas.add_live("live", "addr:1", "n", 3, "session", 100) is None
    r.hset(f"{prefix}:session:n", "version", 0)
    assert quotas.add_live("live", "addr:1", "", 3, "session", 100, add=False) is not None
    session_ended(r, quotas.keys, ids[1])  # ended by the service: no longer live
    assert quotas.add_live("live", "addr:1", "", 3, "session", 100, add=False) is None


def test_a_live_set_of_jobs_counts_pending_and_running_only(quotas):
    r, prefix = quotas.r, quotas.keys.prefix
    for job_id, status in (("j1", "pending"), ("j2", "running")):
        r.hset(f"{prefix}:job:{job_id}", "status", status)
        assert quotas.add_live("reviews", "key:k", job_id, 2, "job", 100) is None
    refusal = quotas.add_live("reviews", "key:k", "", 2, "job", 100, add=False)
    assert refusal is not None and refusal.reset == 5  # a job's end cannot be foreseen
    r.hset(f"{prefix}:job:j1", "status", "done")
    assert quotas.add_live("reviews", "key:k", "", 2, "job", 100, add=False) is None


def test_a_window_counts_every_unit_and_refuses_past_its_limit(quotas):
    now = 3600.0 * 500 + 10
    assert [quotas.count_window("h", "addr:1", 2, 3600, now) for _ in range(2)] == [None, None]
    refusal = quotas.count_window("h", "addr:1", 2, 3600, now)
    assert refusal is not None and refusal.reset == 3590 and refusal.limit == 2
    assert quotas.count_window("h", "addr:1", 2, 3600, now + 3600) is None  # the next hour


def test_releasing_an_expired_session_recreates_nothing(quotas):
    session_ended(quotas.r, quotas.keys, "f" * 32)
    assert not quotas.r.exists(quotas.keys.session("f" * 32))
