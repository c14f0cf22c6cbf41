"""Turn timers: a session's limit on each move of a person, kept in Redis, run out by the workers.

A session created with a ``turn_timer`` (:class:`TurnTimer`: ``seconds``, ``on_timeout``
and a bot ``level``) gives the person to act that many seconds per move. Whenever a
version of the session starts a person's turn, the atomic write of that version (a move,
a hand-over, the create: :mod:`service.sessions`) records the turn's :class:`Deadline`
in the session hash (``turn_deadline``, shown to every token) and puts
``<session id>:<version>`` in one sorted set of due times (``Keys.turn_timers``), removing
the member of the version before. So a move made in time has removed its timer before it
could run out, and a timer is never lost between a process and Redis: it lives in Redis
(append-only file included) until the version it was set for is gone.

The main process of each worker that serves the ``timers`` queue sweeps that set every
``TURN_TIMER_SWEEP`` seconds (:class:`Sweeper`): a due member is claimed atomically (its
score pushed ``TURN_TIMER_LEASE`` seconds on, so one worker of many claims it) and a
``session_turn_timeout`` task is queued with the session id and the version. It claims
no more than ``TURN_TIMER_BACKLOG`` minus the tasks already waiting on that queue: a
flood of timers waits in Redis, in due order, instead of piling up on a queue (where a
backlog older than the lease was queued twice). If a task never runs to its end (its
worker killed, the queue lost in a Redis restart), the member is due again once the lease
has passed and a live worker sends it again. The task first takes the idempotent claim
of its version (:func:`fire_key`, ``SET NX`` with the lease as expiry): a second task for
the same version, whatever the backlog, finds it taken and does nothing, so a timer
fires once. It plays a bot's move for the seat only if the session is still at that
version (:func:`service.sessions.timeout_turn`), through the same compare-and-set as
every move.

A session whose human seats have all been silent (no move, no claim) for
``SILENT_SESSION_SECONDS`` stops playing itself: the next timer or bot turn ends it with
the reason ``abandoned`` (:func:`is_silent`, :func:`service.sessions.end_silent`)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis

log = logging.getLogger(__name__)

ON_TIMEOUT = ("move", "seat")
"""What a timer that runs out does: a bot plays that one move, or takes the seat until
its person claims it back."""
MIN_SECONDS = 1


@dataclass(frozen=True)
class TurnTimer:
    """A session's time limit per move of a person, and what happens when it runs out."""

    seconds: int
    on_timeout: str = "move"
    level: str = "normal"  # the bot that plays the timed-out move (and, for "seat", on)

    def to_json(self) -> dict[str, Any]:
        return {"seconds": self.seconds, "on_timeout": self.on_timeout, "level": self.level}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TurnTimer:
        return cls(int(data["seconds"]), data.get("on_timeout", "move"), data.get("level", "normal"))

    def bot_seat(self) -> dict[str, Any]:
        """The seat spec a timed-out seat gets with ``on_timeout`` "seat"."""
        return {"type": "bot", "level": self.level}


@dataclass(frozen=True)
class Deadline:
    """Seat ``seat`` must move before ``at`` (Unix time, seconds)."""

    seat: int
    at: float

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "at": round(self.at, 3)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Deadline:
        return cls(int(data["seat"]), float(data["at"]))

    def shown(self, now: float) -> dict[str, Any]:
        """As answers show it: with the seconds left by the server's clock, for a client
        whose own clock is off."""
        return {**self.to_json(), "seconds_left": round(max(0.0, self.at - now), 3)}


def shown(deadline: Deadline | None, now: float | None = None) -> dict[str, Any] | None:
    return None if deadline is None else deadline.shown(time.time() if now is None else now)


def deadline_for(
    timer: TurnTimer | None,
    to_act: int | None,
    can_act: bool,
    seats: list[dict[str, Any]],
    now: float,
    running: Deadline | None = None,
) -> Deadline | None:
    """The deadline of the turn of ``to_act`` (None: the match is over), given the seats:
    ``now`` plus the limit when a person is to act and has something to decide
    (``can_act``); None without a timer or for a bot seat. ``running``: the deadline
    that ran before a hand-over, kept when the same seat is still to act (another seat
    leaving does not restart its clock); a move always starts a new turn (pass None)."""
    if timer is None or to_act is None or not can_act or seats[to_act]["type"] != "human":
        return None
    if running is not None and running.seat == to_act:
        return running
    return Deadline(to_act, now + timer.seconds)


def timer_member(session_id: str, version: int) -> str:
    """The sorted-set member of the timer of ``session_id`` at ``version``."""
    return f"{session_id}:{version}"


def parse_member(raw: str) -> tuple[str, int]:
    session_id, _, version = raw.rpartition(":")
    return session_id, int(version)


