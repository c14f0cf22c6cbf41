"""The worked examples of docs/rules/ronda.md §10, replayed move by move from tests/data/ronda/.

Each file: ``setup`` (deck or layout), ``start`` facts, then ``steps``: an action by a seat
with facts ``before`` / ``after`` it, or the ``reject`` reason (and rule) it must fail with.
"""

from __future__ import annotations

import json

import pytest
from ronda_helpers import DATA, GAME, check_facts, load_example, new_match

from engine.protocol import IllegalAction
from tests.examples import rules_id_of_file

EXAMPLES = sorted(DATA.glob("E*.json"), key=lambda p: int(p.stem[1:]))


@pytest.mark.parametrize("path", EXAMPLES, ids=[rules_id_of_file(p) for p in EXAMPLES])
def test_worked_example(path):
    ex = load_example(path)
    state = new_match(ex["setup"])
    check_facts(state, ex.get("start", {}), f"{ex['id']} start")
    for i, step in enumerate(ex["steps"], 1):
        where = f"{ex['id']} action {i}"
        check_facts(state, step.get("before", {}), where + " (before)")
        action = GAME.parse_action(state, step["action"])
        if "reject" in step:
            before = GAME.to_json(state)
            with pytest.raises(IllegalAction) as err:
                GAME.apply(state, step["seat"], action)
            assert err.value.reason == step["reject"], where
            if "rule" in step:
                assert err.value.rule == step["rule"], where
            assert GAME.to_json(state) == before, f"{where}: a rejected action changed the state"
            continue
        state, events = GAME.apply(state, step["seat"], action)
        json.dumps(events)
        check_facts(state, step.get("after", {}), where)
        # every example state survives the JSON round trip
        dumped = GAME.to_json(state)
        assert GAME.to_json(GAME.from_json(json.loads(json.dumps(dumped)))) == dumped


def test_every_example_of_the_spec_has_a_data_file():
    assert [p.stem for p in EXAMPLES] == [f"E{i}" for i in range(1, 21)]
