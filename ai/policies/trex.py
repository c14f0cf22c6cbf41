"""Trex: the easy policy (contract choice, doubling, trick play, the layout)."""

from __future__ import annotations

import random
from typing import Any

from ai.policies.base import Action, register
from engine.protocol import Game

_TREX_ORDER = "23456789TJQKA"  # low to high


def _trex_strength(code: str) -> int:
    return _TREX_ORDER.index(code[0])


def _trex_penalty_cards(contract: str, hand: list[str]) -> list[str]:
    """Cards that cost points when taken in ``contract`` (R11's penalty cards)."""
    if contract == "king_of_hearts":
        return [c for c in hand if c == "KH"]
    if contract == "queens":
        return [c for c in hand if c[0] == "Q"]
    if contract == "diamonds":
        return [c for c in hand if c[1] == "D"]
    if contract == "complex":
        return [c for c in hand if c == "KH" or c[0] == "Q" or c[1] == "D"]
    return []


def _trex_contract_risk(contract: str, hand: list[str]) -> float:
    """A rough cost of choosing ``contract`` with ``hand`` (lower is better)."""
    suits = {s: [c for c in hand if c[1] == s] for s in "SHDC"}
    high = sum(1 for c in hand if c[0] in "AKQ")
    if contract == "king_of_hearts":
        return 75.0 if "KH" in hand and len(suits["H"]) <= 3 else 10.0
    if contract == "queens":
        return sum(25.0 for c in hand if c[0] == "Q" and len(suits[c[1]]) <= 3) + 5.0
    if contract == "diamonds":
        return 10.0 * sum(1 for c in suits["D"] if _trex_strength(c) >= 7)
    if contract == "collections":
        return 15.0 * high / 2
    if contract == "trex":
        return 40.0 - 20.0 * sum(1 for c in hand if c[0] == "J")
    return 60.0  # complex


@register("trex")
def trex_policy(game: Game[Any], state: Any, seat: int, rng: random.Random) -> Action:
    """Easy Trex: choose the contract the hand fears least, never double, duck tricks
    (play the highest card that still loses, else the highest), dump penalty cards when
    void, lead low; in the layout prefer cards that unlock the seat's own other cards."""
    view = game.view(state, seat)
    actions = game.legal_actions(state)
    as_json = [game.action_to_json(state, a) for a in actions]
    hands = view.get("hands") or []
    hand: list[str] = hands[seat] if seat < len(hands) and isinstance(hands[seat], list) else []
    phase = view.get("phase")
    if phase == "choose_contract":
        scored = [(_trex_contract_risk(str(d.get("contract")), hand), i) for i, d in enumerate(as_json)]
        return actions[min(scored)[1]]
    if phase == "doubling":
        for action, data in zip(actions, as_json, strict=True):
            if data.get("type") == "pass":
                return action
    cards: list[tuple[str, Action]] = [
        (d["card"], a) for d, a in zip(as_json, actions, strict=True) if isinstance(d.get("card"), str)
    ]
    if not cards:
        return actions[int(rng.random() * len(actions))]
    if phase == "layout":
        # unlock own cards: prefer a card whose neighbour in rank (same suit) we also hold
        def unlocks(code: str) -> int:
            i = _trex_strength(code)
            return sum(
                1 for j in (i - 1, i + 1) if 0 <= j < len(_TREX_ORDER) and _TREX_ORDER[j] + code[1] in hand
            )

        best = max(unlocks(c) for c, _ in cards)
        pool = [a for c, a in cards if unlocks(c) == best]
        return pool[int(rng.random() * len(pool))]
    contract = str(view.get("contract"))
    trick: list[str] = [
        t["card"] for t in (view.get("trick") or []) if isinstance(t, dict) and isinstance(t.get("card"), str)
    ]
    codes = [c for c, _ in cards]
    by_code = dict(cards)
    if not trick:  # lead the lowest card
        return by_code[min(codes, key=_trex_strength)]
    led = trick[0][1]
    winning = max((c for c in trick if c[1] == led), key=_trex_strength)
    following = [c for c in codes if c[1] == led]
    if following:
        ducks = [c for c in following if _trex_strength(c) < _trex_strength(winning)]
        if ducks:
            return by_code[max(ducks, key=_trex_strength)]
        return by_code[max(following, key=_trex_strength)]
    penalties = [c for c in _trex_penalty_cards(contract, codes)]
    if penalties:
        return by_code[max(penalties, key=_trex_strength)]
    return by_code[max(codes, key=_trex_strength)]
