"""Marriage's score items: key -> English template (engine/items.py), the settlement's
(R30-R32) and a seat's maal items (R27/R28). The scoring writes every item's text from
this table; the page writes it in its own language from the key."""

from __future__ import annotations

from engine.items import ItemTemplates

ITEMS = ItemTemplates(
    templates={
        "maal_exchange": "maal exchange",  # R30
        "game_payment": "game payment to seat {seat}",  # R31
        "game_payments_received": "game payments received",  # R31
        "deal_result": "result of deal {deal}",  # R32
        "tunnela_ordinary_joker": "exposed tunnela {card} (ordinary joker)",  # R27
        "tunnela": "exposed tunnela {card}",  # R27
        "tunnela_kept": "exposed tunnela {card} kept",  # R27
        "marriages": "{n} marriage(s)",  # R27
        "tiplu": "{n} tiplu",  # R27
        "poplu": "{n} poplu",  # R27
        "jhiplu": "{n} jhiplu",  # R27
        "alter": "{n} alter",  # R27 (alter_points)
        "man": "{n} man",  # R27 (man_cards)
    },
    options=(
        "seen_payment",
        "unseen_payment",
        "dublee_bonus",
        "unseen_maal",
        "alter_points",
        "man_cards",
        "man_points",
    ),
)
