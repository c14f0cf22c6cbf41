"""Sessions: the service keeps the match in Redis; each seat acts with its own token.

    POST /v1/sessions                      create (returns the id and one token per seat)
    GET  /v1/sessions/{id}                 the token's seat: view, version, whose turn, legal actions
    POST /v1/sessions/{id}/moves           action + expected_version (409 when stale)
    POST /v1/sessions/{id}/bot-move        a bot plays a seat (own seat, or a bot seat); 202 job if large
    POST /v1/sessions/{id}/leave           hand the token's seat to a bot
    POST /v1/sessions/{id}/claim           take the seat back (same token)
    GET  /v1/sessions/{id}/log             the move log as this seat may see it
    POST /v1/sessions/{id}/hint            the token's seat's actions ranked by a search
    POST /v1/sessions/{id}/spectators      a spectator token (asked with a seat token)
    GET  /v1/sessions/{id}/events          Server-Sent Events: each version change

Every call but create needs ``Authorization: Bearer <seat token>`` (401 without a valid
one); a token acts only for its own seat (403 otherwise). A spectator token reads the
session, its log and its events as no seat (``seat`` null, the public view, no hand);
it can do nothing else (403)."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any
from urllib.parse import quote

import redis
from flask import current_app, redirect, request, url_for
from flask.views import MethodView

from ai.bots import LEVEL_BUDGETS, Budget
from engine import get_game
from engine.protocol import Game, IllegalAction, NotYourTurn
from service import quotas, webhooks
from service import sessions as S
from service.api.blueprint import Blueprint
from service.api.bots import inline_slots, is_short, real_budget
from service.api.common import document_errors, quota_client, runtime, session_store
from service.api.hints import HintOptions, HintResponse, hint, labelled
from service.api.jobs import accepted, search_seconds, with_url
from service.api.session_schemas import (
    JobAccepted,
    LogSchema,
    SeatLeaveRequest,
    SessionBotMoveRequest,
    SessionCreated,
    SessionCreateRequest,
    SessionMoveRequest,
    SessionSchema,
    SpectatorCreated,
)
from service.api.streams import parse_last_event_id, public_stream_base, stream_response
from service.dispatch import new_seed
from service.domain_errors import StaleVersion
from service.errors import ApiError
from service.redis_conn import issued_id
from service.timers import TurnTimer, shown

log = logging.getLogger(__name__)
blp = Blueprint(
    "sessions",
    __name__,
    url_prefix="/v1/sessions",
    description="Matches kept by the service, one secret token per seat",
)


def bearer_token() -> str:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "unauthorized", "send the seat's token: Authorization: Bearer <token>")
    return token.strip()


def viewer(session_id: str) -> tuple[S.SessionStore, S.Session, int | None]:
    """The session and the token's seat; None for a spectator token (401 for neither)."""
    token = bearer_token()
    store = session_store()
    session = store.load(session_id)
    seat = session.seat_of(token)
    if seat is None and not session.is_spectator(token):
        raise ApiError(401, "unauthorized", "this token is not a seat or spectator token of this session")
    return store, session, seat


def authorised(session_id: str) -> tuple[S.SessionStore, S.Session, int]:
    """The session and the token's seat: a seat token only (403 for a spectator's)."""
    store, session, seat = viewer(session_id)
    if seat is None:
        raise ApiError(403, "forbidden", "a spectator token only watches: it plays no seat")
    return store, session, seat


def summary(session: S.Session, seat: int | None) -> dict[str, Any]:
    game = session.game
    position = position_answer(game, session.state, seat, ended=session.ended)
    if position["finished"]:
        release_finished(session)
    return {
        "id": session.id,
        "game": game.id,
        "seat": seat,
        "version": session.version,
        "to_act": position["to_act"],
        "finished": position["finished"],
        "seats": session.seats,
        "turn_timer": session.turn_timer.to_json() if session.turn_timer else None,
        "turn_deadline": shown(session.turn_deadline),
        "ended": session.ended,
        "view": position["view"],
        "legal_actions": position["legal_actions"],
    }


