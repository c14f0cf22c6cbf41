"""Webhooks: a session created with a ``callback_url`` has each applied move POSTed to it.

The session hash keeps ``callback_url`` and ``webhook_secret`` (a per-session secret,
shown once in the answer to ``POST /v1/sessions``). After each applied move (a person's
or a bot's) :func:`queue_webhooks` queues ``majlis.webhook_delivery`` on the ``webhooks``
queue with the move's public body: what a spectator may see (the action, the events with
every card that some seat cannot see replaced by ``"hidden"``), the version it made and
whose turn it is now. The delivery pool (a threaded Celery worker: a delivery waits on
the network, it never holds a search process) POSTs the body with

* ``Majlis-Signature: sha256=<hex>``: HMAC-SHA256 of the exact body bytes with the secret;
* ``Majlis-Delivery: <session id>:<version>``: the idempotency key, the same on every
  attempt of one delivery;
* ``Majlis-Attempt: <n>``.

Each attempt has a connect deadline (``WEBHOOK_CONNECT_TIMEOUT``), a total deadline
(``WEBHOOK_TIMEOUT``: connect, TLS, send and the answer's head together, so a receiver
that answers one byte at a time costs that long at most) and reads at most
``WEBHOOK_MAX_RESPONSE_BYTES`` of the answer (only its status counts). A non-2xx answer,
a redirect, a malformed answer, a timeout or a connection error is retried after
``WEBHOOK_BACKOFF x 2^(n-1)`` seconds (:func:`backoff`) until ``WEBHOOK_ATTEMPTS``
attempts in all were made; each failed attempt logs one line (no traceback). Every
attempt is counted in ``session:{id}:webhooks`` (per version: attempts, status, last
status) before the POST, and a delivery recorded ``delivered`` (or ``failed``: out of
attempts) is never POSTed again: a task redelivered after its worker was killed finds the
record and stops. The one window left is a worker killed between a 2xx answer and that
record: the receiver may then get the same ``Majlis-Delivery`` twice, and should ignore
the second. Redis not answering (paused, or failing over to a replica) never loses a
delivery: the task waits for it (:func:`through_outage`, at most ``outage_wait``), before
the POST (then it tries the delivery again) and after it (then it writes the record
again, never POSTs twice), instead of failing, which would drop its message. Deliveries
of different moves may arrive out of order (retries, several workers): the body's
``version`` orders them.

Outbox: a move's webhook is queued by the request after the move is written; that
publish can be lost (the API process killed between the two, the primary killed before
it replicated the task's push). So the move's own script also puts ``<session>:<version>``
in the webhook outbox (``Keys.webhook_outbox``, covered by the move's ``WAIT``), scored
``WEBHOOK_OUTBOX_GRACE`` seconds on; each attempt pushes it on again (past its deadline,
or its back-off, or its destination's cool-down), and a delivery settled (delivered,
failed, refused, expired) removes it. The delivery pool sweeps the outbox (the turn
timers' :class:`service.timers.Sweeper`) and queues again a delivery still there when its
time has passed, its body rebuilt from the move's log entry (:func:`body_again`); a
delivery already settled is never POSTed again.

A circuit breaker per destination (scheme, host, port), kept in Redis: after
``WEBHOOK_BREAKER_FAILURES`` failed attempts in a row to one destination it opens for
``WEBHOOK_BREAKER_COOLDOWN`` seconds. Meanwhile that destination's deliveries are parked
(status ``parked``, body kept in Redis, no attempt used); when the cool-down has passed,
the delivery pool's sweeper queues them again. The first failure after a cool-down opens
the breaker again at once; a success closes it.

Callback addresses (:func:`address_refusal`): a URL is ``http`` or ``https``, at most
``MAX_URL_LENGTH`` characters, without whitespace, control characters or credentials. Its
host must resolve only to public addresses: private, loopback, link-local, unique-local,
CGNAT (100.64/10), multicast, reserved and unspecified addresses are refused, and so is
every IPv6 form that embeds an IPv4 address unless the embedded address is public
(IPv4-mapped, NAT64 ``64:ff9b::/96``) or at all (IPv4-compatible ``::a.b.c.d``, local
NAT64 ``64:ff9b:1::/48``, 6to4 ``2002::/16``, Teredo ``2001::/32``). IPv4 spellings
(decimal ``2130706433``, octal ``0177.0.0.1``, hex ``0x7f.1``, short ``127.1``) are read as
the resolver reads them. At creation a refused address is a 422 ``invalid_callback``; at
delivery the host is resolved ONCE, every address checked, and the connection goes to a
checked address (``Host`` header and TLS SNI keep the name): a name that resolves
elsewhere later (DNS rebinding) cannot slip past. ``WEBHOOK_ALLOW_LOOPBACK`` (on in
``python -m service.run`` with its embedded Redis, for local development) lets loopback
through; ``WEBHOOK_ALLOW_PRIVATE`` lets every address through (a private network's own
receivers); both are off by default."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import re
import secrets
import socket
import ssl
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import urlsplit

import redis
from kombu.exceptions import OperationalError

from service.domain_errors import InvalidCallback
from service.queues import visibility_timeout
from service.runtime import Runtime

log = logging.getLogger(__name__)

SIGNATURE_HEADER = "Majlis-Signature"
DELIVERY_HEADER = "Majlis-Delivery"
ATTEMPT_HEADER = "Majlis-Attempt"
MAX_URL_LENGTH = 2048

DELIVERED, FAILED, PARKED = "delivered", "failed", "parked"
QUEUE_WAIT = 2.0
"""Seconds a move's request tries to queue its webhook while the broker does not answer."""


