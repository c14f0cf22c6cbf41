"""GET /v1/games, /v1/games/{game} and /v1/games/{game}/rules: what the service plays."""

from __future__ import annotations

import sys
from pathlib import Path

from flask import Response, url_for
from flask.views import MethodView

from ai.bots import offered_levels
from engine import all_games
from engine.protocol import JSON, Game
from service.api.blueprint import Blueprint
from service.api.common import document_errors, load_game
from service.api.schemas import GameListSchema, GameSchema
from service.errors import ApiError

blp = Blueprint("games", __name__, url_prefix="/v1/games", description="Games, player counts and options")

# Where the rules reference (docs/rules/<game>.md) is found: in the source checkout that
# `make run` and the tests use, else where pyproject's data-files install it with the
# package (a wheel, as in the Docker image).
RULES_DIRS = (
    Path(__file__).resolve().parents[2] / "docs" / "rules",
    Path(sys.prefix) / "share" / "majlis" / "rules",
)


def rules_file(game: Game) -> Path:
    """The game's rules reference; 404 ``rules_not_installed`` if no copy is found."""
    for folder in RULES_DIRS:
        path = folder / f"{game.id}.md"
        if path.is_file():
            return path
    raise ApiError(404, "rules_not_installed", f"the rules reference of {game.id} is not installed")


def with_rules_url(game: Game) -> JSON:
    """The game's metadata, its ``rules`` field pointing at the rules this service serves,
    and the bot ``levels`` it offers (ai.bots.offered_levels)."""
    rules = url_for("games.GameRules", game_id=game.id)
    return {**game.metadata(), "rules": rules, "levels": list(offered_levels(game.id))}


@blp.route("")
class Games(MethodView):
    @blp.alt_response(200, schema=GameListSchema, description="every game")
    def get(self):
        """List the games with their player counts, options and action verbs"""
        return {"games": [with_rules_url(game) for game in all_games()]}


@blp.route("/<game_id>")
class GameDetail(MethodView):
    @blp.alt_response(200, schema=GameSchema, description="one game")
    @document_errors(blp, 404)
    def get(self, game_id: str):
        """One game's metadata: player counts, options schema and action verbs"""
        return with_rules_url(load_game(game_id))


@blp.route("/<game_id>/rules")
class GameRules(MethodView):
    @blp.alt_response(
        200,
        content_type="text/markdown",
        schema={"type": "string"},
        description="the numbered rules (Markdown) that rule ids in errors refer to",
    )
    @document_errors(blp, 404)
    def get(self, game_id: str):
        """The game's rules reference, numbered with the rule ids the errors cite"""
        text = rules_file(load_game(game_id)).read_text(encoding="utf-8")
        return Response(text, mimetype="text/markdown", content_type="text/markdown; charset=utf-8")
