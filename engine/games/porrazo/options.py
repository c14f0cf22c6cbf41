"""Porrazo's options (rules file section 2): their specs, the R1 combination check, and
:class:`Options`, the rules object a match derives from them once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.checks import MAX_TARGET_SCORE
from engine.games.porrazo.tables import TEAM_PLAYER_COUNTS, deal_positions, deals_per_hand, leftover_cards
from engine.protocol import JSON, InvalidSetup, OptionSpec

OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "teams",
        "choice",
        "none",
        "R1: 'alternate' makes two teams of alternate seats (4, 6 or 8 players)",
        choices=("none", "alternate"),
    ),
    OptionSpec(
        "target_score",
        "int",
        61,
        "R25: the score that wins the match at once",
        minimum=1,
        maximum=MAX_TARGET_SCORE,
        test_values=(61, 15, 1),
    ),
    OptionSpec(
        "deal_pattern",
        "choice",
        "threes",
        "R4: packets of three, or three rounds of single cards",
        choices=("threes", "singles"),
    ),
    OptionSpec(
        "declaration_mode",
        "choice",
        "manual",
        "R9: seats decide to declare, or the engine declares",
        choices=("manual", "auto"),
    ),
    OptionSpec("undeclared_claims", "bool", True, "R21: opponents may claim an undeclared ronda/rondine"),
    OptionSpec("en_su_lugar_decline", "bool", True, "R14: a capture may be declined to score en su lugar"),
    OptionSpec(
        "limpia_value",
        "choice",
        "highest",
        "R18: a limpia is valued by the highest captured card or by the last card of the run",
        choices=("highest", "last_in_run"),
    ),
)


def check_teams(options: JSON, players: int) -> None:
    """R1: teams "alternate" only with 4, 6 or 8 players (InvalidSetup otherwise)."""
    if options["teams"] == "alternate" and players not in TEAM_PLAYER_COUNTS:
        raise InvalidSetup('options.teams: "alternate" needs 4, 6 or 8 players', field="options.teams")


@dataclass(frozen=True)
class Options:
    """The match's options, parsed once (rules file section 2)."""

    raw: dict[str, Any]
    players: int
    teams: bool
    target: int
    pattern: str
    auto: bool
    claims: bool
    decline: bool
    last_in_run: bool
    deals: int
    leftover: int
    positions: tuple[tuple[int, ...], ...]
    side_of: tuple[int, ...]
    sides: int

    @classmethod
    def build(cls, raw: dict[str, Any], players: int) -> Options:
        teams = raw["teams"] == "alternate"
        return cls(
            raw=dict(raw),
            players=players,
            teams=teams,
            target=raw["target_score"],
            pattern=raw["deal_pattern"],
            auto=raw["declaration_mode"] == "auto",
            claims=raw["declaration_mode"] == "manual" and raw["undeclared_claims"],
            decline=raw["en_su_lugar_decline"],
            last_in_run=raw["limpia_value"] == "last_in_run",
            deals=deals_per_hand(players),
            leftover=leftover_cards(players),
            positions=deal_positions(players, raw["deal_pattern"]),
            side_of=tuple(s % 2 if teams else s for s in range(players)),
            sides=2 if teams else players,
        )
