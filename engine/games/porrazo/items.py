"""Porrazo's score items: key -> English template (engine/items.py). The rules write every
item's text from this table; the page writes it in its own language from the key."""

from __future__ import annotations

from engine.items import ItemTemplates

ITEMS = ItemTemplates(
    templates={
        "tendido_place": "tendido place",  # 5.6
        "tendido_groups": "tendido groups",  # 5.6
        "en_su_lugar": "en su lugar",  # R13
        "porrazo": "porrazo",  # R15
        "counter_porrazo": "counter-porrazo",  # R16
        "limpia": "limpia",  # R18
        "combination": "{combo} of seat {seat}",  # R22
        "card_count": "card count",  # R24
    },
    words={"combo": ("ronda", "rondine")},
)
