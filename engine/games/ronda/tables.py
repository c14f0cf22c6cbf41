"""Ronda's tables: the pack, the rank sequence, deal patterns, values and reason texts.

Every number the rules use lives here once (STYLE: one table per kind of fact). The
tables and constants the rules read per move are ``Final``: in the compiled build (mypyc)
the rule modules then read them as C statics instead of looking names up per access.

>>> [RANK_CHARS[RR[c]] for c in PACK[:5]]
['A', 'A', 'A', 'A', '2']
>>> len(PACK)
40
"""

from __future__ import annotations

from typing import Final, NamedTuple

from engine.cards import RANKS, pack_of_ranks, rank_of

RANK_CHARS: Final = "A234567JQK"
"""The rank sequence, lowest first (R: rank index 0..9; J comes right after 7)."""

PACK: Final[tuple[int, ...]] = pack_of_ranks(RANK_CHARS)
"""The 40 cards in canonical order (rank index, then suit S H D C)."""
PACK_SET = frozenset(PACK)
PACK_MASK = sum(1 << c for c in PACK)

RR: Final[tuple[int, ...]] = tuple(
    RANK_CHARS.index(RANKS[rank_of(c)]) if RANKS[rank_of(c)] in RANK_CHARS else -1 for c in range(52)
)
"""Ronda rank index (0..9) of each card int, -1 for cards outside the pack."""
RBIT: Final[tuple[int, ...]] = tuple((1 << r) if r >= 0 else 0 for r in RR)
"""Bit of the card's ronda rank in a 10-bit rank mask."""


class DealPattern(NamedTuple):
    """R3-R5: cards per seat in the first hand, table cards, cards per seat later, hands per deal."""

    first: int
    table: int
    later: int
    hands: int


DEAL_PATTERNS: Final[dict[tuple[str, int], DealPattern]] = {
    ("table", 2): DealPattern(3, 4, 3, 6),
    ("table", 3): DealPattern(3, 4, 3, 4),
    ("table", 4): DealPattern(3, 4, 3, 3),
    ("no_table", 2): DealPattern(4, 0, 4, 5),
    ("no_table", 4): DealPattern(4, 0, 3, 3),
}

# declarations / holdings
NONE: Final = 0
RONDA: Final = 1
TRINGA: Final = 2
DOUBLE: Final = 3
COMBO_NAMES: Final = ("none", "ronda", "tringa", "double_ronda")
COMBO_OF_NAME = {name: i for i, name in enumerate(COMBO_NAMES)}
PENALTY: Final = (0, 1, 5, 2)
"""R13/R18: pen(none)=0, pen(ronda)=1, pen(tringa)=5 (whatever tringa_points), pen(double_ronda)=2."""


def combo_values(tringa_points: int) -> tuple[int, int, int, int]:
    """R14: value of each declaration: ronda 1, double ronda 2, tringa ``tringa_points``."""
    return (0, 1, tringa_points, 2)


CHAIN_BONUS: Final[dict[int, tuple[int, str]]] = {1: (5, "b'khamsa"), 2: (10, "b'achra")}
"""R24: points of a claim at chain level 1 (b'khamsa) and 2 (b'achra)."""
CARD_THRESHOLD: Final[dict[int, int]] = {2: 20, 3: 13, 4: 20}
"""R28: cards a side must exceed to score card points."""

# actions (internal ints; a caller's deal is a tuple of 40 card ints)
PASS: Final = 64
DECLARE_BASE: Final = 64  # + RONDA / TRINGA / DOUBLE
CHALLENGE_BASE: Final = 72  # + target seat
DEAL_MARK: Final = 99  # stands for a deal action in the public history

# phases
DECLARE_P: Final = 0
CHALLENGE_P: Final = 1
PLAY_P: Final = 2
DEAL_OVER_P: Final = 3
MATCH_OVER_P: Final = 4
PHASE_NAMES: Final = ("declare", "challenge", "play", "deal_over", "match_over")
PHASE_OF_NAME = {name: i for i, name in enumerate(PHASE_NAMES)}
PHASE_VERBS: Final = ("pass, declare", "pass, challenge", "play", "deal", "")
PHASE_RULE: Final = ("R8", "R13", "R19", "R29", "R32")
