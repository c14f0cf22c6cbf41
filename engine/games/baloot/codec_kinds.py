"""The JSON kinds only Baloot's codec uses (the shared ones are engine/codec_kinds.py's): a
layout's partial objects, refusals that name the whole field, and the history's private
project pass."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine.codec import Decode, Encode, EntryMark, Kind, refuse
from engine.protocol import JSON, Action, InvalidState


class Partial(Kind):
    """An object that may leave out any of these keys (e.g. a layout's ``contract`` giving
    only ``kind`` and ``bidder``); inside, a dict of the keys it gives: the game's
    ``layout.fill_left_out`` works out the others (or refuses one that a full state leaves
    out). Written with every
    key, from a dict that has them all."""

    def __init__(self, **fields: Kind) -> None:
        self.fields = fields

    def decoder(self, hidden: bool = False) -> Decode:
        parts = {name: kind.decoder(hidden) for name, kind in self.fields.items()}

        def decode(raw: Any, path: str, rules: Any) -> dict[str, Any]:
            if type(raw) is not dict:
                raise refuse(path, "must be an object")
            for key in raw:
                if key not in parts:
                    raise refuse(f"{path}.{key}", "unknown field")
            return {key: parts[key](value, f"{path}.{key}", rules) for key, value in raw.items()}

        return decode

    def encoder(self, view: bool = False) -> Encode:
        parts = [(name, kind.encoder(view)) for name, kind in self.fields.items()]
        return lambda values: {name: enc(values[name]) for name, enc in parts}

    def schema(self, view: bool = False) -> JSON:
        props = {name: kind.schema(view) for name, kind in self.fields.items()}
        return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


class Whole(Kind):
    """``kind``, with every refusal inside it naming the whole value (``scores``, not
    ``scores[0]``): for a game whose errors have always named the field, not the entry."""

    def __init__(self, kind: Kind) -> None:
        self.kind = kind
        self.normalises = kind.normalises

    def decoder(self, hidden: bool = False) -> Decode:
        inner = self.kind.decoder(hidden)

        def decode(raw: Any, path: str, rules: Any) -> Any:
            try:
                return inner(raw, path, rules)
            except InvalidState as err:
                raise InvalidState(err.message, field=path) from None

        return decode

    def encoder(self, view: bool = False) -> Encode:
        return self.kind.encoder(view)

    def count(self, value: Any) -> int:
        return self.kind.count(value)

    def canonical(self) -> Callable[[Any, Any], bool]:
        return self.kind.canonical()

    def schema(self, view: bool = False) -> JSON:
        return self.kind.schema(view)


class Flag(EntryMark):
    """A history entry's ``"<key>": true`` that makes its action a different internal one
    (``flagged``: plain action -> flagged action; R20's private project pass). ``false``
    may be spelt out; the engine leaves the key out."""

    normalises = True

    def __init__(self, verb_of: Callable[[Action], str], key: str, flagged: Mapping[Action, Action]) -> None:
        self.key = key
        self.flagged = dict(flagged)
        self.plain = {marked: plain for plain, marked in self.flagged.items()}
        self.verbs = " or ".join(sorted({verb_of(a) for a in self.flagged}))
        self.note = f" (and {key}: true for a {key} {self.verbs})"

    def read(self, value: Any, seat: int, action: Action, where: str, rules: Any) -> tuple[int, Action]:
        if type(value) is not bool:
            raise refuse(where, f"{self.key} must be true or false")
        if not value:
            return seat, action
        if action not in self.flagged:
            raise refuse(where, f"only a {self.verbs} can be a {self.key} {self.verbs}")
        return seat, self.flagged[action]

    def write(self, entry: tuple[int, Action]) -> tuple[int, Action, Any]:
        seat, action = entry
        plain = self.plain.get(action)
        return (seat, action, None) if plain is None else (seat, plain, True)

    def schema(self) -> JSON:
        return {"const": True}
