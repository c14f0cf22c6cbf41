"""Webhooks: a session created with a ``callback_url`` has each applied move POSTed to it.

The session hash keeps ``callback_url`` and ``webhook_secret`` (a per-session secret,
shown once in the answer to ``POST /v1/sessions``). After each applied move (a person's
or a bot's) :func:`queue_webhooks` queues ``majlis.webhook_delivery`` on the workers with
the move's public body: what a spectator may see (the action, the events with every card
that some seat cannot see replaced by ``"hidden"``), the version it made and whose turn
it is now. The worker POSTs the body with

* ``Majlis-Signature: sha256=<hex>``: HMAC-SHA256 of the exact body bytes with the secret;
* ``Majlis-Delivery: <session id>:<version>``: the idempotency key, the same on every
  attempt of one delivery;
* ``Majlis-Attempt: <n>``.

A non-2xx answer, a redirect or a connection error is retried after
``WEBHOOK_BACKOFF x 2^(n-1)`` seconds (:func:`backoff`), up to ``WEBHOOK_ATTEMPTS`` attempts. Every attempt
is counted in ``session:{id}:webhooks`` (per version: attempts, status, last status)
before the POST, and a delivery recorded ``delivered`` (or ``failed``: out of attempts) is
never POSTed again: a task redelivered after its worker was killed finds the record and
stops. The one window left is a worker killed between a 2xx answer and that record: the
receiver may then get the same ``Majlis-Delivery`` twice, and should ignore the second.
Deliveries of different moves may arrive out of order (retries, several workers): the
body's ``version`` orders them.

Callback URLs are ``http`` or ``https`` with a host. An address that is private,
loopback, link-local or otherwise not public is refused (422 ``invalid_callback``)
unless ``WEBHOOK_ALLOW_PRIVATE`` is on: it is on by default (the embedded one-machine
setup, and the tests, call back a local server) and off in deploy/compose.yaml. The
address is checked again at each delivery (a name may resolve elsewhere later)."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import secrets
import socket
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from flask import current_app
from kombu.exceptions import OperationalError

from engine.protocol import Game
from service.errors import ApiError
from service.redis_conn import get_redis, keys

log = logging.getLogger(__name__)

SIGNATURE_HEADER = "Majlis-Signature"
DELIVERY_HEADER = "Majlis-Delivery"
ATTEMPT_HEADER = "Majlis-Attempt"
MAX_URL_LENGTH = 2048

DELIVERED, FAILED = "delivered", "failed"


def new_secret() -> str:
    return secrets.token_urlsafe(32)


def sign(secret: str, body: bytes) -> str:
    """The ``Majlis-Signature`` header value of ``body``: ``sha256=<hex HMAC>``."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def encode(body: dict[str, Any]) -> bytes:
    """The exact bytes POSTed (and signed)."""
    return json.dumps(body, separators=(",", ":"), sort_keys=True).encode()


# --------------------------------------------------------------------------- callback URLs


def is_public_address(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    return ip.is_global and not ip.is_multicast


def host_is_public(host: str) -> bool:
    """True when every address ``host`` resolves to is public; False if it does not resolve."""
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return False
    return bool(infos) and all(is_public_address(str(info[4][0])) for info in infos)


def check_callback_url(url: str, allow_private: bool) -> str:
    """``url`` if the service may call it back, else 422 ``invalid_callback``."""

    def refuse(why: str) -> ApiError:
        return ApiError(422, "invalid_callback", f"callback_url {why}", {"field": "callback_url"})

    if len(url) > MAX_URL_LENGTH:
        raise refuse(f"is longer than {MAX_URL_LENGTH} characters")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises ValueError for a port that is not a number)
    except ValueError as error:
        raise refuse(f"is not a URL: {error}") from error
    if parts.scheme not in ("http", "https"):
        raise refuse("must be an http or https URL")
    if not parts.hostname:
        raise refuse("has no host")
    if parts.username or parts.password:
        raise refuse("must not carry credentials (sign with the webhook secret instead)")
    if not allow_private and not host_is_public(parts.hostname):
        raise refuse("names a private, loopback or unresolvable address (not allowed on this server)")
    return url


# --------------------------------------------------------------------------- queueing


