"""Hints: the actions of the seat to act, ranked by the search, and the easy policy's
choice. A hint never plays anything.

    POST /v1/games/{game}/hint          stateless: a state and a seat, or the seat's view
    POST /v1/sessions/{id}/hint         a session seat's own hint (in service/api/sessions.py)

The search decides from the seat's view only, like a bot. It runs inside the request,
so it is kept short: its budget is capped at the server's sync threshold (ASYNC_MS,
ASYNC_ITERATIONS) and it takes one of the process's INLINE_SEARCHES slots, waiting up to
HINT_WAIT seconds for one; then the answer is 429 ``busy`` (``Retry-After``: 1 second).
A client has at most QUOTA_HINTS hints searching at once (429 ``quota_exceeded``), so
that one client cannot hold every slot and turn everybody else's hint into a 429."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import redis
from flask import current_app
from flask.views import MethodView
from marshmallow import fields, validate

from ai.bots import LEVEL_BUDGETS, Budget, clip_budget, decide
from engine.protocol import Game
from service import i18n, quotas
from service.api.blueprint import Blueprint
from service.api.bots import inline_slots, seat_view
from service.api.common import document_errors, load_game, quota_client, runtime, state_for_view
from service.api.schemas import (
    ActionField,
    BotMoveRequest,
    BudgetSchema,
    BudgetUsedSchema,
    LabelledAction,
    Strict,
)
from service.errors import ApiError

log = logging.getLogger(__name__)

blp = Blueprint("hints", __name__, url_prefix="/v1/games", description="Hints for the seat to act")

HINT_LEVELS = ("normal", "hard")  # the levels that search


class HintOptions(Strict):
    level = fields.String(load_default="normal", validate=validate.OneOf(HINT_LEVELS))
    budget = fields.Nested(BudgetSchema, load_default=None, allow_none=True)
    seed = fields.Integer(
        strict=True, load_default=None, allow_none=True, validate=validate.Range(0, 2**63 - 1)
    )


class HintRequest(BotMoveRequest):
    level = fields.String(load_default="normal", validate=validate.OneOf(HINT_LEVELS))


class RankedAction(Strict):
    action = ActionField()
    label = fields.String()
    visits = fields.Integer()
    share = fields.Float(metadata={"description": "this action's share of the search's visits"})
    value = fields.Float(
        allow_none=True, metadata={"description": "expected outcome in [0, 1] for the seat (mean reward)"}
    )


class HintResponse(Strict):
    seat = fields.Integer()
    version = fields.Integer(metadata={"description": "session hint: the version it was computed at"})
    actions = fields.List(fields.Nested(RankedAction), metadata={"description": "most visited first"})
    easy = fields.Nested(LabelledAction, metadata={"description": "the easy policy's choice"})
    iterations = fields.Integer()
    elapsed_ms = fields.Float()
    budget = fields.Nested(
        BudgetUsedSchema, metadata={"description": "the budget the search got, once capped"}
    )


def hint_budget(budget: dict[str, Any] | None, level: str) -> Budget:
    """The level's budget unless one is given, capped by the sync threshold: a hint is
    always answered inside the request."""
    config = current_app.config
    chosen = LEVEL_BUDGETS[level]
    if budget is not None:
        chosen = Budget(iterations=budget["iterations"], ms=budget["ms"])
    most_ms = min(float(config["BOT_MAX_MS"]), float(config["ASYNC_MS"]))
    most_iterations = min(int(config["BOT_MAX_ITERATIONS"]), int(config["ASYNC_ITERATIONS"]))
    return clip_budget(chosen, most_iterations, most_ms)


def hint(game: Game, view: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The hint for the seat of ``view`` (which must be to act): the search's ranking
    and the easy policy's choice. 429 ``quota_exceeded`` when the client already has its
    hints searching (MAJLIS_QUOTA_HINTS), 429 ``busy`` when no search slot of this
    process frees within MAJLIS_HINT_WAIT seconds."""
    budget = hint_budget(options.get("budget"), options.get("level") or "normal")
    seed = options["seed"] if options.get("seed") is not None else secrets.randbits(63)
    max_iterations, max_ms = budget.iterations or 1, budget.ms or 1.0
    with hint_lease(budget.ms or 0.0):
        slots = inline_slots()
        # one client holds at most its share of the slots (the lease); another waits a
        # moment for one rather than failing at once
        if not slots.acquire(timeout=float(current_app.config["HINT_WAIT"])):
            raise ApiError(
                429,
                "busy",
                "this server is running as many searches as it allows: retry in a second",
                {"retry_after": 1},
                {"Retry-After": "1"},
            )
        try:
            searched = decide(
                game,
                view,
                level=options["level"],
                budget=budget,
                seed=seed,
                max_iterations=max_iterations,
                max_ms=max_ms,
            )
        finally:
            slots.release()
    easy = decide(game, view, level="easy", seed=seed)
    world = state_for_view(game, view)
    stats = searched.stats
    return {
        "seat": view["seat"],
        "actions": ranked(stats["actions"]) + unsearched(game, world, stats["actions"]),
        "easy": labelled(game.action_to_json(world, easy.action)),
        "iterations": stats.get("iterations", 0),
        "elapsed_ms": stats.get("elapsed_ms", 0.0),
        "budget": {"iterations": budget.iterations, "ms": budget.ms},
    }