def position_answer(game: Game, state: Any, seat: int | None, ended: Any = None) -> dict[str, Any]:
    """What a session's answer says of the position to ``seat`` (None: a spectator): who
    is to act, whether the match is finished, the seat's view and, when the seat is to
    act in a match not ended, its legal actions as the moves endpoint takes them, each
    with a label. Pure, so the page's tests build the answers the page receives."""
    to_act = game.to_act(state)
    its_turn = seat is not None and seat == to_act and ended is None
    return {
        "to_act": to_act,
        "finished": to_act is None,
        "view": game.public_view(state) if seat is None else game.view(state, seat),
        "legal_actions": [labelled(game.action_to_json(state, a)) for a in game.legal_actions(state)]
        if its_turn
        else [],
    }


def release_finished(session: S.Session) -> None:
    """A finished match no longer counts against its client's live-session quotas (it is
    kept, readable, until it expires): marked whenever an answer shows it finished."""
    try:
        quotas.session_ended(runtime().redis(), runtime().keys, session.id)
    except redis.RedisError as error:  # a full Redis: it stays counted until it expires
        log.warning("finished session %s not released: %s", session.id, error)


@blp.route("")
class Sessions(MethodView):
    @blp.arguments(SessionCreateRequest())
    @blp.alt_response(201, schema=SessionCreated, description="the session and one token per seat")
    @document_errors(blp, 400, 404, 422, 429, 503, 507)
    def post(self, body):
        """Create a match kept by the service

        `seats` lists each seat as `"human"` (default) or `{"type": "bot", "level": ...}`;
        bot seats are played by the workers whenever they are to act. The answer holds one
        secret token per seat (shown once): give each player its own.

        With a `callback_url` (http or https), each applied move is POSTed there by the
        workers, signed with HMAC-SHA256 by the `webhook_secret` of the answer (shown once).

        With a `turn_timer` (`seconds`, `on_timeout`, `level`), each move of a person must
        come within `seconds`: `turn_deadline` shows when; then the workers let a bot play
        that move (`on_timeout` `move`) or the seat until it is claimed back (`seat`).

        Fair use: 429 `quota_exceeded` past the client's sessions per hour or live
        sessions (timed ones, ones with a callback_url); 507 `storage_full` while the
        service is short of storage (docs/deploy.md, "Fair use and limits")."""
        game = get_game(body["game"])
        players = game.check_players(body["players"])
        if body["dealer"] >= players:
            raise ApiError(
                422, "invalid_setup", f"dealer must be a seat from 0 to {players - 1}", {"field": "dealer"}
            )
        seats = body["seats"] or [{"type": "human", "level": "normal"}] * players
        if len(seats) != players:
            raise ApiError(422, "invalid_setup", f"give one seat per player ({players})", {"field": "seats"})
        options = game.parse_options(body["options"], players)
        seed = body["seed"] if body["seed"] is not None else new_seed()
        state = game.new_state(players, options, body["dealer"], seed=seed)
        webhook = None
        if body["callback_url"] is not None:
            allow_private = bool(current_app.config["WEBHOOK_ALLOW_PRIVATE"])
            allow_loopback = bool(current_app.config.get("WEBHOOK_ALLOW_LOOPBACK"))
            url = webhooks.check_callback_url(body["callback_url"], allow_private, allow_loopback)
            webhook = {"callback_url": url, "webhook_secret": webhooks.new_secret()}
        timer = turn_timer(body["turn_timer"])
        runtime().check_room()  # 507 while Redis is nearly full
        quotas.check_new_session(
            runtime(), quota_client(), timed=timer is not None, webhook=webhook is not None
        )
        store = session_store()
        session_id, tokens = store.create(game, state, seats, webhook, timer)
        quotas.count_new_session(
            runtime(), quota_client(), session_id, timed=timer is not None, webhook=webhook is not None
        )
        session = store.load(session_id)
        S.schedule_bot(store, session)
        return {
            "id": session_id,
            "game": game.id,
            "url": url_for("sessions.Session", session_id=session_id),
            "version": 0,
            "to_act": game.to_act(state),
            "seats": seats,
            "tokens": tokens,
            "turn_timer": timer.to_json() if timer else None,
            "turn_deadline": shown(session.turn_deadline),
            **({"webhook_secret": webhook["webhook_secret"]} if webhook else {}),
        }, 201


