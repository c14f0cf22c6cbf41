"""Trex's declared codec (engine/games/trex/codec.py): its JSON Schemas describe every
recorded Trex document, and a hand, a layout or a played entry out of shape is refused
naming its path."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path

import jsonschema
import pytest
from trex_helpers import GAME

from engine.protocol import InvalidState

CORPUS = Path(__file__).resolve().parents[2] / "data" / "corpus" / "trex.jsonl.gz"


def records() -> list[dict]:
    with gzip.open(CORPUS, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


@pytest.mark.slow
def test_trex_schemas_validate_every_recorded_trex_document():
    validators = {name: jsonschema.Draft202012Validator(s) for name, s in GAME.json_schemas().items()}
    recorded = records()
    for record in recorded[::7]:  # every 7th: the validator is slow, the shapes repeat
        doc = record["doc"]
        if record["kind"] == "state":
            validators["state"].validate(doc)
            validators["options"].validate(doc["options"])
        elif record["kind"] in ("view", "public_view"):
            validators["view"].validate(doc)
        else:
            for action in doc:
                validators["action"].validate(action)
    state = next(r["doc"] for r in recorded if r["kind"] == "state")
    assert not validators["state"].is_valid(
        dict(state, layout={"S": {"low": "J"}, "H": None, "D": None, "C": None})
    )
    assert not validators["state"].is_valid(dict(state, doubled={"KH": "north"}))


def a_state_in_trex() -> dict:
    return next(
        r["doc"]
        for r in records()
        if r["kind"] == "state" and r["doc"]["phase"] == "layout" and r["doc"]["played"]
    )


@pytest.mark.parametrize(
    ("field", "value", "path"),
    [
        ("layout", {"S": None, "H": None, "D": None}, "layout"),
        ("layout", {"S": {"low": "1", "high": "Q"}, "H": None, "D": None, "C": None}, "layout.S.low"),
        ("layout", {"S": {"low": "Q", "high": "K"}, "H": None, "D": None, "C": None}, "layout.S"),  # R15
        ("doubled", {"KH": "north"}, "doubled.KH"),
        ("played", [{"seat": 0, "action": {"type": "pass"}, "trick": 3}], "played[0]"),
        ("played", [{"seat": 0, "action": {"type": "play", "card": "1S"}}], "played[0].action"),
    ],
)
def test_a_field_out_of_shape_is_refused_naming_its_path(field, value, path):
    doc = copy.deepcopy(a_state_in_trex())
    doc[field] = value
    with pytest.raises(InvalidState) as caught:
        GAME.from_json(doc)
    assert caught.value.field == path, caught.value.message
    assert caught.value.message.startswith(f"{path}: ")