def new_secret() -> str:
    return secrets.token_urlsafe(32)


def sign(secret: str, body: bytes) -> str:
    """The ``Majlis-Signature`` header value of ``body``: ``sha256=<hex HMAC>``."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def encode(body: dict[str, Any]) -> bytes:
    """The exact bytes POSTed (and signed)."""
    return json.dumps(body, separators=(",", ":"), sort_keys=True).encode()


# --------------------------------------------------------------------------- addresses

IP = ipaddress.IPv4Address | ipaddress.IPv6Address

REFUSED_V4 = {
    ipaddress.ip_network(net): why
    for net, why in [
        ("0.0.0.0/8", "unspecified"),
        ("10.0.0.0/8", "private"),
        ("100.64.0.0/10", "shared (CGNAT)"),
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link-local"),
        ("172.16.0.0/12", "private"),
        ("192.0.0.0/24", "reserved"),
        ("192.0.2.0/24", "documentation"),
        ("192.88.99.0/24", "6to4 relay"),
        ("192.168.0.0/16", "private"),
        ("198.18.0.0/15", "benchmarking"),
        ("198.51.100.0/24", "documentation"),
        ("203.0.113.0/24", "documentation"),
        ("224.0.0.0/4", "multicast"),
        ("240.0.0.0/4", "reserved"),
    ]
}
# IPv6 networks refused whole; the IPv4-mapped and NAT64 forms are judged by the IPv4
# address they embed (:func:`embedded_ipv4`).
REFUSED_V6 = {
    ipaddress.ip_network(net): why
    for net, why in [
        ("::/128", "unspecified"),
        ("::1/128", "loopback"),
        ("::/96", "IPv4-compatible"),
        ("::ffff:0:0:0/96", "IPv4-translated"),
        ("64:ff9b:1::/48", "local NAT64"),
        ("100::/64", "discard"),
        ("2001::/32", "Teredo"),
        ("2001:db8::/32", "documentation"),
        ("2002::/16", "6to4"),
        ("fc00::/7", "unique-local"),
        ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local"),
        ("ff00::/8", "multicast"),
    ]
}
NAT64 = ipaddress.ip_network("64:ff9b::/96")


def embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv4-mapped (``::ffff:a.b.c.d``) or NAT64 (``64:ff9b::a.b.c.d``)
    address reaches."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip in NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def address_refusal(ip: IP) -> str | None:
    """Why the service may not call ``ip`` ("loopback", "private", ...), None if public."""
    if isinstance(ip, ipaddress.IPv6Address):
        inner = embedded_ipv4(ip)
        if inner is not None:
            why = address_refusal(inner)
            return None if why is None else f"{why} (embedded in {ip})"
        for net, why in REFUSED_V6.items():
            if ip in net:
                return why
    else:
        for net, why in REFUSED_V4.items():
            if ip in net:
                return why
    return None if ip.is_global else "not public"


@dataclass(frozen=True)
class AddressPolicy:
    """Which addresses callbacks may reach: public ones; loopback too with
    ``allow_loopback`` (local development); any with ``allow_private``."""

    allow_private: bool = False
    allow_loopback: bool = False

    @classmethod
    def of(cls, config: Any) -> AddressPolicy:
        return cls(bool(config.get("WEBHOOK_ALLOW_PRIVATE")), bool(config.get("WEBHOOK_ALLOW_LOOPBACK")))

    def refusal(self, ip: IP) -> str | None:
        """Why ``ip`` may not be called under this policy, None if it may."""
        if self.allow_private:
            return None
        why = address_refusal(ip)
        if why is not None and self.allow_loopback and is_loopback(ip):
            return None
        return why


def is_loopback(ip: IP) -> bool:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped.is_loopback
    return ip.is_loopback


def parse_ip(text: str) -> IP:
    """An address as the resolver gives it (an IPv6 zone index dropped)."""
    return ipaddress.ip_address(text.split("%", 1)[0])


def literal_address(host: str) -> IP | None:
    """``host`` as an IP address if it is one in any spelling the resolver accepts
    (``2130706433``, ``0177.0.0.1``, ``0x7f.1``, ``127.1``, ``[::1]``), else None (a name)."""
    try:
        return parse_ip(host.strip("[]"))
    except ValueError:
        pass
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except (OSError, UnicodeError, ValueError):
        return None


class Refused(Exception):
    """The callback's host is, or resolves to, an address the policy refuses."""


