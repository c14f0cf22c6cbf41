"""GET /v1/games and /v1/games/{game}: what the service plays."""

from __future__ import annotations

from flask.views import MethodView

from engine import all_games
from service.api.blueprint import Blueprint
from service.api.common import document_errors, load_game
from service.api.schemas import GameListSchema, GameSchema

blp = Blueprint("games", __name__, url_prefix="/v1/games", description="Games, player counts and options")


@blp.route("")
class Games(MethodView):
    @blp.alt_response(200, schema=GameListSchema, description="every game")
    def get(self):
        """List the games with their player counts, options and action verbs"""
        return {"games": [game.metadata() for game in all_games()]}


@blp.route("/<game_id>")
class GameDetail(MethodView):
    @blp.alt_response(200, schema=GameSchema, description="one game")
    @document_errors(blp, 404)
    def get(self, game_id: str):
        """One game's metadata: player counts, options schema and action verbs"""
        return load_game(game_id).metadata()
