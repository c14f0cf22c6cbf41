"""Trex's score items: key -> English template (engine/items.py). The scoring writes every
item's text from this table; the page writes it in its own language from the key."""

from __future__ import annotations

from engine.items import ItemTemplates

ITEMS = ItemTemplates(
    templates={
        "trick": "trick",  # S4
        "diamond": "{n} diamond",  # S3, one
        "diamonds": "{n} diamonds",  # S3, several
        "penalty_card": "{card}",  # S1 (the king of hearts), S2 (a queen)
        "doubled": "doubled {card}",  # S5
        "doubled_taken_by_other": "doubled {card} taken by another seat",  # S5
        "doubled_taken_by_doubler": "doubled {card} taken by its doubler",  # S5
        "doubled_leader_bonus": "doubled {card}: bonus to the trick's leader",  # S5
        "doubled_led_and_taken": "doubled {card} led and taken by its doubler",  # S5
        "doubled_next_seat_bonus": "doubled {card}: bonus to the seat after the doubler",  # S5
        "finished_first": "finished first",  # S6
        "finished_second": "finished second",  # S6
        "finished_third": "finished third",  # S6
        "finished_fourth": "finished fourth",  # S6
        "earlier_play": "earlier play given in the setup",  # S9
    },
    options=("doubled_card_taken_by_other", "doubler_takes_after_other_lead", "doubler_leads_and_takes"),
)

FINISHED_ITEMS = ("finished_first", "finished_second", "finished_third", "finished_fourth")
"""S6: the item of each finishing position."""
