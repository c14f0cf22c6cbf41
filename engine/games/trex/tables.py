"""Trex tables: contracts, phases, card indexing, sequence order, point values, actions.

Inside the Trex engine a card is an *index* ``suit * 13 + seq`` where ``seq`` is the
position in the sequence order ``2 3 4 5 6 7 8 9 T J Q K A`` (2 = 0, A = 12). The
trick order (ace high) and the Trex layout order are the same order, so one index
serves both, and ascending bits of a hand mask are the spec's canonical order
(suits S H D C, ranks 2..A). Conversion to the shared ``engine.cards`` codes
happens only at the JSON boundary.
"""

from __future__ import annotations

from typing import Final

from engine.cards import RANKS, SUITS

# The names the rules read per action are ``Final``: the compiled build (mypyc) inlines the
# literal ones and reads the others as C statics, instead of a module dict lookup per use.

# ---------------------------------------------------------------- contracts
KING_OF_HEARTS: Final = 0
QUEENS: Final = 1
DIAMONDS: Final = 2
COLLECTIONS: Final = 3
TREX: Final = 4
COMPLEX: Final = 5
CONTRACT_NAMES: tuple[str, ...] = (
    "king_of_hearts",
    "queens",
    "diamonds",
    "collections",
    "trex",
    "complex",
)
CONTRACT_OF_NAME: dict[str, int] = {n: i for i, n in enumerate(CONTRACT_NAMES)}
CONTRACT_SET_DEFAULT: tuple[int, ...] = (KING_OF_HEARTS, QUEENS, DIAMONDS, COLLECTIONS, TREX)
CONTRACT_SET_COMPLEX: tuple[int, ...] = (COMPLEX, TREX)
DEALS_PER_KINGDOM_DEFAULT = 5
DEALS_PER_KINGDOM_COMPLEX = 2
KINGDOMS = 4

# ---------------------------------------------------------------- the generator
RNG_BITS: Final = 63
"""Bits of the generator state an engine-dealt match keeps (``rng_state``): each new deal
draws from ``random.Random(rng_state)`` and stores ``getrandbits(RNG_BITS)`` back. The
same 63 bits in every game; the JSON writes it as a decimal string (see codec)."""

# ---------------------------------------------------------------- phases
CHOOSE: Final = 0
DOUBLING: Final = 1
TRICKS: Final = 2
LAYOUT: Final = 3
DEAL_OVER: Final = 4
MATCH_OVER: Final = 5
PHASE_NAMES: tuple[str, ...] = (
    "choose_contract",
    "doubling",
    "tricks",
    "layout",
    "deal_over",
    "match_over",
)
PHASE_OF_NAME: dict[str, int] = {n: i for i, n in enumerate(PHASE_NAMES)}

# ---------------------------------------------------------------- cards
SEQ_RANKS = "23456789TJQKA"
"""Sequence (and trick) order, low to high: index = seq."""
SEQ_2: Final = 0
SEQ_7: Final = 5
SEQ_J: Final = 9
SEQ_Q: Final = 10
SEQ_K: Final = 11
SEQ_A: Final = 12
SUIT_WORDS = ("spades", "hearts", "diamonds", "clubs")
SUITS_ORDER = SUITS  # "SHDC": layout keys and suit indices

