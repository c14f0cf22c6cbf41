"""Porrazo's tables: rank values, point tables, deal patterns, seat order, phases, action codes.

Every number the rules use lives here once (rules file section 5); the rule
functions in :mod:`engine.games.porrazo.rules` only look them up.
"""

from __future__ import annotations

from typing import Final

# The integer constants are ``Final`` so that the compiled build (mypyc) inlines them into
# the rules instead of looking each name up in a module dict at every use.

PLAYER_COUNTS: tuple[int, ...] = (2, 3, 4, 5, 6, 8)
TEAM_PLAYER_COUNTS: frozenset[int] = frozenset({4, 6, 8})
HAND_CARDS: Final = 3
TENDIDO_CARDS: Final = 4

# Rank indexes are engine.cards code order: A=0, 2=1, ..., T=9, J=10, Q=11, K=12.
ACE: Final = 0
JACK: Final = 10
QUEEN: Final = 11
KING: Final = 12

RANK_VALUE: Final[tuple[int, ...]] = tuple(
    4 if r == KING else 3 if r == QUEEN else 2 if r == JACK else 1 for r in range(13)
)
"""5.1: v(r), the ronda value of a rank (K 4, Q 3, J 2, any other 1)."""

NUMBER: tuple[int, ...] = tuple(r + 1 if r <= 3 else 0 for r in range(13))
"""Number values for en su lugar and the tendido: A 1, 2 2, 3 3, 4 4, others none (0)."""

GROUP_MULTIPLIER: Final[tuple[int, ...]] = (0, 0, 1, 3, 6)
"""5.6: a tendido group of size t+b (2, 3 or 4: a rank has four cards) scores this many
times v(r), by size (a tuple: indexed in C by the compiled build, not a dict lookup)."""

RONDINE_MULTIPLIER: Final = 3
"""5.2: a rondine scores 3 v(r), a ronda v(r)."""

COUNTER_MULTIPLIER: Final = 3
"""5.3: a counter-porrazo scores 3 v(r), a porrazo v(r)."""

# Combination kinds (declarations): 0 none, 1 ronda, 2 rondine.
NO_COMBO: Final = 0
RONDA: Final = 1
RONDINE: Final = 2
COMBO_NAMES: tuple[str | None, ...] = (None, "ronda", "rondine")

# Chain stages (R11): the immediately previous play of this deal.
DISCARD: Final = 0
PORRAZO: Final = 1
COUNTER: Final = 2
STAGE_NAMES: tuple[str, ...] = ("discard", "porrazo", "counter")

# Phases.
P_TENDIDO: Final = 0
P_DECLARE: Final = 1
P_PLAY: Final = 2
P_CLAIM: Final = 3
P_OVER: Final = 4
P_DEAL_OVER: Final = 5
PHASE_NAMES: tuple[str, ...] = (
    "tendido_choice",
    "declare",
    "play",
    "claim",
    "match_over",
    "deal_over",
)
PHASE_OF_NAME: dict[str, int] = {name: i for i, name in enumerate(PHASE_NAMES)}
P_DEALING: Final = -1
"""Layouts only: the phase "dealing", in which the engine deals deal_no + 1 at once."""

# Internal actions are small ints (a caller's deal is a tuple ("deal", deck)).
DECLINE: Final = 64  # DECLINE + card: play the card with "capture": false
PASS: Final = 200
TENDIDO: Final = 201
DECLARE_RONDA: Final = 202
DECLARE_RONDINE: Final = 203
CLAIM: Final = 210  # CLAIM + seat
DEAL: Final = "deal"


def order_from_left(dealer: int, n: int) -> list[int]:
    """R1: seats in order from the dealer's left: dealer+1, ..., dealer.

    >>> order_from_left(1, 3)
    [2, 0, 1]
    """
    return [(dealer + 1 + i) % n for i in range(n)]


def deals_per_hand(players: int) -> int:
    """R3: D = floor(48 / (3n)) deals per hand."""
    return (52 - TENDIDO_CARDS) // (HAND_CARDS * players)


def leftover_cards(players: int) -> int:
    """R3: L = 48 - 3nD cards left over after the last deal and the tendido."""
    return 52 - TENDIDO_CARDS - HAND_CARDS * players * deals_per_hand(players)


def deal_positions(players: int, pattern: str) -> tuple[tuple[int, ...], ...]:
    """R4: for i = 0..n-1, the offsets (from p) of the cards seat dealer+1+i receives.

    >>> deal_positions(2, "threes")
    ((0, 1, 2), (3, 4, 5))
    >>> deal_positions(2, "singles")
    ((0, 2, 4), (1, 3, 5))
    """
    if pattern == "singles":
        return tuple(tuple(m * players + i for m in range(HAND_CARDS)) for i in range(players))
    return tuple(tuple(HAND_CARDS * i + m for m in range(HAND_CARDS)) for i in range(players))
