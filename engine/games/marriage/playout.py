"""The search's random playout of Marriage (``Marriage.random_playout``), compiled with the
rules: the protocol's generic loop (``Game.random_playout``) over the engine's own
``rules.legal_actions``, ``rules.step`` and ``hand_eval.is_playout_over``, without a call
through the interpreted ``game.py`` per step. It draws exactly what the generic loop draws
with the same ``rng``: at every turn the legal actions in canonical order, the one at
``int(rng.random() * n)`` (a forced action draws too)."""

from __future__ import annotations

import random
from collections.abc import Callable

from .hand_eval import is_playout_over
from .rules import legal_actions, step
from .state import MState


def random_playout(start: MState, state: MState, rng: random.Random) -> None:
    """Uniformly random legal actions on ``state`` in place until ``is_playout_over(start,
    state)`` (the search's horizon or the end of the deal)."""
    rand: Callable[[], float] = rng.random  # typed: the compiled build multiplies C doubles
    while not is_playout_over(start, state):
        actions = legal_actions(state)
        step(state, actions[int(rand() * len(actions))], None)
