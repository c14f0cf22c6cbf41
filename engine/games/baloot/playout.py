"""The random playout of Baloot (``Baloot.random_playout``), lighter than the generic loop.

It plays exactly what the protocol's generic loop (``Game.random_playout``) would play with
the same ``rng``: at every turn the legal actions in canonical order, the one at
``int(rng.random() * n)`` (``int`` of a float is native in the compiled build). What
it saves: the protocol wrappers (``is_playout_over`` through
``to_act``/``deal_no``/``phase``, ``Game.step``) and, when the legal actions are just the
allowed cards (following, or leading in Sun, with no project decision pending), the list of
them: the engine's own ``rules.duties``/``rules.legal_mask`` give the mask (the hand when
leading in Sun), and the card is the ``r``-th set bit in slot order (the order of
``rules.slots_of``). Every action is applied by the engine's
``rules.apply`` (``rules.step`` without the history entry).

Two things it leaves undone. It does not record its actions in the history (no rule reads
it). And, as Trex's and Ronda's playouts do, the next deal is not dealt.
The playout sets ``rng_state`` (read only to deal the next deal, E1) to None first, so
the end of the deal leaves the state in ``deal_over``, awaiting a caller's deal, instead
of seeding a generator, shuffling and dealing the next deal, which scores nothing.
``is_playout_over`` holds either way and ``outcome`` reads only the scores and the match
winner, so it is the same; the final state of a playout only serves ``outcome(start,
end)`` (the searched state is a clone)."""

from __future__ import annotations

import random
from typing import Final

from engine.games.baloot import rules
from engine.games.baloot.state import State
from engine.games.baloot.tables import DEAL_OVER, PLAY, SUN

LOW: Final = rules._LOW  # slot lists of the low/high 16 bits of a mask (``rules.slots_of``)
HIGH: Final = rules._HIGH


def random_playout(start: State, st: State, rng: random.Random) -> None:
    """Uniformly random legal actions on ``st`` in place until the deal of ``start`` is over
    (the protocol's ``is_playout_over``)."""
    rand = rng.random
    deal_no: int = start.deal_no
    # typed locals: the compiled build keeps them as C integers
    seat: int
    m: int  # the allowed cards, -1 when the actions are more than cards
    r: int
    if st.to_act is not None and st.deal_no == deal_no and st.phase != DEAL_OVER:
        st.rng_state = None  # end the deal without dealing the next one (see the module doc)
    while st.to_act is not None and st.deal_no == deal_no and st.phase != DEAL_OVER:
        m = -1  # the allowed cards when they are all the actions (no project call, no Ekka)
        if st.phase == PLAY:
            seat = st.to_act
            # no project decision pending (rules.legal_actions' first branch, trick 1 only)
            if not rules.project_pending(st):
                if st.table:  # following
                    m = rules.follow_mask(st, seat)
                elif st.kind == SUN:  # leading in Sun: any card, no Ekka (rules.legal_actions)
                    m = st.hands[seat]
        if m >= 0:
            low = LOW[m & 0xFFFF]
            high = HIGH[m >> 16]
            r = int(rand() * (len(low) + len(high)))
            rules.apply(st, low[r] if r < len(low) else high[r - len(low)])
        else:
            actions = rules.legal_actions(st)
            rules.apply(st, actions[int(rand() * len(actions))])
