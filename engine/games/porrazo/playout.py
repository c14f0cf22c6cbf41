"""The search's hot path for Porrazo: the seat to act, the end of a playout, and the
uniformly random playout itself, compiled with the rules so that each call of the search
loop is a native call (``Porrazo.__init__`` binds them in place of its methods).

``random_playout`` plays exactly what the protocol's generic loop
(``Game.random_playout``) plays with the same ``rng``: at every turn the engine's
``legal_actions`` in canonical order and the one at ``int(rng.random() * n)`` (a forced
action draws too), applied by the engine's ``apply`` (``step`` without the history entry:
the end state only serves ``outcome``), until ``is_playout_over`` holds. No rule is
written here.

A Porrazo playout runs to the end of the *hand* (the whole deck), not of the deal (three
cards a seat): the card count (R24) and the sweep (R23) are scored only at the hand's
end, so a playout that stopped at the deal's end valued a capture by its points alone
(docs/bots.md, "Porrazo's horizon").
"""

from __future__ import annotations

import random

from engine.games.porrazo.rules import apply, legal_actions
from engine.games.porrazo.state import PState
from engine.games.porrazo.tables import P_DEAL_OVER


def to_act(st: PState) -> int | None:
    """The seat to act, or None when the match is over."""
    return st.to_act


def is_playout_over(start: PState, st: PState) -> bool:
    """Where a search playout from ``start`` stops: the match is over, the hand of ``start``
    has ended (its card count scored), or the state waits for a caller's deck."""
    return st.to_act is None or st.hand_no != start.hand_no or st.phase == P_DEAL_OVER


def random_playout(start: PState, st: PState, rng: random.Random) -> None:
    """Uniformly random legal actions on ``st`` in place until ``is_playout_over(start, st)``."""
    rand = rng.random
    hand: int = start.hand_no  # typed: compared as a C integer at every step
    while st.to_act is not None and st.hand_no == hand and st.phase != P_DEAL_OVER:
        actions = legal_actions(st)
        apply(st, actions[int(rand() * len(actions))], None)