def turn_timer(body: dict[str, Any] | None) -> TurnTimer | None:
    """The session's turn timer from the create's ``turn_timer`` (its shape already checked)."""
    if body is None:
        return None
    most = int(current_app.config["TURN_SECONDS_MAX"])
    if body["seconds"] > most:
        why = f"at most {most} seconds"
        raise ApiError(
            422,
            "invalid_request",
            f"invalid field turn_timer.seconds: {why}",
            {"fields": {"turn_timer.seconds": why}},
        )
    return TurnTimer(body["seconds"], body["on_timeout"], body["level"])


@blp.route("/<session_id>")
class Session(MethodView):
    @blp.alt_response(200, schema=SessionSchema, description="the token's seat: view, version, whose turn")
    @document_errors(blp, 401, 404, 503)
    def get(self, session_id):
        """The session as the token's seat sees it

        `legal_actions` lists what the token's seat may play when it is to act (else
        `[]`): each `action` is the JSON the moves endpoint takes, with a short `label`
        ("play K♥"). A spectator token gets `seat` null and the public view (no hand)."""
        _store, session, seat = viewer(session_id)
        return summary(session, seat)


@blp.route("/<session_id>/moves")
class Moves(MethodView):
    @blp.arguments(SessionMoveRequest())
    @blp.alt_response(
        200, schema=SessionSchema, description="applied: the new version and view, and the events"
    )
    @document_errors(blp, 400, 401, 403, 404, 409, 422, 503)
    def post(self, body, session_id):
        """Play the token's seat's `action`, if the session is still at `expected_version`

        A stale `expected_version` is refused with 409 (its `version` member is the current
        one): of two clients racing on one version, exactly one move is applied."""
        store, session, seat = authorised(session_id)
        if body["seat"] is not None and body["seat"] != seat:
            raise ApiError(403, "forbidden", f"this token plays seat {seat}, not seat {body['seat']}")
        _state, events, _version = store.apply(session, seat, body["action"], body["expected_version"])
        S.schedule_bot(store, session)
        out = summary(session, seat)
        out["events"] = S.public_events(session, events, seat)
        return out


@blp.route("/<session_id>/bot-move")
class BotMove(MethodView):
    @blp.arguments(SessionBotMoveRequest())
    @blp.alt_response(200, schema=SessionSchema, description="the bot's move, applied")
    @blp.alt_response(202, schema=JobAccepted, description="a job on the workers: GET its url")
    @document_errors(blp, 400, 401, 403, 404, 409, 422, 429, 503, 507)
    def post(self, body, session_id):
        """Let a bot play a seat: the token's own seat, or a seat handed to a bot

        The bot decides from that seat's view only, and its move is applied like any
        other (from `expected_version` when given; 409 if the session moved on, or if the
        bot seat was claimed back meanwhile). The answer shows the move as the log shows
        it to the token's seat; the search statistics (`stats`) only when the bot played
        the token's own seat.

        A budget within the server's sync threshold is searched at once (200). With
        `"async": true`, or a budget above the threshold, the answer is 202 with a `job`
        (`id`, `status`, `url`): a worker searches, applies the move (the session's version
        moves then) and `GET /v1/jobs/{id}` gives `seat`, `action`, `version`, `events`
        (and `stats` for the token's own seat), or `error` when the move was not applied."""
        store, session, seat = authorised(session_id)
        target = seat if body["seat"] is None else body["seat"]
        check_bot_may_play(session, seat, target)
        budget = None
        if body["budget"] is not None:
            budget = Budget(iterations=body["budget"]["iterations"], ms=body["budget"]["ms"])
        order = S.BotOrder(
            seat=target,
            version=body["expected_version"] if body["expected_version"] is not None else session.version,
            level=body["level"],
            budget=budget if budget is not None else LEVEL_BUDGETS.get(body["level"]),
            seed=body["seed"] if body["seed"] is not None else new_seed(),
            asker=seat,
        )
        if order.version != session.version:
            raise StaleVersion(session.version, order.version)
        real = real_budget(budget, order.level)
        if body["async_"] or not is_short(real):
            return accepted(start_bot_job(session, order), search_seconds(real))
        # a search holds a web thread: at most INLINE_SEARCHES at once per process, as in
        # the stateless bot-move; the others go to the workers
        slots = inline_slots() if real is not None else None
        if slots is not None and not slots.acquire(blocking=False):
            return accepted(start_bot_job(session, order), search_seconds(real))
        config = current_app.config
        # the web process searches no longer than the sync threshold: beyond it is a job
        max_ms = min(float(config["BOT_MAX_MS"]), float(config["ASYNC_MS"]))
        try:
            answer = S.play_bot(store, session, order, max_ms)
        finally:
            if slots is not None:
                slots.release()
        S.schedule_bot(store, session)
        out = summary(session, seat)  # its seat is the token's, as in every session answer
        out.update(action=answer["action"], events=answer["events"])
        if "stats" in answer:
            out["stats"] = answer["stats"]
        return out


