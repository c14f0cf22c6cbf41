"""The JSON kinds only Porrazo's codec uses (the shared ones are engine/codec_kinds.py's)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.codec import Decode, Encode, Kind, refuse
from engine.protocol import JSON

_SEAT_KEYS = {str(seat): seat for seat in range(16)}


@dataclass(frozen=True)
class SeatMap(Kind):
    """An object from seats, as decimal keys (``{"0": 3}``), to values of ``kind``, written
    in ascending seat order; inside, a per-seat list with ``none`` for each seat the object
    leaves out (e.g. who claimed each seat's combination)."""

    kind: Kind
    none: Any = None

    def decoder(self, hidden: bool = False) -> Decode:
        inner = self.kind.decoder(hidden)
        none = self.none

        def decode(raw: Any, path: str, rules: Any) -> list[Any]:
            if type(raw) is not dict:
                raise refuse(path, "must be an object from seats to values")
            players = rules.players
            out = [none] * players
            for key, value in raw.items():
                seat = _SEAT_KEYS.get(key, players) if type(key) is str else players
                if seat >= players:
                    raise refuse(path, f"{key!r} is not a seat")
                out[seat] = inner(value, f"{path}.{key}", rules)
            return out

        return decode

    def encoder(self, view: bool = False) -> Encode:
        inner = self.kind.encoder(view)
        none = self.none

        def encode(values: Sequence[Any]) -> JSON:
            return {str(seat): inner(v) for seat, v in enumerate(values) if v != none}

        return encode

    def schema(self, view: bool = False) -> JSON:
        return {
            "type": "object",
            "propertyNames": {"pattern": "^[0-7]$"},
            "additionalProperties": self.kind.schema(view),
        }