class DeliveryError(Exception):
    """An expected failure of one attempt (connection, timeout, TLS, malformed answer):
    logged in one line and retried."""


def resolve(host: str, port: int, policy: AddressPolicy) -> list[tuple[int, tuple[Any, ...]]]:
    """``(family, sockaddr)`` of every address of ``host``, resolved ONCE; Refused if any
    of them is refused (a name that mixes public and private addresses is refused whole)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError) as error:
        raise DeliveryError(f"{host} does not resolve: {error}") from None
    if not infos:
        raise DeliveryError(f"{host} does not resolve")
    found: list[tuple[int, tuple[Any, ...]]] = []
    for family, _type, _proto, _name, sockaddr in infos:
        why = policy.refusal(parse_ip(str(sockaddr[0])))
        if why is not None:
            raise Refused(f"{host} resolves to {sockaddr[0]}: {why}")
        found.append((family, sockaddr))
    return found


# --------------------------------------------------------------------------- callback URLs

BAD_CHARACTERS = re.compile(r"[\s\x00-\x1f\x7f]")


def check_callback_url(url: str, allow_private: bool, allow_loopback: bool) -> str:
    """``url`` if the service may call it back, else 422 ``invalid_callback`` naming the
    field (the settings ``WEBHOOK_ALLOW_PRIVATE`` and ``WEBHOOK_ALLOW_LOOPBACK``)."""

    def refuse(why: str) -> InvalidCallback:
        return InvalidCallback(why)

    if len(url) > MAX_URL_LENGTH:
        raise refuse(f"is longer than {MAX_URL_LENGTH} characters")
    if BAD_CHARACTERS.search(url):
        raise refuse("must not contain whitespace or control characters")
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
    policy = AddressPolicy(allow_private, allow_loopback)
    literal = literal_address(parts.hostname)
    if literal is not None:
        why = policy.refusal(literal)
        if why is not None:
            raise refuse(f"names a {why} address (not allowed on this server)")
    elif not policy.allow_private:
        try:
            resolve(parts.hostname, parts.port or 80, policy)
        except Refused as error:
            raise refuse(f"names a host this server may not call ({error})") from None
        except DeliveryError as error:
            raise refuse(f"names a host that does not resolve ({error})") from None
    return url


# --------------------------------------------------------------------------- queueing


def public_body(session_id: str, entry: dict[str, Any]) -> dict[str, Any]:
    """A move as a spectator may see it: ``entry`` is the move's log entry, whose
    ``public`` events already hide every card some seat could not see after the move
    (service/sessions.py ``log_entry``, redacted once by service/redaction.py)."""
    to_act = entry["to_act"]
    return {
        "session": session_id,
        "version": entry["version"],
        "seat": entry["seat"],
        "by": entry["by"],
        "action": entry["action"],
        "events": entry["public"],
        "to_act": to_act,
        "finished": to_act is None,
    }


def queue_webhooks(runtime: Runtime, session_id: str, callback_url: str | None, body: dict[str, Any]) -> None:
    """Queue the delivery of ``body`` (a move) if the session has a callback. A queue that
    cannot be reached for ``QUEUE_WAIT`` seconds loses this delivery (logged): the move
    itself stands."""
    if not callback_url:
        return
    version = body["version"]
    key = delivery_key(session_id, version)
    try:  # a broker connection broken by a failover fails its first publish: try again
        through_outage(
            lambda: runtime.send_task("majlis.webhook_delivery", (session_id, version, body), task_id=key),
            QUEUE_WAIT,
            f"webhook {key}",
        )
    except (OperationalError, redis.RedisError):
        log.warning("could not queue the webhook of session %s version %s", session_id, version)


def delivery_key(session_id: str, version: int) -> str:
    """The idempotency key of one move's delivery (``Majlis-Delivery``)."""
    return f"{session_id}:{version}"


