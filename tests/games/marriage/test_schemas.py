"""Marriage's declared codec's JSON Schemas describe every recorded Marriage document
(its package layout is checked with every game's in tests/engine/test_layout.py)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import jsonschema
import pytest

import engine.games.marriage as package
from engine import get_game

PACKAGE = Path(package.__file__).parent
CORPUS = Path(__file__).parents[2] / "data" / "corpus" / "marriage.jsonl.gz"


@pytest.mark.slow
def test_the_schemas_validate_every_recorded_marriage_document():
    schemas = get_game("marriage").json_schemas()
    validators = {name: jsonschema.Draft202012Validator(schema) for name, schema in schemas.items()}
    for schema in schemas.values():
        jsonschema.Draft202012Validator.check_schema(schema)
    with gzip.open(CORPUS, "rt", encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines]
    sample = records[::40]  # the validator is slow and the shapes repeat: one in forty
    assert {record["kind"] for record in sample} == {"state", "view", "public_view", "actions"}
    for record in sample:
        doc = record["doc"]
        if record["kind"] == "state":
            validators["state"].validate(doc)
            validators["options"].validate(doc["options"])
        elif record["kind"] in ("view", "public_view"):
            validators["view"].validate(doc)
        else:
            for action in doc:
                validators["action"].validate(action)
    state = next(record["doc"] for record in records if record["kind"] == "state")
    assert not validators["state"].is_valid(dict(state, hands=[["XY"]] * state["players"]))
