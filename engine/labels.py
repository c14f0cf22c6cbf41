"""Short labels for actions, for a table screen: ``{"type": "play", "card": "KH"}``
is "play K♥".

A label is built from a verb and its arguments (:func:`label_parts`), so that a
translation can swap the verb and the argument words without parsing English: English
by default, another language's words passed as a :class:`LabelWords` (the service reads
them from its catalogues, service/i18n.py). Every
field of the action is shown, so two different actions never share a label.

>>> label({"type": "play", "card": "KH"})
'play K♥'
>>> label({"type": "double", "locked": False})
'double open'
>>> label({"type": "declare", "combo": "double_ronda"})
'declare double ronda'
>>> label({"type": "finish", "sets": [["8C", "9C", "TC"]], "discard": "XX"})
'finish with sets [[8♣ 9♣ 10♣]] discarding joker'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.cards import RANKS, SUIT_SYMBOLS, SUITS

VERBS: dict[str, str] = {
    "choose_trump": "name trumps",
    "draw_stock": "draw from the stock",
    "take_discard": "take the discard",
    "expose_tunnela": "expose tunnela",
    "show_dublees": "show dublees",
    "pick_tiplu": "pick the tiplu",
    "finish_dublees": "finish with dublees",
    "tendido": "deal the tendido",
}
"""Verbs that are not their JSON type with spaces."""

# How each field reads after the verb: (words before the value, how the value reads).
FIELD_WORDS: dict[str, str] = {
    "target": "seat",
    "seat": "seat",
    "sets": "with sets",
    "pairs": "with pairs",
    "pair": "pair",
    "discard": "discarding",
    "index": "card no.",
    "deck": "deck of",
    "suit": "",
}
FLAG_WORDS: dict[str, tuple[str, str]] = {  # a boolean field: (when true, when false)
    "locked": ("locked", "open"),
    "ekka": ("announcing ekka", "without ekka"),
    "capture": ("capturing", "without capturing"),
}


@dataclass(frozen=True)
class LabelWords:
    """The words of labels in one language: the tables above, and the two words of values.

    ``verbs`` may name every type (a missing one reads as its type with spaces), ``fields``
    and ``flags`` as above; ``cards`` is how a deck's size reads (``{n}`` is the count).
    Rank and suit symbols are the same in every language."""

    verbs: Mapping[str, str]
    fields: Mapping[str, str]
    flags: Mapping[str, tuple[str, str]]
    joker: str = "joker"
    cards: str = "{n} cards"


ENGLISH = LabelWords(VERBS, FIELD_WORDS, FLAG_WORDS)
"""The default words: the tables above (service/i18n.py builds the other languages')."""


def card_label(code: str, words: LabelWords = ENGLISH) -> str:
    """``"KH"`` as ``"K♥"``, ``"TD"`` as ``"10♦"``; the printed joker ``XX`` is "joker".

    >>> card_label("TD"), card_label("AS"), card_label("XX")
    ('10♦', 'A♠', 'joker')
    """
    if code == "XX":
        return words.joker
    if len(code) == 2 and code[0] in RANKS and code[1] in SUITS:
        rank = "10" if code[0] == "T" else code[0]
        return rank + SUIT_SYMBOLS[SUITS.index(code[1])]
    return code


def value_label(key: str, value: Any, words: LabelWords = ENGLISH) -> str:
    """One field's value in words: cards with suit symbols, lists in brackets."""
    if isinstance(value, list):
        if key == "deck":
            return words.cards.replace("{n}", str(len(value)))
        return "[" + " ".join(value_label(key, v, words) for v in value) + "]"
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str):
        if key == "suit" and value in SUITS:
            return SUIT_SYMBOLS[SUITS.index(value)]
        if len(value) == 2 or value == "XX":
            return card_label(value, words)
        return value.replace("_", " ")
    return str(value)


def label_parts(action: dict[str, Any], words: LabelWords = ENGLISH) -> tuple[str, list[str]]:
    """(verb, argument phrases) of a JSON action, in the action's field order, in
    ``words``' language (English by default)."""
    kind = str(action.get("type", "?"))
    verb = words.verbs.get(kind) or kind.replace("_", " ")
    args = []
    for key, value in action.items():
        if key == "type":
            continue
        if isinstance(value, bool):
            when_true, when_false = words.flags.get(key) or FLAG_WORDS.get(key, (key, f"no {key}"))
            args.append(when_true if value else when_false)
            continue
        before = words.fields.get(key, "")
        shown = value_label(key, value, words)
        args.append(f"{before} {shown}" if before else shown)
    return verb, args


def label(action: dict[str, Any], words: LabelWords = ENGLISH) -> str:
    """A short label of a JSON action (English by default): its verb, then each field in words."""
    verb, args = label_parts(action, words)
    return " ".join([verb, *args])
