"""The shared codec's card-keyed objects, numbered history entries and histories written
with their earlier parts cached (engine/codec.py: ``CardMap``, ``NumberedHistory``,
``CachedHistory``), on a small pack and verb table of their own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from engine.codec import CachedHistory, CardMap, Int, NumberedHistory, Pack, Seat, Verb, Verbs
from engine.protocol import InvalidState


@dataclass(frozen=True)
class Rules:
    players: int = 4
    sides: int = 2


RULES = Rules()
PACK = Pack("Tiny", (0, 1, 2), ("AS", "2S", "3S"))
VERBS = Verbs(
    [
        Verb("pass", make=lambda: "pass"),
        Verb("bid", {"points": Int(1, 9)}, make=lambda points: points, split=lambda action: (action,)),
    ],
    verb_of=lambda action: "pass" if action == "pass" else "bid",
)
TRICKS = NumberedHistory(VERBS, "trick", 3, numbered=lambda action: action != "pass", what="a bid")


def refusal(decode: Any, raw: Any) -> InvalidState:
    with pytest.raises(InvalidState) as caught:
        decode(raw, "x", RULES)
    return caught.value


def test_a_card_map_keeps_the_order_given_both_ways():
    doubled = CardMap(PACK, Seat(), "seat")
    pairs = doubled.decoder()({"3S": 2, "AS": 0}, "doubled", RULES)
    assert pairs == ((2, 2), (0, 0))
    assert list(doubled.encoder()(pairs).items()) == [("3S", 2), ("AS", 0)]
    assert doubled.schema()["propertyNames"] == {"enum": ["AS", "2S", "3S"]}


def test_a_card_map_names_the_bad_card_or_value():
    decode = CardMap(PACK, Seat(), "seat").decoder()
    assert refusal(decode, ["AS"]).message == "x: must be an object card -> seat"
    assert refusal(decode, {"KH": 1}).field == "x"
    assert refusal(decode, {"2S": 4}).field == "x.2S"


def test_numbered_entries_carry_their_number_only_when_it_is_not_zero():
    raw = [
        {"seat": 0, "action": {"type": "bid", "points": 3}, "trick": 2},
        {"seat": 1, "action": {"type": "pass"}},
    ]
    entries = TRICKS.decoder()(raw, "played", RULES)
    assert entries == [(0, 3, 2), (1, "pass", 0)]
    assert TRICKS.encoder()(entries) == raw
    assert TRICKS.schema()["items"]["properties"]["trick"] == {"type": "integer", "minimum": 1, "maximum": 3}


def test_numbered_entries_refuse_a_number_out_of_range_or_on_the_wrong_action():
    decode = TRICKS.decoder()
    late = [{"seat": 0, "action": {"type": "bid", "points": 3}, "trick": 4}]
    assert refusal(decode, late).field == "x[0].trick"
    wrong = refusal(decode, [{"seat": 0, "action": {"type": "pass"}, "trick": 1}])
    assert (wrong.field, wrong.message) == ("x[0]", "x[0]: only a bid has a trick number")
    assert refusal(decode, [{"seat": 0, "action": {"type": "pass"}, "turn": 1}]).field == "x[0]"


class Match:
    def __init__(self) -> None:
        self.earlier = [(0, 5), (1, "pass")]
        self.current = [(2, 7)]
        self.history_json: list[Any] | None = None


def test_a_cached_history_writes_the_earlier_parts_once():
    history = CachedHistory(VERBS, earlier=lambda m: m.earlier, current=lambda m: m.current)
    match, write = Match(), history.encoder()
    first = write(match)
    assert [e["seat"] for e in first] == [0, 1, 2]
    match.earlier = []  # a cached part is not written again
    assert write(match) == first
    match.history_json = None
    assert [e["seat"] for e in write(match)] == [2]


def test_a_cached_history_shows_a_view_the_current_part_and_reads_like_a_history():
    history = CachedHistory(VERBS, earlier=lambda m: m.earlier, current=lambda m: m.current)
    assert history.encoder(view=True)(Match()) == [{"seat": 2, "action": {"type": "bid", "points": 7}}]
    assert history.decoder()([{"seat": 1, "action": {"type": "pass"}}], "history", RULES) == [(1, "pass")]
