"""Trex's playout hook (the normal level's playouts): the easy policy's trick play in its
cheapest form, on the sampled world's ``TrexState``. See ``ai.policies.trex.make_trex_playout``
for why it plays this way; ``ai.playouts`` for the two functions.

The trick phase of ``play_out`` is the engine's fused trick loop (``playout.play_tricks``,
on the hands' bit masks: the rules are all the engine's) with this hook's ``HookTricks`` as
its choice point; ``choose`` asks the same ``HOOK_TRICKS.card`` with the legal mask of
``rules.legal_actions``, so that both make the same choices with the same draws."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Final

from engine.games.trex.playout import BITS, POP, Rand, TrickPolicy, draw_card, play_tricks
from engine.games.trex.rules import is_playout_over, legal_actions, step
from engine.games.trex.state import TrexState
from engine.games.trex.tables import PENALTY_MASK, TRICKS

if TYPE_CHECKING:  # a mypyc native type; at run time the annotations are never evaluated
    from mypy_extensions import i64

EPSILON: Final = 0.1
"""Share of playout turns played uniformly at random (keeps the playouts varied)."""

# Cards: suit * 13 + rank, rank 0 = 2 ... 12 = ace; a hand mask holds suit s in its 13-bit
# chunk ``s`` (bits 13 s .. 13 s + 12). Bytes tables (see engine.games.trex.playout):
LOWEST: Final = bytes(((c & -c).bit_length() - 1) % 13 for c in range(1 << 13))
"""``LOWEST[chunk]``: the lowest rank of a non-empty 13-bit chunk."""
HIGHEST: Final = bytes((c.bit_length() - 1) % 13 for c in range(1 << 13))
"""``HIGHEST[chunk]``: the highest rank of a non-empty 13-bit chunk."""
BELOW: Final[list[int]] = [(1 << rank) - 1 for rank in range(13)]
"""``BELOW[rank]``: the ranks under ``rank``, as a chunk."""


def choose(s: TrexState, rng: random.Random) -> Any:
    """The action of the seat to act: in the trick phase ``HookTricks.card``; the layout,
    doubling and contract choice at random. One action: no draw."""
    actions = legal_actions(s)
    n = len(actions)
    if n == 1:
        return actions[0]
    if s.phase != TRICKS:
        return actions[int(rng.random() * n)]
    legal: i64 = 0
    card: int
    for card in actions:  # the trick phase's actions are cards, ascending
        legal |= BITS[card]
    trick = s.trick
    led: i64 = trick[0] // 13 if trick else -1
    return HOOK_TRICKS.card(legal, led, s.best, len(trick), PENALTY_MASK[s.contract], rng.random)


def lowest_rank(m: i64) -> i64:
    """The first card (lowest suit) of the lowest rank in the non-empty mask ``m``."""
    return _card_of_rank(m, LOWEST)


def highest_rank(m: i64) -> i64:
    """The first card (lowest suit) of the highest rank in the non-empty mask ``m``."""
    return _card_of_rank(m, HIGHEST)


def _card_of_rank(m: i64, rank_of_chunk: bytes) -> i64:
    """The first card (lowest suit) in ``m`` of the rank that ``rank_of_chunk`` (LOWEST or
    HIGHEST) picks from the ranks present in any suit."""
    c0: i64 = m & 0x1FFF
    c1: i64 = m >> 13 & 0x1FFF
    c2: i64 = m >> 26 & 0x1FFF
    c3: i64 = m >> 39
    rank: i64 = rank_of_chunk[c0 | c1 | c2 | c3]
    return _first_suit_of(rank, c0, c1, c2)


def _first_suit_of(rank: i64, c0: i64, c1: i64, c2: i64) -> i64:
    """The card of ``rank`` in the first of the chunks that holds it (else clubs)."""
    if c0 >> rank & 1:
        return rank
    if c1 >> rank & 1:
        return 13 + rank
    if c2 >> rank & 1:
        return 26 + rank
    return 39 + rank


class HookTricks(TrickPolicy):
    """The hook's trick play, as the choice point of the engine's fused trick loop (and of
    ``choose``: one copy of the heuristic)."""

    def card(self, legal: i64, led: i64, best: i64, in_trick: i64, penalty: i64, rand: Rand) -> i64:
        """The card to play of the ``legal`` mask (the arguments: ``TrickPolicy.card``): one
        time in ten a random legal card, else lead the lowest rank, duck under the winner, shed
        penalty cards when void. One legal card: no draw."""
        c0: i64 = legal & 0x1FFF
        c1: i64 = legal >> 13 & 0x1FFF
        c2: i64 = legal >> 26 & 0x1FFF
        c3: i64 = legal >> 39
        if POP[c0] + POP[c1] + POP[c2] + POP[c3] == 1:
            return lowest_rank(legal)
        if rand() < EPSILON:  # the card ``actions[int(u * n)]`` of the ascending legal cards
            return draw_card(legal, rand())
        if in_trick == 0:  # lead the lowest rank (ties: the first suit; R10 is the engine's)
            return lowest_rank(legal)
        shift: i64 = 13 * led
        chunk: i64 = legal >> shift & 0x1FFF
        if chunk:  # following suit: every legal card is of the led suit
            low: i64 = LOWEST[chunk]
            best_rank: i64 = best - shift
            if low < best_rank:  # duck under the winner with the highest card that loses
                return shift + HIGHEST[chunk & BELOW[best_rank]]
            if in_trick == 3:  # last and winning anyway: shed the highest safe card
                safe: i64 = chunk & ~(penalty >> shift)
                return shift + HIGHEST[safe if safe else chunk]
            return shift + low  # a later seat may still overtake: play low
        # void in the led suit: shed a penalty card, else the highest card
        shed: i64 = legal & penalty
        return highest_rank(shed if shed else legal)


HOOK_TRICKS: Final = HookTricks()


def play_out(start: TrexState, s: TrexState, rng: random.Random) -> None:
    """What ``choose`` and ``rules.step`` play until ``rules.is_playout_over(start, s)``:
    the trick phase in the engine's fused loop (``play_tricks``, to the end of the deal,
    which leaves the next deal undealt: ``outcome`` is the same), the other phases (layout,
    doubling, contract choice) step by step."""
    while not is_playout_over(start, s):
        if s.phase == TRICKS:
            play_tricks(s, rng.random, HOOK_TRICKS)
        else:
            step(s, choose(s, rng))