CODES: Final[tuple[str, ...]] = tuple(SEQ_RANKS[i % 13] + SUITS[i // 13] for i in range(52))
INDEX_OF_CODE: dict[str, int] = {c: i for i, c in enumerate(CODES)}
TO_CARD: tuple[int, ...] = tuple(RANKS.index(SEQ_RANKS[i % 13]) * 4 + i // 13 for i in range(52))
"""Trex index -> shared ``engine.cards`` card int."""

ALL: Final = (1 << 52) - 1
SUIT_MASK: Final[tuple[int, ...]] = tuple(0x1FFF << (13 * s) for s in range(4))
SPADES: Final = 0
HEARTS: Final = 1
DIAMONDS_SUIT: Final = 2
CLUBS: Final = 3
HEART_MASK: Final = SUIT_MASK[HEARTS]
NON_HEART_MASK: Final = ALL & ~HEART_MASK
DIAMOND_MASK: Final = SUIT_MASK[DIAMONDS_SUIT]
KH: Final = HEARTS * 13 + SEQ_K
SEVEN_H: Final = HEARTS * 13 + SEQ_7
QUEEN_CARDS: tuple[int, ...] = tuple(s * 13 + SEQ_Q for s in range(4))
QUEEN_MASK: Final = sum(1 << q for q in QUEEN_CARDS)
JACK_MASK: Final = sum(1 << (s * 13 + SEQ_J) for s in range(4))
SEVEN_MASK: Final = sum(1 << (s * 13 + SEQ_7) for s in range(4))
TWO_MASK: Final = sum(1 << (s * 13 + SEQ_2) for s in range(4))
KH_BIT: Final = 1 << KH


# ---------------------------------------------------------------- R2 deal pattern
def deal_seat(dealer: int, position: int) -> int:
    """R2: deck position ``position`` (0 = top) goes to seat ``(dealer + 1 + position) mod 4``."""
    return (dealer + 1 + position) & 3


# ---------------------------------------------------------------- point values (section 5)
KH_VALUE = 75  # S1
QUEEN_VALUE = 25  # S2
DIAMOND_VALUE = (10, 15)  # S3, (normal, swapped)
TRICK_VALUE = (15, 10)  # S4, (normal, swapped)
TREX_BONUS = (200, 150, 100, 50)  # S6, by finishing position
SINGLE_VALUE: Final[dict[int, int]] = {KH: KH_VALUE, **{q: QUEEN_VALUE for q in QUEEN_CARDS}}

PENALTY_MASK: Final[tuple[int, ...]] = (
    KH_BIT,  # king_of_hearts
    QUEEN_MASK,  # queens
    DIAMOND_MASK,  # diamonds
    0,  # collections (every trick, no card)
    0,  # trex
    KH_BIT | QUEEN_MASK | DIAMOND_MASK,  # complex
)
"""R11 / R13: the penalty cards of each contract."""

DOUBLABLE_MASK: Final[tuple[int, ...]] = (KH_BIT, QUEEN_MASK, 0, 0, 0, KH_BIT | QUEEN_MASK)
"""R7: the cards that may be doubled in each contract."""


def card_penalty(contract: int, card: int, swapped: bool = False) -> int:
    """S1-S3: the points one undoubled ``card`` costs its taker in ``contract`` (0 for a card
    that is no penalty card there), counted as ``rules.score_trick`` counts a trick: a
    diamond's value in diamonds / complex, plus the single value of KH and queens in the
    contracts that make them penalty cards (so the queen of diamonds counts both in complex).

    >>> card_penalty(KING_OF_HEARTS, KH), card_penalty(COMPLEX, DIAMONDS_SUIT * 13 + SEQ_Q)
    (75, 35)
    """
    bit = 1 << card
    if not PENALTY_MASK[contract] & bit:
        return 0
    points = DIAMOND_VALUE[swapped] if bit & DIAMOND_MASK and contract in (DIAMONDS, COMPLEX) else 0
    if bit & DOUBLABLE_MASK[contract]:
        points += SINGLE_VALUE[card]
    return points


def deal_total(contract: int, swapped: bool) -> int:
    """S9: the sum of the deal scores of a finished deal (before S8's sign)."""
    dv, tv = DIAMOND_VALUE[swapped], TRICK_VALUE[swapped]
    return (
        -KH_VALUE,
        -4 * QUEEN_VALUE,
        -13 * dv,
        -13 * tv,
        sum(TREX_BONUS),
        -KH_VALUE - 4 * QUEEN_VALUE - 13 * dv - 13 * tv,
    )[contract]


# ---------------------------------------------------------------- actions
PASS: Final = 52
DOUBLE: Final = 64
CHOOSE_BASE: Final = 128
DEAL = "deal"
"""Actions are small ints: ``0..51`` play that card, ``PASS``, ``DOUBLE + card``,
``CHOOSE_BASE + contract``; a caller's deal is ``(DEAL, (card, ...))``."""


# ---------------------------------------------------------------- mask -> canonical list
def _chunk_table(suit: int) -> tuple[tuple[int, ...], ...]:
    """For each 13-bit mask of one suit, its card indices ascending (built incrementally)."""
    table: list[tuple[int, ...]] = [()]
    base = suit * 13
    for m in range(1, 1 << 13):
        top = m.bit_length() - 1
        table.append(table[m ^ (1 << top)] + (base + top,))
    return tuple(table)


CHUNKS: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(_chunk_table(s) for s in range(4))


def cards_of(mask: int) -> list[int]:
    """The card indices of ``mask`` in canonical order (suits S H D C, ranks 2..A)."""
    out: list[int] = []
    if mask & 0x1FFF:
        out += CHUNKS[0][mask & 0x1FFF]
    if mask >> 13 & 0x1FFF:
        out += CHUNKS[1][mask >> 13 & 0x1FFF]
    if mask >> 26 & 0x1FFF:
        out += CHUNKS[2][mask >> 26 & 0x1FFF]
    if mask >> 39:
        out += CHUNKS[3][mask >> 39]
    return out


def codes_of(mask: int) -> list[str]:
    """Codes of the cards of ``mask``, canonical order."""
    return [CODES[i] for i in cards_of(mask)]
