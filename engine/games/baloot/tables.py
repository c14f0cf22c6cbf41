"""Baloot's tables: the internal card layout, rank orders, card points, deal pattern,
project and score values. Every number of the rules file lives here once.

Every name is ``Final``: the compiled build (mypyc) then reads each table from a C
static, and inlines the numbers, instead of looking it up in the module's dict.

Inside the engine a card is a *slot* ``p = suit * 8 + i`` where ``i`` is its index in
the sequence order ``A K Q J T 9 8 7`` and suits are ``S H D C``. A hand is an int mask
of slots, so walking its bits ascending lists cards in the spec's canonical order
(by suit S H D C, then sequence order), and a suit is one byte of the mask.

>>> CODE[0], CODE[7], CODE[8], CODE[31]
('AS', '7S', 'AH', '7C')
>>> SLOT['JH']
11
"""

from __future__ import annotations

from typing import Final

from engine.cards import RANKS, make_card

SEQ_ORDER: Final = "AKQJT987"
"""R18: the sequence / project order, highest first (slot index within a suit)."""
TRUMP_ORDER: Final = "J9ATKQ87"
"""Trick-taking order of the trump suit in Hokm, highest first."""
PLAIN_ORDER: Final = "ATKQJ987"
"""Trick-taking order of a non-trump suit (every suit in Sun), highest first."""
SUIT_CHARS: Final = "SHDC"
SUIT_NAMES: Final = ("spades", "hearts", "diamonds", "clubs")
SUIT_SINGULAR: Final = ("spade", "heart", "diamond", "club")

TRUMP_POINTS_BY_RANK: Final = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
PLAIN_POINTS_BY_RANK: Final = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
LAST_TRICK_BONUS: Final = 10

NSLOTS: Final = 32
FULL: Final = (1 << NSLOTS) - 1
SUIT_MASK: Final = tuple(0xFF << (8 * s) for s in range(4))
CODE: Final[tuple[str, ...]] = tuple(r + s for s in SUIT_CHARS for r in SEQ_ORDER)
SLOT: Final[dict[str, int]] = {code: p for p, code in enumerate(CODE)}
CARD_OF_SLOT: Final[tuple[int, ...]] = tuple(
    make_card(RANKS.index(CODE[p][0]), SUIT_CHARS.index(CODE[p][1])) for p in range(NSLOTS)
)
SUIT_OF: Final = tuple(p >> 3 for p in range(NSLOTS))
RANK_CHAR: Final = tuple(CODE[p][0] for p in range(NSLOTS))
TRUMP_STR: Final = tuple(8 - TRUMP_ORDER.index(RANK_CHAR[p]) for p in range(NSLOTS))
"""Trick strength among trumps, 1 (7) .. 8 (J)."""
PLAIN_STR: Final = tuple(8 - PLAIN_ORDER.index(RANK_CHAR[p]) for p in range(NSLOTS))
"""Trick strength within a plain suit, 1 (7) .. 8 (A)."""
TRUMP_POINTS: Final = tuple(TRUMP_POINTS_BY_RANK[RANK_CHAR[p]] for p in range(NSLOTS))
PLAIN_POINTS: Final = tuple(PLAIN_POINTS_BY_RANK[RANK_CHAR[p]] for p in range(NSLOTS))

HIGHER_PLAIN: Final = tuple(
    sum(1 << q for q in range(NSLOTS) if SUIT_OF[q] == SUIT_OF[p] and PLAIN_STR[q] > PLAIN_STR[p])
    for p in range(NSLOTS)
)
"""For each slot, the cards of its suit ranking above it in the plain order (R14)."""
TRUMPS_ABOVE: Final = tuple(
    tuple(sum(1 << q for q in range(8 * s, 8 * s + 8) if TRUMP_STR[q] > k) for k in range(9))
    for s in range(4)
)
"""TRUMPS_ABOVE[suit][k]: the trumps of ``suit`` whose strength is above ``k`` (R16, R17)."""
ACE_SLOTS: Final = frozenset(p for p in range(NSLOTS) if RANK_CHAR[p] == "A")
ACE_MASK: Final = sum(1 << p for p in ACE_SLOTS)
"""The Aces as a slot mask (R14: a led Ace is its own Ekka)."""
LOW_MASK: Final = sum(1 << p for p in range(NSLOTS) if RANK_CHAR[p] in "987")
"""R10: the cards a kawesh hand may hold."""