def public_body(
    session_id: str, game: Game, state: Any, entry: dict[str, Any], events: Any
) -> dict[str, Any]:
    """A move as a spectator may see it: ``entry`` is the log entry of the move, ``state``
    the state after it; a card hidden from any seat is ``"hidden"`` in the events."""
    from service.sessions import redact

    hidden: set[str] = set()
    for seat in range(game.players(state)):
        hidden.update(game.hidden_cards(state, seat))
    to_act = game.to_act(state)
    return {
        "session": session_id,
        "version": entry["version"],
        "seat": entry["seat"],
        "by": entry["by"],
        "action": entry["action"],
        "events": redact(events, hidden),
        "to_act": to_act,
        "finished": to_act is None,
    }


def queue_webhooks(session_id: str, callback_url: str | None, body: dict[str, Any]) -> None:
    """Queue the delivery of ``body`` (a move) if the session has a callback. A queue that
    cannot be reached loses this delivery (logged): the move itself stands."""
    if not callback_url:
        return
    from service.api.jobs import send_task

    version = body["version"]
    try:
        send_task(
            "majlis.webhook_delivery", (session_id, version, body), task_id=delivery_key(session_id, version)
        )
    except OperationalError:
        log.warning("could not queue the webhook of session %s version %s", session_id, version)


def delivery_key(session_id: str, version: int) -> str:
    """The idempotency key of one move's delivery (``Majlis-Delivery``)."""
    return f"{session_id}:{version}"


# --------------------------------------------------------------------------- delivering


def records_key(session_id: str) -> str:
    return keys().session(session_id) + ":webhooks"


def deliveries(session_id: str) -> dict[int, dict[str, Any]]:
    """Per version: attempts, status (pending, delivered, failed) and last_status (the
    receiver's HTTP status, or the connection error)."""
    raw = get_redis().hgetall(records_key(session_id))
    out: dict[int, dict[str, Any]] = {}
    for field, value in raw.items():
        version, _, name = field.partition(":")
        record = out.setdefault(int(version), {"attempts": 0, "status": "pending", "last_status": None})
        record[name] = int(value) if name == "attempts" else value
    return out


def post(url: str, data: bytes, headers: dict[str, str], timeout: float) -> str:
    """POST without following redirects; the HTTP status as text, or the error."""
    request = urllib.request.Request(url, data=data, method="POST", headers=headers)
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(request, timeout=timeout) as response:
            return str(response.status)
    except urllib.error.HTTPError as error:
        return str(error.code)
    except (OSError, ValueError) as error:
        return f"error: {type(error).__name__}: {error}"[:200]


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer, not an instruction: it could point anywhere."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def deliver(session_id: str, version: int, body: dict[str, Any]) -> float | None:
    """One attempt at delivering ``body``; seconds to wait before the next attempt, or
    None when done (delivered, out of attempts, already recorded, or the session expired)."""
    config = current_app.config
    r = get_redis()
    url, secret = r.hmget(keys().session(session_id), "callback_url", "webhook_secret")
    if not url or not secret:
        return None  # expired
    records = records_key(session_id)
    if r.hget(records, f"{version}:status") in (DELIVERED, FAILED):
        return None  # a redelivered task: this delivery was already settled
    attempt = int(r.hincrby(records, f"{version}:attempts", 1))
    r.expire(records, int(config["SESSION_TTL"]))
    if not config["WEBHOOK_ALLOW_PRIVATE"] and not host_is_public(urlsplit(url).hostname or ""):
        r.hset(
            records, mapping={f"{version}:status": FAILED, f"{version}:last_status": "refused: not public"}
        )
        return None
    data = encode(body)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "majlis-webhooks",
        SIGNATURE_HEADER: sign(secret, data),
        DELIVERY_HEADER: delivery_key(session_id, version),
        ATTEMPT_HEADER: str(attempt),
    }
    status = post(url, data, headers, float(config["WEBHOOK_TIMEOUT"]))
    if status.isdigit() and 200 <= int(status) < 300:
        r.hset(records, mapping={f"{version}:status": DELIVERED, f"{version}:last_status": status})
        return None
    if attempt >= int(config["WEBHOOK_ATTEMPTS"]):
        r.hset(records, mapping={f"{version}:status": FAILED, f"{version}:last_status": status})
        return None
    r.hset(records, f"{version}:last_status", status)
    return backoff(config, attempt)


def backoff(config: Any, attempt: int) -> float:
    """Seconds before attempt ``attempt + 1``: ``WEBHOOK_BACKOFF x 2^(attempt-1)``, kept
    5 s under the broker's visibility timeout (a worker holds a retry that waits; one held
    longer would be handed to a second worker as if the first had died)."""
    from service.celery_app import visibility_timeout

    wanted = float(config["WEBHOOK_BACKOFF"]) * 2 ** (attempt - 1)
    return max(0.0, min(wanted, visibility_timeout(config) - 5.0))
