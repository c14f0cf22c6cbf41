"""Fair use: what one client may hold at once, counted in Redis (shared by every process).

A client is its API key when ``MAJLIS_API_KEYS`` is on, else its address. Three kinds of
count, each one small Redis structure per client (docs/deploy.md, "Fair use and limits"):

* a **window**: sessions created per hour, ``INCR`` of a key that expires with its hour;
* a **live set**: sessions, timed sessions, sessions with a webhook, review and bot jobs
  the client holds. A sorted set of ids; before counting, the script drops the ids whose
  session has expired (or was released: :func:`session_ended`) or whose job is no longer
  pending or running, so nothing needs to be told when a thing ends by itself;
* a **lease set**: hints searching and event streams open. A sorted set of holders
  scored by when their lease runs out; a holder renews it (a stream, at each heartbeat)
  and removes itself when it ends, and a holder that died (a killed process) drops out
  when its lease runs out, so a crash never leaks a count for long.

Over a quota the domain raises :class:`~service.domain_errors.QuotaExceeded`, which
service/errors.py answers with 429 ``quota_exceeded``, ``Retry-After`` and
``RateLimit-Limit`` / ``RateLimit-Remaining`` / ``RateLimit-Reset`` (seconds until a unit
should be free again). The arithmetic is pure (:func:`window_refusal`, ...); the scripts
only count. Which client a request is (its key or address) is the HTTP layer's to say
(service/api/common.py, ``quota_client``): here it is a string given in."""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import redis

from service.domain_errors import QuotaExceeded
from service.redis_conn import Keys
from service.runtime import Runtime

# KEYS: the lease sets of one holder (e.g. a stream's token, session and address).
# ARGV: now, holder, lease end, then one limit per key (0: no limit).
# Returns {0} when the holder was added to every set, else {i, count, earliest end} for
# the first set (1-based i) that is full. Expired holders are dropped first.
_LEASE = """
local now, holder, lease_end = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  local limit = tonumber(ARGV[3 + i])
  if limit > 0 and not redis.call('ZSCORE', key, holder) then
    local count = redis.call('ZCARD', key)
    if count >= limit then
      local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
      return {i, count, first[2]}
    end
  end
end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, lease_end, holder)
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  redis.call('EXPIREAT', key, math.ceil(tonumber(last[2])) + 1)
end
return {0}
"""

# KEYS[1]: a client's live set. ARGV: id, limit, key prefix of the things counted, kind
# ('session': alive while its hash exists and is not released; 'job': while its status
# is pending or running), the set's own expiry (seconds), '1' to add (else only look).
# Returns {0, count} (added) or {1, count, seconds until the soonest expiry, -1 unknown}.
_LIVE = """
local id, limit, prefix, kind = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]
local count, soonest = 0, -1
for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local alive
  if kind == 'session' then
    alive = redis.call('EXISTS', prefix .. member) == 1
      and not redis.call('HGET', prefix .. member, 'quota_released')
  else
    local status = redis.call('HGET', prefix .. member, 'status')
    alive = status == 'pending' or status == 'running'
  end
  if alive then
    count = count + 1
    local ttl = redis.call('TTL', prefix .. member)
    if kind == 'session' and ttl >= 0 and (soonest < 0 or ttl < soonest) then soonest = ttl end
  else
    redis.call('ZREM', KEYS[1], member)
  end
end
if limit > 0 and count >= limit then return {1, count, soonest} end
if ARGV[6] ~= '1' then return {0, count} end
redis.call('ZADD', KEYS[1], 0, id)
redis.call('EXPIRE', KEYS[1], ARGV[5])
return {0, count + 1}
"""

QUOTA_SETTINGS = (
    "QUOTA_SESSIONS_PER_HOUR",
    "QUOTA_LIVE_SESSIONS",
    "QUOTA_TIMED_SESSIONS",
    "QUOTA_WEBHOOK_SESSIONS",
    "QUOTA_SPECTATORS",
    "QUOTA_REVIEWS",
    "QUOTA_JOBS",
    "QUOTA_HINTS",
    "QUOTA_STREAMS_PER_TOKEN",
    "QUOTA_STREAMS_PER_SESSION",
    "QUOTA_STREAMS_PER_ADDRESS",
)
"""Every per-client quota's setting (``MAJLIS_`` + the name in the environment)."""

