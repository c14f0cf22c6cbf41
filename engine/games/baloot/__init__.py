"""Baloot (docs/rules/baloot.md): the Saudi four-player partnership trick game."""

from engine.games.baloot.game import GAME, Baloot

__all__ = ["GAME", "Baloot"]
