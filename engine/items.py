"""Score items as keys and parameters, so that a page can write them in any language.

Each game declares its score items once, in ``engine/games/<game>/items.py``: a table
``key -> English template`` with named parameters (``"seat {seat} declared {declared}
holding {held}"``). The engine writes an item's text with :meth:`ItemTemplates.text`,
so the text and the key cannot drift apart. The states keep the text alone (the wire
format does not change); what is served adds the ``key`` and the ``params`` read back from
the text by the same templates (:func:`keyed_report`, :func:`keyed_events`).

A parameter's kind is fixed by its name, which is what a page needs to write it:

* a name listed in the game's ``words`` (``combo``...): one of those words, a game term
  that the page's catalogue names (``"tringa"``);
* ``card``: a card code (``"KH"``; ``"XX"`` is Marriage's man);
* ``seat``: a seat number (from 0, as everywhere on the wire);
* any other name (``n``, ``count``, ``deal``): a whole number.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

JSON = dict[str, Any]

CARD_PATTERN = r"[2-9TJQKA][SHDC]|XX"
NUMBER_PATTERN = r"-?\d+"
_PARAM = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class ItemTemplates:
    """One game's score items: ``templates`` key -> English template; ``words`` a word
    parameter's name -> the words it may take (each a key of the game's page words);
    ``options`` the house rules an item may name in its ``options`` (docs/api.md)."""

    templates: Mapping[str, str]
    words: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    options: tuple[str, ...] = ()
    _patterns: dict[str, re.Pattern[str]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for key, template in self.templates.items():
            self._patterns[key] = re.compile(self._regex(template))

    def _regex(self, template: str) -> str:
        out = []
        at = 0
        for match in _PARAM.finditer(template):
            out.append(re.escape(template[at : match.start()]))
            name = match.group(1)
            out.append(f"(?P<{name}>{self.pattern(name)})")
            at = match.end()
        out.append(re.escape(template[at:]))
        return "".join(out)

    def pattern(self, name: str) -> str:
        """The regular expression of a parameter's values (see the module's docstring)."""
        if name in self.words:
            return "|".join(re.escape(word) for word in self.words[name])
        if name == "card":
            return CARD_PATTERN
        return NUMBER_PATTERN

    def params_of(self, key: str) -> list[str]:
        """The names of a template's parameters, in order."""
        return _PARAM.findall(self.templates[key])

    def text(self, key: str, **params: Any) -> str:
        """The item's English text: its template with ``params`` filled in."""
        return self.templates[key].format(**params)

    def parse(self, text: str) -> tuple[str, JSON] | None:
        """The key and parameters of an item's text, or None when no template writes it
        (numbers as numbers, cards and words as strings)."""
        for key, pattern in self._patterns.items():
            match = pattern.fullmatch(text)
            if match is not None:
                params: JSON = {}
                for name, value in match.groupdict().items():
                    is_text = name in self.words or name == "card"
                    params[name] = value if is_text else int(value)
                return key, params
        return None

    def keyed(self, item: Mapping[str, Any]) -> JSON:
        """A copy of a JSON item (``{"item": text, ...}``) with its ``key`` and ``params``
        (the item itself is never changed: it may be a state's)."""
        out = dict(item)
        text = item.get("item")
        found = self.parse(text) if isinstance(text, str) else None
        if found is not None:
            out["key"], out["params"] = found
        return out


@cache
def item_templates(game_id: str) -> ItemTemplates:
    """The score items a game declares (``engine/games/<game_id>/items.py``, ``ITEMS``)."""
    module = importlib.import_module(f"engine.games.{game_id}.items")
    templates: ItemTemplates = module.ITEMS
    return templates


def keyed_items(game_id: str, items: Iterable[Mapping[str, Any]]) -> list[JSON]:
    templates = item_templates(game_id)
    return [templates.keyed(item) for item in items]


def keyed_report(game_id: str, report: JSON) -> JSON:
    """A score report's JSON with a key and params on each item: the deal's ``items``, the
    shown award's (``last_deal``, Baloot) and each seat's maal items (Marriage)."""
    out = dict(report)
    out["items"] = keyed_items(game_id, report.get("items") or [])
    last = report.get("last_deal")
    if isinstance(last, dict) and isinstance(last.get("items"), list):
        out["last_deal"] = {**last, "items": keyed_items(game_id, last["items"])}
    maal = report.get("maal_items")
    if isinstance(maal, list):
        out["maal_items"] = [keyed_items(game_id, seat_items) for seat_items in maal]
    return out


def keyed_events(game_id: str, events: Iterable[Mapping[str, Any]]) -> list[JSON]:
    """Events with a key and params on each item they carry: a ``points`` event's own
    ``item``, or its ``items`` (Baloot's award)."""
    templates = item_templates(game_id)
    out: list[JSON] = []
    for event in events:
        if event.get("type") != "points":
            out.append(dict(event))
        elif "item" in event:
            out.append(templates.keyed(event))
        elif isinstance(event.get("items"), list):
            out.append({**event, "items": [templates.keyed(item) for item in event["items"]]})
        else:
            out.append(dict(event))
    return out
