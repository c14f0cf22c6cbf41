"""Baloot's score items: key -> English template (engine/items.py). The award (S6/S7)
writes every item's text from this table; the page writes it in its own language."""

from __future__ import annotations

from engine.items import ItemTemplates

ITEMS = ItemTemplates(
    templates={
        "cards": "cards",  # S7: the card game points
        "projects": "projects",  # S6/S7
        "baloot": "baloot",  # S6/S7
        "kaboot": "kaboot",  # S6
    },
    options=(
        "hokm_rounding",
        "doubled_award",
        "doubled_kaboot",
        "projects_when_doubled",
        "projects_in_kaboot",
    ),
)
