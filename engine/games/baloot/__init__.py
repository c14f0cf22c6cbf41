"""Baloot (docs/rules/baloot.md): the Saudi four-player partnership trick game.

Modules, each importing only those before it: ``tables`` (card layout, orders, values,
phases), ``options`` (option specs and the rules' compact options), ``projects``
(R18-R23), ``state`` (the state's data), ``scoring`` (S1-S8, the match end), ``rules``
(legal actions, checks and the transitions), ``layout`` (what a layout leaves out),
``checks`` (what a loaded state must satisfy), ``codec`` (the JSON shape of states, views
and actions), ``sampling`` (worlds that fit a view), ``playout`` (the fused random
playout), ``game`` (the Game protocol).
"""

from engine.games.baloot.game import GAME

__all__ = ["GAME"]
