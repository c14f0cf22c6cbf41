"""The JSON kinds only Marriage's codec uses (the shared ones are engine/codec_kinds.py's):
a cap on a client's list, the multiset of cards of packs shuffled together, and a value
that exists only under some options (the men)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.codec import Decode, Encode, Kind, refuse
from engine.protocol import JSON


@dataclass(frozen=True)
class AtMost(Kind):
    """What ``kind`` reads, from a list of at most ``most`` entries: a cap on what a client
    may send, refused before any entry is read."""

    kind: Kind
    most: int

    def decoder(self, hidden: bool = False) -> Decode:
        read, most = self.kind.decoder(hidden), self.most

        def decode(raw: Any, path: str, rules: Any) -> Any:
            if type(raw) is list and len(raw) > most:
                raise refuse(path, f"must be a list of at most {most} entries")
            return read(raw, path, rules)

        return decode

    def encoder(self, view: bool = False) -> Encode:
        return self.kind.encoder(view)

    def count(self, value: Any) -> int:
        return self.kind.count(value)

    def schema(self, view: bool = False) -> JSON:
        return {**self.kind.schema(view), "maxItems": self.most}


@dataclass(frozen=True)
class CardCounts(Kind):
    """A multiset of cards (packs shuffled together): a list that ``cards`` reads, written
    in canonical order; inside, how many of each card number below ``size``. Reading takes
    any order; a game that insists on the canonical writing compares the whole document."""

    cards: Kind
    size: int

    def decoder(self, hidden: bool = False) -> Decode:
        read, size = self.cards.decoder(hidden), self.size

        def decode(raw: Any, path: str, rules: Any) -> list[int]:
            counts = [0] * size
            for card in read(raw, path, rules):
                counts[card] += 1
            return counts

        return decode

    def encoder(self, view: bool = False) -> Encode:
        numbers = range(self.size)
        codes = self.cards.encoder(view)(list(numbers))  # a card list writes card by card
        return lambda counts: [codes[c] for c in numbers for _ in range(counts[c])]

    def count(self, value: Any) -> int:
        return sum(value)

    def schema(self, view: bool = False) -> JSON:
        return self.cards.schema(view)


@dataclass(frozen=True)
class Widened(Kind):
    """A value of ``narrow``, or of the wider ``wide`` under the rules where ``when(rules)``
    (e.g. a card that exists only under an option); written and documented as ``wide``."""

    narrow: Kind
    wide: Kind
    when: Callable[[Any], bool]

    def decoder(self, hidden: bool = False) -> Decode:
        narrow, wide, when = self.narrow.decoder(hidden), self.wide.decoder(hidden), self.when
        return lambda raw, path, rules: (wide if when(rules) else narrow)(raw, path, rules)

    def encoder(self, view: bool = False) -> Encode:
        return self.wide.encoder(view)

    def count(self, value: Any) -> int:
        return self.wide.count(value)

    def schema(self, view: bool = False) -> JSON:
        return self.wide.schema(view)
