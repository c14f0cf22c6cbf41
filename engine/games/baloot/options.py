"""Baloot's options (spec section 2) and their compact form for the hot path."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.checks import MAX_TARGET_SCORE
from engine.protocol import OptionSpec, written_options

OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "target_score",
        "int",
        152,
        "Match target in game points (E2).",
        minimum=1,
        maximum=MAX_TARGET_SCORE,
        test_values=(152, 30),
    ),
    OptionSpec(
        "sun_double_rule",
        "choice",
        "one_over_one_under",
        "When a Sun contract may be doubled (R12).",
        choices=("one_over_one_under", "doubler_behind"),
    ),
    OptionSpec(
        "four_lock_choice",
        "bool",
        True,
        "The defender who calls four also says open or locked (R11).",
    ),
    OptionSpec(
        "trump_lead_must_beat",
        "choice",
        "always",
        "When trumps are led, must a follower beat the highest trump always or only "
        "when an opponent is winning (R16).",
        choices=("always", "opponent_winning"),
    ),
    OptionSpec(
        "void_partner_exemption",
        "choice",
        "ekka_or_fourth",
        "Who, void in a led non-trump suit, is excused from trumping because the partner is winning (R17).",
        choices=("ekka_or_fourth", "always", "never"),
    ),
    OptionSpec(
        "must_undertrump",
        "bool",
        False,
        "A player obliged to trump who cannot over-trump must still trump (R17).",
    ),
    OptionSpec(
        "project_tie",
        "choice",
        "first_in_order",
        "Exactly equal best projects: earlier seat wins, or in Hokm a trump sequence first (R21).",
        choices=("first_in_order", "trump_then_first"),
    ),
    OptionSpec(
        "baloot_with_projects",
        "choice",
        "not_in_hundred",
        "Whether the baloot scores when the trump K and Q lie in the seat's scored projects (R23).",
        choices=("not_in_hundred", "always", "not_in_any"),
    ),
    OptionSpec(
        "hokm_bidder_may_switch_to_sun",
        "bool",
        False,
        "If nobody overcalls a Hokm bid with Sun, the Hokm bidder may turn it into Sun (R6).",
    ),
    OptionSpec(
        "ashkal_forbidden_on_ace",
        "bool",
        False,
        "Ashkal may not be bid when the turned card is an Ace (R2).",
    ),
    OptionSpec(
        "kawesh",
        "bool",
        False,
        "A player whose first five cards are all 7s, 8s and 9s may annul the deal (R10).",
    ),
    # House rules of the deal's award (issue 31). Added after the wire corpus was
    # recorded: a state lists them only when they are not the default (listed_when_default).
    OptionSpec(
        "hokm_rounding",
        "choice",
        "counted_team",
        "Hokm card points ending in 6 (86/76): only the counted team is rounded, the other "
        "gets the rest (9/7); or both sides are rounded and the larger lowered (8/8) (S2, S5).",
        choices=("counted_team", "both_sides"),
        listed_when_default=False,
    ),
    OptionSpec(
        "doubled_award",
        "choice",
        "winner_takes_all",
        "A doubled (x2, x3, x4) deal: the winner takes everything times the multiplier; or, "
        "when the declarers make it, each team keeps its own points times the multiplier (S7).",
        choices=("winner_takes_all", "each_keeps_own"),
        listed_when_default=False,
    ),
    OptionSpec(
        "doubled_kaboot",
        "choice",
        "multiplied",
        "A kaboot in a doubled deal: its value times the multiplier (Hokm 50/75/100, Sun 88); "
        "or flat (Hokm 25, Sun 44) whatever the doubling (S6).",
        choices=("multiplied", "flat"),
        listed_when_default=False,
    ),
    OptionSpec(
        "projects_when_doubled",
        "choice",
        "times_two",
        "Projects in a x2, x3 or x4 deal: always times 2; or times the deal's multiplier (S6, S7).",
        choices=("times_two", "times_multiplier"),
        listed_when_default=False,
    ),
    OptionSpec(
        "projects_in_kaboot",
        "choice",
        "added",
        "A kaboot team's projects: added to the kaboot; or not added (S6).",
        choices=("added", "not_added"),
        listed_when_default=False,
    ),
)


@dataclass(frozen=True)
class Opts:
    """The options as the rules read them (shared, never copied by clone)."""

    target: int
    doubler_behind: bool
    four_lock_choice: bool
    lead_beat_always: bool
    exemption: int  # 0 ekka_or_fourth, 1 always, 2 never
    must_undertrump: bool
    trump_first: bool
    baloot_rule: str
    switch_to_sun: bool
    ashkal_not_on_ace: bool
    kawesh: bool
    rounding_both_sides: bool  # hokm_rounding both_sides
    each_keeps_own: bool  # doubled_award each_keeps_own
    kaboot_flat: bool  # doubled_kaboot flat
    projects_times_mult: bool  # projects_when_doubled times_multiplier
    kaboot_projects: bool  # projects_in_kaboot added
    raw: tuple[tuple[str, Any], ...]  # as a state lists them (engine.protocol.written_options)
    players: int = 4
    sides: int = 2  # what the shared codec's seat and side kinds read their bounds from

    @property
    def as_json(self) -> dict[str, Any]:
        return dict(self.raw)


def compact(options: dict[str, Any]) -> Opts:
    """The validated options dict as an :class:`Opts`."""
    return Opts(
        target=options["target_score"],
        doubler_behind=options["sun_double_rule"] == "doubler_behind",
        four_lock_choice=options["four_lock_choice"],
        lead_beat_always=options["trump_lead_must_beat"] == "always",
        exemption=("ekka_or_fourth", "always", "never").index(options["void_partner_exemption"]),
        must_undertrump=options["must_undertrump"],
        trump_first=options["project_tie"] == "trump_then_first",
        baloot_rule=options["baloot_with_projects"],
        switch_to_sun=options["hokm_bidder_may_switch_to_sun"],
        ashkal_not_on_ace=options["ashkal_forbidden_on_ace"],
        kawesh=options["kawesh"],
        rounding_both_sides=options["hokm_rounding"] == "both_sides",
        each_keeps_own=options["doubled_award"] == "each_keeps_own",
        kaboot_flat=options["doubled_kaboot"] == "flat",
        projects_times_mult=options["projects_when_doubled"] == "times_multiplier",
        kaboot_projects=options["projects_in_kaboot"] == "added",
        raw=tuple(written_options(OPTION_SPECS, options).items()),
    )
