"""Marriage: the constants. Cards and the pack, set sizes, rank windows, maal values,
phase and route names, and the internal action encoding.

Cards are the shared ints of :mod:`engine.cards` (``rank * 4 + suit``, A=0 .. K=12,
suits S H D C) plus :data:`XX` = 52 for the printed joker ("man", option
``man_cards = 3``). A hand is a multiset kept as a count list of length
:data:`NCODES` indexed by card; sets are sorted tuples of three cards (canonical
card order = int order, ``XX`` last).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from engine.cards import CODES

# Final: the compiled build (mypyc) inlines these constants where they are read.
XX: Final = 52
"""The printed joker ("man"): code ``XX``, only with ``man_cards = 3``."""
NCODES: Final = 53
ALL_CODES: tuple[str, ...] = CODES + ("XX",)
CODE_TO_CARD: dict[str, int] = {code: i for i, code in enumerate(ALL_CODES)}

HAND_SIZE: Final = 21
SET_SIZE: Final = 3
SETS_TO_SEE: Final = 3
DUBLEES_TO_SEE: Final = 7
SETS_TO_FINISH: Final = 7
DUBLEES_TO_FINISH: Final = 8

WINDOWS: tuple[tuple[int, int, int], ...] = tuple((r, r + 1, r + 2) for r in range(11)) + ((11, 12, 0),)
"""The 12 legal rank windows of a sequence (rank indices A=0 .. K=12): A23 .. JQK, QKA."""

# ---- maal values (R27): one table
TIPLU_VALUE = (0, 3, 7)
"""Tiplus not in a marriage: by count."""
POPLU_VALUE = (0, 2, 5, 10)
"""Poplus (and, separately, jhiplus) not in a marriage or kept tunnela: by count."""
MARRIAGE_VALUE = (0, 10, 30)
TUNNELA_ORDINARY: Final = 5
TUNNELA_JOKER: Final = 10
TUNNELA_POPLU_JHIPLU: Final = 20

# ---- phases (Final, like the other constants: the compiled build inlines them)
EXPOSE: Final = 0
DRAW: Final = 1
ACT: Final = 2
PICK: Final = 3
OVER: Final = 4
PHASES = ("expose", "draw", "act", "pick_tiplu", "deal_over")
PHASE_RULE = ("R9", "R10", "R11", "R14", "R33")

# ---- routes
UNSEEN: Final = 0
SETS: Final = 1
DUBLEES: Final = 2
ROUTES = (None, "sets", "dublees")

# ---- actions (internal, hashable)
# discard C      -> C (0..52)
DRAW_STOCK: Final = 60
TAKE_DISCARD: Final = 61
PASS: Final = 62
EXPOSE_BASE: Final = 100  # expose_tunnela C -> 100 + C
PICK_BASE: Final = 1000  # pick_tiplu i -> 1000 + i
SHOW: Final = "show"  # ("show", sets)
SHOW_DUBLEES: Final = "show_dublees"  # ("show_dublees", pairs)
FINISH: Final = "finish"  # ("finish", sets, discard)
FINISH_DUBLEES: Final = "finish_dublees"  # ("finish_dublees", pair, discard)
DEAL: Final = "deal"  # ("deal", deck tuple) or ("deal", count) in a view's history


def card_code(card: int) -> str:
    return ALL_CODES[card]


def codes(cards: Sequence[int]) -> list[str]:
    return [ALL_CODES[c] for c in cards]


def pack_cards(man_cards: int) -> list[int]:
    """Every card of the three packs (+ men), canonical order (§1)."""
    return [c for c in range(52) for _ in range(3)] + [XX] * man_cards


def sorted_test_deck(man_cards: int = 0) -> list[int]:
    """§1 sorted test deck: each pack as AS..KS AH..KH AD..KD AC..KC, three times."""
    one = [rank * 4 + suit for suit in range(4) for rank in range(13)]
    return one * 3 + [XX] * man_cards
