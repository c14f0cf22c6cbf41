"""The HTTP side of a session's event stream (service/events.py): where clients reach
the stream server, the ``Last-Event-ID`` a reconnecting client sends, and the streaming
answer itself."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from flask import Response, current_app, request

from service import sessions as S
from service.errors import ApiError
from service.events import open_stream

WILDCARD_HOSTS = ("0.0.0.0", "::")


def public_stream_base() -> str | None:
    """Where clients reach this deployment's stream server (``STREAM_URL``), or None when
    this process serves streams itself. A stream server listening on every interface
    (``0.0.0.0``, ``::``) is named by the host this request came to, so that a client on
    another machine is not sent to 0.0.0.0."""
    base = current_app.config.get("STREAM_URL")
    if not base:
        return None
    parts = urlsplit(base.rstrip("/"))
    if parts.hostname in WILDCARD_HOSTS:
        host = urlsplit(f"//{request.host}").hostname or "localhost"
        host = f"[{host}]" if ":" in host else host
        parts = parts._replace(netloc=f"{host}:{parts.port}" if parts.port else host)
    return urlunsplit(parts)


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
    """The stream's answer (503 ``streams_full`` or 429 ``quota_exceeded`` when it has no
    place: service/events.py, ``open_stream``); its place and lease are given back when
    the answer closes."""
    token = request.headers.get("Authorization", "").partition(" ")[2].strip()
    stream, closers = open_stream(store, session, seat, since, token, request.remote_addr or "unknown")
    response = Response(stream.lines(), mimetype="text/event-stream")
    for close in closers:
        response.call_on_close(close)
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
    return response
