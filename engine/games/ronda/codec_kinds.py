"""The JSON kinds only Ronda's codec uses (the shared ones are engine/codec_kinds.py's)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.codec import Decode, Encode, Kind, Seat, distinct_mask, refuse
from engine.protocol import JSON


@dataclass(frozen=True)
class SeatSet(Kind):
    """A set of seats, written ascending; inside, an int bit mask (``1 << seat``)."""

    normalises = True

    def decoder(self, hidden: bool = False) -> Decode:
        seat = Seat().decoder()

        def decode(raw: Any, path: str, rules: Any) -> int:
            if type(raw) is not list:
                raise refuse(path, "must be a list of seats")
            seats = (seat(entry, f"{path}[{i}]", rules) for i, entry in enumerate(raw))
            return distinct_mask(seats, path, lambda s: f"seat {s} listed twice")

        return decode

    def encoder(self, view: bool = False) -> Encode:
        def encode(mask: int) -> list[int]:
            return [seat for seat in range(mask.bit_length()) if mask >> seat & 1]

        return encode

    def schema(self, view: bool = False) -> JSON:
        return {"type": "array", "items": Seat().schema(), "uniqueItems": True}
