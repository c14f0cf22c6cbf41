"""Cards, card codes and packs shared by every game.

A card is a small int: ``rank * 4 + suit`` with ranks in the code order
``A 2 3 4 5 6 7 8 9 T J Q K`` (index 0..12) and suits ``S H D C`` (index 0..3).
Sorting these ints sorts by code rank, then suit S H D C. Games that rank cards
differently (Baloot, Trex, ...) keep their own rank tables indexed by
``rank_of(card)``; the int itself never changes meaning.

A set of distinct cards fits in an int bit mask (``1 << card``), which is what
the engines use on their hot paths. Multi-pack games (Nepali Marriage) keep
multisets as lists or per-card counts of these same ints.

>>> parse_card("TH")
37
>>> card_code(37)
'TH'
>>> [card_code(c) for c in parse_cards("AS KC")]
['AS', 'KC']
>>> parse_card("1S")
Traceback (most recent call last):
...
engine.cards.BadCard: unknown card code '1S': a card is a rank (A 2-9 T J Q K) then a suit (S H D C)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

# The tables are ``Final`` so that compiled code reads them as statics (not from the
# module's dict on every use).
RANKS: Final = "A23456789TJQK"
SUITS: Final = "SHDC"
SUIT_NAMES: Final = ("spades", "hearts", "diamonds", "clubs")
SUIT_SYMBOLS: Final = ("♠", "♥", "♦", "♣")

Card = int
"""A card: ``rank * 4 + suit`` (see module doc)."""

CODES: Final[tuple[str, ...]] = tuple(r + s for r in RANKS for s in SUITS)
_CODE_TO_CARD: Final[dict[str, Card]] = {code: i for i, code in enumerate(CODES)}

FULL_PACK: Final[tuple[Card, ...]] = tuple(range(52))
"""The 52-card pack in canonical order (A S, A H, ..., K C)."""


class BadCard(ValueError):
    """A string that is not a card code (or not a card of the game's pack)."""

    def __init__(self, code: object, message: str | None = None) -> None:
        self.code = code
        super().__init__(
            message or f"unknown card code {code!r}: a card is a rank (A 2-9 T J Q K) then a suit (S H D C)"
        )


def rank_of(card: Card) -> int:
    """Rank index of ``card`` in code order A=0 .. K=12."""
    return card >> 2


def suit_of(card: Card) -> int:
    """Suit index of ``card``: S=0, H=1, D=2, C=3."""
    return card & 3


def make_card(rank: int, suit: int) -> Card:
    """The card of code-order rank index ``rank`` and suit index ``suit``."""
    return rank * 4 + suit


def card_code(card: Card) -> str:
    """The two-letter code of ``card``, e.g. ``'TH'``."""
    return CODES[card]


def card_codes(cards: Iterable[Card]) -> list[str]:
    """Codes of ``cards``, in the given order."""
    return [CODES[c] for c in cards]


def parse_card(code: object) -> Card:
    """Parse a card code such as ``'TH'``; raises BadCard naming the bad code."""
    if isinstance(code, str):
        card = _CODE_TO_CARD.get(code)
        if card is not None:
            return card
    raise BadCard(code)


def parse_cards(codes: str | Sequence[object]) -> list[Card]:
    """Parse a list of codes, or one string of space-separated codes."""
    if isinstance(codes, str):
        codes = codes.split()
    return [parse_card(c) for c in codes]


def pack_of_ranks(ranks: str) -> tuple[Card, ...]:
    """A one-suit-of-each pack holding only the given code ranks, canonical order.

    >>> len(pack_of_ranks("A234567JQK"))
    40
    """
    wanted = {RANKS.index(r) for r in ranks}
    return tuple(c for c in FULL_PACK if rank_of(c) in wanted)


def mask_of(cards: Iterable[Card]) -> int:
    """Bit mask with bit ``c`` set for each card ``c``."""
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


def cards_of_mask(mask: int) -> list[Card]:
    """Cards whose bits are set in ``mask``, ascending.

    >>> cards_of_mask(mask_of([5, 1, 40]))
    [1, 5, 40]
    """
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


SUIT_MASKS: Final[tuple[int, ...]] = tuple(mask_of(c for c in FULL_PACK if suit_of(c) == s) for s in range(4))
"""For each suit, the mask of its 13 cards."""


def describe(card: Card) -> str:
    """Card as a player reads it, e.g. ``'10♥'``, ``'K♠'``."""
    rank = RANKS[rank_of(card)]
    return ("10" if rank == "T" else rank) + SUIT_SYMBOLS[suit_of(card)]
