"""The stream hub's version watch (service/events.py, Hub.watch_versions) against a real
Redis: a session whose version moves without an announcement (a lost message), or that
expires, wakes its idle streams within a heartbeat or two; an unchanged one does not."""

from __future__ import annotations

import uuid

import pytest

from service.events import Hub
from service.redis_conn import Keys, connect

pytestmark = pytest.mark.integration


def test_a_lost_announcement_or_an_expiry_wakes_the_streams_of_that_session_only(redis_url):
    client = connect(redis_url, 2.0)
    keys = Keys(f"majlis-hub-{uuid.uuid4().hex[:8]}")
    moved, quiet = uuid.uuid4().hex, uuid.uuid4().hex
    for session_id in (moved, quiet):
        client.hset(keys.session(session_id), "version", 0)
        client.expire(keys.session(session_id), 60)
    pattern = keys.session("0" * 32).replace("0" * 32, "*") + ":events"
    hub = Hub(client, pattern, heartbeat=0.2)
    wake_moved = hub.register(keys.session(moved) + ":events")
    wake_quiet = hub.register(keys.session(quiet) + ":events")
    try:
        # first sight: each stream looks once
        assert wake_moved.wait(2.0) and wake_quiet.wait(2.0)
        wake_moved.clear()
        wake_quiet.clear()
        assert not wake_moved.wait(0.6) and not wake_quiet.wait(0.01)  # nothing moved
        client.hset(keys.session(moved), "version", 1)  # a move whose PUBLISH was lost
        assert wake_moved.wait(2.0)
        assert not wake_quiet.is_set()
        wake_moved.clear()
        client.delete(keys.session(moved))  # expired
        assert wake_moved.wait(2.0)
    finally:
        hub.stop()
        client.delete(keys.session(moved), keys.session(quiet))


def test_a_stopped_hub_ends_its_threads_and_its_streams(redis_url):
    # a test suite stops its hubs before its Redis: none keeps calling a server that is gone
    client = connect(redis_url, 2.0)
    hub = Hub(client, f"majlis-hub-{uuid.uuid4().hex[:8]}:*", heartbeat=0.2)
    wake = hub.register("a-channel")
    hub.stop(timeout=5.0)
    assert wake.is_set() and hub.closing.is_set()  # its streams end (their clients reconnect)
    assert not any(t.is_alive() for t in (hub.thread, hub.renewer, hub.watcher))
