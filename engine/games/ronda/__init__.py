"""Ronda (رندة), the Moroccan fishing game: see docs/rules/ronda.md.

Modules: ``tables`` (pack, rank sequence, deal patterns, values), ``state`` (compact
state, cheap clone), ``rules`` (R1-R32 as functions), ``codec`` (state JSON, layouts,
views, sampler), ``game`` (the Game protocol).
"""

from engine.games.ronda.game import GAME, Ronda

__all__ = ["GAME", "Ronda"]
