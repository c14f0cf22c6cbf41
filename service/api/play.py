"""The stateless play endpoints: deal, legal moves, moves, score, view.

The caller keeps the state; every request carries it and every answer returns the
next one. Views stay thin: load, ask the engine, dump."""

from __future__ import annotations

from flask.views import MethodView

from engine.items import keyed_events, keyed_report
from engine.protocol import IllegalAction
from service import i18n
from service.api.blueprint import Blueprint
from service.api.common import document_errors, load_game, require_seat_in_range, state_for_view
from service.api.schemas import (
    DealRequest,
    LegalMovesResponse,
    MoveRequest,
    MoveResponse,
    ScoreResponse,
    StateOrViewRequest,
    StateRequest,
    StateResponse,
    ViewRequest,
    ViewResponse,
)
from service.dispatch import new_seed
from service.errors import ApiError

blp = Blueprint(
    "play", __name__, url_prefix="/v1/games", description="Deal, check and apply plays, score, views"
)


@blp.route("/<game_id>/deals")
class Deals(MethodView):
    @blp.arguments(DealRequest())
    @blp.alt_response(200, schema=StateResponse, description="a new match, dealt")
    @document_errors(blp, 400, 404, 422)
    def post(self, body, game_id):
        """Start a match: deal from a seed, an explicit deck (top first) or a layout

        With a `seed` (or none of seed, deck, layout: a random seed is drawn) the match
        deals every later deal itself. With an explicit `deck` or `layout` and no seed,
        the caller deals: when a deal ends the state waits in phase `deal_over` for a
        `{"type": "deal", "deck": [...]}` action from the dealer seat."""
        game = load_game(game_id)
        players = game.check_players(body["players"])
        if body["dealer"] >= players:
            raise ApiError(
                422, "invalid_setup", f"dealer must be a seat from 0 to {players - 1}", {"field": "dealer"}
            )
        options = body["options"]  # parsed by new_state (with a layout's: Game.layout_options)
        seed = body["seed"]
        if seed is None and body["deck"] is None and body["layout"] is None:
            seed = new_seed()
        state = game.new_state(
            players, options, body["dealer"], seed=seed, deck=body["deck"], layout=body["layout"]
        )
        return {"state": game.to_json(state)}


@blp.route("/<game_id>/legal-moves")
class LegalMoves(MethodView):
    @blp.arguments(StateOrViewRequest())
    @blp.alt_response(200, schema=LegalMovesResponse, description="the seat to act and its legal actions")
    @document_errors(blp, 400, 404, 422)
    def post(self, body, game_id):
        """Every legal action of the seat to act

        Given a `view`, the actions are listed when the view's seat is the one to act
        (its own cards decide them); for any other seat `actions` is empty. `labels[i]`
        is a short label of `actions[i]` ("play K♥", "declare ronda"), in the language
        of `Accept-Language` (English, Arabic, Spanish or Nepali)."""
        game = load_game(game_id)
        if body["state"] is not None:
            state = game.from_json(body["state"])
        else:
            state = state_for_view(game, body["view"])
            if game.to_act(state) != body["view"]["seat"]:
                return {"to_act": game.to_act(state), "actions": [], "labels": []}
        actions = [game.action_to_json(state, a) for a in game.legal_actions(state)]
        return {"to_act": game.to_act(state), "actions": actions, "labels": [i18n.label(a) for a in actions]}


@blp.route("/<game_id>/moves")
class Moves(MethodView):
    @blp.arguments(MoveRequest())
    @blp.alt_response(200, schema=MoveResponse, description="the next state and what happened")
    @document_errors(blp, 400, 404, 422)
    def post(self, body, game_id):
        """Check and apply one action for `seat`

        An illegal action is refused with 422 `illegal_move`: the rule, the reason in
        plain words and the legal actions are in `details`."""
        game = load_game(game_id)
        state = game.from_json(body["state"])
        require_seat_in_range(game, state, body["seat"])
        action = game.parse_action(state, body["action"])
        try:
            nxt, events = game.apply(state, body["seat"], action)
        except IllegalAction as error:  # a rule says no: tell the player what they may do
            error.details.setdefault("to_act", game.to_act(state))
            error.details.setdefault(
                "legal_actions", [game.action_to_json(state, a) for a in game.legal_actions(state)]
            )
            raise
        return {"state": game.to_json(nxt), "events": keyed_events(game.id, events)}


@blp.route("/<game_id>/score")
class Score(MethodView):
    @blp.arguments(StateRequest())
    @blp.alt_response(200, schema=ScoreResponse, description="match totals and the deal itemised")
    @document_errors(blp, 400, 404, 422)
    def post(self, body, game_id):
        """Match totals per side and the current deal's scoring, item by item"""
        game = load_game(game_id)
        return keyed_report(game.id, game.score(game.from_json(body["state"])).to_json())


@blp.route("/<game_id>/view")
class View(MethodView):
    @blp.arguments(ViewRequest())
    @blp.alt_response(200, schema=ViewResponse, description="what the seat may know")
    @document_errors(blp, 400, 404, 422)
    def post(self, body, game_id):
        """One seat's view: every card it cannot see replaced by a count"""
        game = load_game(game_id)
        state = game.from_json(body["state"])
        require_seat_in_range(game, state, body["seat"])
        return {"view": game.view(state, body["seat"])}