# Lua, run inside the scripts that write a new version (KEYS[tk] the timers set, KEYS[1]
# the session hash): drop the old version's timer, set the new one's ('' for none).
RESET_TIMER = """
local function reset_timer(tk, sid, old_version, new_version, deadline, at)
  redis.call('ZREM', KEYS[tk], sid .. ':' .. old_version)
  if deadline == '' then
    redis.call('HDEL', KEYS[1], 'turn_deadline')
  else
    redis.call('HSET', KEYS[1], 'turn_deadline', deadline)
    redis.call('ZADD', KEYS[tk], at, sid .. ':' .. new_version)
  end
end
"""

# KEYS: the timers set. ARGV: now, lease (seconds), most members. The due members, each
# pushed ``lease`` seconds on: claimed by this caller until then.
_CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, m in ipairs(due) do
  redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), m)
end
return due
"""


def claim_due(client: redis.Redis, key: str, now: float, lease: float, most: int = 100) -> list[str]:
    """The timers due at ``now``, claimed for ``lease`` seconds (members of :func:`timer_member`)."""
    if most <= 0:
        return []
    return list(client.register_script(_CLAIM)(keys=[key], args=[f"{now:.3f}", lease, most]))


def fire_key(timers_key: str, session_id: str, version: int) -> str:
    """The idempotent claim of the timer of ``session_id`` at ``version``."""
    return f"{timers_key}:fired:{timer_member(session_id, version)}"


def claim_fire(client: redis.Redis, timers_key: str, session_id: str, version: int, lease: float) -> bool:
    """True for the one task that may play this timer: ``SET NX`` with the lease as expiry
    (a task whose worker died gives it back when the lease has passed)."""
    return bool(client.set(fire_key(timers_key, session_id, version), "1", nx=True, ex=max(1, int(lease))))


def is_silent(human_seen: float | None, now: float, silent_seconds: float) -> bool:
    """True when a session's people were last seen (a move, a claim; ``human_seen``, None:
    the session has no human seat) more than ``silent_seconds`` ago (0: never silent).

    >>> is_silent(100.0, 800.0, 600.0), is_silent(100.0, 650.0, 600.0), is_silent(None, 1e9, 600.0)
    (True, False, False)
    """
    return human_seen is not None and silent_seconds > 0 and now - human_seen > silent_seconds


class Sweeper:
    """A worker's thread that sends a ``session_turn_timeout`` task for each timer due:
    ``send(session_id, version)``. Redis down: it tries again at the next sweep. The same
    sweep sends again the bot turns that waited too long (service/bot_turns.py: ``what``
    names the set in the thread's name and its log lines)."""

    def __init__(
        self,
        client: redis.Redis,
        key: str,
        send: Callable[[str, int], Any],
        period: float,
        lease: float,
        backlog: int = 100,
        queue: str | None = None,
        what: str = "turn timer",
    ) -> None:
        self.client, self.key, self.send = client, key, send
        self.period, self.lease = period, lease
        self.backlog, self.queue = backlog, queue
        self.what = what
        self.stopped = threading.Event()
        name = "majlis-" + what.replace(" ", "-") + "s"
        self.thread = threading.Thread(target=self.run, name=name, daemon=True)

    def start(self) -> Sweeper:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopped.set()

    def give_back(self, members: list[str]) -> None:
        """Members claimed but not sent (the broker unreachable: a failover, a restart) are
        due again at the next sweep, not a whole lease later (20 s: a webhook, a bot turn
        or a timer would wait that long for nothing once the broker is back). If Redis
        does not answer either, the lease runs out and they are claimed again."""
        try:
            self.client.zadd(self.key, {raw: time.time() + self.period for raw in members}, xx=True)
        except redis.RedisError as error:
            log.warning("%ss %s kept for their lease: %s", self.what, ", ".join(members), error)

    def run(self) -> None:
        while not self.stopped.is_set():
            self.sweep()
            self.stopped.wait(self.period)

    def sweep(self) -> int:
        """Send the timers due now, as many as the backlog has room for; how many were sent."""
        try:
            waiting = int(self.client.llen(self.queue)) if self.queue else 0
            due = claim_due(self.client, self.key, time.time(), self.lease, self.backlog - waiting)
        except redis.RedisError as error:
            log.warning("%ss: %s", self.what, error)
            return 0
        sent: list[str] = []
        for n, raw in enumerate(due):
            try:
                self.send(*parse_member(raw))
                sent.append(raw)
            except Exception as error:
                # the broker did not take it: neither would it take the rest now
                log.warning("%s %s not sent: %s", self.what, raw, error)
                self.give_back(due[n:])
                break
        if sent and self.what != "turn timer":
            log.warning("%ss sent again (no task had settled them in time): %s", self.what, ", ".join(sent))
        return len(sent)
