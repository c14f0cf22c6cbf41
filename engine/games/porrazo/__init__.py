"""Porrazo (docs/rules/porrazo.md): a Mexican fishing game for 2-6 or 8 players.

Package layout (docs/engine-guide.md): ``tables`` (every number and table), ``options``
(option specs and the match's rules object), ``state`` (the compact state), ``scoring``
(points, settlement, the match end), ``rules`` (legal actions, checks, dealing, the play),
``checks`` (what a loaded state must satisfy), ``layout`` (what a layout leaves out),
``codec`` (actions, states, layouts and views as JSON), ``sampling`` (the view sampler)
and ``game`` (the Game class).
"""

from engine.games.porrazo.game import GAME

__all__ = ["GAME"]
