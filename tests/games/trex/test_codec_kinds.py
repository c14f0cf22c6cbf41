"""Trex's own codec kinds (engine/games/trex/codec_kinds.py): card-keyed objects and the
number a history entry may carry (``CardMap``, ``Numbered``), on a small pack and verb
table of their own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from engine.codec import History, Int, Pack, Seat, Verb, Verbs
from engine.games.trex.codec_kinds import CardMap, Numbered
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
TRICKS = History(VERBS, Numbered("trick", 3, numbered=lambda action: action != "pass", what="a bid"))


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


def test_a_numbered_entry_is_checked_when_its_action_was_read_before():
    decode = TRICKS.decoder()
    assert decode([{"seat": 1, "action": {"type": "pass"}}], "x", RULES) == [(1, "pass", 0)]  # now memoised
    wrong = refusal(
        decode, [{"seat": 1, "action": {"type": "pass"}}, {"seat": 0, "action": {"type": "pass"}, "trick": 1}]
    )
    assert (wrong.field, wrong.message) == ("x[1]", "x[1]: only a bid has a trick number")
    assert refusal(decode, [{"seat": 0, "action": {"type": "pass"}, "trick": True}]).field == "x[0].trick"
