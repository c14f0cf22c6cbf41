"""The table page: play every game in a browser against the bots, with hints and replays.

    GET /play                              pick a game, players, options, a bot level per seat
    GET /play/<game>                       the same, with that game chosen
    GET /play/table/<session>              the table (the seat token lives in the browser); it
                                           follows the session's event stream (events_url)
    GET /play/replay/<session>             step through a match's log, forward and back
    GET /play/api/sessions/<id>/score      the score report, itemised, as the token's seat may see it
    GET /play/api/sessions/<id>/positions  the token's seat's view after each move (the replay)

The page is server-rendered HTML plus a little plain JavaScript (service/static/page);
every asset is served here, so it works offline. It plays through the public API
(/v1/sessions...) with the seat token in the Authorization header, and reads the event
stream with fetch() for the same reason (an EventSource cannot send it); the two JSON routes
above only add what the public API does not hand a browser directly: the score report and
the views along the log (the log holds actions, and only the engine can replay them)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from flask import Blueprint, abort, render_template

from ai.bots import LEVEL_BUDGETS
from engine import all_games
from service import sessions as S
from service.api.hints import labelled
from service.api.sessions import viewer
from service.events import public_stream_base

bp = Blueprint("page", __name__, url_prefix="/play")

LEVELS = ("easy", *LEVEL_BUDGETS)


def games_metadata() -> list[dict[str, Any]]:
    return [game.metadata() for game in all_games()]


@bp.get("")
@bp.get("/<game_id>")
def setup(game_id: str | None = None):
    """The form that creates a session: the game (``game_id`` chosen if given)."""
    games = games_metadata()
    if game_id is not None and game_id not in {g["id"] for g in games}:
        abort(404)
    return render_template("page/setup.html", games=games, chosen=game_id or games[0]["id"], levels=LEVELS)


@bp.get("/table/<session_id>")
def table(session_id: str):
    return render_template(
        "page/table.html", session_id=session_id, card_verbs=card_verbs(), events_url=events_url(session_id)
    )


def events_url(session_id: str) -> str:
    """Where the table reads the session's event stream: on the stream server when this
    deployment has one (the API would answer a 307 there, and a browser drops the token on
    a redirect to another origin), else on this origin (the API serves streams itself, or
    a proxy in front routes them)."""
    path = f"/v1/sessions/{quote(session_id, safe='')}/events"
    return (public_stream_base() or "") + path


def card_verbs() -> dict[str, str]:
    """Per game, the verb a click on a hand card sends when no legal action plays that card,
    so that the service says which rule refuses it: ``play``, or ``discard`` where a turn
    ends with a discard instead."""
    verbs = {}
    for game in games_metadata():
        names = game["verbs"]
        verbs[game["id"]] = "play" if "play" in names else "discard" if "discard" in names else "play"
    return verbs


@bp.get("/replay/<session_id>")
def replay(session_id: str):
    return render_template("page/replay.html", session_id=session_id)


def seat_secrets(session: S.Session, seat: int | None) -> set[str]:
    """The cards the token's seat cannot see (a spectator: every hidden card)."""
    if seat is None:
        return S.hidden_from_spectators(session.game, session.state)
    return set(session.game.hidden_cards(session.state, seat))


@bp.get("/api/sessions/<session_id>/score")
def score(session_id: str):
    """The score report: match totals and the current (or just finished) deal item by item."""
    _store, session, seat = viewer(session_id)
    report = session.game.score(session.state).to_json()
    return {"version": session.version, "score": S.redact(report, seat_secrets(session, seat))}


@bp.get("/api/sessions/<session_id>/positions")
def positions(session_id: str):
    """Position 0 (the deal) and the one after each logged move, as the token's seat saw
    them then: its view, the score, whose turn, and the move that led there."""
    store, session, seat = viewer(session_id)
    game = session.game
    state = store.initial_state(session)
    steps = [position(game, state, seat, None)]
    for entry in store.log(session, seat):
        action = game.parse_action(state, entry["action"])
        move = {"n": entry["n"], "seat": entry["seat"], **labelled(game.action_to_json(state, action))}
        actor = entry["seat"] if entry["seat"] is not None else game.to_act(state)
        state, _events = game.apply(state, actor, action)
        steps.append(position(game, state, seat, move))
    return {"id": session.id, "game": game.id, "seat": seat, "positions": steps}


def position(game: Any, state: Any, seat: int | None, move: dict[str, Any] | None) -> dict[str, Any]:
    view = game.public_view(state) if seat is None else game.view(state, seat)
    report = game.score(state).to_json()
    hidden = set(game.hidden_cards(state, seat)) if seat is not None else set()
    return {"move": move, "to_act": game.to_act(state), "view": view, "score": S.redact(report, hidden)}


def init_app(app: Any) -> None:
    app.register_blueprint(bp)
