"""Baloot's JSON Schemas, generated from the declarations of its codec (engine/codec.py),
describe the recorded Baloot documents (tests/data/corpus)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import jsonschema
import pytest

from engine import get_game

CORPUS = Path(__file__).parents[2] / "data" / "corpus" / "baloot.jsonl.gz"
EVERY = 4
"""Validate one recorded document in this many (jsonschema takes about 15 ms for one)."""


@pytest.mark.slow
def test_the_schemas_validate_the_recorded_baloot_documents():
    schemas = get_game("baloot").json_schemas()
    validators = {name: jsonschema.Draft202012Validator(schema) for name, schema in schemas.items()}
    with gzip.open(CORPUS, "rt", encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines]
    for record in records[::EVERY]:
        doc = record["doc"]
        if record["kind"] == "state":
            validators["state"].validate(doc)
            validators["options"].validate(doc["options"])
        elif record["kind"] in ("view", "public_view"):
            validators["view"].validate(doc)
        else:
            for action in doc:
                validators["action"].validate(action)


def test_the_schemas_refuse_what_the_loader_refuses():
    """The schemas are not vacuous: an unknown key, a bad card, a bad action are refused."""
    state = get_game("baloot").to_json(get_game("baloot").new_state(4, {}, 0, seed=1))
    validators = {
        name: jsonschema.Draft202012Validator(s) for name, s in get_game("baloot").json_schemas().items()
    }
    assert validators["state"].is_valid(state)
    assert not validators["state"].is_valid(dict(state, bonus=1))
    assert not validators["state"].is_valid(dict(state, hands=[["1S"], [], [], []]))
    assert not validators["state"].is_valid(dict(state, contract={"kind": "hokm"}))
    assert not validators["action"].is_valid({"type": "play", "card": "AS", "ekka": 1})
    assert validators["action"].is_valid({"type": "double", "locked": True})