# --------------------------------------------------------------------------- delivering


def records_key(runtime: Runtime, session_id: str) -> str:
    return runtime.keys.session(session_id) + ":webhooks"


def deliveries(runtime: Runtime, session_id: str) -> dict[int, dict[str, Any]]:
    """Per version: attempts, status (pending, parked, delivered, failed) and last_status
    (the receiver's HTTP status, or why the attempt failed)."""
    raw = cast(
        "dict[str, str]", runtime.redis().hgetall(records_key(runtime, session_id))
    )  # decode_responses
    out: dict[int, dict[str, Any]] = {}
    for field, value in raw.items():
        version, _, name = field.partition(":")
        record = out.setdefault(int(version), {"attempts": 0, "status": "pending", "last_status": None})
        record[name] = int(value) if name == "attempts" else value
    return out


@dataclass(frozen=True)
class Limits:
    """One attempt's bounds: seconds to connect, seconds in all, bytes of answer read."""

    connect: float = 3.0
    total: float = 5.0
    answer_bytes: int = 16_384

    @classmethod
    def of(cls, config: Any) -> Limits:
        total = float(config["WEBHOOK_TIMEOUT"])
        return cls(
            min(float(config["WEBHOOK_CONNECT_TIMEOUT"]), total),
            total,
            int(config["WEBHOOK_MAX_RESPONSE_BYTES"]),
        )


STATUS_LINE = re.compile(rb"HTTP/1\.[01] ([1-5][0-9][0-9])(?: [^\r\n]*)?")