def start_bot_job(session: S.Session, order: S.BotOrder) -> dict[str, Any]:
    """A bot-move job, within the client's bot jobs in flight and Redis's room."""
    runtime().check_room()
    kind = quotas.check_job(runtime(), quota_client(), "jobs")
    job = with_url(S.start_bot_job(session_store(), session, order))
    quotas.count_job(runtime(), quota_client(), kind, job["id"])
    return job


def check_bot_may_play(session: S.Session, seat: int, target: int) -> None:
    """A token lets a bot play its own seat, or a seat handed to a bot, when it is to act."""
    if target >= session.players:
        raise ApiError(422, "wrong_seat", f"seat {target} is not at this table", {"field": "seat"})
    if target != seat and not session.is_bot(target):
        raise ApiError(403, "forbidden", f"seat {target} is played by a person; this token plays seat {seat}")
    to_act = session.game.to_act(session.state)
    if to_act is None:
        raise IllegalAction("match is over", rule="match_over")
    if to_act != target:
        raise NotYourTurn(f"not your turn: seat {to_act} is to act", rule="turn")


@blp.route("/<session_id>/leave")
class Leave(MethodView):
    @blp.arguments(SeatLeaveRequest())
    @blp.alt_response(200, schema=SessionSchema, description="the seat is now played by a bot")
    @document_errors(blp, 400, 401, 404, 503)
    def post(self, body, session_id):
        """Hand the token's seat to a bot (at `level`) until the token claims it back

        The session's version moves (a client's pending `expected_version` gets 409)."""
        store, session, seat = authorised(session_id)
        session = store.set_seat(session, seat, {"type": "bot", "level": body["level"]})
        S.schedule_bot(store, session)
        return summary(session, seat)


@blp.route("/<session_id>/claim")
class Claim(MethodView):
    @blp.alt_response(200, schema=SessionSchema, description="the seat is played by its person again")
    @document_errors(blp, 401, 404, 503)
    def post(self, session_id):
        """Take the token's seat back from the bot

        The session's version moves: a bot still searching for this seat cannot play it."""
        store, session, seat = authorised(session_id)
        human = {"type": "human", "level": session.seats[seat].get("level", "normal")}
        session = store.set_seat(session, seat, human)
        S.schedule_bot(store, session)  # the version moved: the bot to act (if any) needs a new turn
        return summary(session, seat)


@blp.route("/<session_id>/log")
class Log(MethodView):
    @blp.alt_response(200, schema=LogSchema, description="every move so far, as this seat may see it")
    @document_errors(blp, 401, 404, 503)
    def get(self, session_id):
        """The append-only move log: seat, action and events of each move, with the cards
        this seat could not see replaced by `"hidden"`; `initial` is the seat's view before
        the first move. Replaying the actions from the initial state gives the session's state."""
        store, session, seat = viewer(session_id)
        initial = replace(session, state=store.initial_state(session))
        return {
            "id": session.id,
            "seat": seat,
            "version": session.version,
            "initial": S.view_of(initial, seat),
            "entries": store.log(session, seat),
        }


