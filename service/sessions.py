"""Sessions: matches whose state the service keeps in Redis.

``session:{id}`` is a hash: game, players, version, state (full JSON), initial (the
state before the first move), one sha256 per seat token (``token:{seat}``) and one
seat spec per seat (``seat:{seat}``: human, or bot with a level), and for webhooks
``callback_url`` and ``webhook_secret`` (each applied move is then queued for delivery:
:mod:`service.webhooks`). ``session:{id}:log`` is the append-only move log (:func:`log_entry`): per move
the seat, the action (actions are public by the protocol), the version it made, the
seat to act after it, its time, and its events redacted for spectators (``public``: a
card that any seat could not see after the move is replaced by ``"hidden"``) and, only
for a seat that sees more than that, for that seat (``seen``). The session's state holds
the current deal only (docs/api.md, "State size"): the log is the match's whole record.
Spectator tokens are kept hashed too (``spectator:{sha256}``); a spectator sees what
every seat sees (``Game.public_view``), no hand at all.

Every version change (a move, a hand-over) is announced on the Redis pub/sub channel
``session:{id}:events`` (:func:`announce`): the event streams (service/events.py) then
read the log, which alone holds what each token may see; the message holds only the
version.

A move is applied with a compare-and-set Lua script: it writes the new state, bumps the
version, appends to the log and refreshes the idle TTL only if the version is still the
one the move was computed from. Two racing clients can never both apply; the loser gets
409. Handing a seat to a bot (leave) or back to its person (claim) bumps the version too,
and a bot's move for a seat that is not the asker's own is applied only if that seat is
still a bot seat, checked in the same script: a bot that searched while its seat was
claimed back can never play it.

Seats marked bot are played by the workers (``session_bot_turn``) until a human is to
act. A session with a ``turn_timer`` gives each person's move a deadline, written with
the version that starts the turn; when it runs out the workers play a bot's move for
that seat (``session_turn_timeout``, logged ``"by": "timer"``): :mod:`service.timers`.
A session whose human seats have all been silent (no move, no claim: ``human_seen``) for
``SILENT_SESSION_SECONDS`` stops playing itself: the next bot turn or timer ends it
(:func:`end_silent`: ``ended`` in the hash, the version bumped, no move accepted after).
A bot's search statistics list the legal plays of the seat it searched for, i.e. cards
of that seat's hidden hand: they go only to that seat's own token; any other token is
told the move as the log shows it to its seat."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import random
import secrets
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any, cast

import redis
from kombu.exceptions import OperationalError
from redis.typing import EncodableT, FieldT

from ai.bots import LEVEL_BUDGETS, Budget, decide
from engine import get_game
from engine.items import keyed_events
from engine.protocol import Game, IllegalAction
from service import deal_hold, quotas, webhooks
from service.bot_turns import RESET_BOT_TURN, claim_turn, due_at, forget, turn_member
from service.dispatch import new_seed
from service.domain_errors import (
    SESSION_MOVED_ON,
    QueueUnreachable,
    SeatClaimed,
    SessionEnded,
    StaleVersion,
    UnknownSession,
)
from service.jobs import job_store
from service.queues import bot_turn_bound, bot_turn_queue, search_queue
from service.redaction import hidden_from_seat, hidden_from_spectators, redact
from service.redis_conn import Keys, replicated
from service.runtime import Runtime
from service.timers import (
    RESET_TIMER,
    Deadline,
    TurnTimer,
    claim_fire,
    deadline_for,
    is_silent,
    timer_member,
)

log = logging.getLogger(__name__)

SPECTATOR_FIELD = "spectator:"

# KEYS: session hash, log list, counters hash, turn timers set, bot turns set, webhook
# outbox. ARGV: expected version, state json, log entry json, ttl, now, the seat that
# moves, the type ('bot', 'human') that seat must still have ('' for no check), the
# session id, the next turn's deadline json and time ('' for none), the seat's new spec
# ('' to keep it: a timed-out seat handed to a bot), when the bot to act next should have
# played ('' when no bot is to act: service/bot_turns.py), and, for a session with a
# callback, when its webhook should have been settled by ('' for none: the webhook
# outbox, service/webhooks.py). Returns {1, new version} | {0, current version} | {-1, 0} |
# {-2, current version} (-2: that seat changed hands).
_APPLY = (
    RESET_TIMER
    + RESET_BOT_TURN
    + """
local v = redis.call('HGET', KEYS[1], 'version')
if not v then return {-1, 0} end
if redis.call('HEXISTS', KEYS[1], 'ended') == 1 then return {-3, tonumber(v)} end
if tonumber(v) ~= tonumber(ARGV[1]) then return {0, tonumber(v)} end
if ARGV[7] ~= '' then
  local spec = redis.call('HGET', KEYS[1], 'seat:' .. ARGV[6])
  if not spec or cjson.decode(spec)['type'] ~= ARGV[7] then return {-2, tonumber(v)} end
