"""The shared codec's views of own entries a viewer may not see (OwnOrCount's hides_own),
and Porrazo's seat-keyed objects (SeatMap) in a codec, on a small codec of their own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jsonschema
import pytest

from engine.codec import (
    Cards,
    Codec,
    Field,
    Nullable,
    OwnOrCount,
    Pack,
    PerSeat,
    Seat,
    Verb,
    Verbs,
    view_seat,
)
from engine.games.porrazo.codec_kinds import SeatMap
from engine.protocol import InvalidState

PACK = Pack("Tiny", tuple(range(8)))


@dataclass(frozen=True)
class Rules:
    players: int
    sides: int


class Table:
    def __init__(self, **values: Any) -> None:
        self.__dict__.update(values)


CODEC = Codec(
    game="tiny",
    version=1,
    option_specs=(),
    player_counts=(2, 3),
    check_options=lambda options, players: None,
    rules_of=lambda options, players: Rules(players, players),
    options_of=lambda s: {},
    players_of=lambda s: s.rules.players,
    fields=[
        Field("blind", Nullable(Seat())),
        Field("hands", PerSeat(Cards(PACK)), show=OwnOrCount(hides_own=lambda s, viewer: viewer == s.blind)),
        Field("claims", SeatMap(Seat(), -1)),
        view_seat(),
    ],
    verbs=Verbs([Verb("pass", make=lambda: "pass")], verb_of=str),
    build=lambda values, rules, mode: Table(rules=rules, **values),
    fill_left_out=lambda state, values, mode: None,  # every field is required
)


def doc(**changes: Any) -> dict:
    out = {"game": "tiny", "version": 1, "options": {}, "players": 3, "blind": None}
    out.update(hands=[["AS"], ["AH", "AD"], []], claims={"0": 2, "2": 1})
    out.update(changes)
    return out


def test_a_seat_map_reads_into_a_per_seat_list_and_writes_back_in_seat_order():
    state = CODEC.load(doc(claims={"2": 1, "0": 2}))
    assert state.claims == [2, -1, 1]
    assert list(CODEC.dump(state)["claims"].items()) == [("0", 2), ("2", 1)]
    assert CODEC.dump(CODEC.load(doc(claims={})))["claims"] == {}


@pytest.mark.parametrize(
    ("claims", "field", "message"),
    [
        ([2], "claims", "claims: must be an object from seats to values"),
        ({"3": 0}, "claims", "claims: '3' is not a seat"),
        ({"01": 0}, "claims", "claims: '01' is not a seat"),
        ({"1": 3}, "claims.1", "claims.1: must be a whole number from 0 to 2"),
    ],
)
def test_a_seat_map_refuses_what_is_not_a_seat_naming_the_path(claims, field, message):
    with pytest.raises(InvalidState) as info:
        CODEC.load(doc(claims=claims))
    assert (info.value.field, info.value.message) == (field, message)


def test_hides_own_makes_the_viewers_own_entry_a_count_too():
    state = CODEC.load(doc(blind=1))
    assert CODEC.view(state, 0)["hands"] == [["AS"], 2, 0]
    assert CODEC.view(state, 1)["hands"] == [1, 2, 0]  # seat 1 may not look at its hand
    assert CODEC.view(CODEC.load(doc()), 1)["hands"] == [1, ["AH", "AD"], 0]


def test_the_seat_map_schema_describes_the_documents():
    schema = CODEC.json_schemas()["state"]
    jsonschema.validate(doc(), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc(claims={"x": 1}), schema)