# R1: the deal pattern, as (offset from the dealer, number of cards) per packet.
DEAL_PACKETS: Final = ((1, 3), (2, 3), (3, 3), (0, 3), (1, 2), (2, 2), (3, 2), (0, 2))
CANDIDATE_INDEX: Final = 20
FIRST_HAND: Final = 5
FULL_HAND: Final = 8
STOCK_SIZE: Final = 11
TAKER_DRAW: Final = 2  # R9
OTHER_DRAW: Final = 3

# Contracts, phases, stages.
HOKM: Final = 1
SUN: Final = 2
KIND_NAMES: Final = {HOKM: "hokm", SUN: "sun"}
BIDDING: Final = 0
CHOOSE_TRUMP: Final = 1
DOUBLING: Final = 2
PLAY: Final = 3
DEAL_OVER: Final = 4
MATCH_OVER: Final = 5
PHASE_NAMES: Final = ("bidding", "choose_trump", "doubling", "play", "deal_over", "match_over")
MAIN: Final = 0
SUN_WINDOW: Final = 1
SWITCH: Final = 2
STAGE_NAMES: Final = ("main", "sun_window", "switch")
DOUBLE_STEP: Final = 0
TRIPLE_STEP: Final = 1
FOUR_STEP: Final = 2
GAHWA_STEP: Final = 3
STEP_NAMES: Final = ("double", "triple", "four", "gahwa")

# Actions (internal ints). Plays are slots; an announced Ekka is 32 + slot.
EKKA: Final = 32
PASS: Final = 64
BID_HOKM: Final = 65
BID_SUN: Final = 66
BID_ASHKAL: Final = 67
KAWESH: Final = 68
CHOOSE: Final = 70  # + suit
DOUBLE_OPEN: Final = 80
DOUBLE_LOCKED: Final = 81
DOUBLE: Final = 82
TRIPLE: Final = 83
FOUR_OPEN: Final = 84
FOUR_LOCKED: Final = 85
FOUR: Final = 86
GAHWA: Final = 87
DECLARE: Final = 90
PASS_PROJECT: Final = 91
DEAL: Final = "deal"  # the caller's deal: ("deal", slots...)

# S2..S7: game points.
DEAL_TOTAL: Final = {HOKM: 16, SUN: 26}
CARD_TOTAL: Final = {HOKM: 162, SUN: 130}
KABOOT_BASE: Final = {HOKM: 25, SUN: 44}
BALOOT_POINTS: Final = 2
SUN_DOUBLE_LINE: Final = 100  # R12

# R18: project classes and values.
SIRA: Final = 1
FIFTY: Final = 2
HUNDRED: Final = 3
FOUR_HUNDRED: Final = 4
CLASS_NAMES: Final = {SIRA: "sira", FIFTY: "fifty", HUNDRED: "hundred", FOUR_HUNDRED: "four_hundred"}
CLASS_OF_NAME: Final = {v: k for k, v in CLASS_NAMES.items()}
PROJECT_VALUES: Final = {
    HOKM: {SIRA: 2, FIFTY: 5, HUNDRED: 10},
    SUN: {SIRA: 4, FIFTY: 10, HUNDRED: 20, FOUR_HUNDRED: 40},
}
RUN_CLASS: Final = {3: SIRA, 4: FIFTY, 5: HUNDRED}
QUAD_RANKS: Final = "AKQJT"  # four 9s, 8s, 7s are nothing
SEQUENCE: Final = 0
FOUR_KIND: Final = 1
SUBKIND_NAMES: Final = ("sequence", "four")

POINTS: Final = (PLAIN_POINTS,) + tuple(
    tuple(TRUMP_POINTS[p] if p >> 3 == t else PLAIN_POINTS[p] for p in range(NSLOTS)) for t in range(4)
)
"""POINTS[trump + 1][slot]: card points with that trump suit (index 0: Sun)."""
