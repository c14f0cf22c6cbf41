"""The event stream of a session (``GET /v1/sessions/{id}/events``, Server-Sent Events):
what a stream sends and the hub that wakes it. The HTTP answer that carries it (and the
redirect to the stream server) is service/api/streams.py.

Every version change of a session (a move, a leave or claim) is announced on its Redis
pub/sub channel with only the new version (:func:`service.sessions.announce`). A stream
subscribes first, then reads what changed from Redis itself: the move log, whose
entries hold each move's events already redacted per seat and for spectators, and the
session's seats. So a stream sends its token only what the log shows that token, and
nothing is lost between a reconnect and a publish: the log, not the message, is the
source. Each SSE ``id`` is the session version; a client that reconnects with
``Last-Event-ID`` gets every move after that version from the log, in order.

One :class:`Hub` per process holds the only pub/sub connection (a pattern subscription
to every session's channel) and wakes the streams of a session when its version moves;
the streams themselves hold no Redis connection while idle (Redis clients pool at most
100 connections per process). An idle stream waits for its wake-up and, every
``STREAM_HEARTBEAT`` seconds, sends a comment line (so proxies keep it open and a gone
client is noticed); it reads nothing from Redis while idle: the hub looks at the version
of every session it streams once a heartbeat, a few hundred per round trip, and wakes
the streams of one that moved without its announcement (so a lost message only delays
it) or expired.
``python -m service.run`` serves streams from their own gunicorn (docs/deploy.md), never
from the API's threads; that server runs gevent's worker, so an idle stream is a
greenlet (a few KB), not a thread. A process serves at most STREAM_MAX_CONNECTIONS
streams (503 ``streams_full`` with Retry-After past it: a client is told, never starved
in silence), and a token, a session and an address each hold a few at most (429
``quota_exceeded``, service/quotas.py). The table page
reads a stream with ``fetch()`` (an EventSource cannot send the seat token) from that
server's origin, which CORS must allow (service/cors.py)."""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

import redis

from service import quotas, timers
from service import sessions as S
from service.domain_errors import NotFound, StreamsFull, UnknownSession
from service.runtime import Runtime

log = logging.getLogger(__name__)


