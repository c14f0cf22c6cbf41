"""Ronda's score items: key -> English template (engine/items.py). The rules write every
item's text from this table; the page writes it in its own language from the key."""

from __future__ import annotations

from engine.games.ronda.tables import COMBO_NAMES
from engine.items import ItemTemplates

ITEMS = ItemTemplates(
    templates={
        "false_declaration_challenged": "false {declared} shown by a challenge (seat {seat})",  # R13
        "declarations_uncontested": "declarations, uncontested",  # R15
        "declarations": "declarations",  # R17
        "equal_top_declaration": "equal top {declared} (seat {seat})",  # R17
        "provisional_award_withdrawn": "provisional award withdrawn",  # R17
        "false_declaration": "seat {seat} declared {declared} holding {held}",  # R18
        "este": "este",  # R21
        "missa": "missa",  # R23
        "b_khamsa": "b'khamsa",  # R24, chain level 1
        "b_achra": "b'achra",  # R24, chain level 2
        "card_points": "cards ({count})",  # R28
    },
    words={"declared": COMBO_NAMES, "held": COMBO_NAMES},
    options=("este_capturing_card", "chain_bonus_players", "chain_bonus_values"),
)

CHAIN_ITEMS = ("", "b_khamsa", "b_achra")
"""R24: the item of a claim at chain level 1 and 2."""
