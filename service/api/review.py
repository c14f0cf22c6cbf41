"""Match review: every decision of a seat searched again on the workers.

    POST /v1/sessions/{id}/review   review the token's seat (or, after the match, any or all)
    GET  /v1/sessions/{id}/review   the finished review kept with the session
    POST /v1/games/{game}/review    stateless: from an initial state and its actions, one seat

A review is a job (202): ``GET /v1/jobs/{id}`` shows ``progress`` (decisions done/total)
and, when done, the ``review``. See :mod:`service.review` for what it holds and why a
token sees what it sees."""

from __future__ import annotations

from typing import Any

from flask import current_app
from flask.views import MethodView

from service import quotas
from service import review as R
from service import sessions as S
from service.api.blueprint import Blueprint
from service.api.common import (
    document_errors,
    load_game,
    quota_client,
    require_seat_in_range,
    runtime,
    session_store,
)
from service.api.jobs import accepted, review_seconds, with_url
from service.api.session_schemas import (
    GameReviewRequest,
    JobAccepted,
    ReviewSchema,
    SessionReviewQuery,
    SessionReviewRequest,
)
from service.api.sessions import authorised
from service.errors import ApiError
from service.redaction import redact

blp = Blueprint(
    "review", __name__, url_prefix="/v1", description="Match review: each decision searched again"
)


def iterations(asked: int | None) -> int:
    config = current_app.config
    return min(asked or int(config["REVIEW_ITERATIONS"]), int(config["REVIEW_MAX_ITERATIONS"]))


def start_review(game: Any, positions: list[R.Position], meta: dict[str, Any]):
    """Queue the review job; the 202 answer, with its Location and Retry-After. 429 when
    the client has its reviews in flight already, 507 while Redis is nearly full."""
    runtime().check_room()
    kind = quotas.check_job(runtime(), quota_client(), "reviews")
    job = with_url(R.start(runtime(), game, positions, meta))
    quotas.count_job(runtime(), quota_client(), kind, job["id"])
    return accepted(job, review_seconds(len(positions), meta["iterations"]))


def scope_of(session: S.Session, token_seat: int, seat: int | None, all_seats: bool) -> tuple[str, list[int]]:
    """(scope, reviewed seats) of a token's review request. During the match a token
    reviews only its own seat: another seat's decisions name that seat's cards."""
    if seat is not None and seat >= session.players:
        raise ApiError(422, "wrong_seat", f"seat {seat} is not at this table", {"field": "seat"})
    finished = session.game.to_act(session.state) is None
    if all_seats or (seat is not None and seat != token_seat):
        if not finished:
            raise ApiError(
                403,
                "review_refused",
                "during the match a token reviews only its own seat (another seat's review shows its cards)",
                {"seat": token_seat},
            )
        if all_seats:
            return R.ALL, list(range(session.players))
    target = token_seat if seat is None else seat
    return str(target), [target]


def hidden_from(session: S.Session, token_seat: int, scope: str) -> set[str]:
    """Cards to hide from the token in a review of ``scope``: none in its own seat's review
    (its decisions are its own knowledge), else every card it still cannot see."""
    if scope == str(token_seat):
        return set()
    return set(session.game.hidden_cards(session.state, token_seat))


@blp.route("/sessions/<session_id>/review")
class SessionReview(MethodView):
    @blp.arguments(SessionReviewRequest())
    @blp.alt_response(
        202, schema=JobAccepted, description="the review job: GET its url for progress and result"
    )
    @document_errors(blp, 400, 401, 403, 404, 422, 429, 503, 507)
    def post(self, body, session_id):
        """Review a seat's decisions so far: each searched again from that seat's view then

        The token's own seat by default; another `seat`, or `all_seats`, only once the
        match is over (403 `review_refused` before). The job's `progress` counts decisions;
        when done, its `review` is also kept with the session (GET this URL)."""
        _store, session, token_seat = authorised(session_id)
        scope, seats = scope_of(session, token_seat, body["seat"], body["all_seats"])
        game = session.game
        log = session_store().log(session, token_seat)
        moves = [(entry["seat"], entry["action"]) for entry in log]
        positions, _final = R.replay(game, session_store().initial_state(session), moves, set(seats))
        meta: dict[str, Any] = {
            "game": game.id,
            "session": session.id,
            "version": session.version,
            "scope": scope,
            "seats": seats,
            "iterations": iterations(body["iterations"]),
            "seed": body["seed"],
            "hidden": sorted(hidden_from(session, token_seat, scope)),
        }
        return start_review(game, positions, meta)

    @blp.arguments(SessionReviewQuery(), location="query")
    @blp.alt_response(200, schema=ReviewSchema, description="the finished review")
    @document_errors(blp, 400, 401, 403, 404, 422, 503)
    def get(self, query, session_id):
        """The finished review of the token's seat (or `seat`, or `all_seats`, after the match)

        404 `unknown_review` until a review of that scope has finished. The latest one is kept."""
        _store, session, token_seat = authorised(session_id)
        scope, _seats = scope_of(session, token_seat, query["seat"], query["all_seats"])
        review = R.kept(runtime(), session.id, scope)
        if review is None:
            raise ApiError(
                404, "unknown_review", f"no finished review of {scope!r} in this session", {"scope": scope}
            )
        return {"review": redact(review, hidden_from(session, token_seat, scope))}


@blp.route("/games/<game_id>/review")
class GameReview(MethodView):
    @blp.arguments(GameReviewRequest())
    @blp.alt_response(
        202, schema=JobAccepted, description="the review job: GET its url for progress and result"
    )
    @document_errors(blp, 400, 404, 422, 429, 503, 507)
    def post(self, body, game_id):
        """Review one seat's decisions in a log: an initial `state` and its `actions`

        Every action is replayed (422 with `move`, 1-based, for one that does not
        apply); each decision of `seat` is searched again from that seat's view then."""
        game = load_game(game_id)
        initial = game.from_json(body["state"])
        require_seat_in_range(game, initial, body["seat"])
        positions, _final = R.replay(game, initial, [(None, a) for a in body["actions"]], {body["seat"]})
        meta = {
            "game": game.id,
            "seats": [body["seat"]],
            "iterations": iterations(body["iterations"]),
            "seed": body["seed"],
        }
        return start_review(game, positions, meta)
