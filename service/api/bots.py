"""POST /v1/games/{game}/bot-move: a bot's decision for one seat.

A bot never looks at cards its seat cannot see: given a full state, the service first
takes the seat's view, and the bot samples hidden cards from the view alone."""

from __future__ import annotations

import secrets

from flask import current_app
from flask.views import MethodView

from ai.bots import LEVEL_BUDGETS, Budget, decide
from engine.protocol import IllegalAction, NotYourTurn
from service.api.blueprint import Blueprint
from service.api.common import document_errors, load_game, require_seat_in_range, state_for_view
from service.api.jobs import start_search
from service.api.schemas import BotMoveResponse
from service.api.session_schemas import AsyncBotMoveRequest, JobAccepted
from service.errors import ApiError

blp = Blueprint("bots", __name__, url_prefix="/v1/games", description="Bot decisions")


def seat_view(game, body) -> dict:
    """The view the bot decides from, checked: right seat, seat to act, match not over."""
    seat = body["seat"]
    if body["state"] is not None:
        state = game.from_json(body["state"])
        require_seat_in_range(game, state, seat)
        view = game.view(state, seat)
    else:
        view = body["view"]
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
    return view


@blp.route("/<game_id>/bot-move")
class BotMove(MethodView):
    @blp.arguments(AsyncBotMoveRequest())
    @blp.alt_response(200, schema=BotMoveResponse, description="the bot's action and search statistics")
    @blp.alt_response(202, schema=JobAccepted, description="a job: GET its url for the action")
    @document_errors(blp, 400, 404, 422, 503)
    def post(self, body, game_id):
        """A bot's action for `seat`, from a state or from that seat's view

        Levels: `random`, `easy` (heuristic), `normal` (search, about 200 ms), `hard`.
        An explicit `budget` (`iterations` and/or `ms`) overrides the level's; budgets are
        capped by the server's settings. The same `seed` gives the same decision.

        With `"async": true`, or a budget above the server's async threshold, the answer
        is 202 with a `job` (`id`, `status`, `url`): the search runs on the workers, split
        into root-parallel parts, and `GET /v1/jobs/{id}` gives the action when done."""
        game = load_game(game_id)
        view = seat_view(game, body)
        budget = None
        if body["budget"] is not None:
            budget = Budget(iterations=body["budget"]["iterations"], ms=body["budget"]["ms"])
        seed = body["seed"] if body["seed"] is not None else secrets.randbits(63)
        if body["async_"] or is_large(budget, body["level"]):
            return run_async(game.id, view, body, budget, seed), 202
        decision = decide(
            game,
            view,
            level=body["level"],
            budget=budget,
            seed=seed,
            max_iterations=current_app.config["BOT_MAX_ITERATIONS"],
            max_ms=current_app.config["BOT_MAX_MS"],
        )
        sampled = state_for_view(game, view)
        return {"action": game.action_to_json(sampled, decision.action), "stats": decision.stats}


SEARCHING_LEVELS = tuple(LEVEL_BUDGETS)


def is_large(budget: Budget | None, level: str) -> bool:
    """A searching level's budget (capped) above the server's async threshold."""
    if level not in SEARCHING_LEVELS:
        return False
    config = current_app.config
    budget = budget or LEVEL_BUDGETS[level]
    iterations = min(budget.iterations or 0, config["BOT_MAX_ITERATIONS"])
    ms = min(budget.ms or 0.0, config["BOT_MAX_MS"])
    return iterations > config["ASYNC_ITERATIONS"] or ms > config["ASYNC_MS"]


def run_async(game_id: str, view: dict, body: dict, budget: Budget | None, seed: int) -> dict:
    """Queue the search as a job: root-parallel parts for a searching level."""
    level = body["level"]
    if budget is None and level in SEARCHING_LEVELS:
        budget = LEVEL_BUDGETS[level]
    parts = max(1, int(current_app.config["SEARCH_PARTS"])) if level in SEARCHING_LEVELS else 1
    payload = {
        "game": game_id,
        "view": view,
        "seat": body["seat"],
        "level": level,
        "budget": None if budget is None else {"iterations": budget.iterations, "ms": budget.ms},
        "seed": seed,
    }
    return {"job": start_search(payload, parts)}