def request_bytes(url: str, data: bytes, headers: dict[str, str]) -> bytes:
    parts = urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    host = parts.netloc.rpartition("@")[2]
    lines = [f"POST {target} HTTP/1.1", f"Host: {host}", f"Content-Length: {len(data)}", "Connection: close"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + data


def connect(addresses: list[tuple[int, tuple[Any, ...]]], timeout: float) -> socket.socket:
    """A socket connected to the first checked address that answers within ``timeout``."""
    last: OSError | None = None
    for family, sockaddr in addresses:
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(sockaddr)
            return sock
        except OSError as error:
            sock.close()
            last = error
    raise DeliveryError(f"could not connect: {describe(last)}")


def describe(error: BaseException | None) -> str:
    if isinstance(error, TimeoutError):
        return "timed out"
    return f"{type(error).__name__}: {error}"[:160]


def read_head(sock: socket.socket, deadline: float, most: int) -> bytes:
    """The answer up to the end of its headers (at most ``most`` bytes, by ``deadline``)."""
    head = b""
    while b"\r\n\r\n" not in head:
        left = deadline - time.monotonic()
        if left <= 0:
            raise DeliveryError("no complete answer within the deadline")
        sock.settimeout(left)
        try:
            chunk = sock.recv(min(4096, most - len(head)))
        except TimeoutError:
            raise DeliveryError("no complete answer within the deadline") from None
        if not chunk:
            if head:
                break  # closed after its head: judged by the status line
            raise DeliveryError("the receiver closed the connection without an answer")
        head += chunk
        if len(head) >= most and b"\r\n\r\n" not in head:
            raise DeliveryError(f"malformed answer: no end of headers in {most} bytes")
    return head


def post(url: str, data: bytes, headers: dict[str, str], policy: AddressPolicy, limits: Limits) -> int:
    """POST ``data`` to ``url`` without following redirects; the HTTP status. The host is
    resolved once and the connection made to a checked address (TLS: certificate and SNI
    of the name). Raises Refused, or DeliveryError for any network failure."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    deadline = time.monotonic() + limits.total
    addresses = resolve(host, port, policy)
    sock = connect(addresses, max(0.01, min(limits.connect, deadline - time.monotonic())))
    try:
        if parts.scheme == "https":
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            sock = ssl.create_default_context().wrap_socket(sock, server_hostname=host)
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        sock.sendall(request_bytes(url, data, headers))
        head = read_head(sock, deadline, limits.answer_bytes)
    except (OSError, ValueError) as error:  # ssl.SSLError, resets, timeouts
        raise DeliveryError(describe(error)) from None
    finally:
        sock.close()
    found = STATUS_LINE.fullmatch(head.split(b"\r\n", 1)[0])
    if found is None:
        raise DeliveryError("malformed answer: " + repr(head[:40]))
    return int(found.group(1))


# --------------------------------------------------------------------------- circuit breaker


def destination(url: str) -> str:
    """What the breaker counts failures of: scheme, host and port."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{parts.scheme}://{(parts.hostname or '').lower()}:{port}"


def breaker_key(prefix: str, dest: str) -> str:
    return f"{prefix}:webhooks:breaker:{hashlib.sha256(dest.encode()).hexdigest()[:32]}"


def parked_key(prefix: str, dest: str) -> str:
    return breaker_key(prefix, dest) + ":parked"


def parked_set(prefix: str) -> str:
    """The destinations with parked deliveries: ``dest`` by the time their breaker reopens."""
    return f"{prefix}:webhooks:parked"


def breaker_open_until(runtime: Runtime, dest: str) -> float:
    """When the breaker of ``dest`` lets deliveries through again (0: it is closed)."""
    return float(runtime.redis().hget(breaker_key(runtime.keys.prefix, dest), "open_until") or 0)


def breaker_failed(runtime: Runtime, dest: str, now: float) -> float:
    """Count a failed attempt to ``dest``; the time its breaker opens until (0: still closed)."""
    r, config = runtime.redis(), runtime.config
    key = breaker_key(runtime.keys.prefix, dest)
    failures = int(r.hincrby(key, "failures", 1))
    cooldown = float(config["WEBHOOK_BREAKER_COOLDOWN"])
    r.expire(key, int(cooldown) + 3600)
    if failures < int(config["WEBHOOK_BREAKER_FAILURES"]):
        return 0.0
    until = now + cooldown
    r.hset(key, "open_until", f"{until:.3f}")
    return until


def breaker_succeeded(runtime: Runtime, dest: str) -> None:
    runtime.redis().delete(breaker_key(runtime.keys.prefix, dest))


def park(
    runtime: Runtime, dest: str, session_id: str, version: int, body: dict[str, Any], until: float
) -> None:
    """Keep a delivery for ``dest`` until its breaker lets it through (after ``until``);
    at most as long as a session lives."""
    prefix = runtime.keys.prefix
    pipe = runtime.redis().pipeline()
    pipe.rpush(parked_key(prefix, dest), json.dumps([dest, session_id, version, body]))
    pipe.expire(parked_key(prefix, dest), int(runtime.config["SESSION_TTL"]))
    pipe.zadd(parked_set(prefix), {dest: until})
    pipe.hset(records_key(runtime, session_id), f"{version}:status", PARKED)
    pipe.execute()


# KEYS: the parked set. ARGV: now, lease, most. Destinations whose breaker cool-down has
# passed, each pushed ``lease`` seconds on (while one sweeper releases them, the others
# look elsewhere; LPOP hands each parked delivery to one of them anyway).
_DUE_DESTINATIONS = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, m in ipairs(due) do
  redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), m)
