"""Trex options (section 2): the option specs and the per-match rules object ``Opts``."""

from __future__ import annotations

from typing import Any

from engine.protocol import InvalidSetup, OptionSpec

from .tables import (
    CONTRACT_SET_COMPLEX,
    CONTRACT_SET_DEFAULT,
    DEALS_PER_KINGDOM_COMPLEX,
    DEALS_PER_KINGDOM_DEFAULT,
    DIAMOND_VALUE,
    KINGDOMS,
    SEQ_7,
    SEQ_J,
    TRICK_VALUE,
    deal_total,
)

OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "doubling",
        "bool",
        True,
        "Holders of KH (King of Hearts, complex) and of queens (Queens, complex) may double them (R7, S5).",
    ),
    OptionSpec(
        "self_capture_scoring",
        "choice",
        "leader_bonus",
        "How a doubled card taken by its own doubler scores (S5).",
        choices=("leader_bonus", "single_penalty"),
    ),
    OptionSpec(
        "must_discard_penalty",
        "bool",
        False,
        "A seat that cannot follow suit must play a penalty card if it holds one (R11).",
    ),
    OptionSpec(
        "diamonds_collections_swap",
        "bool",
        False,
        "Diamonds cost 15 each and Collections tricks 10 each (S3, S4).",
    ),
    OptionSpec(
        "free_heart_lead",
        "bool",
        False,
        "Hearts may be led at any time in King of Hearts and complex (R10 off).",
    ),
    OptionSpec(
        "partnership",
        "bool",
        False,
        "Seats {0,2} play against {1,3}; the 2s are exposed in Trex (R18, E4).",
    ),
    OptionSpec(
        "partnership_result",
        "choice",
        "team_total",
        "With partnership: how the winning team is decided (E4).",
        choices=("team_total", "lowest_player_loses"),
    ),
    OptionSpec(
        "trex_complex",
        "bool",
        False,
        "Each kingdom is two deals, complex and trex; 8 deals in all (R6b, S7).",
    ),
    OptionSpec(
        "play_all_tricks",
        "bool",
        False,
        "Play all 13 tricks even after the last penalty card is taken (R13).",
    ),
    OptionSpec("reversed_scores", "bool", False, "Negate every deal score; the lowest total wins (S8)."),
    # house rules (docs/rules/trex.md, section 11): written in a state only when not at their
    # default, so that states written before they existed stay byte for byte the same
    OptionSpec(
        "doubled_card_taken_by_other",
        "choice",
        "doubler_gains",
        "S5: another seat takes a doubled card: it loses double and the doubler gains the single "
        "value (doubler_gains), or nobody gains (no_gain).",
        choices=("doubler_gains", "no_gain"),
        listed_when_default=False,
    ),
    OptionSpec(
        "doubler_takes_after_other_lead",
        "choice",
        "leader_gains",
        "S5: the doubler takes its doubled card on another seat's lead: it loses double and the "
        "leader gains the single value (leader_gains), or nobody gains (no_gain).",
        choices=("leader_gains", "no_gain"),
        listed_when_default=False,
    ),
    OptionSpec(
        "doubler_leads_and_takes",
        "choice",
        "single_penalty",
        "S5: the doubler leads its doubled card and takes it: it loses the single value "
        "(single_penalty), double (double_penalty), or double and the seat after it, an opponent, "
        "gains the single value (double_penalty_opponent_gains).",
        choices=("single_penalty", "double_penalty", "double_penalty_opponent_gains"),
        listed_when_default=False,
    ),
    OptionSpec(
        "trex_layout_start",
        "choice",
        "jacks",
        "R15: the Trex layout builds every suit from its jack (jacks), or from its seven with "
        "the seven of hearts opening, as in Sevens (sevens).",
        choices=("jacks", "sevens"),
        listed_when_default=False,
    ),
)

SELF_CAPTURE_HOUSE_RULES = ("doubler_takes_after_other_lead", "doubler_leads_and_takes")
"""The house rules that ``self_capture_scoring: single_penalty`` already decides (S5)."""


def check_options(options: dict[str, Any], players: int) -> None:
    """S5: ``self_capture_scoring: single_penalty`` scores every capture by the doubler at
    the single value, so the two house rules of those captures must stay at their default."""
    if options["self_capture_scoring"] != "single_penalty":
        return
    for spec in OPTION_SPECS:
        if spec.name in SELF_CAPTURE_HOUSE_RULES and options[spec.name] != spec.default:
            raise InvalidSetup(
                f"options.{spec.name} needs self_capture_scoring leader_bonus "
                "(single_penalty already scores every capture by the doubler at the single value)",
                field=f"options.{spec.name}",
            )


OWN_LEAD = ("single_penalty", "double_penalty", "double_penalty_opponent_gains")
"""``doubler_leads_and_takes``'s values; ``Opts.own_lead`` is the index."""


class Opts:
    """The parsed option values plus the numbers the hot path reads (shared, never mutated)."""

    __slots__ = (
        "complex",
        "contract_set",
        "deal_totals",
        "deals_per_kingdom",
        "doubling",
        "dv",
        "free_heart_lead",
        "leader_bonus",
        "leader_gain",
        "lowest_player_loses",
        "other_gain",
        "own_lead",
        "start_seq",
        "unbalanced",
        "must_discard",
        "partnership",
        "play_all",
        "players",
        "raw",
        "sides",
        "sign",
        "swap",
        "total_deals",
        "tv",
    )

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = dict(raw)
        self.doubling: bool = raw["doubling"]
        self.leader_bonus: bool = raw["self_capture_scoring"] == "leader_bonus"
        self.must_discard: bool = raw["must_discard_penalty"]
        self.swap: bool = raw["diamonds_collections_swap"]
        self.free_heart_lead: bool = raw["free_heart_lead"]
        self.partnership: bool = raw["partnership"]
        self.lowest_player_loses: bool = raw["partnership_result"] == "lowest_player_loses"
        self.complex: bool = raw["trex_complex"]
        self.play_all: bool = raw["play_all_tricks"]
        self.sign: int = -1 if raw["reversed_scores"] else 1
        self.contract_set = CONTRACT_SET_COMPLEX if self.complex else CONTRACT_SET_DEFAULT
        self.deals_per_kingdom = DEALS_PER_KINGDOM_COMPLEX if self.complex else DEALS_PER_KINGDOM_DEFAULT
        self.total_deals = self.deals_per_kingdom * KINGDOMS
        self.dv = DIAMOND_VALUE[self.swap]
        self.tv = TRICK_VALUE[self.swap]
        # S9, signed (S8), by contract: what end_deal checks a finished deal against
        self.deal_totals = tuple(deal_total(c, self.swap) * self.sign for c in range(6))
        self.players = 4
        self.sides = 2 if self.partnership else 4  # the shared codec's per-side fields (``scores``)
        # S5 house rules (see OPTION_SPECS); the defaults net every doubled card at -v
        self.other_gain: bool = raw["doubled_card_taken_by_other"] == "doubler_gains"
        self.leader_gain: bool = raw["doubler_takes_after_other_lead"] == "leader_gains"
        self.own_lead: int = OWN_LEAD.index(raw["doubler_leads_and_takes"])
        self.unbalanced: bool = not self.other_gain or not self.leader_gain or self.own_lead == 1
        """A doubled card may cost its deal more than its single value (S9 allows for it)."""
        self.start_seq: int = SEQ_7 if raw["trex_layout_start"] == "sevens" else SEQ_J
        """R15: the rank each suit of the Trex layout is built from."""
