"""The table page: play every game in a browser against the bots, with hints and replays.

    GET /play                              pick a game, players, options, a bot level per seat
    GET /play/<game>                       the same, with that game chosen
    GET /play/table/<session>              the table (the seat token lives in the browser); it
                                           follows the session's event stream (events_url)
    GET /play/replay/<session>             step through a match's log, forward and back
    GET /play/api/sessions/<id>/score      the score report, itemised, as the token's seat may see it
    GET /play/api/sessions/<id>/sheet      every finished deal of the match, itemised (the score sheet)
    GET /play/api/sessions/<id>/positions  the token's seat's view after each move (the replay)
    POST /play/api/sessions/<id>/hold      the bots wait for this seat to dismiss each deal's summary
    POST /play/api/sessions/<id>/ack       this seat dismissed the summaries of deals 1..{"deals": k}

The seat token of an invitation link travels in the URL's fragment (``#token=...``), which
a browser never sends: the page keeps it in localStorage and removes it from the address.
The page's words are in ``service/translations/page-<lang>.po``: ``?lang=``, the picker's
cookie or ``Accept-Language`` chooses (service/i18n.py).

The page is server-rendered HTML plus a little plain JavaScript (service/static/page);
every asset is served here, so it works offline. It plays through the public API
(/v1/sessions...) with the seat token in the Authorization header, and reads the event
stream with fetch() for the same reason (an EventSource cannot send it); the two JSON routes
above only add what the public API does not hand a browser directly: the score report and
the views along the log (the log holds actions, and only the engine can replay them)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, cast
from urllib.parse import quote

from flask import Blueprint, abort, make_response, render_template, request
from markupsafe import Markup

from ai.bots import offered_levels
from engine import all_games
from engine.items import keyed_events, keyed_report
from engine.protocol import Game
from service import deal_hold as page_hold
from service import i18n
from service import sessions as S
from service.api.blueprint import json_body
from service.api.common import session_store
from service.api.hints import labelled
from service.api.sessions import authorised, viewer
from service.api.streams import public_stream_base
from service.domain_errors import NotFound
from service.errors import ApiError
from service.redaction import hidden_from_spectators, redact
from service.redis_conn import ISSUED_ID

bp = Blueprint("page", __name__, url_prefix="/play")


def page_levels() -> dict[str, list[str]]:
    """The bot levels the setup form offers per game: the game's offered levels from easy
    up (ai.bots.offered_levels; random is for tests and baselines, not for players)."""
    return {game.id: [lv for lv in offered_levels(game.id) if lv != "random"] for game in all_games()}


# what could end a <script> block or start markup, escaped as Flask's tojson does
SCRIPT_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "'": "\\u0027"})


@bp.app_template_filter("script_json")
def script_json(value: Any) -> Markup:
    """JSON for a page's ``<script type="application/json">`` block: compact, its letters
    as they are (an Arabic letter is 2 bytes of UTF-8, where ``tojson`` writes the 6 of
    ``\\u0627``: the Arabic page's words were half escapes), and no ``<``, ``>``, ``&`` or
    ``'`` left to break out of the block."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return Markup(text.translate(SCRIPT_ESCAPES))


def games_metadata() -> list[dict[str, Any]]:
    return [game.metadata() for game in all_games()]


@bp.get("")
@bp.get("/<game_id>")
def setup(game_id: str | None = None):
    """The form that creates a session: the game (``game_id`` chosen if given)."""
    games = games_metadata()
    if game_id is not None and game_id not in {g["id"] for g in games}:
        abort(404)
    return page(
        "page/setup.html",
        games=games,
        chosen=game_id or games[0]["id"],
        levels=page_levels(),
        timer_choices=TIMER_CHOICES,
        every_game_options=True,
    )


TIMER_CHOICES = (0, 30, 60, 120)
"""The setup form's turn timers in seconds (0: none)."""


OPTION_WORDS = ("option:", "option_about:", "option_value:")
"""The keys of a game's words for its options: a name, what it does, a choice's words."""
SETUP_ONLY = OPTION_WORDS[1:]
"""Option words only the setup form shows (a table names a house rule by its name alone)."""


def option_words(words: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    """The words of every game's options, by game (the setup form shows any game's)."""
    return {
        game: {key: text for key, text in game_words.items() if key.startswith(OPTION_WORDS)}
        for game, game_words in words.items()
        if game != "page"
    }


def page(template: str, status: int = 200, every_game_options: bool = False, **context: Any):
    """A page in the request's language (``?lang=``, the picker's cookie, Accept-Language).
    Its script gets the page's words and its game's only (less the options' descriptions
    and choices, which the setup form alone shows), and with ``every_game_options`` (the
    setup form) the words of every game's options."""
    language = i18n.page_language()
    words = i18n.page_words(language)
    script_words = option_words(words) if every_game_options else {}
    if "page" in words:
        script_words["page"] = words["page"]
    game = context.get("game")
    if game in words:
        script_words[game] = {
            key: text for key, text in words[game].items() if not key.startswith(SETUP_ONLY)
        }
    context.update(
        lang=language,
        direction="rtl" if language in i18n.RIGHT_TO_LEFT else "ltr",
        words=words,
        script_words=script_words,
        languages=i18n.LANGUAGE_NAMES,
    )
    return render_template(template, **context), status


def known_session(session_id: str) -> Any | None:
    """The session, or None when it is unknown or expired (its page is then a 404 page);
    an id of a form the service never issues is unknown without asking Redis."""
    if not ISSUED_ID.fullmatch(session_id):
        return None
    try:
        return session_store().load(session_id)
    except NotFound:
        return None


def not_found_page():
    """The page of an unknown or expired session: it says so, and asks nothing more.

    Its status depends on who asks. A browser navigating to it (``Sec-Fetch-Mode:
    navigate``, which every current browser sends with a page load) gets it with 200:
    Chromium writes every document answered 4xx to the console ("Failed to load resource:
    ... 404") whatever the page does, and the table page keeps its console empty; to the
    person the page is plainly a not-found page (its title and heading say so), and it is
    never indexed (``X-Robots-Tag: noindex``) nor cached. Every other client (curl, a link
    checker, a chat app's link preview, a crawler, a browser that sends no fetch metadata)
    gets the same page with 404, as the API's ``/v1/sessions/<id>`` answers everyone;
    ``Vary`` says the status depends on that header. The page makes no data request at
    all, so none of them can fail either."""
    navigating = request.headers.get("Sec-Fetch-Mode") == "navigate"
    html, _status = page("page/missing.html")
    answer = make_response(html, 200 if navigating else 404)
    answer.vary.add("Sec-Fetch-Mode")
    answer.headers["Cache-Control"] = "no-store"
    answer.headers["X-Robots-Tag"] = "noindex"
    return answer


@bp.get("/table/<session_id>")
def table(session_id: str):
    """The table of a seat, or a spectator's (whichever token the browser holds)."""
    session = known_session(session_id)
    if session is None:
        return not_found_page()
    return page(
        "page/table.html",
        session_id=session_id,
        game=session.game.id,
        events_url=events_url(session_id),
    )


def events_url(session_id: str) -> str:
    """Where the table reads the session's event stream: on the stream server when this
    deployment has one (the API would answer a 307 there, and a browser drops the token on
    a redirect to another origin), else on this origin (the API serves streams itself, or
    a proxy in front routes them)."""
    path = f"/v1/sessions/{quote(session_id, safe='')}/events"
    return (public_stream_base() or "") + path


@bp.get("/replay/<session_id>")
def replay(session_id: str):
    session = known_session(session_id)
    if session is None:
        return not_found_page()
    return page("page/replay.html", session_id=session_id, game=session.game.id)


def seat_secrets(session: S.Session, seat: int | None) -> set[str]:
    """The cards the token's seat cannot see (a spectator: every hidden card)."""
    if seat is None:
        return hidden_from_spectators(session.game, session.state)
    return set(session.game.hidden_cards(session.state, seat))


@bp.get("/api/sessions/<session_id>/score")
def score(session_id: str):
    """The score report: match totals and the current (or just finished) deal item by item."""
    _store, session, seat = viewer(session_id)
    report = keyed_report(session.game.id, session.game.score(session.state).to_json())
    return {"version": session.version, "score": redact(report, seat_secrets(session, seat))}


@bp.get("/api/sessions/<session_id>/positions")
def positions(session_id: str):
    """Position 0 (the deal) and the one after each logged move, as the token's seat saw
    them then: its view, the score, whose turn, and the move that led there."""
    store, session, seat = viewer(session_id)
    game = session.game
    state = store.initial_state(session)
    steps = [position(game, state, seat, None)]
    for entry, before, action, after, _events in replayed(game, state, store.log(session, seat)):
        move = {"n": entry["n"], "seat": entry["seat"], **labelled(game.action_to_json(before, action))}
        steps.append(position(game, after, seat, move))
    return {"id": session.id, "game": game.id, "seat": seat, "positions": steps}


def replayed(game: Game[Any], state: Any, log: list[dict[str, Any]]) -> Iterator[tuple[Any, ...]]:
    """Each logged move (``seat``, None for the seat to act, and ``action``) replayed
    from ``state``: the entry, the state before it, its action, the state after, its events."""
    for entry in log:
        action = game.parse_action(state, entry["action"])
        actor = cast(int, entry["seat"] if entry["seat"] is not None else game.to_act(state))
        after, events = game.apply(state, actor, action)
        yield entry, state, action, after, events
        state = after


def position(game: Any, state: Any, seat: int | None, move: dict[str, Any] | None) -> dict[str, Any]:
    view = game.public_view(state) if seat is None else game.view(state, seat)
    report = keyed_report(game.id, game.score(state).to_json())
    hidden = set(game.hidden_cards(state, seat)) if seat is not None else set()
    return {"move": move, "to_act": game.to_act(state), "view": view, "score": redact(report, hidden)}


@bp.get("/api/sessions/<session_id>/sheet")
def sheet(session_id: str):
    """The score sheet: each finished deal with its points per side, the totals after it
    and its items (the deal's score report just before its last move, and the points that
    move scored; for the match's last deal, its report after the last move), replayed
    from the log."""
    store, session, seat = viewer(session_id)
    deals, sides = score_sheet(session.game, store.initial_state(session), store.log(session, seat))
    hidden = seat_secrets(session, seat)
    return {"version": session.version, "sides": sides, "deals": redact(deals, hidden)}


def score_sheet(
    game: Game[Any], state: Any, log: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[Any]]:
    """The finished deals of a match (each as :func:`deal_line`) and its sides, from its
    first state and its log's entries (``seat`` and ``action``), replayed."""
    deals: list[dict[str, Any]] = []
    report = keyed_report(game.id, game.score(state).to_json())
    start_totals = list(report["scores"])
    for _entry, _before, _action, now, events in replayed(game, state, log):
        after = keyed_report(game.id, game.score(now).to_json())
        match_over = game.to_act(now) is None and not deals_end(deals, report)
        if after["deal_no"] != report["deal_no"] or match_over:
            if match_over and after["deal_no"] == report["deal_no"]:
                # the match's last deal: its report after the move is the finished deal's
                # (Marriage itemises a settlement only there, not in a move's events)
                deals.append(deal_line(after, after, [], start_totals))
            else:
                deals.append(deal_line(report, after, keyed_events(game.id, events), start_totals))
            start_totals = list(after["scores"])
        report = after
    return deals, report["sides"]


def deals_end(deals: list[dict[str, Any]], report: dict[str, Any]) -> bool:
    return bool(deals) and deals[-1]["deal_no"] == report["deal_no"]


def deal_line(
    before: dict[str, Any], after: dict[str, Any], events: list[dict[str, Any]], start: list[int]
) -> dict[str, Any]:
    """One deal of the sheet: its number, points per side, totals after it, its items."""
    items = list(before.get("items") or [])
    for event in events:
        if event.get("type") != "points":
            continue
        if "items" in event:
            items.extend(event["items"])
        elif "item" in event:
            side = event.get("side", event.get("seat"))
            points = event.get("points")
            item = {"side": side, "points": points, "item": event["item"], "rule": event.get("rule")}
            for name in ("options", "key", "params"):  # the house rules that changed it; its words
                if name in event:
                    item[name] = event[name]
            items.append(item)
    totals = list(after["scores"])
    return {
        "deal_no": before["deal_no"],
        "points": [total - first for total, first in zip(totals, start, strict=False)],
        "totals": totals,
        "items": items,
    }


def deals_acknowledged() -> int:
    body = json_body(request)  # 400 invalid_json for a body that does not parse, as the API
    deals = body.get("deals") if isinstance(body, dict) else None
    if not isinstance(deals, int) or isinstance(deals, bool) or not 0 <= deals <= 10_000:
        raise ApiError(
            422,
            "invalid_request",
            'send {"deals": n}: how many deals\' summaries this seat has dismissed (0 to 10000)',
            {"fields": {"deals": "an integer from 0 to 10000"}},
        )
    return deals


@bp.post("/api/sessions/<session_id>/hold")
def hold_for_summaries(session_id: str):
    """The bots of this session wait (at most page_hold.MOST_SECONDS) for this seat to
    dismiss each deal's summary."""
    store, session, seat = authorised(session_id)
    page_hold.hold(store, session, seat)
    return {"seat": seat, "most_seconds": page_hold.MOST_SECONDS}


@bp.post("/api/sessions/<session_id>/ack")
def summaries_read(session_id: str):
    """This seat dismissed the summaries of the first ``deals`` deals: the bots go on."""
    deals = deals_acknowledged()
    store, session, seat = authorised(session_id)
    page_hold.ack(store, session, seat, deals)
    S.schedule_bot(store, store.load(session_id))
    return {"seat": seat, "deals": deals}


def init_app(app: Any) -> None:
    app.register_blueprint(bp)