class Hub:
    """This process's one pub/sub subscriber: wakes the streams of a session when an
    announcement for it arrives. Started on first use (after gunicorn's fork)."""

    def __init__(self, client: redis.Redis, pattern: str, heartbeat: float = 10.0) -> None:
        self.client = client
        self.pattern = pattern
        self.heartbeat = heartbeat
        self.lock = threading.Lock()
        self.waiting: dict[str, set[threading.Event]] = {}
        self.open_streams = 0  # streams this process serves now (StreamPlace)
        # the version each watched session had at the last look (watch_versions)
        self.versions: dict[str, str | None] = {}
        self.leases: dict[str, StreamLease] = {}  # the quota leases of this process's streams
        # a move wakes every stream of its session at once: their reads of the log take
        # turns, within the client's pool of Redis connections (100 at most)
        self.reads = threading.BoundedSemaphore(READERS)
        # set when the process is told to stop: every stream ends at once, and its client
        # reconnects (after the stream's ``retry``) to a process that stays
        self.closing = threading.Event()
        # set by stop(): the hub's threads end (a test whose Redis is going away)
        self.stopped = threading.Event()
        self.pid = os.getpid()
        self.thread = threading.Thread(target=self.run, name="majlis-events-hub", daemon=True)
        self.thread.start()
        self.renewer = threading.Thread(target=self.renew_leases, name="majlis-stream-leases", daemon=True)
        self.renewer.start()
        self.watcher = threading.Thread(target=self.watch_versions, name="majlis-versions", daemon=True)
        self.watcher.start()

    def watch_versions(self) -> None:
        """Every heartbeat, the version of every session this process streams, a few
        hundred per round trip: a session whose version moved without its announcement
        reaching the hub (a lost message, a broken subscription) or that expired wakes its
        streams. So an idle stream never reads Redis itself, and a lost message only
        delays its move by a heartbeat at most."""
        while not self.stopped.wait(self.heartbeat):
            with self.lock:
                channels = list(self.waiting)
            for start in range(0, len(channels), 500):
                batch = channels[start : start + 500]
                try:
                    pipe = self.client.pipeline(transaction=False)
                    for channel in batch:
                        pipe.hget(channel.removesuffix(":events"), "version")
                    versions = pipe.execute()
                except redis.RedisError as error:  # Redis restarting: the next round looks again
                    log.warning("event hub: versions not read: %s", error)
                    continue
                for channel, version in zip(batch, versions, strict=True):
                    with self.lock:
                        seen = self.versions.get(channel, "")
                        self.versions[channel] = version
                    if version != seen:  # moved, expired, or first seen: its streams look
                        self.wake(channel)

    def renew_leases(self) -> None:
        """Every third of a lease, renew the quota leases of every stream of this process,
        in pipelines of a few hundred (one round trip each, not one per stream)."""
        while not self.stopped.wait(LEASE_SECONDS / 3):
            with self.lock:
                leases = list(self.leases.values())
            for start in range(0, len(leases), 500):
                batch = leases[start : start + 500]
                try:
                    quotas.renew_leases(
                        self.client, [(lease.keys, lease.holder) for lease in batch], LEASE_SECONDS
                    )
                except redis.RedisError as error:  # they run out later; the next round renews
                    log.warning("stream leases not renewed: %s", error)

    def register(self, channel: str) -> threading.Event:
        wake = threading.Event()
        with self.lock:
            self.waiting.setdefault(channel, set()).add(wake)
        return wake

    def unregister(self, channel: str, wake: threading.Event) -> None:
        with self.lock:
            events = self.waiting.get(channel, set())
            events.discard(wake)
            if not events:
                self.waiting.pop(channel, None)
                self.versions.pop(channel, None)

    def run(self) -> None:
        while not self.stopped.is_set():
            pubsub = self.client.pubsub(ignore_subscribe_messages=True)
            try:
                pubsub.psubscribe(self.pattern)
                while not self.stopped.is_set():
                    message = pubsub.get_message(timeout=1.0)
                    if message is not None:
                        self.wake(message["channel"])
            except redis.RedisError as error:  # Redis restarting: watch_versions covers the gap
                if not self.stopped.is_set():
                    log.warning("event hub: %s; subscribing again in 1 s", error)
                    self.stopped.wait(1.0)
            finally:
                pubsub.close()

    def stop(self, timeout: float = 5.0) -> None:
        """End this hub's threads (its streams end too) and wait for them: a process whose
        Redis is going away (a test suite's, at its end) stops its hubs first, or they
        would keep calling a server that is gone."""
        self.stopped.set()
        self.close_streams()
        for thread in (self.thread, self.renewer, self.watcher):
            thread.join(timeout)

    def wake(self, channel: str) -> None:
        with self.lock:
            events = list(self.waiting.get(channel, ()))
        for event in events:
            event.set()

    def close_streams(self) -> None:
        """End every stream of this process (it is stopping): otherwise an idle stream
        would hold its server's shutdown for the whole graceful timeout."""
        self.closing.set()
        with self.lock:
            events = [event for waiting in self.waiting.values() for event in waiting]
        for event in events:
            event.set()


def close_all_streams() -> None:
    """End the streams of every hub of this process (gunicorn's worker, on SIGTERM)."""
    with HUB_LOCK:
        hubs = [found for found in HUBS if found.pid == os.getpid()]
    for found in hubs:
        found.close_streams()


def stop_hubs() -> None:
    """Stop every hub of this process (see :meth:`Hub.stop`)."""
    with HUB_LOCK:
        hubs = [found for found in HUBS if found.pid == os.getpid()]
        HUBS[:] = [found for found in HUBS if found not in hubs]
    for found in hubs:
        found.stop()


def hub(runtime: Runtime, store: S.SessionStore) -> Hub:
    """This process's hub (one per runtime and process: a forked child starts its own)."""
    key = f"majlis_events_hub:{os.getpid()}"
    found = runtime.local.get(key)
    if found is None or found.stopped.is_set():
        with HUB_LOCK:
            found = runtime.local.get(key)
            if found is None or found.stopped.is_set():
                pattern = S.events_channel(store.keys, "0" * 32).replace("0" * 32, "*")
                heartbeat = float(runtime.config.get("STREAM_HEARTBEAT", 10.0))
                found = runtime.local[key] = Hub(store.r, pattern, heartbeat)
                HUBS.append(found)
    return found


