"""Baloot: the easy policy (bids, doubles, projects, trick play)."""

from __future__ import annotations

import random
from typing import Any

from ai.policies.base import Action, register
from engine.protocol import Game

_BALOOT_PLAIN = "789JQKTA"  # non-trump order, low to high
_BALOOT_TRUMP = "78QKTA9J"  # trump order, low to high
_BALOOT_POINTS_PLAIN = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}
_BALOOT_POINTS_TRUMP = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3}


def _baloot_power(code: str, trump: str | None) -> int:
    if code[1] == trump:
        return 10 + _BALOOT_TRUMP.index(code[0])
    return _BALOOT_PLAIN.index(code[0])


def _baloot_points(code: str, trump: str | None) -> int:
    table = _BALOOT_POINTS_TRUMP if code[1] == trump else _BALOOT_POINTS_PLAIN
    return table.get(code[0], 0)


def _baloot_bid_value(hand: list[str], suit: str | None) -> float:
    """Rough trick strength of ``hand`` with ``suit`` as trumps (None: Sun)."""
    value = 0.0
    for code in hand:
        if suit is not None and code[1] == suit:
            value += {"J": 3.0, "9": 2.5, "A": 1.5, "T": 1.0}.get(code[0], 0.6)
        else:
            value += {"A": 1.5, "T": 0.7}.get(code[0], 0.0)
    return value


@register("baloot")
def baloot_policy(game: Game[Any], state: Any, seat: int, rng: random.Random) -> Action:
    """Easy Baloot: bid Hokm with a strong candidate suit and Sun with many aces, never
    double, always declare a project, choose the longest strong trump suit; in play win
    the trick as cheaply as possible unless the partner is winning (then give points when
    it is safe, else play low), lead aces, else low cards."""
    view = game.view(state, seat)
    actions = game.legal_actions(state)
    as_json = [game.action_to_json(state, a) for a in actions]
    hands = view.get("hands") or []
    hand: list[str] = hands[seat] if seat < len(hands) and isinstance(hands[seat], list) else []

    def find(**fields: Any) -> Action | None:
        for action, data in zip(actions, as_json, strict=True):
            if all(data.get(k) == v for k, v in fields.items()):
                return action
        return None

    phase = view.get("phase")
    if phase == "bidding":
        candidate = view.get("candidate")
        cand_suit = candidate[1] if isinstance(candidate, str) else None
        full = hand + ([candidate] if isinstance(candidate, str) else [])
        sun = find(type="bid", bid="sun")
        if sun is not None and _baloot_bid_value(full, None) >= 4.5:
            return sun
        hokm = find(type="bid", bid="hokm")
        if hokm is not None:
            bidding = view.get("bidding") or {}
            if bidding.get("round", 1) == 1 and cand_suit is not None:
                if _baloot_bid_value(full, cand_suit) - _baloot_bid_value(full, None) >= 3.0:
                    return hokm
            elif (
                max(
                    _baloot_bid_value(hand, s) - _baloot_bid_value(hand, None)
                    for s in "SHDC"
                    if s != cand_suit
                )
                >= 3.5
            ):
                return hokm
        passing = find(type="pass")
        if passing is not None:
            return passing
    if phase == "choose_trump":
        scored = [(_baloot_bid_value(hand, d.get("suit")), i) for i, d in enumerate(as_json) if d.get("suit")]
        if scored:
            return actions[max(scored)[1]]
    if phase == "doubling":
        passing = find(type="pass")
        if passing is not None:
            return passing
    declare = find(type="declare")
    if declare is not None:
        return declare
    cards = [(d["card"], a) for d, a in zip(as_json, actions, strict=True) if isinstance(d.get("card"), str)]
    if not cards:
        return actions[int(rng.random() * len(actions))]
    contract = view.get("contract") or {}
    trump = contract.get("trump") if isinstance(contract, dict) else None
    if not isinstance(trump, str) or len(trump) != 1:
        trump = trump[1] if isinstance(trump, str) and len(trump) == 2 else None
    table = [t for t in (view.get("table") or []) if isinstance(t, dict)]
    codes = [c for c, _ in cards]
    by_code: dict[str, Action] = {}
    for c, a in cards:
        by_code.setdefault(c, a)  # the plain play first (an ekka variant comes later)
    low = min(codes, key=lambda c: (_baloot_points(c, trump), _baloot_power(c, trump)))
    if not table:
        aces = [c for c in codes if c[0] == "A" and c[1] != trump]
        if aces:
            return by_code[aces[0]]
        return by_code[low]
    led = table[0]["card"][1]

    def power_in_trick(code: str) -> int:
        if code[1] == trump:
            return 100 + _baloot_power(code, trump)
        if code[1] == led:
            return _baloot_power(code, trump)
        return -1

    winner = max(table, key=lambda t: power_in_trick(t["card"]))
    partner_winning = winner.get("seat") == (seat + 2) % 4
    last_to_play = len(table) == 3
    if partner_winning:
        if last_to_play:
            return by_code[max(codes, key=lambda c: (_baloot_points(c, trump), -_baloot_power(c, trump)))]
        return by_code[low]
    beating = [c for c in codes if power_in_trick(c) > power_in_trick(winner["card"])]
    if beating:
        return by_code[min(beating, key=lambda c: power_in_trick(c))]
    return by_code[low]
