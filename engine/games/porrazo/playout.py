"""The search's hot path for Porrazo: the seat to act, the end of a playout, and the
uniformly random playout itself, compiled with the rules so that each call of the search
loop is a native call (``Porrazo.__init__`` binds them in place of its methods).

``random_playout`` plays exactly what the protocol's generic loop
(``Game.random_playout``) plays with the same ``rng``: at every turn the engine's
``legal_actions`` in canonical order and the one at ``int(rng.random() * n)`` (a forced
action draws too), applied by the engine's ``apply`` (``step`` without the history entry:
the end state only serves ``outcome``), until ``is_playout_over`` holds. No rule is
written here.
"""

from __future__ import annotations

import random

from engine.games.porrazo.rules import apply, legal_actions
from engine.games.porrazo.state import PState, match_deal_no
from engine.games.porrazo.tables import P_DEAL_OVER


def to_act(st: PState) -> int | None:
    """The seat to act, or None when the match is over."""
    return st.to_act


def is_playout_over(start: PState, st: PState) -> bool:
    """The protocol's ``is_playout_over`` on Porrazo's fields: the match is over, the deal of
    ``start`` has ended, or the state waits for a caller's deck."""
    return st.to_act is None or match_deal_no(st) != match_deal_no(start) or st.phase == P_DEAL_OVER


def random_playout(start: PState, st: PState, rng: random.Random) -> None:
    """Uniformly random legal actions on ``st`` in place until ``is_playout_over(start, st)``."""
    rand = rng.random
    deal: int = match_deal_no(start)  # typed: compared as a C integer at every step
    while st.to_act is not None and match_deal_no(st) == deal and st.phase != P_DEAL_OVER:
        actions = legal_actions(st)
        apply(st, actions[int(rand() * len(actions))], None)
