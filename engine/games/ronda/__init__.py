"""Ronda (رندة), the Moroccan fishing game: see docs/rules/ronda.md and the package
layout in docs/engine-guide.md."""

from engine.games.ronda.game import GAME

__all__ = ["GAME"]
