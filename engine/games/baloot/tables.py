"""Baloot's tables: the internal card layout, rank orders, card points, deal pattern,
project and score values. Every number of the rules file lives here once.

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

from engine.cards import RANKS, make_card

SEQ_ORDER = "AKQJT987"
"""R18: the sequence / project order, highest first (slot index within a suit)."""
TRUMP_ORDER = "J9ATKQ87"
"""Trick-taking order of the trump suit in Hokm, highest first."""
PLAIN_ORDER = "ATKQJ987"
"""Trick-taking order of a non-trump suit (every suit in Sun), highest first."""
SUIT_CHARS = "SHDC"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
SUIT_SINGULAR = ("spade", "heart", "diamond", "club")

TRUMP_POINTS_BY_RANK = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
PLAIN_POINTS_BY_RANK = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
LAST_TRICK_BONUS = 10

NSLOTS = 32
FULL = (1 << NSLOTS) - 1
SUIT_MASK = tuple(0xFF << (8 * s) for s in range(4))
CODE: tuple[str, ...] = tuple(r + s for s in SUIT_CHARS for r in SEQ_ORDER)
SLOT: dict[str, int] = {code: p for p, code in enumerate(CODE)}
CARD_OF_SLOT: tuple[int, ...] = tuple(
    make_card(RANKS.index(CODE[p][0]), SUIT_CHARS.index(CODE[p][1])) for p in range(NSLOTS)
)
SUIT_OF = tuple(p >> 3 for p in range(NSLOTS))
RANK_CHAR = tuple(CODE[p][0] for p in range(NSLOTS))
TRUMP_STR = tuple(8 - TRUMP_ORDER.index(RANK_CHAR[p]) for p in range(NSLOTS))
"""Trick strength among trumps, 1 (7) .. 8 (J)."""
PLAIN_STR = tuple(8 - PLAIN_ORDER.index(RANK_CHAR[p]) for p in range(NSLOTS))
"""Trick strength within a plain suit, 1 (7) .. 8 (A)."""
TRUMP_POINTS = tuple(TRUMP_POINTS_BY_RANK[RANK_CHAR[p]] for p in range(NSLOTS))
PLAIN_POINTS = tuple(PLAIN_POINTS_BY_RANK[RANK_CHAR[p]] for p in range(NSLOTS))

HIGHER_PLAIN = tuple(
    sum(1 << q for q in range(NSLOTS) if SUIT_OF[q] == SUIT_OF[p] and PLAIN_STR[q] > PLAIN_STR[p])
    for p in range(NSLOTS)
)
"""For each slot, the cards of its suit ranking above it in the plain order (R14)."""
TRUMPS_ABOVE = tuple(
    tuple(sum(1 << q for q in range(8 * s, 8 * s + 8) if TRUMP_STR[q] > k) for k in range(9))
    for s in range(4)
)
"""TRUMPS_ABOVE[suit][k]: the trumps of ``suit`` whose strength is above ``k`` (R16, R17)."""
ACE_SLOTS = frozenset(p for p in range(NSLOTS) if RANK_CHAR[p] == "A")
LOW_MASK = sum(1 << p for p in range(NSLOTS) if RANK_CHAR[p] in "987")
"""R10: the cards a kawesh hand may hold."""

# R1: the deal pattern, as (offset from the dealer, number of cards) per packet.
DEAL_PACKETS = ((1, 3), (2, 3), (3, 3), (0, 3), (1, 2), (2, 2), (3, 2), (0, 2))
CANDIDATE_INDEX = 20
FIRST_HAND = 5
FULL_HAND = 8
STOCK_SIZE = 11
TAKER_DRAW, OTHER_DRAW = 2, 3  # R9

# Contracts, phases, stages.
HOKM, SUN = 1, 2
KIND_NAMES = {HOKM: "hokm", SUN: "sun"}
BIDDING, CHOOSE_TRUMP, DOUBLING, PLAY, DEAL_OVER, MATCH_OVER = range(6)
PHASE_NAMES = ("bidding", "choose_trump", "doubling", "play", "deal_over", "match_over")
MAIN, SUN_WINDOW, SWITCH = range(3)
STAGE_NAMES = ("main", "sun_window", "switch")
DOUBLE_STEP, TRIPLE_STEP, FOUR_STEP, GAHWA_STEP = range(4)
STEP_NAMES = ("double", "triple", "four", "gahwa")

# Actions (internal ints). Plays are slots; an announced Ekka is 32 + slot.
EKKA = 32
PASS, BID_HOKM, BID_SUN, BID_ASHKAL, KAWESH = 64, 65, 66, 67, 68
CHOOSE = 70  # + suit
DOUBLE_OPEN, DOUBLE_LOCKED, DOUBLE, TRIPLE, FOUR_OPEN, FOUR_LOCKED, FOUR, GAHWA = range(80, 88)
DECLARE, PASS_PROJECT = 90, 91
DEAL = "deal"  # the caller's deal: ("deal", slots...)

# S2..S7: game points.
DEAL_TOTAL = {HOKM: 16, SUN: 26}
CARD_TOTAL = {HOKM: 162, SUN: 130}
KABOOT_BASE = {HOKM: 25, SUN: 44}
BALOOT_POINTS = 2
SUN_DOUBLE_LINE = 100  # R12

# R18: project classes and values.
SIRA, FIFTY, HUNDRED, FOUR_HUNDRED = 1, 2, 3, 4
CLASS_NAMES = {SIRA: "sira", FIFTY: "fifty", HUNDRED: "hundred", FOUR_HUNDRED: "four_hundred"}
CLASS_OF_NAME = {v: k for k, v in CLASS_NAMES.items()}
PROJECT_VALUES = {
    HOKM: {SIRA: 2, FIFTY: 5, HUNDRED: 10},
    SUN: {SIRA: 4, FIFTY: 10, HUNDRED: 20, FOUR_HUNDRED: 40},
}
RUN_CLASS = {3: SIRA, 4: FIFTY, 5: HUNDRED}
QUAD_RANKS = "AKQJT"  # four 9s, 8s, 7s are nothing
SEQUENCE, FOUR_KIND = 0, 1
SUBKIND_NAMES = ("sequence", "four")

POINTS = (PLAIN_POINTS,) + tuple(
    tuple(TRUMP_POINTS[p] if p >> 3 == t else PLAIN_POINTS[p] for p in range(NSLOTS)) for t in range(4)
)
"""POINTS[trump + 1][slot]: card points with that trump suit (index 0: Sun)."""