end
return due
"""


def release_parked(client: Any, prefix: str, send: Any, now: float, most: int = 100) -> int:
    """Queue again the parked deliveries of every destination whose cool-down has passed
    (``send(session_id, version, body)``); how many. Run by the delivery pool's sweeper."""
    parked = parked_set(prefix)
    sent = 0
    for dest in client.register_script(_DUE_DESTINATIONS)(keys=[parked], args=[f"{now:.3f}", 2, 20]):
        key = parked_key(prefix, dest)
        for _ in range(most):
            raw = client.lpop(key)
            if raw is None:
                client.zrem(parked, dest)
                break
            _dest, session_id, version, body = json.loads(raw)
            send(session_id, version, body)
            sent += 1
    return sent


# --------------------------------------------------------------------------- one attempt


def outbox_member(session_id: str, version: int) -> str:
    return f"{session_id}:{version}"


def outbox_later(runtime: Runtime, session_id: str, version: int, at: float) -> None:
    """The delivery is in hand until ``at``: no sweep sends it again before then."""
    runtime.redis().zadd(
        runtime.keys.webhook_outbox(), {outbox_member(session_id, version): f"{at:.3f}"}, xx=True
    )


def outbox_done(runtime: Runtime, session_id: str, version: int) -> None:
    """The delivery is settled: out of the outbox."""
    runtime.redis().zrem(runtime.keys.webhook_outbox(), outbox_member(session_id, version))


def body_again(
    client: Any, session_key: str, log_key: str, session_id: str, version: int
) -> dict[str, Any] | None:
    """The body :func:`service.sessions.queue_move_webhook` queued for that move, rebuilt
    from its log entry (None: the session expired)."""
    raw = client.lindex(log_key, version - 1)
    timed = client.hexists(session_key, "turn_timer")
    if raw is None:
        return None
    entry = json.loads(raw)
    body = public_body(session_id, entry)
    if timed:
        body["turn_deadline"] = entry.get("turn_deadline")
    return body


def outage_wait(config: Mapping[str, Any]) -> float:
    """Seconds a delivery task waits for Redis to answer again (a Sentinel failover takes
    about down-after + a second or two): at most 30, and 5 under the broker's visibility
    timeout (a task that held its message longer would be handed to a second worker)."""
    return max(1.0, min(30.0, visibility_timeout(config) - 5.0))


def through_outage(call: Any, wait: float, what: str) -> Any:
    """``call()``, tried again every second while Redis (or the broker on it) does not
    answer, for at most ``wait`` seconds; then its error is raised."""
    deadline = time.monotonic() + wait
    while True:
        try:
            return call()
        except (redis.RedisError, OperationalError) as error:
            if time.monotonic() > deadline:
                raise
            log.warning("%s: Redis does not answer (%s); trying again in 1 s", what, error)
            time.sleep(1.0)


