"""POST /v1/games/{game}/bot-move: a bot's decision for one seat.

A bot never looks at cards its seat cannot see: given a full state, the service first
takes the seat's view, and the bot samples hidden cards from the view alone."""

from __future__ import annotations

import threading
from functools import partial

from flask import current_app
from flask.views import MethodView

from ai.bots import LEVEL_BUDGETS, Budget, Decision, clip_budget, decide
from engine.protocol import IllegalAction, NotYourTurn
from service.api.blueprint import Blueprint
from service.api.common import document_errors, load_game, require_seat_in_range, state_for_view
from service.api.jobs import accepted, search_seconds, start_search
from service.api.schemas import BotMoveResponse
from service.api.session_schemas import AsyncBotMoveRequest, JobAccepted
from service.dispatch import new_seed
from service.errors import ApiError

blp = Blueprint("bots", __name__, url_prefix="/v1/games", description="Bot decisions")


def seat_view(game, body) -> tuple[int, dict]:
    """The seat and the view the bot decides from, checked: right seat, seat to act, match
    not over. Without ``seat``: the seat to act (from a state) or the view's seat."""
    seat = body["seat"]
    if body["state"] is not None:
        state = game.from_json(body["state"])
        if seat is None:
            seat = game.to_act(state)
            if seat is None:
                raise IllegalAction("match is over", rule="match_over")
        require_seat_in_range(game, state, seat)
        view = game.view(state, seat)
    else:
        view = body["view"]
        if seat is None:
            seat = view.get("seat")
        if view.get("seat") != seat:
            raise ApiError(
                422,
                "wrong_seat",
                f"this view belongs to seat {view.get('seat')}, not {seat}",
                {"field": "seat"},
            )
        state = state_for_view(game, view)
    to_act = game.to_act(state)
    if to_act is None:
        raise IllegalAction("match is over", rule="match_over")
    if to_act != seat:
        raise NotYourTurn(f"not your turn: seat {to_act} is to act", rule="turn")
    if not game.legal_actions(state):
        raise IllegalAction("nothing to decide: the table waits for the dealer's deck", rule="deal")
    return seat, view


@blp.route("/<game_id>/bot-move")
class BotMove(MethodView):
    @blp.arguments(AsyncBotMoveRequest())
    @blp.alt_response(200, schema=BotMoveResponse, description="the bot's action and search statistics")
    @blp.alt_response(202, schema=JobAccepted, description="a job: GET its url for the action")
    @document_errors(blp, 400, 404, 422, 429, 503, 507)
    def post(self, body, game_id):
        """A bot's action for `seat` (default: the seat to act), from a state or a seat's view

        Levels: `random`, `easy` (heuristic), `normal` (search, 2,000 iterations), `hard` (20,000).
        An explicit `budget` (`iterations` and/or `ms`) overrides the level's; budgets are
        capped by the server's settings. The same `seed` gives the same decision.

        Only a short search runs inside the request: one whose budget, once capped, is
        within the server's async thresholds (by default 50,000 iterations and 3,000 ms).
        A budget without `ms` is bounded by the server's time cap (10 s by default), so
        give `ms` to stay inline. With `"async": true`, any longer budget, or when the
        server is already running as many searches inline as it allows, the answer
        is 202 with a `job` (`id`, `status`, `url`), `Location` (the job's URL) and
        `Retry-After` (an estimate of the search's seconds): the search runs on the workers,
        split into root-parallel parts, and `GET /v1/jobs/{id}` shows its `progress`, then
        the action when done."""
        game = load_game(game_id)
        seat, view = seat_view(game, body)
        body = dict(body, seat=seat)
        budget = None
        if body["budget"] is not None:
            budget = Budget(iterations=body["budget"]["iterations"], ms=body["budget"]["ms"])
        seed = body["seed"] if body["seed"] is not None else new_seed()
        real = real_budget(budget, body["level"])
        if body["async_"] or not is_short(real):
            return run_async(game.id, view, body, budget, seed, real)
        decision = decide_inline(game, view, body["level"], real, seed)
        if decision is None:
            return run_async(game.id, view, body, budget, seed, real)
        sampled = state_for_view(game, view)
        return {"action": game.action_to_json(sampled, decision.action), "stats": decision.stats}


def decide_inline(game, view: dict, level: str, real: Budget | None, seed: int) -> Decision | None:
    """The decision, taken inside the request; None when this process already runs its
    INLINE_SEARCHES searches (each holds a web thread and shares the process's CPU: if
    every thread searched, the next legal-moves would wait for one to end)."""
    config = current_app.config
    search = partial(
        decide,
        game,
        view,
        level=level,
        budget=real,
        seed=seed,
        max_iterations=config["ASYNC_ITERATIONS"],
        max_ms=config["ASYNC_MS"],  # is_short(real) already: a guard, never a cut
    )
    if real is None:  # random and easy do not search: a few milliseconds
        return search()
    slots = inline_slots()
    if not slots.acquire(blocking=False):
        return None
    try:
        return search()
    finally:
        slots.release()


def inline_slots() -> threading.BoundedSemaphore:
    """This process's INLINE_SEARCHES slots (made on first use: after gunicorn's fork)."""
    extensions = current_app.extensions
    slots = extensions.get(INLINE_SLOTS)
    if slots is None:
        count = max(1, int(current_app.config["INLINE_SEARCHES"]))
        slots = extensions.setdefault(INLINE_SLOTS, threading.BoundedSemaphore(count))
    return slots


INLINE_SLOTS = "majlis_inline_searches"
SEARCHING_LEVELS = tuple(LEVEL_BUDGETS)


def real_budget(budget: Budget | None, level: str) -> Budget | None:
    """The budget a searching level's search really gets (None for a level that does not
    search): the level's unless one is given, capped by the server's maxima. A budget
    without ``ms`` is still bounded in time, by BOT_MAX_MS: ``{}`` or ``{"iterations":
    49999}`` may run for that long."""
    if level not in SEARCHING_LEVELS:
        return None
    config = current_app.config
    return clip_budget(budget or LEVEL_BUDGETS[level], config["BOT_MAX_ITERATIONS"], config["BOT_MAX_MS"])


def is_short(real: Budget | None) -> bool:
    """A search short enough to run inside the request: at most ASYNC_ITERATIONS and
    ASYNC_MS. A longer one would hold a web thread (and share its process's CPU) for
    seconds, so a few of them at once would stall every other request: it runs on the
    workers instead."""
    if real is None:
        return True
    config = current_app.config
    return (real.iterations or 0) <= config["ASYNC_ITERATIONS"] and (real.ms or 0.0) <= config["ASYNC_MS"]


def run_async(game_id: str, view: dict, body: dict, budget: Budget | None, seed: int, real: Budget | None):
    """Queue the search as a job (root-parallel parts for a searching level); the 202 answer."""
    level = body["level"]
    if budget is None and level in SEARCHING_LEVELS:
        budget = LEVEL_BUDGETS[level]
    parts = max(1, int(current_app.config["SEARCH_PARTS"])) if level in SEARCHING_LEVELS else 1
    payload = {
        "game": game_id,
        "view": view,
        "seat": body["seat"],
        "level": level,
        "budget": None if budget is None else budget.to_json(),
        "seed": seed,
    }
    return accepted(start_search(payload, parts), search_seconds(real, parts))