HUB_LOCK = threading.Lock()
HUBS: list[Hub] = []
"""Every hub made in this process (and, after a fork, its parent's: each knows its pid)."""
READERS = 32
LEASE_SECONDS = 60.0
"""A stream's quota lease (service/quotas.py): renewed by its hub every third of it."""


def open_stream(
    store: S.SessionStore, session: S.Session, seat: int | None, since: int | None, token: str, address: str
) -> tuple[SessionStream, list[Callable[[], None]]]:
    """A stream of ``session`` for ``token`` (``seat``; None: a spectator) from
    ``address``, once it has its place: one of this process's STREAM_MAX_CONNECTIONS (else
    StreamsFull) and within its token's, session's and address's stream quotas (else
    QuotaExceeded). With what to call when it ends (the client left: noticed at the next
    heartbeat at the latest), which gives both back."""
    config = store.settings
    heartbeat = float(config.get("STREAM_HEARTBEAT", 10.0))
    events = hub(store.runtime, store)
    place = StreamPlace(events, int(config.get("STREAM_MAX_CONNECTIONS", 10_000)))
    place.take()
    try:
        with events.reads:  # the Redis side of many streams opening at once takes turns
            lease = StreamLease.take(events, store, session.id, token, address)
    except BaseException:
        place.give_back()
        raise
    stream = SessionStream(store, session, seat, since, heartbeat, events, lease)
    return stream, [place.give_back, lease.drop]


STREAMS_FULL_RETRY = 5
"""Retry-After of a stream refused by a full stream server (others end all the time)."""


class StreamPlace:
    """One of the process's stream places (a count, not a thread: with the gevent worker
    an idle stream is a greenlet). Past the cap a new stream is refused at once with a
    503 and Retry-After, so a client is told, never left waiting without a byte."""

    def __init__(self, hub: Hub, most: int) -> None:
        self.hub, self.most = hub, most
        self.held = False

    def take(self) -> None:
        with self.hub.lock:
            if self.most > 0 and self.hub.open_streams >= self.most:
                raise StreamsFull(self.most, STREAMS_FULL_RETRY)
            self.hub.open_streams += 1
            self.held = True

    def give_back(self) -> None:
        with self.hub.lock:
            if self.held:
                self.held = False
                self.hub.open_streams -= 1


class StreamLease:
    """A stream's place in its token's, session's and address's stream quotas: a lease in
    Redis (service/quotas.py) that its process's hub renews while the stream lives and
    that is dropped when it ends; the lease of a stream whose process died runs out by
    itself within LEASE_SECONDS."""

    def __init__(self, hub: Hub, counts: quotas.Quotas, keys: list[str], holder: str) -> None:
        self.hub, self.counts, self.keys, self.holder = hub, counts, keys, holder
        self.dropped = False
        with hub.lock:
            hub.leases[holder] = self

    @classmethod
    def take(cls, hub: Hub, store: S.SessionStore, session_id: str, token: str, address: str) -> StreamLease:
        """The lease of a stream of ``session_id`` for ``token`` (the seat's or spectator's)
        from ``address``; QuotaExceeded when one of the three is full."""
        config = store.settings
        counts = quotas.Quotas(store.r, store.keys)
        token = S.token_digest(token)
        sets = [
            ("streams-per-token", ("token", token), "QUOTA_STREAMS_PER_TOKEN"),
            ("streams-per-session", ("session", session_id), "QUOTA_STREAMS_PER_SESSION"),
            ("streams-per-address", ("address", address), "QUOTA_STREAMS_PER_ADDRESS"),
        ]
        holder = quotas.new_holder()
        limits = [(name, counts.key("streams", *key), int(config[setting])) for name, key, setting in sets]
        refusal = counts.take_lease(limits, holder, LEASE_SECONDS)
        quotas.require(refusal, STREAM_WORDS.get(refusal.quota, "streams") if refusal else "")
        return cls(hub, counts, [key for _, key, _ in limits], holder)

    def drop(self) -> None:
        if self.dropped:
            return
        self.dropped = True
        with self.hub.lock:
            self.hub.leases.pop(self.holder, None)
        try:
            self.counts.drop_lease(self.keys, self.holder)
        except redis.RedisError as error:  # it runs out by itself
            log.warning("stream lease not dropped: %s", error)


