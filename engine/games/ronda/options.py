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
    # house rules (docs/rules/ronda.md, "Variants"): written in a state only when not at
    # their default, so that states written before they existed stay byte for byte the same
    OptionSpec("este_capturing_card", "choice", "taken", "R21: after an este the capturing "
               "card is taken with the captured cards (taken: an emptied table counts a missa) "
               "or stays face up on the table (stays_on_table: so no missa)",
               choices=("taken", "stays_on_table"), listed_when_default=False),
    OptionSpec("chain_bonus_players", "choice", "three_or_four", "R24: who may claim chain "
               "bonuses: three_or_four (b'khamsa with 3-4 players, b'achra with 4) or any "
               "(both with any number of players)", choices=("three_or_four", "any"),
               listed_when_default=False),
    OptionSpec("chain_bonus_values", "choice", "5_then_10", "R24: the chain bonuses, "
               "b'khamsa then b'achra: 5_then_10 or 5_then_11",
               choices=("5_then_10", "5_then_11"), listed_when_default=False),
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
    """R24: chain bonuses possible (option on and 3-4 players, or any count)."""
    chain_levels: int
    """R24: the last chain level a claim may reach (2: b'khamsa, 3: b'achra); 1: none."""
    chain_bonus: tuple[int, int]
    """R24: the points of b'khamsa and of b'achra."""
    este_card_stays: bool
    """R21 (este_capturing_card): the este's capturing card stays on the table."""
    target: int
    shuffle_returned: bool

    @classmethod
    def of(cls, options: JSON, players: int) -> Rules:
        any_count = options["chain_bonus_players"] == "any"
        chains = options["chain_bonuses"] and (players >= 3 or any_count)
        return cls(
            raw=tuple(options.items()),
            players=players,
            sides=2 if players == 4 else players,
            pattern=DEAL_PATTERNS[(options["deal_style"], players)],
            values=combo_values(options["tringa_points"]),
            challenges=options["challenges"] and players != 3,
            auto_declare=options["auto_declare"],
            chains=chains,
            chain_levels=(3 if players == 4 or any_count else 2) if chains else 1,
            chain_bonus=(5, 11 if options["chain_bonus_values"] == "5_then_11" else 10),
            este_card_stays=options["este_capturing_card"] == "stays_on_table",
            target=options["target_score"],
            shuffle_returned=options["shuffle_returned_cards"],
        )
