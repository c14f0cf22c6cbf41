"""Nepali Marriage: the easy policy (draws, discards, shows)."""

from __future__ import annotations

import random
from typing import Any

from ai.policies.base import Action, register
from engine.protocol import Game

_MARRIAGE_RANKS = "A23456789TJQK"


def _marriage_links(code: str, hand: list[str]) -> float:
    """How much ``code`` helps melds with the other cards of ``hand``: identical cards
    (tunnela), same rank (trial), same suit one or two ranks apart (sequence)."""
    r = _MARRIAGE_RANKS.index(code[0])
    links = 0.0
    skipped_self = False
    for other in hand:
        if other == code and not skipped_self:
            skipped_self = True
            continue
        if other == code:
            links += 3.0
            continue
        o = _MARRIAGE_RANKS.index(other[0])
        if o == r:
            links += 1.0
        elif other[1] == code[1]:
            gap = min((o - r) % 13, (r - o) % 13)
            if gap == 1:
                links += 2.0
            elif gap == 2:
                links += 1.0
    return links


@register("marriage")
def marriage_policy(game: Game[Any], state: Any, seat: int, rng: random.Random) -> Action:
    """Easy Marriage: expose tunnelas, take any show / finish action the rules offer,
    take the discard only when it links with two or more cards of the hand, and discard
    the card with the fewest links (ties: the higher rank)."""
    view = game.view(state, seat)
    actions = game.legal_actions(state)
    as_json = [game.action_to_json(state, a) for a in actions]
    hands = view.get("hands") or []
    hand: list[str] = hands[seat] if seat < len(hands) and isinstance(hands[seat], list) else []
    types = [d.get("type") for d in as_json]
    for wanted in ("expose_tunnela", "finish", "show"):
        if wanted in types:
            return actions[types.index(wanted)]
    if "take_discard" in types:
        pile = view.get("discard") or []
        top = pile[-1].get("card") if pile and isinstance(pile[-1], dict) else None
        if isinstance(top, str) and _marriage_links(top, hand + [top]) >= 4.0:
            return actions[types.index("take_discard")]
        if "draw_stock" in types:
            return actions[types.index("draw_stock")]
    discards = [
        (d["card"], a)
        for d, a in zip(as_json, actions, strict=True)
        if d.get("type") == "discard" and isinstance(d.get("card"), str)
    ]
    if discards:
        scored = [
            (_marriage_links(c, hand), -_MARRIAGE_RANKS.index(c[0]), i) for i, (c, _) in enumerate(discards)
        ]
        return discards[min(scored)[2]][1]
    others = [a for a, t in zip(actions, types, strict=True) if t != "pass"]
    pool = others or actions
    return pool[int(rng.random() * len(pool))]