end
local nv = tonumber(v) + 1
redis.call('HSET', KEYS[1], 'version', nv, 'state', ARGV[2], 'updated', ARGV[5])
if ARGV[11] ~= '' then redis.call('HSET', KEYS[1], 'seat:' .. ARGV[6], ARGV[11]) end
reset_timer(4, ARGV[8], v, nv, ARGV[9], ARGV[10])
reset_bot_turn(5, ARGV[8], v, nv, ARGV[12])
if ARGV[13] ~= '' then redis.call('ZADD', KEYS[6], ARGV[13], ARGV[8] .. ':' .. nv) end
redis.call('RPUSH', KEYS[2], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('HINCRBY', KEYS[3], 'session_moves', 1)
return {1, nv}
"""
)

# KEYS: session hash, log list, turn timers set, bot turns set. ARGV: expected version,
# seat, seat spec json, ttl, now, session id, the turn's deadline json and time ('' for
# none), the bot turn's time ('' for none: as in _APPLY). Hands the
# seat over and bumps the version (a bot turn searched from the old version can no
# longer apply), if the session is still at the expected version (the turn's deadline
# depends on whose turn it is). Returns as _APPLY: {1, new} | {0, current} | {-1, 0}.
_SET_SEAT = (
    RESET_TIMER
    + RESET_BOT_TURN
    + """
local v = redis.call('HGET', KEYS[1], 'version')
if not v then return {-1, 0} end
if redis.call('HEXISTS', KEYS[1], 'ended') == 1 then return {-3, tonumber(v)} end
if tonumber(v) ~= tonumber(ARGV[1]) then return {0, tonumber(v)} end
local nv = tonumber(v) + 1
redis.call('HSET', KEYS[1], 'seat:' .. ARGV[2], ARGV[3], 'version', nv, 'updated', ARGV[5])
reset_timer(3, ARGV[6], v, nv, ARGV[7], ARGV[8])
reset_bot_turn(4, ARGV[6], v, nv, ARGV[9])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return {1, nv}
"""
)
SET_SEAT_TRIES = 20  # moves landing between a hand-over's load and its write: load again

# KEYS: session hash, turn timers set, bot turns set. ARGV: expected version, the ended
# record json, the session id. Ends the session at that version (bumped, so no bot or
# timer task of the old version applies) and drops its timer and bot turn.
# Returns {1, new} | {0, current} | {-1, 0}.
_END = """
local v = redis.call('HGET', KEYS[1], 'version')
if not v then return {-1, 0} end
if tonumber(v) ~= tonumber(ARGV[1]) or redis.call('HEXISTS', KEYS[1], 'ended') == 1 then
  return {0, tonumber(v)}
end
local nv = tonumber(v) + 1
redis.call('HSET', KEYS[1], 'version', nv, 'ended', ARGV[2])
redis.call('HDEL', KEYS[1], 'turn_deadline')
redis.call('ZREM', KEYS[2], ARGV[3] .. ':' .. v)
redis.call('ZREM', KEYS[3], ARGV[3] .. ':' .. v)
return {1, nv}
"""


def waits_for_bot(game: Game, state: Any, seats: list[dict[str, Any]]) -> bool:
    """A bot seat is to act in ``state`` with ``seats`` and has a move to make (a bot
    turn is queued for it: :func:`schedule_bot`)."""
    to_act = game.to_act(state)
    return to_act is not None and seats[to_act].get("type") == "bot" and bool(game.legal_actions(state))


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class Session:
    id: str
    game: Game
    players: int
    version: int
    state: Any
    seats: list[dict[str, Any]]
    token_digests: list[str]
    callback_url: str | None = None
    spectator_digests: frozenset[str] = frozenset()
    turn_timer: TurnTimer | None = None
    turn_deadline: Deadline | None = None  # of the turn at this version, if timed
    human_seen: float | None = None  # a person's last move or claim (None: no human seat)
    ended: dict[str, Any] | None = None  # {reason, message, at}: the session plays no more

    def is_spectator(self, token: str) -> bool:
        return token_digest(token) in self.spectator_digests

    def seat_of(self, token: str) -> int | None:
        d = token_digest(token)
        found = None
        for seat, stored in enumerate(self.token_digests):
            if hmac.compare_digest(d, stored):
                found = seat
        return found

    def is_bot(self, seat: int | None) -> bool:
        return seat is not None and self.seats[seat]["type"] == "bot"

    def deadline_after(
        self, state: Any, seats: list[dict[str, Any]], now: float, running: Deadline | None = None
    ) -> Deadline | None:
        """The turn deadline of ``state`` with ``seats`` (see :func:`timers.deadline_for`)."""
        to_act = self.game.to_act(state)
        can_act = to_act is not None and bool(self.game.legal_actions(state))
        return deadline_for(self.turn_timer, to_act, can_act, seats, now, running)


def deadline_args(deadline: Deadline | None) -> list[str]:
    """The deadline json and time of the Lua scripts ('' and '' for none)."""
    if deadline is None:
        return ["", ""]
    return [json.dumps(deadline.to_json()), f"{deadline.at:.3f}"]


class SessionStore:
    """The sessions in ``runtime``'s Redis, and the settings their bots and timers play by
    (``SESSION_TTL``, ``SILENT_SESSION_SECONDS``, ``BOT_MAX_ITERATIONS``, ``SESSION_BOT_MS``,
    ``BOT_MAX_MS``, ``TURN_TIMER_LEASE``, ``ASYNC_ITERATIONS``, ``ASYNC_MS``): the runtime is
    given by whoever builds the store (the HTTP layer, a worker's task), never looked up."""

    def __init__(self, runtime: Runtime) -> None:
        client = runtime.redis()
        self.runtime = runtime
        self.r = client
        self.keys = runtime.keys
        self.ttl = int(runtime.config["SESSION_TTL"])
        self.settings: Mapping[str, Any] = runtime.config
        self._apply = client.register_script(_APPLY)
        self._set_seat = client.register_script(_SET_SEAT)
        self._end = client.register_script(_END)

    def bot_turn_at(self, game: Game, state: Any, seats: list[dict[str, Any]], now: float) -> str:
        """The bot turns set's score of a version with ``state`` and ``seats`` ('' when no
        bot is to act): service/bot_turns.py."""
        grace = float(self.settings.get("BOT_TURN_GRACE", 5.0))
        return due_at(waits_for_bot(game, state, seats), now, grace)

    def create(
        self,
        game: Game,
        state: Any,
        seats: list[dict[str, Any]],
        webhook: dict[str, str] | None = None,
        timer: TurnTimer | None = None,
    ) -> tuple[str, list[str]]:
        """A new session; ``webhook``: its ``callback_url`` and ``webhook_secret``, if any;
        ``timer``: its turn timer (the first turn's runs from now)."""
        session_id = uuid.uuid4().hex
        players = game.players(state)
        tokens = [secrets.token_urlsafe(32) for _ in range(players)]
        state_json = json.dumps(game.to_json(state))
        record: dict[str, Any] = {
            "game": game.id,
            "players": players,
            "version": 0,
            "state": state_json,
            "initial": state_json,
            "created": f"{time.time():.3f}",
        }
        if any(spec.get("type", "human") == "human" for spec in seats):
            record["human_seen"] = record["created"]
        for seat in range(players):
            record[f"token:{seat}"] = token_digest(tokens[seat])
            record[f"seat:{seat}"] = json.dumps(seats[seat])
        record.update(webhook or {})
        key = self.keys.session(session_id)
        pipe = self.r.pipeline()  # a transaction: no timer without its session
        if timer is not None:
            record["turn_timer"] = json.dumps(timer.to_json())
            can_act = bool(game.legal_actions(state))
            deadline = deadline_for(timer, game.to_act(state), can_act, seats, time.time())
            if deadline is not None:
                record["turn_deadline"] = json.dumps(deadline.to_json())
                pipe.zadd(self.keys.turn_timers(), {timer_member(session_id, 0): deadline.at})
        bot_at = self.bot_turn_at(game, state, seats, time.time())
        if bot_at:  # the first seat to act is a bot's
            pipe.zadd(self.keys.bot_turns(), {turn_member(session_id, 0): bot_at})
        pipe.hset(key, mapping=cast("dict[FieldT, EncodableT]", record))
        pipe.expire(key, self.ttl)
        pipe.execute()
        return session_id, tokens

    def load(self, session_id: str) -> Session:
        raw = self.r.hgetall(self.keys.session(session_id)) if len(session_id) <= 64 else {}
        return self._session(session_id, cast("dict[str, str]", raw))  # decode_responses: str

    def _session(self, session_id: str, raw: dict[str, str]) -> Session:
        if not raw or "state" not in raw:
            raise UnknownSession(session_id)
        game = get_game(raw["game"])
        players = int(raw["players"])
        return Session(
            id=session_id,
            game=game,
            players=players,
            version=int(raw["version"]),
            state=game.from_json(json.loads(raw["state"])),
            seats=[json.loads(raw[f"seat:{s}"]) for s in range(players)],
            token_digests=[raw[f"token:{s}"] for s in range(players)],
            spectator_digests=frozenset(
                k.removeprefix(SPECTATOR_FIELD) for k in raw if k.startswith(SPECTATOR_FIELD)
            ),
            callback_url=raw.get("callback_url"),
            turn_timer=TurnTimer.from_json(json.loads(raw["turn_timer"])) if "turn_timer" in raw else None,
            turn_deadline=(
                Deadline.from_json(json.loads(raw["turn_deadline"])) if "turn_deadline" in raw else None
            ),
            human_seen=float(raw["human_seen"]) if "human_seen" in raw else None,
            ended=json.loads(raw["ended"]) if "ended" in raw else None,
        )

    def add_spectator(self, session: Session) -> str:
        """A new spectator token of ``session`` (kept hashed, as seat tokens are)."""
        token = secrets.token_urlsafe(32)
        key = self.keys.session(session.id)
        pipe = self.r.pipeline()
        pipe.hset(key, SPECTATOR_FIELD + token_digest(token), 1)
        pipe.expire(key, self.ttl)  # a late expiry leaves no key without a TTL
        pipe.execute()
        return token

    def initial_state(self, session: Session) -> Any:
        raw = cast(
            "str", self.r.hget(self.keys.session(session.id), "initial")
        )  # kept as long as the session
        return session.game.from_json(json.loads(raw))

    def set_seat(self, session: Session, seat: int, spec: dict[str, Any]) -> Session:
        """Hand ``seat`` to a bot or back to its person, bumping the version; the session
        just after (a move may have landed since ``session`` was loaded: the bot to act
        must be scheduled from this one, and the turn's deadline depends on it)."""
        if session.ended is not None:
            raise SessionEnded(session.id, session.version)
        for _ in range(SET_SEAT_TRIES):
            seats = [dict(s) for s in session.seats]
            seats[seat] = spec
            now = time.time()
            deadline = session.deadline_after(session.state, seats, now, session.turn_deadline)
            ok, version = self._set_seat(
                keys=[
                    self.keys.session(session.id),
                    self.keys.session_log(session.id),
                    self.keys.turn_timers(),
                    self.keys.bot_turns(),
                ],
                args=[
                    session.version,
                    seat,
                    json.dumps(spec),
                    self.ttl,
                    f"{now:.3f}",
                    session.id,
                    *deadline_args(deadline),
                    self.bot_turn_at(session.game, session.state, seats, now),
                ],
            )
            if ok == -1:
                raise UnknownSession(session.id)
            if ok == -3:
                raise SessionEnded(session.id, int(version))
            if ok == 1:
                if spec.get("type") == "human":
                    self.seen_human(session.id, now)
                after = replace(session, version=int(version), seats=seats, turn_deadline=deadline)
                announce(self, after.id, after.version)
                return after
            tried = session.version
            session = self.load(session.id)  # a move landed since: hand over from there
        raise StaleVersion(session.version, tried)

    def apply(
        self,
        session: Session,
        seat: int,
        action_json: Any,
        expected_version: int,
        by: str = "human",
        must_be_bot: bool = False,
        hand_over: dict[str, Any] | None = None,
    ) -> tuple[Any, list[dict[str, Any]], int]:
        """Check and apply ``action_json`` for ``seat``; (new state, events, new version).
        422 for an illegal move, 409 when the session moved on meanwhile or (with
        ``must_be_bot``) when ``seat`` is no longer a bot seat. ``by``: ``human``,
        ``bot``, or ``timer`` (a bot's move for a person whose time ran out: the seat must
        still be a person's); ``hand_over``: the seat's new spec, written with the move.
        The move starts the next turn's clock, if the session has a timer."""
        check_open(session, expected_version)
        game = session.game
        action_out, nxt, events = play_move(game, session.state, seat, action_json, by)
        seats = [dict(s) for s in session.seats]
        if hand_over is not None:
            seats[seat] = hand_over
        now = time.time()
        deadline = session.deadline_after(nxt, seats, now)
        entry = log_entry(game, nxt, seat, by, action_out, expected_version + 1, events, deadline, now)
        must_be = "bot" if must_be_bot else "human" if by == "timer" else ""
        bot_at = self.bot_turn_at(game, nxt, seats, now)
        outbox_at = ""
        if session.callback_url:  # settled by its delivery, else sent again (webhooks, "Outbox")
            outbox_at = f"{now + float(self.settings.get('WEBHOOK_OUTBOX_GRACE', 15.0)):.3f}"
        ok, version = self._write_move(
            session.id, game, nxt, entry, now, must_be, deadline, hand_over, bot_at, outbox_at
        )
        check_written(ok, version, session.id, seat, expected_version, must_be)
        replicated(self.r)  # issue 35: on a replica before it is answered or announced (WAIT)
        session.state, session.version = nxt, version
        session.seats, session.turn_deadline = seats, deadline
        if by == "human":
            self.seen_human(session.id, now)
        announce(self, session.id, version)
        queue_move_webhook(self.runtime, session, entry)
        return nxt, events, version

    def _write_move(
        self,
        session_id: str,
        game: Game,
        after: Any,
        entry: dict[str, Any],
        now: float,
        must_be: str,
        deadline: Deadline | None,
        hand_over: dict[str, Any] | None,
        bot_at: str = "",
        outbox_at: str = "",
    ) -> tuple[int, int]:
        """The atomic write of the move ``entry`` (``_APPLY``), if the session is still at
        the version before it: (outcome, version) as the script returns them. ``bot_at``:
        the next bot turn's score ('' for none: :meth:`bot_turn_at`); ``outbox_at``: the
        webhook outbox's score ('' for a session without a callback)."""
        ok, version = self._apply(
            keys=[
                self.keys.session(session_id),
                self.keys.session_log(session_id),
                self.keys.counters(),
                self.keys.turn_timers(),
                self.keys.bot_turns(),
                self.keys.webhook_outbox(),
            ],
            args=[
                entry["version"] - 1,  # the version the move was made for
                compact_json(game.to_json(after)),
                compact_json(entry),
                self.ttl,
                f"{now:.3f}",
                entry["seat"],
                must_be,
                session_id,
                *deadline_args(deadline),
                "" if hand_over is None else json.dumps(hand_over),
                bot_at,
                outbox_at,
            ],
        )
        return int(ok), int(version)

    def seen_human(self, session_id: str, now: float) -> None:
        """A person moved or claimed a seat: the session is not silent (see timers.is_silent)."""
        try:
            self.r.hset(self.keys.session(session_id), "human_seen", f"{now:.3f}")
        except redis.RedisError:  # the move stands; at worst the silence is counted from before
            log.warning("could not note a person's move in session %s", session_id)

    def end(self, session: Session, reason: str, message: str) -> bool:
        """End ``session`` at its version with ``reason``: no move, bot or timer after it.
        False if it moved on (or ended) meanwhile."""
        record = {"reason": reason, "message": message, "at": round(time.time(), 3)}
        ok, version = self._end(
            keys=[self.keys.session(session.id), self.keys.turn_timers(), self.keys.bot_turns()],
            args=[session.version, json.dumps(record), session.id],
        )
        if ok != 1:
            return False
        session.version, session.ended, session.turn_deadline = int(version), record, None
        announce(self, session.id, int(version))
        return True

    def drop_timer(self, session_id: str, version: int) -> None:
        """Forget the timer of ``session_id`` at ``version`` (the session moved on, or expired)."""
        self.r.zrem(self.keys.turn_timers(), timer_member(session_id, version))

    def log(self, session: Session, seat: int | None, start: int = 0) -> list[dict[str, Any]]:
        """The log from entry ``start`` (0: the first) as ``seat`` may see it (None: a
        spectator)."""
        raws = self.r.lrange(self.keys.session_log(session.id), start, -1)
        return [seen_by(json.loads(raw), n, seat) for n, raw in enumerate(raws, start + 1)]


def check_open(session: Session, expected_version: int) -> None:
    """A move may be tried: the session has not ended and is at ``expected_version``."""
    if session.ended is not None:
        raise SessionEnded(session.id, session.version)
    if expected_version != session.version:
        raise StaleVersion(session.version, expected_version)


def play_move(
    game: Game, state: Any, seat: int, action_json: Any, by: str
) -> tuple[Any, Any, list[dict[str, Any]]]:
    """(the action as JSON, the state after it, its events): the engine's answer. An
    illegal move names the seat to act and, to a person on their own turn, their legal
    actions; never another seat's (they name its cards)."""
    action = game.parse_action(state, action_json)
    try:
        nxt, events = game.apply(state, seat, action)
    except IllegalAction as error:
        to_act = game.to_act(state)
        error.details.setdefault("to_act", to_act)
        if by == "human" and to_act == seat:
            error.details.setdefault(
                "legal_actions", [game.action_to_json(state, a) for a in game.legal_actions(state)]
            )
        raise
    return game.action_to_json(state, action), nxt, keyed_events(game.id, events)


def check_written(
    ok: int, version: int, session_id: str, seat: int, expected_version: int, must_be: str
) -> None:
    """Raise the refusal the atomic write answered (``ok`` as ``_APPLY`` returns it); nothing
    when the move was written."""
    if ok == -1:
        raise UnknownSession(session_id)
    if ok == -3:
        raise SessionEnded(session_id, version)
    if ok == 0:
        raise StaleVersion(version, expected_version)
    if ok == -2 and must_be == "human":
        raise StaleVersion(version, expected_version)  # every hand-over moves the version
    if ok == -2:
        raise SeatClaimed(seat, version)


def queue_move_webhook(runtime: Runtime, session: Session, entry: dict[str, Any]) -> None:
    """Webhooks: the move as a spectator sees it, POSTed by the workers."""
    if not session.callback_url:
        return
    body = webhooks.public_body(session.id, entry)
    if session.turn_timer is not None:
        body["turn_deadline"] = entry.get("turn_deadline")
    webhooks.queue_webhooks(runtime, session.id, session.callback_url, body)


def compact_json(value: Any) -> str:
    """JSON without the spaces after separators (what Redis keeps: states and log entries)."""
    return json.dumps(value, separators=(",", ":"))


def log_entry(
    game: Game,
    after: Any,
    seat: int,
    by: str,
    action: Any,
    version: int,
    events: list[dict[str, Any]],
    deadline: Deadline | None,
    now: float,
) -> dict[str, Any]:
    """The log entry of a move: the seat, who played it, the action, the version it made,
    the seat to act after it, its time (``at``, ms since the epoch), its events as a
    spectator sees them (``public``: every card some seat could not see after the move
    hidden) and, under ``seen``, for each seat that sees more than a spectator, those of
    its events that differ, by index (usually none: most moves show every seat the same).
    ``turn_deadline`` only when a turn timer runs. Nothing the log's readers can work out again is kept."""
    public = redact(events, hidden_from_spectators(game, after))
    entry: dict[str, Any] = {
        "seat": seat,
        "by": by,
        "action": action,
        "version": version,
        "to_act": game.to_act(after),
        "at": round(now * 1000),
        "public": public,
    }
    seen = {}
    for s in range(game.players(after)):
        own = redact(events, hidden_from_seat(game, after, s))
        more = {
            str(i): event for i, (event, shown) in enumerate(zip(own, public, strict=True)) if event != shown
        }
        if more:
            seen[str(s)] = more
    if seen:
        entry["seen"] = seen
    if deadline is not None:
        entry["turn_deadline"] = deadline.to_json()
    return entry


def seen_by(entry: dict[str, Any], n: int, seat: int | None) -> dict[str, Any]:
    """Log entry number ``n`` as ``seat`` (None: a spectator) may see it. Entries written
    before the log was made compact (``events``: one list per seat) are read too."""
    public = entry.get("public", [])
    if seat is None:
        events = public
    elif "events" in entry:
        events = entry["events"][seat]
    else:
        more = entry.get("seen", {}).get(str(seat), {})
        events = [more.get(str(i), event) for i, event in enumerate(public)]
    return {
        "n": n,
        "seat": entry["seat"],
        "by": entry["by"],
        "action": entry["action"],
        "version": entry["version"],
        "to_act": entry.get("to_act"),
        "turn_deadline": entry.get("turn_deadline"),
        "events": events,
    }


def view_of(session: Session, seat: int | None) -> dict[str, Any]:
    """The view of ``seat``; a spectator's (None) is the public view."""
    if seat is None:
        return session.game.public_view(session.state)
    return session.game.view(session.state, seat)


def events_channel(keys: Keys, session_id: str) -> str:
    return keys.session(session_id) + ":events"


def announce(sessions: SessionStore, session_id: str, version: int) -> None:
    """Tell the event streams that ``session_id`` is at ``version`` now (a move or a
    hand-over). Only the version: each stream reads the log as its token may see it.
    A lost message only delays a stream until its next poll."""
    try:
        sessions.r.publish(events_channel(sessions.keys, session_id), version)
    except redis.RedisError:
        log.warning("could not announce version %s of session %s", version, session_id)


def end_silent(sessions: SessionStore, session: Session) -> bool:
    """End ``session`` if its people have all been silent longer than the setting; True if
    it is ended (now or before): it must not play itself on."""
    if session.ended is not None:
        return True
    silent = float(sessions.settings["SILENT_SESSION_SECONDS"])
    if not is_silent(session.human_seen, time.time(), silent):
        return False
    message = f"every human seat was silent for more than {silent:g} s: the session stopped playing itself"
    if sessions.end(session, "abandoned", message):
        log.info("session %s ended at version %s: abandoned (%s)", session.id, session.version, message)
        release_quota(sessions, session.id)
    return True


def release_quota(sessions: SessionStore, session_id: str) -> None:
    """An ended session no longer counts against its client's live and timed-session
    quotas (service/quotas.py)."""
    try:
        quotas.session_ended(sessions.r, sessions.keys, session_id)
    except redis.RedisError:
        log.warning("could not release the quota of ended session %s", session_id)


def public_events(session: Session, events: list[dict[str, Any]], seat: int | None) -> list[dict[str, Any]]:
    """``events`` as ``seat`` may see them (None: a spectator)."""
    return redact(events, hidden_from_seat(session.game, session.state, seat))


@dataclass(frozen=True)
class BotOrder:
    """A bot asked to play ``seat`` from ``version`` at ``level`` (``budget`` replaces the
    level's), by the token of seat ``asker``; ``asker`` None is the session's own turn of
    a bot seat. ``job``: the job that reports the move. Plain JSON for a task."""

    seat: int
    version: int
    level: str
    budget: Budget | None
    seed: int
    asker: int | None = None
    job: str | None = None

    @property
    def for_own_seat(self) -> bool:
        return self.asker == self.seat

    def to_json(self) -> dict[str, Any]:
        return asdict(self)  # the budget too, as {iterations, ms, cpu}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BotOrder:
        budget = data.get("budget")
        return cls(**dict(data, budget=None if budget is None else Budget(**budget)))


def schedule_bot(sessions: SessionStore, session: Session) -> bool:
    """Queue the bot seat to act, if any (the worker plays it). True if queued."""
    if not waits_for_bot(session.game, session.state, session.seats):
        return False
    try:
        send_bot_turn(sessions, session)
    except OperationalError:
        log.warning("could not queue the bot turn of session %s", session.id)
        return False
    return True


def level_to_act(session: Session) -> str:
    """The level of the seat to act in ``session`` (a person's seat: its timer bot's
    default, normal)."""
    seat = session.game.to_act(session.state)
    return session.seats[seat].get("level", "normal") if seat is not None else "normal"


def bot_turn_queue_of(sessions: SessionStore, session_id: str) -> str:
    """The queue of the bot turn of ``session_id`` now (the sweep of lost bot turns knows
    only the session and version); an expired session's: the interactive one (its task
    finds it gone)."""
    try:
        return bot_turn_queue(level_to_act(sessions.load(session_id)))
    except UnknownSession:
        return bot_turn_queue("normal")


def send_bot_turn(sessions: SessionStore, session: Session, countdown: float | None = None) -> None:
    """Queue the turn of the bot seat to act in ``session`` on its level's pool
    (:func:`service.queues.bot_turn_queue`), ``countdown`` seconds on if given."""
    options: dict[str, Any] = {"queue": bot_turn_queue(level_to_act(session))}
    if countdown is not None:
        options["countdown"] = countdown
    sessions.runtime.send_task("majlis.session_bot_turn", (session.id, session.version), **options)


def bot_decision(
    session: Session,
    seat: int,
    level: str,
    budget: Budget | None,
    seed: int,
    max_ms: float,
    max_iterations: int,
    should_stop: Callable[[], bool] | None = None,
) -> tuple[Any, dict[str, Any]]:
    """(JSON action, stats) of a bot playing ``seat`` from its view only."""
    game = session.game
    view = game.view(session.state, seat)
    decision = decide(
        game,
        view,
        level=level,
        budget=budget,
        seed=seed,
        max_iterations=max_iterations,
        max_ms=max_ms,
        should_stop=should_stop,
    )
    world = game.sampler(view)(random.Random(0))
    return game.action_to_json(world, decision.action), decision.stats


def play_bot(
    sessions: SessionStore,
    session: Session,
    order: BotOrder,
    max_ms: float,
    should_stop: Callable[[], bool] | None = None,
    by: str = "bot",
    hand_over: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A bot plays ``order.seat`` and its move is applied; what the asker is told.

    The move applies only if the session is still at ``order.version`` and, unless the
    asker plays that seat itself, the seat is still a bot seat (``by`` "timer": still a
    person's, whose time ran out): both are checked again in the atomic write after the
    search (409 otherwise). The asker gets the move as the log shows it to its seat, and
    the search statistics only for its own seat. ``hand_over``: see SessionStore.apply."""
    if session.version != order.version:
        raise StaleVersion(session.version, order.version)
    max_iterations = sessions.settings["BOT_MAX_ITERATIONS"]
    action, stats = bot_decision(
        session, order.seat, order.level, order.budget, order.seed, max_ms, max_iterations, should_stop
    )
    _state, events, version = sessions.apply(
        session,
        order.seat,
        action,
        order.version,
        by=by,
        must_be_bot=by == "bot" and not order.for_own_seat,
        hand_over=hand_over,
    )
    answer: dict[str, Any] = {"seat": order.seat, "version": version, "action": action}
    if order.asker is not None:
        answer["events"] = public_events(session, events, order.asker)
    if order.for_own_seat:
        answer["stats"] = stats
    return answer


def start_bot_job(sessions: SessionStore, session: Session, order: BotOrder) -> dict[str, Any]:
    """Queue ``order`` on the workers as a job (the store's settings size the search that
    goes to the interactive pool); the job reference ({id, status}: the HTTP layer adds
    its URL and answers 202). ``GET /v1/jobs/{id}`` then gives what :func:`play_bot`
    answers, or why it failed."""
    jobs = job_store(sessions.runtime)
    job_id = uuid.uuid4().hex
    order = replace(order, job=job_id)
    jobs.create(job_id, {"session": session.id, **order.to_json()}, 1)
    try:
        # a search as long as a stateless job's goes on their queue, not ahead of the
        # quick turns of every session's bot seats; one a request could have searched
        # inline goes to the interactive pool
        sessions.runtime.send_task(
            "majlis.session_bot_turn",
            (session.id, order.version, order.to_json()),
            task_id=job_id,
            queue=search_queue(
                {"level": order.level, "budget": order.to_json()["budget"]}, sessions.settings
            ),
        )
    except OperationalError as error:
        jobs.fail(job_id, "the job queue is unreachable")
        raise QueueUnreachable(f"the job queue (Redis) is unreachable: {error}") from error
    return {"id": job_id, "status": "pending"}


def bot_turn(sessions: SessionStore, session_id: str, version: int, holder: str | None = None) -> None:
    """Worker side: the session's own turn of the bot seat to act at ``version`` (nothing
    if the session moved on or that seat was claimed back, or if another task holds this
    turn's one-time claim: service/bot_turns.py); then queue the next bot. ``holder``: the
    task's id (None: one of its own)."""
    try:
        session = sessions.load(session_id)
    except UnknownSession:
        forget(sessions.r, sessions.keys.bot_turns(), session_id, version)
        return  # expired
    seat = session.game.to_act(session.state)
    if session.version != version or seat is None or not session.is_bot(seat):
        return  # whatever changed the session queued what comes next
    if end_silent(sessions, session):
        return
    if deal_hold.defer_bot(sessions, session, lambda left: send_bot_turn(sessions, session, countdown=left)):
        return  # the table page shows a deal's summary: this turn is queued again
    lease = float(sessions.settings.get("BOT_TURN_LEASE", 20.0))
    turns = sessions.keys.bot_turns()
    if not claim_turn(sessions.r, turns, session_id, version, holder or uuid.uuid4().hex, lease):
        log.info("bot turn %s:%s already taken: not played again", session_id, version)
        return
    level = session.seats[seat].get("level", "normal")
    order = BotOrder(seat, version, level, LEVEL_BUDGETS.get(level), new_seed())
    try:
        play_bot(sessions, session, order, bot_turn_bound(level, sessions.settings))
    except SESSION_MOVED_ON:
        return  # moved on, or claimed back, while the bot searched
    schedule_bot(sessions, session)


def bot_job_turn(
    sessions: SessionStore, session_id: str, order: BotOrder, should_stop: Callable[[], bool]
) -> dict[str, Any]:
    """Worker side of a bot-move job: play ``order``, queue the next bot; the job's answer.
    Raises UnknownSession (expired), one of SESSION_MOVED_ON (moved on, claimed back)
    or an engine error."""
    session = sessions.load(session_id)
    answer = play_bot(sessions, session, order, float(sessions.settings["BOT_MAX_MS"]), should_stop)
    schedule_bot(sessions, session)
    return answer


def timeout_turn(sessions: SessionStore, session_id: str, version: int) -> None:
    """Worker side: the turn timer of ``session_id`` set at ``version`` ran out. If the
    session is still at that version, a bot (the timer's level) plays the seat's move,
    logged ``"by": "timer"``, and with ``on_timeout`` "seat" keeps the seat until its
    person claims it back; then the next bot is queued. Otherwise the session moved on
    (a move in time, a hand-over) and the timer is dropped."""
    try:
        session = sessions.load(session_id)
    except UnknownSession:  # expired
        sessions.drop_timer(session_id, version)
        return
    timer, deadline = session.turn_timer, session.turn_deadline
    if session.version != version or timer is None or deadline is None:
        sessions.drop_timer(session_id, version)  # a late timer: the version set its own
        return
    lease = float(sessions.settings["TURN_TIMER_LEASE"])
    if not claim_fire(sessions.r, sessions.keys.turn_timers(), session_id, version, lease):
        log.info("turn timer %s:%s already taken: not played again", session_id, version)
        return
    if end_silent(sessions, session):
        return
    log.info("turn timer %s:%s ran out: the timer bot plays seat %s", session_id, version, deadline.seat)
    order = BotOrder(deadline.seat, version, timer.level, LEVEL_BUDGETS.get(timer.level), new_seed())
    hand_over = timer.bot_seat() if timer.on_timeout == "seat" else None
    try:
        # the timers' pool plays every level within the interactive bound: a timer's
        # move stands in for a person who is away, and must not hold that pool
        max_ms = bot_turn_bound("normal", sessions.settings)
        play_bot(sessions, session, order, max_ms, by="timer", hand_over=hand_over)
    except (UnknownSession, *SESSION_MOVED_ON):  # expired, or moved on while the bot searched
        sessions.drop_timer(session_id, version)
        return
    schedule_bot(sessions, session)
