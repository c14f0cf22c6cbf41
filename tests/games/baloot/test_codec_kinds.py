"""Baloot's own codec kinds (engine/games/baloot/codec_kinds.py): partial objects,
whole-field refusals and the flag a history entry may carry (``Partial``, ``Whole``,
``Flag``), on a small verb table of their own."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from engine.codec import Bool, History, Int, ListOf, PerSide, Seat, Verb, Verbs
from engine.games.baloot.codec_kinds import Flag, Partial, Whole
from engine.protocol import InvalidState


@dataclass(frozen=True)
class Rules:
    players: int = 4
    sides: int = 2


RULES = Rules()
VERBS = Verbs(
    [
        Verb("pass", make=lambda: "pass"),
        Verb("bid", {"points": Int(1, 9)}, make=lambda points: points, split=lambda action: (action,)),
    ],
    verb_of=lambda action: "pass" if action in ("pass", "private pass") else "bid",
)
HISTORY = History(VERBS, Flag(VERBS.verb_of, "private", {"pass": "private pass"}))


def refusal(decode, raw) -> InvalidState:
    with pytest.raises(InvalidState) as caught:
        decode(raw, "x", RULES)
    return caught.value


def test_a_partial_object_reads_only_the_keys_it_gives():
    contract = Partial(bidder=Seat(), doubled=Bool())
    assert contract.decoder()({"bidder": 2}, "contract", RULES) == {"bidder": 2}
    assert contract.encoder()({"bidder": 2, "doubled": False}) == {"bidder": 2, "doubled": False}
    assert contract.schema()["required"] == ["bidder", "doubled"]


def test_a_partial_object_names_an_unknown_or_bad_key():
    decode = Partial(bidder=Seat()).decoder()
    assert refusal(decode, {"bidder": 7}).field == "x.bidder"
    assert refusal(decode, {"bid": 1}).field == "x.bid"
    assert refusal(decode, [1]).field == "x"


def test_whole_names_the_field_not_the_entry():
    assert refusal(PerSide(Int(0, 9)).decoder(), [1, 10]).field == "x[1]"
    error = refusal(Whole(PerSide(Int(0, 9))).decoder(), [1, 10])
    assert error.field == "x" and error.message == "x[1]: must be a whole number from 0 to 9"
    assert Whole(PerSide(Int(0, 9))).decoder()([1, 9], "x", RULES) == [1, 9]


def test_whole_writes_counts_and_compares_like_its_kind():
    cards = Whole(ListOf(Int()))
    assert cards.encoder()([3, 4]) == [3, 4]
    assert cards.canonical()([3, 4], [3, 4]) and not cards.canonical()([3, 4], [4, 3])
    assert cards.schema() == ListOf(Int()).schema()


def test_a_flag_makes_an_entry_the_flagged_action_and_back():
    raw = [{"seat": 1, "action": {"type": "pass"}, "private": True}, {"seat": 2, "action": {"type": "pass"}}]
    entries = HISTORY.decoder()(raw, "history", RULES)
    assert entries == [(1, "private pass"), (2, "pass")]
    assert HISTORY.encoder()(entries) == raw
    spelt_out = [{"seat": 2, "action": {"type": "pass"}, "private": False}]
    assert HISTORY.decoder()(spelt_out, "history", RULES) == [(2, "pass")]


@pytest.mark.parametrize(
    ("entry", "field", "message"),
    [
        ({"seat": 1}, "x[0]", "must be an object {seat, action} (and private: true for a private pass)"),
        ({"seat": 4, "action": {"type": "pass"}}, "x[0].seat", "must be a whole number from 0 to 3"),
        ({"seat": 1, "action": {"type": "pass"}, "private": 1}, "x[0]", "private must be true or false"),
        ({"seat": 1, "action": {"type": "bid", "points": 3}, "private": True}, "x[0]", "only a pass can be"),
        ({"seat": 1, "action": {"type": "bid"}}, "x[0].action", "malformed action: bid needs a 'points'"),
    ],
)
def test_a_flagged_history_names_the_bad_entry(entry, field, message):
    error = refusal(HISTORY.decoder(), [entry])
    assert error.field == field and message in error.message


def test_a_flagged_history_schema_allows_the_flag():
    entry = HISTORY.schema()["items"]
    assert entry["properties"]["private"] == {"const": True} and entry["required"] == ["seat", "action"]


def test_a_flag_is_checked_when_its_action_was_read_before():
    decode = HISTORY.decoder()
    assert decode([{"seat": 0, "action": {"type": "pass"}}], "x", RULES) == [(0, "pass")]  # now memoised
    raw = [{"seat": 0, "action": {"type": "pass"}}, {"seat": 3, "action": {"type": "pass"}, "private": True}]
    assert decode(raw, "x", RULES) == [(0, "pass"), (3, "private pass")]
    error = refusal(decode, [{"seat": 1, "action": {"type": "pass"}, "private": "yes"}])
    assert (error.field, error.message) == ("x[0]", "x[0]: private must be true or false")
