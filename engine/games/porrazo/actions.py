"""Porrazo's actions as JSON (rules file verbs) and back."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from engine.cards import CODES, BadCard, parse_card
from engine.games.porrazo.tables import (
    CLAIM,
    DEAL,
    DECLARE_RONDA,
    DECLARE_RONDINE,
    DECLINE,
    PASS,
    TENDIDO,
)
from engine.protocol import JSON, BadAction

VERBS: dict[str, str] = {
    "play": 'play a card from your hand ("capture": false declines a capture for en su lugar, R14)',
    "pass": "let the tendido wait, do not declare, or claim nothing more",
    "tendido": "dealer: deal the four tendido cards now (R6, R7)",
    "declare": 'announce a ronda or rondine ("combo"), never its rank (R9)',
    "claim": 'claim the undeclared ronda/rondine of "seat" (R21)',
    "deal": "caller-dealt matches: the next hand's 52-card deck, top first",
}

_FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # verb: (required fields, optional fields)
    "play": (frozenset({"card"}), frozenset({"capture"})),
    "pass": (frozenset(), frozenset()),
    "tendido": (frozenset(), frozenset()),
    "declare": (frozenset({"combo"}), frozenset()),
    "claim": (frozenset({"seat"}), frozenset()),
    "deal": (frozenset({"deck"}), frozenset()),
}


def card_of(value: Any, field: str) -> int:
    """A card code -> card int, or BadAction naming the field."""
    try:
        return parse_card(value)
    except BadCard:
        shown = value if isinstance(value, str) else repr(value)
        raise BadAction(f"{shown} is not a card code", field=field) from None


def parse_action(data: Any, players: int) -> Hashable:
    """Read a JSON action into its internal form; BadAction names the bad field."""
    if not isinstance(data, dict):
        raise BadAction('an action must be a JSON object with a "type"')
    verb = data.get("type")
    if not isinstance(verb, str) or verb not in _FIELDS:
        raise BadAction(f"unknown action type {verb!r}; Porrazo's are {', '.join(_FIELDS)}", field="type")
    required, optional = _FIELDS[verb]
    for name in data:
        if name != "type" and name not in required and name not in optional:
            raise BadAction(f"unexpected field {name!r} in a {verb} action", field=name)
    for name in required:
        if name not in data:
            raise BadAction(f"a {verb} action needs the field {name!r}", field=name)
    if verb == "play":
        card = card_of(data["card"], "card")
        capture = data.get("capture", True)
        if not isinstance(capture, bool):
            raise BadAction('"capture" must be true or false', field="capture")
        return card if capture else DECLINE + card
    if verb == "pass":
        return PASS
    if verb == "tendido":
        return TENDIDO
    if verb == "declare":
        combo = data["combo"]
        if combo == "ronda":
            return DECLARE_RONDA
        if combo == "rondine":
            return DECLARE_RONDINE
        raise BadAction('"combo" must be "ronda" or "rondine"', field="combo")
    if verb == "claim":
        seat = data["seat"]
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise BadAction(f'"seat" must be a seat number 0..{players - 1}', field="seat")
        return CLAIM + seat
    deck = data["deck"]
    if not isinstance(deck, list):
        raise BadAction('"deck" must be a list of 52 card codes, top first', field="deck")
    return (DEAL, tuple(card_of(code, "deck") for code in deck))


def action_to_json(action: Any) -> JSON:
    """The JSON form of an internal action (round-trips through parse_action)."""
    if isinstance(action, tuple):
        return {"type": "deal", "deck": [CODES[c] for c in action[1]]}
    if action < DECLINE:
        return {"type": "play", "card": CODES[action]}
    if action < PASS:
        return {"type": "play", "card": CODES[action - DECLINE], "capture": False}
    if action == PASS:
        return {"type": "pass"}
    if action == TENDIDO:
        return {"type": "tendido"}
    if action == DECLARE_RONDA:
        return {"type": "declare", "combo": "ronda"}
    if action == DECLARE_RONDINE:
        return {"type": "declare", "combo": "rondine"}
    return {"type": "claim", "seat": action - CLAIM}


def public_action_json(action: Any) -> JSON:
    """The JSON a view shows of an action: a caller's deck becomes its card count."""
    if isinstance(action, tuple):
        return {"type": "deal", "deck": len(action[1])}
    return action_to_json(action)
