"""Bot turns kept in Redis, so that a lost task never leaves a session waiting (issue 35).

A session's bot seat is played by a ``session_bot_turn`` task sent after the version
that leaves it to act is written (:func:`service.sessions.schedule_bot`). The task is a
message on the broker: if it is lost (the Redis primary killed after it replicated the
move, which the move's ``WAIT`` guarantees, but before it replicated the task's push; a
queue lost with a Redis restarted empty), nothing would ever play that turn. So the
atomic write of every version (a move, a hand-over, the create, the end:
:mod:`service.sessions`) also keeps one sorted set up to date (``Keys.bot_turns``): the
member ``<session id>:<version>`` while that version waits for a bot, scored by the time
it should have been played by (the write's time plus ``BOT_TURN_GRACE``); the next
version's write removes it. Being in the move's own script, it is as durable as the move.

The main process of each interactive worker (the one that sweeps the turn timers) sweeps
this set every ``BOT_TURN_SWEEP`` seconds with the same :class:`service.timers.Sweeper`:
a member past its time is claimed (its score pushed ``BOT_TURN_LEASE`` seconds on, so one
worker of many sends it) and its bot turn is sent again, no more than the interactive
queue has room for (``BOT_TURN_BACKLOG``: under a backlog the turns wait in Redis, and
a queue that is long is not lost). The member stays until the turn is played, so a
sent-again task that is lost too is sent again a lease later.

Sent again, a turn may run twice (the first task was only slow, not lost). Before it
searches, a bot turn takes the one-time claim of its version (:func:`claim_turn`:
``SET NX`` of the claim key, held by the task's id, with the lease as expiry): a second
task for the same version finds it held by another id and does nothing, so it costs no
search; the same task delivered again (its worker killed mid-search) holds the claim
already and plays. Whatever happens, the move's compare-and-set on the version allows one
move per version: never two bot moves for one turn."""

from __future__ import annotations

import time

import redis

# Lua, run inside the scripts that write a new version (KEYS[bk] the bot turns set): drop
# the old version's member, add the new one's when a bot is to act ('' for none).
RESET_BOT_TURN = """
local function reset_bot_turn(bk, sid, old_version, new_version, at)
  redis.call('ZREM', KEYS[bk], sid .. ':' .. old_version)
  if at ~= '' then redis.call('ZADD', KEYS[bk], at, sid .. ':' .. new_version) end
end
"""

# KEYS: the claim key, the bot turns set. ARGV: holder, lease (s), the member, its new
# score. 1 when the claim is (now, or already) this holder's; the member pushed on.
_CLAIM_TURN = """
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[2]))
redis.call('ZADD', KEYS[2], 'XX', ARGV[4], ARGV[3])
return 1
"""


def turn_member(session_id: str, version: int) -> str:
    """The sorted-set member of the bot turn of ``session_id`` at ``version``."""
    return f"{session_id}:{version}"


def due_at(waiting: bool, now: float, grace: float) -> str:
    """The member's score as the scripts take it: by when the turn should have been played
    ('' when no bot waits at this version)."""
    return f"{now + grace:.3f}" if waiting else ""


def claim_key(turns_key: str, session_id: str, version: int) -> str:
    """The one-time claim of the bot turn of ``session_id`` at ``version``."""
    return f"{turns_key}:claimed:{turn_member(session_id, version)}"


def claim_turn(
    client: redis.Redis, turns_key: str, session_id: str, version: int, holder: str, lease: float
) -> bool:
    """True for the one task that may play this turn (``holder``: the task's id; the same
    task delivered again holds it already). The member's score is pushed ``lease`` seconds
    on: a turn being played is not sent again meanwhile."""
    script = client.register_script(_CLAIM_TURN)
    member = turn_member(session_id, version)
    args: list[str | int] = [holder, max(1, int(lease)), member, f"{time.time() + lease:.3f}"]
    return bool(script(keys=[claim_key(turns_key, session_id, version), turns_key], args=args))


def postpone(client: redis.Redis, turns_key: str, session_id: str, version: int, at: float) -> None:
    """The turn is deliberately not played before ``at`` (the deal-end hold): no sweep
    sends it before then."""
    client.zadd(turns_key, {turn_member(session_id, version): f"{at:.3f}"}, xx=True)


def forget(client: redis.Redis, turns_key: str, session_id: str, version: int) -> None:
    """No bot waits at that version any more (the session expired, or moved on)."""
    client.zrem(turns_key, turn_member(session_id, version))
