"""The rules file's worked examples (section 10), replayed from tests/data/porrazo/E<n>.json.

Each file holds one or more cases: a setup (a deck or a layout, options), facts
expected right after the setup, and steps (an action with the facts expected after
it, or the error it must be refused with, leaving the state unchanged).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import get_game
from engine.protocol import EngineError
from tests.examples import rules_id_of_file

DATA = Path(__file__).resolve().parents[2] / "data" / "porrazo"
EXAMPLES = sorted(DATA.glob("E*.json"), key=lambda p: int(p.stem[1:]))
GAME = get_game("porrazo")


def new_from_setup(setup: dict):
    players = setup.get("players", setup.get("layout", {}).get("players"))
    dealer = setup.get("dealer", setup.get("layout", {}).get("dealer", 0))
    return GAME.new_state(
        players, setup.get("options"), dealer, deck=setup.get("deck"), layout=setup.get("layout")
    )


def check_facts(state, facts: dict, where: str) -> None:
    dumped = GAME.to_json(state)
    for key, want in facts.items():
        if key == "legal":
            got = [GAME.action_to_json(state, a) for a in GAME.legal_actions(state)]
        elif key == "stock_count":
            got = len(dumped["stock"])
        elif key == "pile_sizes":
            got = [len(p) for p in dumped["piles"]]
        elif key == "views":
            for partial in want:
                view = GAME.view(state, partial["seat"])
                for vkey, vwant in partial.items():
                    assert view[vkey] == vwant, f"{where}: view of seat {partial['seat']}: {vkey}"
            continue
        else:
            got = dumped[key]
        assert got == want, f"{where}: {key} is {got!r}, expected {want!r}"


def run_case(case: dict, label: str) -> None:
    state = new_from_setup(case["setup"])
    check_facts(state, case.get("expect", {}), f"{label} setup")
    for i, stp in enumerate(case["steps"], 1):
        where = f"{label} step {i} ({stp['seat']}: {stp['action']})"
        if "error" in stp:
            before = GAME.to_json(state)
            with pytest.raises(EngineError) as info:
                action = GAME.parse_action(state, stp["action"])
                GAME.apply(state, stp["seat"], action)
            err = info.value
            assert err.code == stp["error"]["code"], where
            assert err.message == stp["error"]["message"], where
            if "rule" in stp["error"]:
                assert getattr(err, "rule", None) == stp["error"]["rule"], where
            assert GAME.to_json(state) == before, f"{where}: a refused action changed the state"
            continue
        action = GAME.parse_action(state, stp["action"])
        assert action in GAME.legal_actions(state), f"{where}: not among the legal actions"
        state, _events = GAME.apply(state, stp["seat"], action)
        check_facts(state, stp.get("expect", {}), where)
        # every intermediate state round-trips through JSON
        assert GAME.to_json(GAME.from_json(json.loads(json.dumps(GAME.to_json(state))))) == GAME.to_json(
            state
        )


@pytest.mark.parametrize("path", EXAMPLES, ids=[rules_id_of_file(p) for p in EXAMPLES])
def test_worked_example(path: Path) -> None:
    """Each example names the rules it exercises in its "rules" field."""
    example = json.loads(path.read_text())
    assert example["id"] == path.stem and example["rules"]
    for n, case in enumerate(example["cases"]):
        run_case(case, f"{example['id']}[{n}]")


def test_all_examples_present() -> None:
    assert [p.stem for p in EXAMPLES] == [f"E{i}" for i in range(1, 19)]
