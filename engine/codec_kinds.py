"""The kinds games share: what a JSON value is, and what it becomes inside the engine.

A kind compiles, once, a ``decode(raw, path, rules)`` closure (the internal value, or
``InvalidState`` naming ``path``) and an ``encode(value)`` closure, and describes itself
as JSON Schema. engine/codec.py builds documents from them (and exports every name
here: a game's codec reads them all from ``engine.codec``); a kind only one game uses
is declared beside it, in ``engine/games/<game>/codec_kinds.py``.

>>> pack = Pack("Ronda", (0, 1, 2, 3))
>>> decode = CardMask(pack).decoder()
>>> decode(["AS", "AD"], "hands[0]", None)
5
>>> decode(["AS", "AS"], "hands[0]", None)
Traceback (most recent call last):
engine.protocol.InvalidState: hands[0]: card AS appears twice
>>> CardMask(pack).encoder()(5)
['AS', 'AD']
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.cards import CODES, parse_card
from engine.checks import MAX_SAFE_INT, rng_state_from_json, rng_state_to_json
from engine.codec_cache import mask_coder
from engine.protocol import JSON, InvalidState

Decode = Callable[[Any, str, Any], Any]
"""``decode(raw, path, rules)``: the internal value of a JSON value, or InvalidState naming ``path``."""
Encode = Callable[[Any], Any]
"""``encode(value)``: the JSON value of an internal value."""


def refuse(path: str, problem: str) -> InvalidState:
    """The one wording of a refusal: ``"<path>: <problem>"``, field ``path``."""
    return InvalidState(f"{path}: {problem}", field=path)


# --------------------------------------------------------------------------- kinds


class Kind:
    """A kind of JSON value. Subclasses compile ``decoder`` and ``encoder`` closures and
    describe themselves as JSON Schema. ``normalises``: reading may accept more than one
    spelling of the same value (so a full state is compared with its re-encoding)."""

    normalises = False

    def decoder(self, hidden: bool = False) -> Decode:
        raise NotImplementedError

    def encoder(self, view: bool = False) -> Encode:
        return identity

    def count(self, value: Any) -> int:
        """How many cards ``value`` holds (what a view shows instead of hidden cards)."""
        raise TypeError(f"{type(self).__name__} has no count")

    def canonical(self) -> Callable[[Any, Any], bool]:
        """``same(value, raw)``: ``raw`` is exactly how the engine writes ``value``."""
        encode = self.encoder()
        return lambda value, raw: encode(value) == raw

    def schema(self, view: bool = False) -> JSON:
        raise NotImplementedError


def identity(value: Any) -> Any:
    """The encoder of a kind whose inside value is its JSON value (writers skip the call)."""
    return value


def bound(value: int | Callable[[Any], int], rules: Any) -> int:
    """A bound given as a number or as a function of the rules."""
    return value(rules) if callable(value) else value


@dataclass(frozen=True)
class Int(Kind):
    """A whole number (never a bool) from ``lo`` to ``hi`` (``hi`` may depend on the rules)."""

    lo: int = 0
    hi: int | Callable[[Any], int] = MAX_SAFE_INT

    def decoder(self, hidden: bool = False) -> Decode:
        lo, hi = self.lo, self.hi
        if callable(hi):
            high = hi

            def decode_rule_bound(raw: Any, path: str, rules: Any) -> int:
                top = high(rules)
                if type(raw) is int and lo <= raw <= top:
                    return raw
                raise refuse(path, f"must be a whole number from {lo} to {top}")

            return decode_rule_bound

        def decode(raw: Any, path: str, rules: Any) -> int:
            if type(raw) is int and lo <= raw <= hi:
                return raw
            raise refuse(path, f"must be a whole number from {lo} to {hi}")

        return decode

    def schema(self, view: bool = False) -> JSON:
        out: JSON = {"type": "integer", "minimum": self.lo}
        if not callable(self.hi):
            out["maximum"] = self.hi
        return out


@dataclass(frozen=True)
class AtTable(Int):
    """A number the table bounds, checked against the rules, documented as 0 .. 7."""

    def schema(self, view: bool = False) -> JSON:
        return {"type": "integer", "minimum": 0, "maximum": 7}


@dataclass(frozen=True)
class Seat(AtTable):
    """A seat of the table: 0 .. players - 1."""

    hi: int | Callable[[Any], int] = field(default=lambda rules: rules.players - 1)


@dataclass(frozen=True)
class Side(AtTable):
    """A side (team, or a seat where every seat plays alone): 0 .. sides - 1."""

    hi: int | Callable[[Any], int] = field(default=lambda rules: rules.sides - 1)


@dataclass(frozen=True)
class Plain(Kind):
    """A JSON value of one type, inside as it is: :func:`Bool` and :func:`Text`."""

    type: type
    problem: str
    json_type: str

    def decoder(self, hidden: bool = False) -> Decode:
        of_type, problem = self.type, self.problem

        def decode(raw: Any, path: str, rules: Any) -> Any:
            if type(raw) is of_type:
                return raw
            raise refuse(path, problem)

        return decode

    def schema(self, view: bool = False) -> JSON:
        return {"type": self.json_type}


def Bool() -> Plain:  # noqa: N802 - a kind constructor, named like the classes
    """``true`` or ``false``."""
    return Plain(bool, "must be true or false", "boolean")


def Text() -> Plain:  # noqa: N802
    """A string (a score item's words, a rule id)."""
    return Plain(str, "must be a string", "string")


@dataclass(frozen=True)
class Choice(Kind):
    """One of ``names`` (strings); inside, the value at the same index of ``values``
    (by default the index itself: phase names -> phase numbers)."""

    names: tuple[str, ...]
    values: tuple[Any, ...] | None = None

    def _values(self) -> tuple[Any, ...]:
        return self.values if self.values is not None else tuple(range(len(self.names)))

    def decoder(self, hidden: bool = False) -> Decode:
        of_name = dict(zip(self.names, self._values(), strict=True))
        allowed = ", ".join(self.names)

        def decode(raw: Any, path: str, rules: Any) -> Any:
            if type(raw) is str:
                value = of_name.get(raw, of_name)
                if value is not of_name:
                    return value
            raise refuse(path, f"must be one of {allowed}")

        return decode

    def encoder(self, view: bool = False) -> Encode:
        return dict(zip(self._values(), self.names, strict=True)).__getitem__

    def schema(self, view: bool = False) -> JSON:
        return {"enum": list(self.names)}


@dataclass(frozen=True)
class Pack:
    """A game's pack: its name (for messages) and its distinct cards in canonical order.
    ``codes``: the code of each card number, where a game numbers its cards its own way
    (e.g. suit by suit, so that ascending numbers are its canonical order); by default
    ``engine.cards``' numbering, whose every spelling ``parse_card`` reads."""

    name: str
    cards: tuple[int, ...]
    codes: tuple[str, ...] = CODES

    def card_of_code(self) -> dict[str, int]:
        return {self.codes[c]: c for c in self.cards}

    def mask_codes(self) -> Callable[[int], list[str]]:
        """``mask_codes`` for this pack's numbering (see :func:`mask_coder`)."""
        return mask_coder(self.codes)[0]

    def read(self, raw: Any, path: str) -> int:
        """The card of a code that is in this pack."""
        if self.codes is not CODES:
            card = self.card_of_code().get(raw, -1) if type(raw) is str else -1
        else:
            try:
                card = parse_card(raw)
            except ValueError:
                card = -1
        if card not in self.cards:
            shown = raw if isinstance(raw, str) else json.dumps(raw, default=str)
            raise refuse(path, f"no such card in the {self.name} pack: {shown}")
        return card

    def schema(self) -> JSON:
        return {"enum": [self.codes[c] for c in self.cards]}


@dataclass(frozen=True)
class Card(Kind):
    """A card code of the pack (``"TH"``); inside, the card int."""

    pack: Pack

    def decoder(self, hidden: bool = False) -> Decode:
        get = self.pack.card_of_code().get
        read = self.pack.read

        def decode(raw: Any, path: str, rules: Any) -> int:
            card = get(raw) if type(raw) is str else None
            return read(raw, path) if card is None else card

        return decode

    def encoder(self, view: bool = False) -> Encode:
        return self.pack.codes.__getitem__

    def schema(self, view: bool = False) -> JSON:
        return self.pack.schema()


def _card_list_decoder(pack: Pack, what: str) -> Callable[[Any, str], list[int]]:
    get = pack.card_of_code().get
    read = pack.read

    def decode(raw: Any, path: str) -> list[int]:
        if type(raw) is list:
            try:
                cards = [get(c) for c in raw]
            except TypeError:  # an unhashable entry: the checked path below names it
                cards = [None]
            if None not in cards:
                return cards  # type: ignore[return-value]
            return [read(c, f"{path}[{i}]") for i, c in enumerate(raw)]
        raise refuse(path, f"must be {what}")

    return decode


@dataclass(frozen=True)
class Cards(Kind):
    """A list of card codes in a meaningful order (a stock top first, a table as laid);
    inside, a list of card ints. ``length``: exactly that many. ``unique``: no card twice."""

    pack: Pack
    length: int | None = None
    unique: bool = True

    def decoder(self, hidden: bool = False) -> Decode:
        what = "a list of card codes" if self.length is None else f"a list of {self.length} card codes"
        read = _card_list_decoder(self.pack, what)
        length, unique, codes = self.length, self.unique, self.pack.codes

        def decode(raw: Any, path: str, rules: Any) -> list[int]:
            cards = read(raw, path)
            if length is not None and len(cards) != length:
                raise refuse(path, f"must be {what}")
            if unique and len(set(cards)) != len(cards):
                seen: set[int] = set()
                for c in cards:
                    if c in seen:
                        raise refuse(path, f"card {codes[c]} appears twice")
                    seen.add(c)
            return cards

        return decode

    def encoder(self, view: bool = False) -> Encode:
        codes = self.pack.codes

        def encode(cards: Iterable[int]) -> list[str]:
            return [codes[c] for c in cards]

        return encode

    def count(self, value: Any) -> int:
        return len(value)

    def schema(self, view: bool = False) -> JSON:
        out: JSON = {"type": "array", "items": self.pack.schema()}
        if self.length is not None:
            out["minItems"] = out["maxItems"] = self.length
        return out


def distinct_mask(numbers: Iterable[int], path: str, twice: Callable[[int], str]) -> int:
    """The bit mask of ``numbers`` (``1 << n`` each); one given twice is refused at ``path``
    with ``twice(n)``."""
    mask = 0
    for n in numbers:
        bit = 1 << n
        if mask & bit:
            raise refuse(path, twice(n))
        mask |= bit
    return mask


@dataclass(frozen=True)
class CardMask(Kind):
    """A set of distinct cards, written as codes in canonical (ascending card) order;
    inside, an int bit mask (``1 << card``). A full state must list them in that order."""

    pack: Pack
    normalises = True

    def decoder(self, hidden: bool = False) -> Decode:
        read = _card_list_decoder(self.pack, "a list of card codes")
        codes = self.pack.codes

        def twice(card: int) -> str:
            return f"card {codes[card]} appears twice"

        return lambda raw, path, rules: distinct_mask(read(raw, path), path, twice)

    def encoder(self, view: bool = False) -> Encode:
        return mask_coder(self.pack.codes)[0]

    def canonical(self) -> Callable[[Any, Any], bool]:
        encode, memo = mask_coder(self.pack.codes)

        def same(mask: int, raw: Any) -> bool:
            codes = memo.get(mask)
            return (codes if codes is not None else encode(mask)) == raw

        return same

    def count(self, value: Any) -> int:
        return int(value).bit_count()

    def schema(self, view: bool = False) -> JSON:
        return {"type": "array", "items": self.pack.schema(), "uniqueItems": True}


@dataclass(frozen=True)
class Nullable(Kind):
    """``null`` or a value of ``kind``; inside, ``none`` stands for null (e.g. -1 for "no seat")."""

    kind: Kind
    none: Any = None

    @property
    def normalises(self) -> bool:  # type: ignore[override]
        return self.kind.normalises

    def decoder(self, hidden: bool = False) -> Decode:
        inner = self.kind.decoder(hidden)
        none = self.none

        def decode(raw: Any, path: str, rules: Any) -> Any:
            return none if raw is None else inner(raw, path, rules)

        return decode

    def encoder(self, view: bool = False) -> Encode:
        inner = self.kind.encoder(view)
        none = self.none

        def encode(value: Any) -> Any:
            return None if value is none or (none is not None and value == none) else inner(value)

        return encode

    def schema(self, view: bool = False) -> JSON:
        return {"anyOf": [self.kind.schema(view), {"type": "null"}]}


@dataclass(frozen=True)
class ListOf(Kind):
    """A list of values of ``kind`` (``length``: exactly that many, may depend on the rules);
    inside, a list."""

    kind: Kind
    length: int | Callable[[Any], int] | None = None

    @property
    def normalises(self) -> bool:  # type: ignore[override]
        return self.kind.normalises

    def decoder(self, hidden: bool = False) -> Decode:
        inner = self.kind.decoder(hidden)
        length = self.length

        def decode(raw: Any, path: str, rules: Any) -> list[Any]:
            size = None if length is None else bound(length, rules)
            if type(raw) is not list or size is not None and len(raw) != size:
                raise refuse(path, "must be a list" if size is None else f"must be a list of {size} entries")
            try:  # paths are written only for a refusal: read again to name the entry
                return [inner(entry, path, rules) for entry in raw]
            except InvalidState:
                return [inner(entry, f"{path}[{i}]", rules) for i, entry in enumerate(raw)]

        return decode

    def encoder(self, view: bool = False) -> Encode:
        inner = self.kind.encoder(view)
        if inner is identity:
            return list
        return lambda values: [inner(v) for v in values]

    def canonical(self) -> Callable[[Any, Any], bool]:
        same = self.kind.canonical()
        return lambda values, raw: all(map(same, values, raw))

    def schema(self, view: bool = False) -> JSON:
        return {"type": "array", "items": self.kind.schema(view)}


def PerSeat(kind: Kind) -> ListOf:  # noqa: N802 - a kind constructor, named like the classes
    """One value of ``kind`` per seat, indexed by seat."""
    return ListOf(kind, lambda rules: rules.players)


def PerSide(kind: Kind) -> ListOf:  # noqa: N802
    """One value of ``kind`` per side, indexed by side."""
    return ListOf(kind, lambda rules: rules.sides)


class Obj(Kind):
    """A small object with exactly these keys, e.g. ``Obj(side=Side(), points=Int(1))``;
    inside, a tuple of the values in this order."""

    def __init__(self, **fields: Kind) -> None:
        self.fields = tuple(fields.items())

    def __repr__(self) -> str:
        return f"Obj({', '.join(name for name, _ in self.fields)})"

    @property
    def normalises(self) -> bool:  # type: ignore[override]
        return any(kind.normalises for _, kind in self.fields)

    def decoder(self, hidden: bool = False) -> Decode:
        parts = [(name, kind.decoder(hidden)) for name, kind in self.fields]
        keys = {name for name, _ in self.fields}
        listed = "{" + ", ".join(name for name, _ in self.fields) + "}"

        def decode(raw: Any, path: str, rules: Any) -> tuple[Any, ...]:
            if type(raw) is not dict or raw.keys() != keys:
                raise refuse(path, f"must be an object {listed}")
            try:  # as in ListOf: the path is written only for a refusal
                return tuple([dec(raw[name], path, rules) for name, dec in parts])
            except InvalidState:
                return tuple([dec(raw[name], f"{path}.{name}", rules) for name, dec in parts])

        return decode

    def encoder(self, view: bool = False) -> Encode:
        parts = [(name, kind.encoder(view)) for name, kind in self.fields]
        if all(enc is identity for _, enc in parts):
            names = [name for name, _ in parts]
            return lambda value: dict(zip(names, value, strict=True))

        def encode(value: Sequence[Any]) -> JSON:
            return {name: enc(v) for (name, enc), v in zip(parts, value, strict=True)}

        return encode

    def schema(self, view: bool = False) -> JSON:
        return {
            "type": "object",
            "properties": {name: kind.schema(view) for name, kind in self.fields},
            "required": [name for name, _ in self.fields],
            "additionalProperties": False,
        }


@dataclass(frozen=True)
class RngState(Kind):
    """The generator state of an engine-dealt match: a decimal string, or null for a
    caller-dealt match (engine/checks.py); inside, an int or None."""

    def decoder(self, hidden: bool = False) -> Decode:
        def decode(raw: Any, path: str, rules: Any) -> int | None:
            return None if raw is None else rng_state_from_json(raw, path)

        return decode

    def encoder(self, view: bool = False) -> Encode:
        return rng_state_to_json

    def schema(self, view: bool = False) -> JSON:
        return {
            "anyOf": [
                {"type": "string", "pattern": "^(0|[1-9][0-9]{0,18})$"},
                {"type": "integer", "minimum": 0, "maximum": MAX_SAFE_INT},
                {"type": "null"},
            ]
        }
