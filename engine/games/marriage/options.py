"""Marriage: the option specs and the per-match rules object (``Rules``) derived from them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.protocol import OptionSpec

POINTS_MAX = 10_000
"""Largest payment or card value an option may set; with TURN_LIMIT_MAX and DEALS_MAX it
keeps every score far below 2**53, where a client reading JSON numbers as doubles would
round them."""
TURN_LIMIT_MAX = 100_000
DEALS_MAX = 10_000

OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "max_wild_per_set",
        "choice",
        2,
        "most wild cards one 3-card set may use (R6)",
        choices=(1, 2),
    ),
    OptionSpec("unseen_take_discard", "bool", True, "an unseen player may take the top discard (R10)"),
    OptionSpec(
        "seen_payment",
        "int",
        3,
        "payment of each seen non-winner to the winner (R31)",
        minimum=0,
        maximum=POINTS_MAX,
        test_values=(3, 0),
    ),
    OptionSpec(
        "unseen_payment",
        "int",
        10,
        "payment of each unseen non-winner to the winner (R31)",
        minimum=0,
        maximum=POINTS_MAX,
        test_values=(10,),
    ),
    OptionSpec(
        "dublee_bonus",
        "int",
        5,
        "extra payment after a dublee finish (R31)",
        minimum=0,
        maximum=POINTS_MAX,
        test_values=(5, 0),
    ),
    OptionSpec(
        "unseen_maal",
        "choice",
        "count",
        "maal of unseen non-winners: count, murder or kidnap (R29)",
        choices=("count", "murder", "kidnap"),
    ),
    OptionSpec("alter_points", "choice", 0, "maal value of each alter card (R27)", choices=(0, 5)),
    OptionSpec("man_cards", "choice", 0, "printed jokers XX in the pack", choices=(0, 3)),
    OptionSpec(
        "man_points",
        "int",
        5,
        "maal value of each man held (R27)",
        minimum=0,
        maximum=POINTS_MAX,
        test_values=(5,),
    ),
    OptionSpec(
        "reshuffle",
        "choice",
        "random",
        "order of recycled discards when the stock is rebuilt (R22)",
        choices=("random", "none"),
    ),
    OptionSpec(
        "turn_limit",
        "int",
        1000,
        "completed turns after which a deal is void (R33)",
        minimum=1,
        maximum=TURN_LIMIT_MAX,
        test_values=(30, 120),
    ),
    OptionSpec(
        "deals",
        "int",
        1,
        "deals in a match; 0 = open-ended (R34)",
        minimum=0,
        maximum=DEALS_MAX,
        test_values=(1, 2),
    ),
)


@dataclass(frozen=True)
class Rules:
    """The option values of a match for its seat count (read once from the options dict;
    shared by every clone). Every seat plays alone: a side is a seat."""

    raw: tuple[tuple[str, Any], ...]
    """The options as the state JSON lists them, in the specs' order."""
    players: int
    sides: int
    max_wild_per_set: int
    unseen_take_discard: bool
    seen_payment: int
    unseen_payment: int
    dublee_bonus: int
    unseen_maal: str
    alter_points: int
    man_cards: int
    man_points: int
    reshuffle: str
    turn_limit: int
    deals: int

    @classmethod
    def of(cls, options: Mapping[str, Any], players: int) -> Rules:
        values = {spec.name: options[spec.name] for spec in OPTION_SPECS}
        return cls(tuple(values.items()), players, players, **values)


def last_deal_no(options: Mapping[str, Any], default: int) -> int:
    """R34: the last deal of the match, or ``default`` in an open-ended match."""
    return int(options["deals"]) or default