def deliver(runtime: Runtime, session_id: str, version: int, body: dict[str, Any]) -> float | None:
    """One attempt at delivering ``body`` by the runtime's settings; seconds to wait
    before the next attempt, or None when done (delivered, out of attempts, parked,
    already settled, refused, or the session expired). Redis failing before the POST
    raises (the caller tries again: :func:`through_outage`); after it, the record is
    written through the outage (the POST is never made twice for one attempt)."""
    r, config = runtime.redis(), runtime.config
    url, secret = cast(
        "list[str | None]", r.hmget(runtime.keys.session(session_id), "callback_url", "webhook_secret")
    )
    if not url or not secret:
        outbox_done(runtime, session_id, version)
        return None  # expired
    records = records_key(runtime, session_id)
    if r.hget(records, f"{version}:status") in (DELIVERED, FAILED):
        outbox_done(runtime, session_id, version)
        return None  # a redelivered task: this delivery was already settled
    dest = destination(url)
    now = time.time()
    grace = float(config.get("WEBHOOK_OUTBOX_GRACE", 15.0))
    open_until = breaker_open_until(runtime, dest)
    if open_until > now:
        park(runtime, dest, session_id, version, body, open_until)
        outbox_later(runtime, session_id, version, open_until + grace)
        return None
    outbox_later(runtime, session_id, version, now + float(config["WEBHOOK_TIMEOUT"]) + grace)
    attempt = int(r.hincrby(records, f"{version}:attempts", 1))
    r.hset(records, f"{version}:status", "pending")
    r.expire(records, int(config["SESSION_TTL"]))
    data = encode(body)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "majlis-webhooks",
        SIGNATURE_HEADER: sign(secret, data),
        DELIVERY_HEADER: delivery_key(session_id, version),
        ATTEMPT_HEADER: str(attempt),
    }
    try:
        status = post(url, data, headers, AddressPolicy.of(config), Limits.of(config))
        outcome = str(status)
    except Refused as error:
        r.hset(records, mapping={f"{version}:status": FAILED, f"{version}:last_status": f"refused: {error}"})
        outbox_done(runtime, session_id, version)
        log.warning("webhook %s refused: %s", delivery_key(session_id, version), error)
        return None
    except DeliveryError as error:
        status, outcome = 0, f"error: {error}"[:200]
    key = delivery_key(session_id, version)

    def settle() -> float | None:
        return after_attempt(runtime, records, session_id, version, body, dest, attempt, status, outcome)

    try:
        return cast("float | None", through_outage(settle, outage_wait(config), f"webhook {key}"))
    except (redis.RedisError, OperationalError) as error:  # POSTed: not tried again
        log.warning("webhook %s: its outcome (%s) not recorded: %s", key, outcome, error)
        return None


def after_attempt(
    runtime: Runtime,
    records: str,
    session_id: str,
    version: int,
    body: dict[str, Any],
    dest: str,
    attempt: int,
    status: int,
    outcome: str,
) -> float | None:
    """Record an attempt's outcome (and the breaker's); seconds before the next attempt,
    or None when done."""
    r, config = runtime.redis(), runtime.config
    if 200 <= status < 300:
        r.hset(records, mapping={f"{version}:status": DELIVERED, f"{version}:last_status": outcome})
        outbox_done(runtime, session_id, version)
        breaker_succeeded(runtime, dest)
        return None
    attempts = int(config["WEBHOOK_ATTEMPTS"])
    reopened = breaker_failed(runtime, dest, time.time())
    if attempt >= attempts:
        r.hset(records, mapping={f"{version}:status": FAILED, f"{version}:last_status": outcome})
        outbox_done(runtime, session_id, version)
        log.warning(
            "webhook %s attempt %d/%d failed (%s): given up",
            delivery_key(session_id, version),
            attempt,
            attempts,
            outcome,
        )
        return None
    r.hset(records, f"{version}:last_status", outcome)
    wait = backoff(config, attempt)
    log.warning(
        "webhook %s attempt %d/%d failed (%s): %s",
        delivery_key(session_id, version),
        attempt,
        attempts,
        outcome,
        f"{dest} parked until its breaker closes" if reopened else f"next in {wait:g} s",
    )
    grace = float(config.get("WEBHOOK_OUTBOX_GRACE", 15.0))
    if reopened:
        park(runtime, dest, session_id, version, body, reopened)
        outbox_later(runtime, session_id, version, reopened + grace)
        return None
    outbox_later(runtime, session_id, version, time.time() + wait + grace)
    return wait


def backoff(config: Any, attempt: int) -> float:
    """Seconds before attempt ``attempt + 1``: ``WEBHOOK_BACKOFF x 2^(attempt-1)``, kept
    5 s under the broker's visibility timeout (a worker holds a retry that waits; one held
    longer would be handed to a second worker as if the first had died)."""
    wanted = float(config["WEBHOOK_BACKOFF"]) * 2 ** (attempt - 1)
    return max(0.0, min(wanted, visibility_timeout(config) - 5.0))
