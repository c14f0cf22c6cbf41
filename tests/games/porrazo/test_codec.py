"""Porrazo's JSON declared on the shared codec (engine/codec.py): the JSON Schemas it
derives for Porrazo's own shapes, a layout's own spellings (phase "dealing",
"declared"), and the dealer's hand hidden from the dealer during the tendido choice."""

from __future__ import annotations

import jsonschema
import pytest
from porrazo_helpers import GAME, layout

from engine.protocol import InvalidState


def test_the_schemas_describe_porrazos_own_shapes():
    """The corpus is validated for every game in tests/engine/test_codec.py; here the
    shapes only Porrazo has: the claims object keyed by seats, the optional capture."""
    schemas = GAME.json_schemas()
    state = GAME.to_json(GAME.new_state(4, {}, 0, seed=3))
    jsonschema.validate(dict(state, claims={"2": 1}), schemas["state"])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(dict(state, claims={"9": 0}), schemas["state"])
    jsonschema.validate({"type": "play", "card": "AS", "capture": False}, schemas["action"])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"type": "play", "card": "AS", "capture": "no"}, schemas["action"])


def test_r9_a_layout_may_list_the_declarations_as_declared_seats():
    hands = [["7D", "7S", "QC"], ["7C", "7H", "2D"]]
    state = layout(2, 0, hands, deal_no=5, declared={"0": "ronda"})
    assert GAME.to_json(state)["declarations"] == ["ronda", None]
    wrong = [({"2": "ronda"}, "declared"), ([0], "declared"), ({"1": "tringa"}, "declarations[1]")]
    for declared, field in wrong:
        with pytest.raises(InvalidState) as info:
            layout(2, 0, hands, deal_no=5, declared=declared)
        assert info.value.field == field
    with pytest.raises(InvalidState) as info:
        layout(2, 0, hands, deal_no=5, declared={}, declarations=[None, None])
    assert info.value.field == "declared"


def test_r4_a_layout_in_phase_dealing_is_dealt_by_the_engine_and_a_full_state_has_no_such_phase():
    state = layout(2, 1, [[], []], deal_no=0, tendido_done=False, phase="dealing")
    data = GAME.to_json(state)
    assert data["phase"] == "tendido_choice" and data["deal_no"] == 1
    with pytest.raises(InvalidState) as info:
        GAME.from_json(dict(data, phase="dealing"))
    assert info.value.field == "phase"


def test_r6_the_dealer_sees_neither_its_hand_nor_its_dealt_cards_during_the_tendido_choice():
    state = GAME.new_state(2, {}, 0, seed=21)
    assert GAME.phase(state) == "tendido_choice"
    dealer, other = GAME.view(state, 0), GAME.view(state, 1)
    assert dealer["hands"] == [3, 3] and dealer["dealt"] == [3, 3]
    assert other["hands"][0] == 3 and other["hands"][1] == GAME.to_json(state)["hands"][1]
    assert GAME.public_view(state)["hands"] == [3, 3] and GAME.public_view(state)["seat"] is None