@contextmanager
def hint_lease(ms: float) -> Iterator[None]:
    """Count this hint in its client's hints searching (a lease in Redis, dropped at the
    end, or by itself a few seconds after the search's longest time if this process
    dies). Without Redis (stateless use on its own) there is nothing to count."""
    most = int(current_app.config["QUOTA_HINTS"])
    if not most or runtime().client is None:
        yield
        return
    counts = quotas.current(runtime())
    key = counts.key("hints", quota_client())
    holder = quotas.new_holder()
    refusal = counts.take_lease([("hints", key, most)], holder, ms / 1000.0 + 5.0)
    quotas.require(refusal, "hints searching at once")
    try:
        yield
    finally:
        try:
            counts.drop_lease([key], holder)
        except redis.RedisError as error:  # the lease runs out by itself
            log.warning("hint lease not dropped: %s", error)


def ranked(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The search's root actions, most visited first, with their share and value."""
    total = sum(a["visits"] for a in actions) or 1
    out = [
        dict(labelled(a["action"]), visits=a["visits"], share=round(a["visits"] / total, 4), value=a["mean"])
        for a in actions
    ]
    out.sort(key=lambda a: (-a["visits"], -(a["value"] or 0.0)))
    return out


def unsearched(game: Game, world: Any, searched: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The legal actions the search left out (a game's policy may narrow its candidates,
    as Marriage's discards), so that a hint lists every legal action: no visits, no value."""
    seen = [a["action"] for a in searched]
    legal = [game.action_to_json(world, action) for action in game.legal_actions(world)]
    return [dict(labelled(a), visits=0, share=0.0, value=None) for a in legal if a not in seen]


def labelled(action: dict[str, Any]) -> dict[str, Any]:
    return {"action": action, "label": i18n.label(action)}


@blp.route("/<game_id>/hint")
class Hint(MethodView):
    @blp.arguments(HintRequest())
    @blp.alt_response(200, schema=HintResponse, description="the seat's actions ranked; nothing played")
    @document_errors(blp, 400, 404, 422, 429)
    def post(self, body, game_id):
        """Rank the legal actions of `seat`, from a state or from that seat's view

        The search (level `normal` or `hard`, or an explicit `budget`) decides from the
        seat's view only; its budget is capped at the server's sync threshold, so the
        answer comes at once. `actions` lists every legal action with its `label`, its
        share of the search's visits and its expected value (the mean outcome in [0, 1]
        for the seat); `easy` is what the easy policy would play. Nothing is played."""
        game = load_game(game_id)
        _seat, view = seat_view(game, body)  # the seat defaults to the seat to act
        return hint(game, view, body)
