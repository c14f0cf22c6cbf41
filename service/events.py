"""The event stream of a session (``GET /v1/sessions/{id}/events``, Server-Sent Events).

Every version change of a session (a move, a leave or claim) is announced on its Redis
pub/sub channel with only the new version (:func:`service.sessions.announce`). A stream
subscribes first, then reads what changed from Redis itself: the move log, whose
entries hold each move's events already redacted per seat and for spectators, and the
session's seats. So a stream sends its token only what the log shows that token, and
nothing is lost between a reconnect and a publish: the log, not the message, is the
source. Each SSE ``id`` is the session version; a client that reconnects with
``Last-Event-ID`` gets every move after that version from the log, in order.

An idle stream waits on its pub/sub socket and, every ``STREAM_HEARTBEAT`` seconds,
sends a comment line (so proxies keep it open and a gone client is noticed) and looks
at the version again (so a lost message only delays it). It holds one thread of the
process serving it: ``python -m service.run`` serves streams from their own gunicorn
(docs/deploy.md), never from the API's threads."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

from flask import Response, current_app

from service import sessions as S
from service.errors import ApiError

log = logging.getLogger(__name__)


def parse_last_event_id(raw: str | None) -> int | None:
    """The version a reconnecting client last got (``Last-Event-ID``); None if absent."""
    if raw is None or not raw.strip():
        return None
    try:
        version = int(raw.strip())
    except ValueError:
        version = -1
    if version < 0:
        raise ApiError(
            422,
            "invalid_request",
            "Last-Event-ID must be a session version (the id of an event)",
            {"field": "Last-Event-ID"},
        )
    return version


def stream_response(
    store: S.SessionStore, session: S.Session, seat: int | None, since: int | None
) -> Response:
    heartbeat = float(current_app.config.get("STREAM_HEARTBEAT", 10.0))
    stream = SessionStream(store, session, seat, since, heartbeat)
    response = Response(stream.lines(), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
    return response


def sse(event: str, data: dict[str, Any], event_id: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


class SessionStream:
    """One client's stream: what changed since the version it last got, as its token
    (``seat``; None for a spectator) may see it."""

    def __init__(
        self, store: S.SessionStore, session: S.Session, seat: int | None, since: int | None, heartbeat: float
    ) -> None:
        self.store = store
        self.session = session
        self.seat = seat
        self.since = since
        self.heartbeat = heartbeat
        self.sent = -1  # the version the client has
        self.read = 0  # log entries read so far

    def lines(self) -> Iterator[str]:
        pubsub = self.store.r.pubsub(ignore_subscribe_messages=True)
        try:
            # subscribed before reading Redis: a change after the read is announced to us
            pubsub.subscribe(S.events_channel(self.store.keys, self.session.id))
            yield "retry: 1000\n\n"
            if self.since is None:
                yield from self.hello()
            else:
                self.sent = self.since
            while True:
                try:
                    yield from self.catch_up()
                except ApiError:  # the session expired
                    yield sse("gone", {"id": self.session.id})
                    return
                if pubsub.get_message(timeout=self.heartbeat) is None:
                    yield ": keep-alive\n\n"
        finally:
            pubsub.close()

    def hello(self) -> Iterator[str]:
        """The session as it is now, for a client that connects afresh."""
        session = self.store.load(self.session.id)
        self.sent = session.version
        self.read = self.store.r.llen(self.store.keys.session_log(session.id))
        yield self.session_event(session, session.version)

    def catch_up(self) -> Iterator[str]:
        """Every move after ``sent`` from the log, then a ``session`` event if hand-overs
        (which the log does not hold) moved the version further."""
        for _ in range(10):  # a change may land while we read: look again, a few times
            raw = self.store.r.hget(self.store.keys.session(self.session.id), "version")
            if raw is None:
                raise ApiError(404, "unknown_session", "the session expired")
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
        }
        return sse("session", data, version)