STREAM_WORDS = {
    "streams-per-token": "streams per token",
    "streams-per-session": "streams per session",
    "streams-per-address": "streams per address",
}


def sse(event: str, data: dict[str, Any], event_id: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


class SessionStream:
    """One client's stream: what changed since the version it last got, as its token
    (``seat``; None for a spectator) may see it."""

    def __init__(
        self,
        store: S.SessionStore,
        session: S.Session,
        seat: int | None,
        since: int | None,
        heartbeat: float,
        hub: Hub,
        lease: StreamLease | None = None,
    ) -> None:
        self.hub = hub
        self.lease = lease
        self.store = store
        self.session = session
        self.seat = seat
        self.since = since
        self.heartbeat = heartbeat
        self.sent = -1  # the version the client has
        self.read = 0  # log entries read so far

    def lines(self) -> Iterator[str]:
        channel = S.events_channel(self.store.keys, self.session.id)
        # registered before reading Redis: a change after the read wakes us
        wake = self.hub.register(channel)
        try:
            yield "retry: 1000\n\n"
            self.sent = self.since if self.since is not None else -1
            failed = False
            while not self.hub.closing.is_set():
                try:
                    with self.hub.reads:
                        caught_up = list(self.hello() if self.sent < 0 else self.catch_up())
                except NotFound:  # the session expired
                    yield sse("gone", {"id": self.session.id})
                    return
                except redis.RedisError as error:  # Redis restarting: try again at the next beat
                    log.warning("event stream of session %s: %s", self.session.id, error)
                    caught_up, failed = [], True
                yield from caught_up
                if failed:  # look again after a beat (or sooner, if woken)
                    failed = False
                    wake.wait(self.heartbeat)
                    wake.clear()
                    yield ": keep-alive\n\n"
                    continue
                # idle: a keep-alive line every heartbeat, no Redis read (the hub wakes this
                # stream for an announcement, or when its version check finds a change)
                while not wake.wait(self.heartbeat):
                    yield ": keep-alive\n\n"
                wake.clear()  # before reading Redis: a later announcement wakes us again
        finally:
            self.hub.unregister(channel, wake)

    def hello(self) -> Iterator[str]:
        """The session as it is now, for a client that connects afresh."""
        # the log's length before the load: a move landing between the two is read again
        # by catch_up, and skipped there as the snapshot already counts it
        self.read = self.store.r.llen(self.store.keys.session_log(self.session.id))
        session = self.store.load(self.session.id)
        self.sent = session.version
        yield self.session_event(session, session.version)

    def catch_up(self) -> Iterator[str]:
        """Every move after ``sent`` from the log, then a ``session`` event if hand-overs
        (which the log does not hold) moved the version further."""
        for _ in range(10):  # a change may land while we read: look again, a few times
            raw = self.store.r.hget(self.store.keys.session(self.session.id), "version")
            if raw is None:
                raise UnknownSession(self.session.id)
            version = int(raw)
            for entry in self.store.log(self.session, self.seat, self.read):
                self.read += 1
                if entry["version"] > self.sent:
                    self.sent = entry["version"]
                    yield sse("move", entry, entry["version"])
            if version <= self.sent:
                return
            session = self.store.load(self.session.id)
            if session.version == version:  # nothing moved since: the seats are version's
                self.sent = version
                yield self.session_event(session, version)
                return

    def session_event(self, session: S.Session, version: int) -> str:
        to_act = session.game.to_act(session.state)
        data = {
            "version": version,
            "seat": self.seat,
            "to_act": to_act,
            "finished": to_act is None,
            "seats": session.seats,
            "turn_deadline": timers.shown(session.turn_deadline),
        }
        return sse("session", data, version)
