"""The random playout of Ronda (``Ronda.random_playout``): the search's hot loop.

It plays exactly what the protocol's generic loop (``Game.random_playout``) plays with the
same ``rng``, and the state ends where the generic loop leaves it: at every turn the legal
actions in canonical order and the one at ``int(rng.random() * n)``, applied by the
engine's rule functions, until ``rules.is_playout_over``. What it saves is the protocol's
wrappers and, in the play phase (most turns), the list of legal actions: the ``r``-th card
of the hand mask (ascending bits = the canonical order of ``rules.legal_actions``) is
found on the mask and played with ``rules.r19_play``, recorded in the history as
``rules.step`` records it. The declaration and challenge turns go through
``rules.legal_actions`` and ``rules.step``.

One thing the fused playout leaves undone, as Trex's does: the next deal is not dealt.
Unless ``auto_declare`` is on, the playout sets ``rng_state`` (read only to deal the next
deal) to None first, so the end of the deal (R27) leaves the state in ``deal_over``,
awaiting a caller's deal, instead of seeding a generator, shuffling and dealing the next
deal, whose start scores nothing. That is a valid state, the finished deal is scored as
usual, and ``is_playout_over`` holds either way; ``outcome`` reads only the scores and the
winner, so it is the same. With ``auto_declare`` the next deal's start settles the
declarations (R15), which may score or end the match: then the deal is dealt. The final
state of a playout only serves ``outcome(start, end)``; the searched state is a clone.
"""

from __future__ import annotations

import random

from engine.games.ronda.rules import is_playout_over, legal_actions, r19_play, step
from engine.games.ronda.state import RondaState
from engine.games.ronda.tables import DEAL_OVER_P, PLAY_P


def random_playout(start: RondaState, s: RondaState, rng: random.Random) -> None:
    """Uniformly random legal actions on ``s`` in place until the deal of ``start`` is over
    (``rules.is_playout_over``), drawing the same actions as the generic loop."""
    rand = rng.random
    deal_no = start.deal_no
    if s.to_act < 0 or s.deal_no != deal_no or s.phase == DEAL_OVER_P:
        return  # over already: the state is left as it is
    if not s.o.auto_declare:  # end the deal without dealing the next one (see the module doc)
        s.rng_state = None
    while not is_playout_over(start, s):
        if s.phase == PLAY_P:
            seat = s.to_act
            hand = s.hands[seat]
            # counted with C int arithmetic in the compiled build (``bit_count`` is a
            # method call there); a hand holds four cards at most
            n = 0
            m = hand
            while m:
                m &= m - 1
                n += 1
            r: int = int(rand() * n)  # typed: the draw and the mask stay in C when compiled
            for _ in range(r):
                hand &= hand - 1  # drop the lowest card: the r-th is then the lowest
            card = (hand & -hand).bit_length() - 1
            s.hist = (s.hist, seat, card)
            r19_play(s, card, None)
        else:
            actions = legal_actions(s)
            step(s, actions[int(rand() * len(actions))], None)