@blp.route("/<session_id>/hint")
class Hint(MethodView):
    @blp.arguments(HintOptions())
    @blp.alt_response(200, schema=HintResponse, description="the seat's actions ranked; nothing played")
    @document_errors(blp, 400, 401, 403, 404, 422, 429, 503)
    def post(self, body, session_id):
        """The token's own seat's legal actions ranked by a short search; nothing is played

        Only the seat to act can ask, for itself (a hint names its cards). The search
        decides from the seat's view, like a bot; its budget (`level` `normal` or `hard`,
        or `budget`) is capped at the server's sync threshold. Each action comes with its
        `label`, its `share` of the visits and its expected `value` (mean outcome in
        [0, 1] for the seat); `easy` is the easy policy's choice."""
        _store, session, seat = authorised(session_id)
        to_act = session.game.to_act(session.state)
        if to_act is None:
            raise IllegalAction("match is over", rule="match_over")
        if to_act != seat:
            raise NotYourTurn(f"not your turn: seat {to_act} is to act", rule="turn")
        if not session.game.legal_actions(session.state):
            raise IllegalAction("nothing to decide: the table waits for the dealer's deck", rule="deal")
        answer = hint(session.game, session.game.view(session.state, seat), body)
        answer["version"] = session.version
        return answer


@blp.route("/<session_id>/spectators")
class Spectators(MethodView):
    @blp.alt_response(201, schema=SpectatorCreated, description="a spectator token (shown once)")
    @document_errors(blp, 401, 403, 404, 429, 503)
    def post(self, session_id):
        """A token for a spectator: it reads the session, its log and its events as no seat

        Any seat's token may ask. The spectator sees the public view (`seat` null, every
        hand as a count) and plays nothing. A session has at most `MAJLIS_QUOTA_SPECTATORS`
        spectator tokens (429 `quota_exceeded` past it)."""
        store, session, _seat = authorised(session_id)
        most = int(current_app.config["QUOTA_SPECTATORS"])
        if most and len(session.spectator_digests) >= most:
            refusal = quotas.Refusal("spectators", most, len(session.spectator_digests), quotas.MAX_RESET)
            quotas.require(refusal, "spectators per session")
        token = store.add_spectator(session)
        return {
            "id": session.id,
            "token": token,
            "url": url_for("sessions.Session", session_id=session.id),
        }, 201


@blp.route("/<session_id>/events")
class Events(MethodView):
    @blp.alt_response(
        200,
        schema={"type": "string"},
        content_type="text/event-stream",
        description="a stream of `session` and `move` events, each with `id:` its version",
    )
    @blp.alt_response(307, description="served by the stream server: the `Location` header gives its URL")
    @document_errors(blp, 401, 404, 422, 429, 503)
    def get(self, session_id):
        """Server-Sent Events: every version change, as the token may see it

        Each event's `id` is the session's version. At connection the stream sends a
        `session` event (version, whose turn, seats, `turn_deadline`); then per move a
        `move` event (the log entry as the token may see it: seat, `by` (human, bot or
        timer), action, events without hidden cards, `to_act` and `turn_deadline` after
        it, `version`), and for a hand-over (leave, claim) a `session` event. Reconnect
        with `Last-Event-ID: <version>` to get every move since that version from the
        log, in order. A comment line every few seconds keeps idle
        connections open. Served by the stream server (docs/deploy.md).

        Fair use: at most `MAJLIS_QUOTA_STREAMS_PER_TOKEN` streams per token,
        `..._PER_SESSION` per session and `..._PER_ADDRESS` per client address (429
        `quota_exceeded`); a stream server holding `MAJLIS_STREAM_MAX_CONNECTIONS`
        answers 503 `streams_full`; both with `Retry-After`."""

        issued_id(session_id, "unknown_session", "session")  # 404 before any redirect
        elsewhere = public_stream_base()
        if elsewhere:  # this process serves the API: its threads are not for idle streams
            return redirect(elsewhere + stream_path(), 307)
        store, session, seat = viewer(session_id)
        last = request.headers.get("Last-Event-ID")
        return stream_response(store, session, seat, parse_last_event_id(last))


def stream_path() -> str:
    """This request's path and query, percent-encoded again (``request.path`` is decoded:
    a ``%0A`` in it would put a line break into ``Location``)."""
    path = quote(request.path, safe="/:@!$&'()*+,;=-._~")
    query = request.query_string.decode("latin-1")
    return path + ("?" + quote(query, safe="=&;%/:@!$'()*+,-._~?") if query else "")
