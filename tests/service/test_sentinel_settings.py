"""Sentinel settings -> the Redis client's target, Celery's broker URL and options, and
the workers' names (issue 35). A real Sentinel failover is rehearsed in
tests/integration/test_cluster.py."""

from __future__ import annotations

import pytest

from service.celery_app import celery_config, heartbeat_name
from service.redis_conn import (
    SentinelTarget,
    parse_sentinel_url,
    parse_sentinels,
    sentinel_url,
)
from service.run import worker_name
from service.settings import Settings


def settings_with(monkeypatch: pytest.MonkeyPatch, **env: str) -> Settings:
    for name in ("REDIS_URL", "MAJLIS_REDIS_SENTINELS", "MAJLIS_REDIS_WAIT_REPLICAS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return Settings()


def test_without_sentinels_the_url_is_used_as_is(monkeypatch):
    settings = settings_with(monkeypatch, REDIS_URL="redis://10.0.0.5:6379/2")
    assert settings.REDIS_URL == "redis://10.0.0.5:6379/2"
    assert settings.REDIS_WAIT_REPLICAS == 0
    config = celery_config(settings.as_config())
    assert config["broker_url"] == config["result_backend"] == "redis://10.0.0.5:6379/2"
    assert "master_name" not in config["broker_transport_options"]


def test_sentinels_give_a_sentinel_url_with_every_part(monkeypatch):
    settings = settings_with(
        monkeypatch,
        MAJLIS_REDIS_SENTINELS="s1:26379, s2:26380,[::1]:26381",
        MAJLIS_REDIS_SENTINEL_MASTER="majlis-main",
        MAJLIS_REDIS_PASSWORD="p@ss/word",
        MAJLIS_REDIS_SENTINEL_PASSWORD="sent",
        MAJLIS_REDIS_DB="3",
    )
    target = parse_sentinel_url(settings.REDIS_URL)
    assert target == SentinelTarget(
        sentinels=(("s1", 26379), ("s2", 26380), ("::1", 26381)),
        master="majlis-main",
        db=3,
        password="p@ss/word",
        sentinel_password="sent",
        wait_replicas=1,  # with Sentinel, a move waits for one replica by default
        wait_ms=500,
    )


def test_celery_uses_the_sentinel_transport_for_broker_and_results(monkeypatch):
    settings = settings_with(
        monkeypatch,
        MAJLIS_REDIS_SENTINELS="s1:26379,s2:26380",
        MAJLIS_REDIS_SENTINEL_MASTER="mymaster",
        MAJLIS_REDIS_PASSWORD="secret",
        MAJLIS_REDIS_SENTINEL_PASSWORD="sent",
        MAJLIS_REDIS_DB="1",
    )
    config = celery_config(settings.as_config())
    expected = "sentinel://:secret@s1:26379/1;sentinel://:secret@s2:26380/1"
    assert config["broker_url"] == config["result_backend"] == expected
    options = config["broker_transport_options"]
    assert options["master_name"] == "mymaster"
    assert options["sentinel_kwargs"] == {"password": "sent"}
    assert options["visibility_timeout"] > 0  # the other transport options are kept
    assert config["result_backend_transport_options"]["master_name"] == "mymaster"


def test_wait_can_be_turned_off_or_raised(monkeypatch):
    off = settings_with(monkeypatch, MAJLIS_REDIS_SENTINELS="s1:1", MAJLIS_REDIS_WAIT_REPLICAS="0")
    assert parse_sentinel_url(off.REDIS_URL).wait_replicas == 0
    two = settings_with(
        monkeypatch, MAJLIS_REDIS_SENTINELS="s1:1", MAJLIS_REDIS_WAIT_REPLICAS="2", MAJLIS_REDIS_WAIT_MS="50"
    )
    assert parse_sentinel_url(two.REDIS_URL).wait_ms == 50
    assert parse_sentinel_url(two.REDIS_URL).wait_replicas == 2


@pytest.mark.parametrize("bad", ["s1", "s1:", ":26379", "s1:port", " , "])
def test_a_sentinel_without_host_and_port_is_refused(bad):
    with pytest.raises(ValueError):
        parse_sentinels(bad)


def test_the_sentinel_url_round_trips():
    url = sentinel_url("a:1,b:2", "m x", 4, "pw&=", "", 1, 250)
    assert parse_sentinel_url(url) == SentinelTarget((("a", 1), ("b", 2)), "m x", 4, "pw&=", "", 1, 250)


def test_worker_names_differ_between_nodes_and_processes():
    a = worker_name({"MAJLIS_NODE_NAME": "node-a"}, "interactive")
    b = worker_name({"MAJLIS_NODE_NAME": "node-b"}, "interactive")
    assert a != b and a.startswith("interactive-node-a-") and a.endswith("@%h")
    assert worker_name({"MAJLIS_NODE_NAME": "x y/;z"}, "search").startswith("search-xyz-")
    assert heartbeat_name("celery@h", 11) != heartbeat_name("celery@h", 12)


def test_the_blocking_sentinel_pool_waits_and_frees_one_slot_per_connection(monkeypatch):
    """The stream server's pool: a caller beyond the cap waits (then fails), and a
    connection redis-py releases twice (it does, on a connection error) frees one slot:
    a second release once raised in the event hub's threads and stopped its streams."""
    import redis
    from redis.sentinel import SentinelConnectionPool

    from service.redis_conn import BlockingSentinelConnectionPool

    monkeypatch.setattr(SentinelConnectionPool, "get_connection", lambda self, *a, **k: object())
    monkeypatch.setattr(SentinelConnectionPool, "release", lambda self, connection: None)
    pool = BlockingSentinelConnectionPool("mymaster", object(), max_connections=2, pool_timeout=0.05)
    first, _second = pool.get_connection(), pool.get_connection()
    with pytest.raises(redis.exceptions.ConnectionError):
        pool.get_connection()  # both slots taken: waits 0.05 s, then gives up
    pool.release(first)
    pool.release(first)  # twice: no error, and only one slot back
    pool.get_connection()
    with pytest.raises(redis.exceptions.ConnectionError):
        pool.get_connection()