# KEYS[1]: a session's hash. Marks it released, if it still exists.
_RELEASE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'quota_released', 1)
return 1
"""

JOB_RETRY = 5
"""Retry-After of a refusal for jobs in flight (a job's end cannot be foreseen)."""
MAX_RESET = 3600
"""The longest Reset/Retry-After shown (a session idle for hours is no useful wait)."""


@dataclass(frozen=True)
class Refusal:
    """Why a quota refused: its name, limit, what is used and seconds until it frees."""

    quota: str
    limit: int
    used: int
    reset: int

    def headers(self) -> dict[str, str]:
        return refusal_headers(self.limit, self.reset)


def refusal_headers(limit: int, reset: int) -> dict[str, str]:
    """The headers of a quota's refusal (service/errors.py adds them to the 429)."""
    return {
        "Retry-After": str(reset),
        "RateLimit-Limit": str(limit),
        "RateLimit-Remaining": "0",
        "RateLimit-Reset": str(reset),
    }


def reset_seconds(until: float, now: float) -> int:
    """Whole seconds from ``now`` to ``until``, at least 1 and at most MAX_RESET."""
    return max(1, min(MAX_RESET, math.ceil(until - now)))


def window_refusal(quota: str, limit: int, used: int, now: float, width: int) -> Refusal | None:
    """A fixed window of ``width`` seconds allows ``limit`` units; ``used`` counts this
    one. None when allowed (or ``limit`` is 0: no quota)."""
    if limit <= 0 or used <= limit:
        return None
    window_end = (now // width + 1) * width
    return Refusal(quota, limit, used - 1, reset_seconds(window_end, now))


def window_remaining(limit: int, used: int) -> int:
    return max(0, limit - used)


def lease_refusal(quota: str, limit: int, count: int, earliest_end: float, now: float) -> Refusal:
    """A full lease set: it frees when its earliest lease runs out (sooner if released)."""
    return Refusal(quota, limit, count, reset_seconds(earliest_end, now))


def live_refusal(quota: str, limit: int, count: int, soonest: int, fallback: int) -> Refusal:
    """A full live set: it frees when its soonest thing expires (``soonest`` seconds;
    -1 unknown: ``fallback``)."""
    return Refusal(quota, limit, count, max(1, min(MAX_RESET, soonest if soonest >= 0 else fallback)))


# --------------------------------------------------------------------------- Redis side


class Quotas:
    """The quota counts of one Redis and key prefix."""

    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        self.r = client
        self.keys = keys
        self._lease = client.register_script(_LEASE)
        self._live = client.register_script(_LIVE)

    def key(self, *parts: str) -> str:
        return ":".join((self.keys.prefix, "quota", *parts))

    def count_window(
        self, quota: str, client: str, limit: int, width: int, now: float | None = None
    ) -> Refusal | None:
        """Count one unit in ``client``'s current window of ``quota``; a refusal if over."""
        if limit <= 0:
            return None
        now = time.time() if now is None else now
        key = self.key(quota, client, str(int(now // width)))
        pipe = self.r.pipeline()
        pipe.incr(key)
        pipe.expire(key, width + 1)
        used = int(pipe.execute()[0])
        return window_refusal(quota, limit, used, now, width)

    def take_lease(
        self, sets: list[tuple[str, str, int]], holder: str, lease: float, now: float | None = None
    ) -> Refusal | None:
        """Add ``holder`` to each ``(quota name, key, limit)`` set for ``lease`` seconds,
        unless one is full (then to none): the refusal of the first full one."""
        now = time.time() if now is None else now
        keys = [key for _, key, _ in sets]
        args: list[str | int] = [
            f"{now:.3f}",
            holder,
            f"{now + lease:.3f}",
            *[int(limit) for _, _, limit in sets],
        ]
        answer = self._lease(keys=keys, args=args)
        if int(answer[0]) == 0:
            return None
        name, _key, most = sets[int(answer[0]) - 1]
        return lease_refusal(name, most, int(answer[1]), float(answer[2]), now)

    def renew_lease(self, keys: list[str], holder: str, lease: float) -> None:
        """Push ``holder``'s lease on: it is still there (only if still a member)."""
        end = time.time() + lease
        pipe = self.r.pipeline()
        for key in keys:
            pipe.zadd(key, {holder: end}, xx=True)
            pipe.expire(key, math.ceil(lease) + 1)
        pipe.execute()

    def drop_lease(self, keys: list[str], holder: str) -> None:  # one holder, every set
        pipe = self.r.pipeline()
        for key in keys:
            pipe.zrem(key, holder)
        pipe.execute()

    def add_live(
        self,
        quota: str,
        client: str,
        thing_id: str,
        limit: int,
        kind: str,
        keep: int,
        add: bool = True,
        fallback: int = JOB_RETRY,
    ) -> Refusal | None:
        """Count ``thing_id`` (a session or job id) in ``client``'s live set of ``quota``
        (``add``; else only look), unless ``limit`` of them are alive already (0: none)."""
        prefix = f"{self.keys.prefix}:{'session' if kind == 'session' else 'job'}:"
        args: list[str | int] = [thing_id, int(limit), prefix, kind, int(keep), "1" if add else "0"]
        answer = self._live(keys=[self.key(quota, client)], args=args)
        if int(answer[0]) == 0:
            return None
        return live_refusal(quota, int(limit), int(answer[1]), int(answer[2]), fallback)


def renew_leases(client: redis.Redis, leases: list[tuple[list[str], str]], lease: float) -> None:
    """Push on the leases of many holders (``(keys, holder)`` each) in one round trip:
    each only if still a member; each set kept at least as long as its leases."""
    end = time.time() + lease
    pipe = client.pipeline(transaction=False)
    sets = set()
    for keys, holder in leases:
        for key in keys:
            pipe.zadd(key, {holder: end}, xx=True)
            sets.add(key)
    for key in sets:
        pipe.expire(key, math.ceil(lease) + 1)
    pipe.execute()


def session_ended(client: redis.Redis, keys: Keys, session_id: str) -> None:
    """A session that will play no more (ended by the service, e.g. its players all
    silent) no longer counts against its client's live, timed and webhook quotas, though
    its record stays until it expires. For the timers' silent-session end to call."""
    client.eval(_RELEASE, 1, keys.session(session_id))  # never recreates an expired one


def count_timed_session(
    quotas: Quotas, client: str, session_id: str, limit: int, keep: int
) -> Refusal | None:
    """Count a session with a turn timer against ``client``'s timed-session quota, unless
    ``limit`` are live already (the create endpoint does this for every timed session,
    which also counts as live; see :func:`count_new_session`)."""
    return quotas.add_live("timed", client, session_id, limit, "session", keep)


# --------------------------------------------------------------------------- a client's new things


def current(runtime: Runtime) -> Quotas:
    return Quotas(runtime.redis(), runtime.keys)


def limit(config: Mapping[str, Any], name: str) -> int:
    return int(config[name])


def require(refusal: Refusal | None, what: str) -> None:
    """Raise QuotaExceeded for ``refusal`` (``what``: the quota in words), if any."""
    if refusal is not None:
        raise QuotaExceeded(refusal.quota, refusal.limit, refusal.reset, what)


def new_holder() -> str:
    return uuid.uuid4().hex


SESSION_QUOTAS = (
    ("live", "QUOTA_LIVE_SESSIONS", "live sessions"),
    ("timed", "QUOTA_TIMED_SESSIONS", "live sessions with a turn timer"),
    ("webhooks", "QUOTA_WEBHOOK_SESSIONS", "live sessions with a callback_url"),
)


def session_quotas(timed: bool, webhook: bool) -> list[tuple[str, str, str]]:
    """The live quotas a new session counts against: every session is live; a timed one
    is timed too, one with a callback_url a webhook session too."""
    applies = {"live": True, "timed": timed, "webhooks": webhook}
    return [quota for quota in SESSION_QUOTAS if applies[quota[0]]]


def check_new_session(runtime: Runtime, who: str, timed: bool, webhook: bool) -> None:
    """QuotaExceeded before a session is made: client ``who`` holds its limit of live
    (timed, webhook) sessions, or has made its limit this hour (this one counted in the hour)."""
    quotas, config = current(runtime), runtime.config
    keep = 2 * limit(config, "SESSION_TTL")
    for quota, setting, words in session_quotas(timed, webhook):
        require(quotas.add_live(quota, who, "", limit(config, setting), "session", keep, add=False), words)
    hourly = quotas.count_window("sessions-per-hour", who, limit(config, "QUOTA_SESSIONS_PER_HOUR"), 3600)
    require(hourly, "sessions created per hour")


def count_new_session(runtime: Runtime, who: str, session_id: str, timed: bool, webhook: bool) -> None:
    """Count a session just made in client ``who``'s live sets (checked by
    :func:`check_new_session`: two creations at once may pass one over, never more)."""
    quotas = current(runtime)
    keep = 2 * limit(runtime.config, "SESSION_TTL")
    for quota, _setting, _words in session_quotas(timed, webhook):
        quotas.add_live(quota, who, session_id, 0, "session", keep)


def check_job(runtime: Runtime, who: str, kind: str) -> str:
    """Before a job is queued: QuotaExceeded when client ``who`` has its limit of ``kind``
    jobs (``reviews`` or ``jobs``) pending or running. The quota's name, for :func:`count_job`."""
    setting = "QUOTA_REVIEWS" if kind == "reviews" else "QUOTA_JOBS"
    words = "reviews in flight" if kind == "reviews" else "bot jobs in flight"
    keep = int(runtime.config["JOB_TTL"]) + 60
    most = limit(runtime.config, setting)
    require(current(runtime).add_live(kind, who, "", most, "job", keep, add=False), words)
    return kind


def count_job(runtime: Runtime, who: str, kind: str, job_id: str) -> None:
    keep = int(runtime.config["JOB_TTL"]) + 60
    current(runtime).add_live(kind, who, job_id, 0, "job", keep)
