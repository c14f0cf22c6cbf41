"""Majlis rules engines: one :class:`~engine.protocol.Game` per game, found by id.

>>> sorted(GAME_IDS)
['baloot', 'marriage', 'porrazo', 'ronda', 'trex']
"""

from __future__ import annotations

import importlib
from typing import Any

from engine import build_mode

build_mode.install()  # first: which build of the hot modules loads (compiled or the .py files)

from engine.protocol import Game  # noqa: E402

GAME_IDS: tuple[str, ...] = ("ronda", "baloot", "trex", "porrazo", "marriage")
"""Every game of the product; ``engine.games.<id>`` defines ``GAME``."""

_loaded: dict[str, Game[Any]] = {}


class UnknownGame(LookupError):
    def __init__(self, game_id: object) -> None:
        super().__init__(f"unknown game {game_id!r}; games: {', '.join(GAME_IDS)}")
        self.game_id = game_id


def get_game(game_id: str) -> Game[Any]:
    """The game registered under ``game_id``; raises UnknownGame."""
    game = _loaded.get(game_id)
    if game is not None:
        return game
    if game_id not in GAME_IDS:
        raise UnknownGame(game_id)
    loaded: Game[Any] = importlib.import_module(f"engine.games.{game_id}").GAME
    _loaded[game_id] = loaded
    return loaded


def all_games() -> list[Game[Any]]:
    """Every registered game, in GAME_IDS order."""
    return [get_game(game_id) for game_id in GAME_IDS]
