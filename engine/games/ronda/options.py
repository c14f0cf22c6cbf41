"""Ronda's options (the spec's variants) and the per-match rules object derived from them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.checks import MAX_TARGET_SCORE
from engine.games.ronda.tables import DEAL_PATTERNS, DealPattern, combo_values
from engine.protocol import JSON, InvalidSetup, OptionSpec

OPTION_SPECS = (
    OptionSpec("deal_style", "choice", "table", "table: 3 cards each and 4 to the table; no_table: "
               "4-card hands, no table cards (2 or 4 players)", choices=("table", "no_table")),
    OptionSpec("tringa_points", "choice", 5, "value of a genuine tringa (the penalty stays 5)",
               choices=(5, 3)),
    OptionSpec("challenges", "bool", True, "whether the challenge round exists (never with 3 players)"),
    OptionSpec("auto_declare", "bool", False, "the engine declares every seat's true holding"),
    OptionSpec("chain_bonuses", "bool", True, "b'khamsa (3-4 players) and b'achra (4 players)"),
    OptionSpec("target_score", "int", 41, "score that ends the match", minimum=1,
               maximum=MAX_TARGET_SCORE, test_values=(41, 11)),
    OptionSpec("shuffle_returned_cards", "bool", True, "shuffle cards sent back by the initial-table "
               "check into the stock (false: put them at the bottom)"),
)  # fmt: skip


def check_options(options: JSON, players: int) -> None:
    """R3: the no_table deal is for 2 or 4 players."""
    if options["deal_style"] == "no_table" and players == 3:
        raise InvalidSetup("the no_table deal needs 2 or 4 players", field="options.deal_style")


@dataclass(frozen=True)
class Rules:
    """The options of one match, resolved for the seat count (shared by every clone)."""

    raw: tuple[tuple[str, Any], ...]
    players: int
    sides: int
    """Two teams with 4 players, else every seat plays alone."""
    pattern: DealPattern
    values: tuple[int, int, int, int]
    challenges: bool
    """R11/R13: the challenge round exists (option on and not 3 players)."""
    auto_declare: bool
    chains: bool
    """R24: chain bonuses possible (option on and 3-4 players)."""
    target: int
    shuffle_returned: bool

    @classmethod
    def of(cls, options: JSON, players: int) -> Rules:
        return cls(
            raw=tuple(options.items()),
            players=players,
            sides=2 if players == 4 else players,
            pattern=DEAL_PATTERNS[(options["deal_style"], players)],
            values=combo_values(options["tringa_points"]),
            challenges=options["challenges"] and players != 3,
            auto_declare=options["auto_declare"],
            chains=options["chain_bonuses"] and players >= 3,
            target=options["target_score"],
            shuffle_returned=options["shuffle_returned_cards"],
        )
