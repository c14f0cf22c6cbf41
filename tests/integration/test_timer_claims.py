"""The turn timers' fire-once claim and backlog cap on a real Redis (no worker needed)."""

from __future__ import annotations

import time
import uuid

import pytest

from service.redis_conn import connect
from service.timers import Sweeper, claim_fire, timer_member

pytestmark = pytest.mark.integration


@pytest.fixture()
def client(redis_url):
    return connect(redis_url, 2.0)


def test_a_timer_version_is_claimed_once_whatever_the_copies(client):
    key = f"test-timers-{uuid.uuid4().hex}"
    assert claim_fire(client, key, "s1", 7, lease=5)
    assert not claim_fire(client, key, "s1", 7, lease=5)  # a second copy of the task: a no-op
    assert claim_fire(client, key, "s1", 8, lease=5)  # the next version is its own timer
    assert 0 < client.ttl(f"{key}:fired:{timer_member('s1', 7)}") <= 5  # given back if it dies


def test_the_sweeper_sends_no_more_than_the_backlog_has_room_for(client):
    key, queue = f"test-timers-{uuid.uuid4().hex}", f"test-queue-{uuid.uuid4().hex}"
    now = time.time()
    client.zadd(key, {timer_member(f"s{n}", 1): now - 10 + n for n in range(10)})
    client.rpush(queue, "a task already waiting")
    sent: list[tuple[str, int]] = []
    sweeper = Sweeper(client, key, lambda sid, v: sent.append((sid, v)), 0.2, 20.0, backlog=3, queue=queue)
    assert sweeper.sweep() == 2 and sent == [("s0", 1), ("s1", 1)]  # the longest due first
    client.rpush(queue, "x", "y")
    assert sweeper.sweep() == 0  # the queue is full: the rest wait in Redis, in due order
    client.delete(queue)
    assert sweeper.sweep() == 3 and [s for s, _ in sent[2:]] == ["s2", "s3", "s4"]
    client.delete(key)


def test_a_member_whose_send_failed_is_due_again_at_the_next_sweep_not_a_lease_later(client):
    # the broker unreachable (a failover): the send raises; the member must not wait out
    # the 20 s lease its claim took, or a webhook, bot turn or timer comes 20 s late
    key = f"test-timers-{uuid.uuid4().hex}"
    members = [timer_member("s1", 3), timer_member("s2", 5), timer_member("s3", 7)]
    client.zadd(key, {member: time.time() - 3 + n for n, member in enumerate(members)})
    broker_up = False
    tried: list[tuple[str, int]] = []
    sent: list[tuple[str, int]] = []

    def send(session_id: str, version: int) -> None:
        tried.append((session_id, version))
        if not broker_up:
            raise ConnectionError("the broker does not answer")
        sent.append((session_id, version))

    sweeper = Sweeper(client, key, send, 0.2, 20.0)
    before = time.time()
    assert sweeper.sweep() == 0 and sent == []
    assert tried == [("s1", 3)]  # the first failure ends the sweep: the rest would fail alike
    for member in members:  # every one claimed is given back, due at the next sweep
        assert client.zscore(key, member) <= before + 1.0
    broker_up = True
    time.sleep(0.3)
    assert sweeper.sweep() == 3 and sent == [("s1", 3), ("s2", 5), ("s3", 7)]
    for member in members:  # now each holds its lease
        assert client.zscore(key, member) >= time.time() + 19
    client.delete(key)
