"""The JSON kinds only Trex's codec uses (the shared ones are engine/codec_kinds.py's): the
doubled cards, keyed by card code, and the trick a played card went to."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.codec import Card, Decode, Encode, EntryMark, Int, Kind, Pack, refuse
from engine.protocol import JSON, Action


@dataclass(frozen=True)
class CardMap(Kind):
    """An object from card codes to values of ``kind`` (``{"KH": 2}``: who doubled each
    card), kept in the order given; inside, a tuple of ``(card, value)`` pairs in that
    order. ``values`` names what the cards map to, for a refusal."""

    pack: Pack
    kind: Kind
    values: str = "value"

    def decoder(self, hidden: bool = False) -> Decode:
        card, inner = Card(self.pack).decoder(), self.kind.decoder(hidden)
        shape = f"must be an object card -> {self.values}"

        def decode(raw: Any, path: str, rules: Any) -> tuple[tuple[int, Any], ...]:
            if type(raw) is not dict:
                raise refuse(path, shape)
            return tuple(
                (card(code, path, rules), inner(v, f"{path}.{code}", rules)) for code, v in raw.items()
            )

        return decode

    def encoder(self, view: bool = False) -> Encode:
        codes, inner = self.pack.codes, self.kind.encoder(view)
        return lambda pairs: {codes[card]: inner(v) for card, v in pairs}

    def schema(self, view: bool = False) -> JSON:
        return {
            "type": "object",
            "propertyNames": self.pack.schema(),
            "additionalProperties": self.kind.schema(view),
        }


class Numbered(EntryMark):
    """A history entry's number under ``key``, from 1 to ``top`` (``"trick": 3``: the trick
    a card went to), left out for 0; only an action that is ``numbered(action)`` may have
    one (``what`` names those actions in the refusal). Inside, ``(seat, action, number)``."""

    def __init__(self, key: str, top: int, numbered: Callable[[Action], bool], what: str) -> None:
        self.key, self.top, self.numbered = key, top, numbered
        self.number = Int(0, top).decoder()
        self.only = f"only {what} has a {key} number"

    def unmarked(self, seat: int, action: Action) -> tuple[int, Action, int]:
        return seat, action, 0

    def read(self, value: Any, seat: int, action: Action, where: str, rules: Any) -> tuple[int, Action, int]:
        n = self.number(value, f"{where}.{self.key}", rules)
        if n and not self.numbered(action):
            raise refuse(where, self.only)
        return seat, action, n

    def write(self, entry: tuple[int, Action, int]) -> tuple[int, Action, Any]:
        seat, action, n = entry
        return seat, action, n or None

    def schema(self) -> JSON:
        return {"type": "integer", "minimum": 1, "maximum": self.top}
