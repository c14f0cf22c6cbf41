"""The worked examples of docs/rules/trex.md section 10, replayed from tests/data/trex/E*.json.

Each file has ``cases`` (independent setups) or ``stages`` (deals played one after the
other, each starting from the previous stage's match totals). A case gives a setup
(``deck`` or ``layout``, options, dealer, optional seed), facts expected at the start,
steps (an action by a seat, optionally a ``reject`` reason and rule, the legal list
before it, facts after it) and the final facts. Actions and legal lists use the
spec's shorthand: ``"2S"`` (play), ``"pass"``, ``"double KH"``, ``"choose trex"``.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from trex_helpers import act, legal

from engine import get_game
from engine.protocol import IllegalAction
from tests.examples import rules_id_of_file

DATA = Path(__file__).resolve().parents[2] / "data" / "trex"
EXAMPLES = sorted(DATA.glob("E*.json"), key=lambda p: int(p.stem[1:]))
GAME = get_game("trex")


def new_state(setup: dict):
    kw = {k: setup[k] for k in ("deck", "layout", "seed") if k in setup}
    return GAME.new_state(setup.get("players", 4), setup.get("options"), setup.get("dealer", 0), **kw)


def check_facts(state, facts: dict, where: str) -> None:
    data = GAME.to_json(state)
    for key, want in facts.items():
        if key == "legal":
            assert legal(state) == [act(a) for a in want], f"{where}: legal actions"
        elif key == "score":
            report = GAME.score(state).to_json()
            for k, v in want.items():
                assert report[k] == v, f"{where}: score.{k}"
        elif key == "deal_results_last":
            assert data["deal_results"][-1] == want, f"{where}: last deal result"
        elif key == "deal_result_scores":
            assert [r["scores"] for r in data["deal_results"]][-len(want) :] == want, f"{where}: deal results"
        elif key == "next_legal_after_deal":
            # caller-dealt: deal the next deal from a fixed deck and look at the choice
            nxt = GAME.clone(state)
            deck = GAME.parse_action(nxt, {"type": "deal", "deck": GAME.pack(nxt)})
            GAME.step(nxt, deck)
            assert legal(nxt) == [act(a) for a in want], f"{where}: legal after the next deal"
        else:
            assert data[key] == want, f"{where}: {key} is {data[key]!r}, expected {want!r}"


def run_steps(state, steps: list[dict]):
    for i, st in enumerate(steps):
        where = f"step {i + 1}"
        if "legal_before" in st:
            assert legal(state) == [act(a) for a in st["legal_before"]], f"{where}: legal before"
        action = GAME.parse_action(state, act(st["action"]))
        if "reject" in st:
            before = GAME.to_json(state)
            with pytest.raises(IllegalAction) as err:
                GAME.apply(state, st["seat"], action)
            assert err.value.reason.startswith(st["reject"]), f"{where}: reason {err.value.reason!r}"
            if "rule" in st:
                assert err.value.rule == st["rule"], f"{where}: rule"
            assert GAME.to_json(state) == before
            continue
        state, events = GAME.apply(state, st["seat"], action)
        assert all("type" in e for e in events)
        if "expect" in st:
            check_facts(state, st["expect"], where)
    return state


def run_case(case: dict):
    state = new_state(case["setup"])
    if "expect_start" in case:
        check_facts(state, case["expect_start"], "start")
    if "schedule" in case:
        check_schedule(state, case["schedule"])
        return state
    state = run_steps(state, case.get("steps", []))
    check_facts(state, case.get("expect", {}), "end")
    if "play_out" in case:
        rng = random.Random(case["play_out"]["seed"])
        deal = GAME.deal_no(state)
        while GAME.phase(state) in ("tricks", "layout") and GAME.deal_no(state) == deal:
            state, _ = GAME.apply(state, GAME.to_act(state), rng.choice(GAME.legal_actions(state)))
        check_facts(state, case["play_out"]["expect"], "after play-out")
    return state


def check_schedule(state, schedule: list[list[int]]) -> None:
    """Play a seeded random match and record deal_no -> (kingdom_index, owner, dealer)."""
    rng = random.Random(0)
    seen: dict[int, list[int]] = {}
    while True:
        data = GAME.to_json(state)
        seen.setdefault(
            data["deal_no"],
            [data["deal_no"], data["kingdom_index"], data["kingdom_owner"], data["dealer"]],
        )
        if data["phase"] == "choose_contract" and data["deal_no"] in (1, 6, 11, 16):
            assert data["contracts_used"] == [] and len(GAME.legal_actions(state)) == 5
        if GAME.to_act(state) is None:
            break
        GAME.step(state, rng.choice(GAME.legal_actions(state)))
    assert GAME.phase(state) == "match_over" and GAME.deal_no(state) == 20
    assert [seen[n] for n in sorted(seen)] == schedule


@pytest.mark.parametrize("path", EXAMPLES, ids=[rules_id_of_file(p) for p in EXAMPLES])
def test_worked_example(path: Path) -> None:
    example = json.loads(path.read_text())
    for case in example.get("cases", []):
        run_case(case)
    if "stages" in example:
        prev = None
        for stage in example["stages"]:
            layout = dict(stage["setup"]["layout"])
            if prev is not None:
                layout["match_scores"] = prev["match_scores"]
                layout["deal_results"] = prev["deal_results"]
            prev_state = run_case({**stage, "setup": {**stage["setup"], "layout": layout}})
            prev = GAME.to_json(prev_state)
        check_facts(prev_state, example["expect"], "after the last stage")


def test_every_example_of_the_spec_has_a_data_file() -> None:
    spec = Path(__file__).resolve().parents[3] / "docs" / "rules" / "trex.md"
    ids = {f"E{n}" for n in re.findall(r"^### Example (\d+)", spec.read_text(), re.MULTILINE)}
    assert ids, "docs/rules/trex.md lists no '### Example n'"
    assert ids == {p.stem for p in EXAMPLES}
