"""Sessions: matches whose state the service keeps in Redis.

``session:{id}`` is a hash: game, players, version, state (full JSON), initial (the
state before the first move), one sha256 per seat token (``token:{seat}``) and one
seat spec per seat (``seat:{seat}``: human, or bot with a level). ``session:{id}:log``
is the append-only move log: per move the seat, the action (actions are public by the
protocol), the version it made, and its events redacted once per seat (a card that
seat could not see after the move is replaced by ``"hidden"``).

A move is applied with a compare-and-set Lua script: it writes the new state, bumps the
version, appends to the log and refreshes the idle TTL only if the version is still the
one the move was computed from. Two racing clients can never both apply; the loser gets
409. Seats marked bot are played by the workers (``session_bot_turn``) until a human is
to act."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import random
import secrets
import time
import uuid
from dataclasses import dataclass
from typing import Any

import redis
from flask import current_app
from kombu.exceptions import OperationalError

from ai.bots import LEVEL_BUDGETS, Budget, decide
from engine import get_game
from engine.protocol import Game, IllegalAction
from service.errors import ApiError
from service.redis_conn import Keys, get_redis, keys

log = logging.getLogger(__name__)

HIDDEN = "hidden"

# KEYS: session hash, log list, counters hash. ARGV: expected version, state json,
# log entry json, ttl. Returns {1, new version} | {0, current version} | {-1, 0}.
_APPLY = """
local v = redis.call('HGET', KEYS[1], 'version')
if not v then return {-1, 0} end
if tonumber(v) ~= tonumber(ARGV[1]) then return {0, tonumber(v)} end
local nv = tonumber(v) + 1
redis.call('HSET', KEYS[1], 'version', nv, 'state', ARGV[2], 'updated', ARGV[5])
redis.call('RPUSH', KEYS[2], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('HINCRBY', KEYS[3], 'session_moves', 1)
return {1, nv}
"""


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def redact(value: Any, hidden: set[str]) -> Any:
    """``value`` with every string that is a hidden card code replaced by ``"hidden"``."""
    if isinstance(value, str):
        return HIDDEN if value in hidden else value
    if isinstance(value, list):
        return [redact(v, hidden) for v in value]
    if isinstance(value, dict):
        return {k: redact(v, hidden) for k, v in value.items()}
    return value


@dataclass
class Session:
    id: str
    game: Game
    players: int
    version: int
    state: Any
    seats: list[dict[str, Any]]
    token_digests: list[str]

    def seat_of(self, token: str) -> int | None:
        d = token_digest(token)
        found = None
        for seat, stored in enumerate(self.token_digests):
            if hmac.compare_digest(d, stored):
                found = seat
        return found

    def is_bot(self, seat: int | None) -> bool:
        return seat is not None and self.seats[seat]["type"] == "bot"


class SessionStore:
    def __init__(self, client: redis.Redis, keys: Keys, ttl: int) -> None:
        self.r = client
        self.keys = keys
        self.ttl = ttl
        self._apply = client.register_script(_APPLY)

    def create(self, game: Game, state: Any, seats: list[dict[str, Any]]) -> tuple[str, list[str]]:
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
        for seat in range(players):
            record[f"token:{seat}"] = token_digest(tokens[seat])
            record[f"seat:{seat}"] = json.dumps(seats[seat])
        key = self.keys.session(session_id)
        pipe = self.r.pipeline()
        pipe.hset(key, mapping=record)
        pipe.expire(key, self.ttl)
        pipe.execute()
        return session_id, tokens

    def load(self, session_id: str) -> Session:
        raw = self.r.hgetall(self.keys.session(session_id)) if len(session_id) <= 64 else {}
        if not raw or "state" not in raw:
            raise ApiError(404, "unknown_session", f"no session {session_id!r} (unknown, or expired)")
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
        )

    def initial_state(self, session: Session) -> Any:
        raw = self.r.hget(self.keys.session(session.id), "initial")
        return session.game.from_json(json.loads(raw))

    def set_seat(self, session: Session, seat: int, spec: dict[str, Any]) -> None:
        key = self.keys.session(session.id)
        pipe = self.r.pipeline()
        pipe.hset(key, f"seat:{seat}", json.dumps(spec))
        pipe.expire(key, self.ttl)
        pipe.execute()
        session.seats[seat] = spec

    def apply(
        self, session: Session, seat: int, action_json: Any, expected_version: int, by: str = "human"
    ) -> tuple[Any, list[dict[str, Any]], int]:
        """Check and apply ``action_json`` for ``seat``; (new state, events, new version).
        422 for an illegal move, 409 when the session moved on meanwhile."""
        game = session.game
        if expected_version != session.version:
            raise stale(session.version, expected_version)
        state = session.state
        action = game.parse_action(state, action_json)
        try:
            nxt, events = game.apply(state, seat, action)
        except IllegalAction as error:
            error.details.setdefault("to_act", game.to_act(state))
            error.details.setdefault(
                "legal_actions", [game.action_to_json(state, a) for a in game.legal_actions(state)]
            )
            raise
        action_out = game.action_to_json(state, action)
        entry = {
            "seat": seat,
            "by": by,
            "action": action_out,
            "version": expected_version + 1,
            "events": [redact(events, set(game.hidden_cards(nxt, s))) for s in range(session.players)],
        }
        ok, version = self._apply(
            keys=[self.keys.session(session.id), self.keys.session_log(session.id), self.keys.counters()],
            args=[
                expected_version,
                json.dumps(game.to_json(nxt)),
                json.dumps(entry),
                self.ttl,
                f"{time.time():.3f}",
            ],
        )
        if ok == -1:
            raise ApiError(404, "unknown_session", f"no session {session.id!r} (unknown, or expired)")
        if ok == 0:
            raise stale(int(version), expected_version)
        session.state, session.version = nxt, int(version)
        return nxt, events, int(version)

    def log(self, session: Session, seat: int) -> list[dict[str, Any]]:
        entries = []
        for n, raw in enumerate(self.r.lrange(self.keys.session_log(session.id), 0, -1)):
            entry = json.loads(raw)
            entries.append(
                {
                    "n": n + 1,
                    "seat": entry["seat"],
                    "by": entry["by"],
                    "action": entry["action"],
                    "version": entry["version"],
                    "events": entry["events"][seat],
                }
            )
        return entries


def stale(current: int, expected: int) -> ApiError:
    return ApiError(
        409,
        "stale_version",
        f"the session is at version {current}, not {expected}: reload it and retry",
        {"version": current, "expected_version": expected},
    )


def store() -> SessionStore:
    return SessionStore(get_redis(), keys(), int(current_app.config["SESSION_TTL"]))


def public_events(session: Session, events: list[dict[str, Any]], seat: int) -> list[dict[str, Any]]:
    return redact(events, set(session.game.hidden_cards(session.state, seat)))


def schedule_bot(session: Session) -> bool:
    """Queue the bot seat to act, if any (the worker plays it). True if queued."""
    from service.api.jobs import send_task

    to_act = session.game.to_act(session.state)
    if not session.is_bot(to_act) or not session.game.legal_actions(session.state):
        return False
    try:
        send_task("majlis.session_bot_turn", (session.id, session.version))
    except OperationalError:
        log.warning("could not queue the bot turn of session %s", session.id)
        return False
    return True


def bot_decision(
    session: Session, seat: int, level: str, budget: Budget | None, seed: int, max_ms: float
) -> tuple[Any, dict[str, Any]]:
    """(JSON action, stats) of a bot playing ``seat`` from its view only."""
    game = session.game
    view = game.view(session.state, seat)
    config = current_app.config
    decision = decide(
        game,
        view,
        level=level,
        budget=budget,
        seed=seed,
        max_iterations=config["BOT_MAX_ITERATIONS"],
        max_ms=max_ms,
    )
    world = game.sampler(view)(random.Random(0))
    return game.action_to_json(world, decision.action), decision.stats


def bot_turn(session_id: str, version: int) -> None:
    """Worker side: play the bot seat to act at ``version``; then queue the next bot."""
    sessions = store()
    try:
        session = sessions.load(session_id)
    except ApiError:
        return  # expired
    if session.version != version:
        return  # someone moved meanwhile: that move queued whatever comes next
    seat = session.game.to_act(session.state)
    if not session.is_bot(seat):
        return
    level = session.seats[seat].get("level", "normal")
    max_ms = float(current_app.config["SESSION_BOT_MS"])
    budget = LEVEL_BUDGETS.get(level)
    action, _stats = bot_decision(session, seat, level, budget, secrets.randbits(63), max_ms)
    try:
        sessions.apply(session, seat, action, version, by="bot")
    except ApiError as error:
        if error.status == 409:
            return
        raise
    schedule_bot(session)
