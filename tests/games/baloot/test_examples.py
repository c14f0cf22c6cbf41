"""The worked examples of docs/rules/baloot.md section 10, replayed from tests/data/baloot/E*.json.

Each file holds the example's setup (a deck, or a layout in the state's own shape),
its actions (with the legal-move lists and the rejections the spec states) and the
expected facts. One parametrised test per example id."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from engine import get_game
from engine.games.baloot.options import compact
from engine.games.baloot.projects import baloot_scores, project_set
from engine.games.baloot.scoring import match_winner_after, settle
from engine.games.baloot.tables import CLASS_NAMES, HOKM, SLOT, SUBKIND_NAMES, SUIT_CHARS, SUN
from engine.protocol import IllegalAction
from tests.examples import rules_id_of_file

DATA = Path(__file__).resolve().parents[2] / "data" / "baloot"
EXAMPLES = sorted((p.stem for p in DATA.glob("E*.json")), key=lambda s: int(s[1:]))
GAME = get_game("baloot")
KINDS = {"hokm": HOKM, "sun": SUN}


def dig(value: Any, path: str) -> Any:
    for part in path.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def same(path: str, got: Any, want: Any) -> bool:
    if path.startswith("hands.") and isinstance(got, list):
        return sorted(got) == sorted(want)
    return got == want


def assert_facts(doc: dict, facts: dict, where: str) -> None:
    for path, want in facts.items():
        got = dig(doc, path)
        assert same(path, got, want), f"{where}: {path} is {got!r}, expected {want!r}"


def as_set(actions: list[dict]) -> set[str]:
    return {json.dumps(a, sort_keys=True) for a in actions}


def new_state(setup: dict) -> Any:
    options = setup.get("options")
    if "layout" in setup:
        return GAME.new_state(
            4,
            options,
            setup["layout"].get("dealer", 0),
            layout=setup["layout"],
            seed=setup.get("seed"),
        )
    return GAME.new_state(4, options, setup.get("dealer", 0), deck=setup["deck"])


def run_case(case: dict) -> None:
    state = new_state(case["setup"])
    events: list[dict] = []
    for i, step in enumerate(case["steps"]):
        where = f"{case['name']} step {i + 1}"
        if "legal" in step:
            assert GAME.to_act(state) == step["seat"], f"{where}: seat {GAME.to_act(state)} is to act"
            got = [GAME.action_to_json(state, a) for a in GAME.legal_actions(state)]
            assert as_set(got) == as_set(step["legal"]), f"{where}: legal {got}"
        elif "action" in step:
            before = GAME.to_json(state)
            action = GAME.parse_action(state, step["action"])
            if "rejected" in step:
                with pytest.raises(IllegalAction) as err:
                    GAME.apply(state, step["seat"], action)
                assert err.value.reason == step["rejected"], where
                assert GAME.to_json(state) == before, f"{where}: a rejected action changed the state"
            else:
                state, events = GAME.apply(state, step["seat"], action)
                for want in step.get("events", []):
                    assert any(all(e.get(k) == v for k, v in want.items()) for e in events), (
                        f"{where}: no event {want} in {events}"
                    )
        elif "deal" in step:
            action = GAME.parse_action(state, {"type": "deal", "deck": step["deal"]["deck"]})
            state, events = GAME.apply(state, step["deal"]["seat"], action)
        elif "expect" in step:
            assert_facts(GAME.to_json(state), step["expect"], where)
        elif "expect_view" in step:
            assert_facts(GAME.view(state, step["expect_view"]["seat"]), step["expect_view"]["facts"], where)
        elif "expect_score" in step:
            assert_facts(GAME.score(state).to_json(), step["expect_score"], where)
        elif "legal_empty" in step:
            assert GAME.legal_actions(state) == [], where
        elif "sampler_voids" in step:
            spec = step["sampler_voids"]
            view = GAME.view(state, spec["viewer"])
            sample = GAME.sampler(view)
            rng = random.Random(7)
            for _ in range(30):
                world = sample(rng)
                assert GAME.view(world, spec["viewer"]) == view
                hands = GAME.to_json(world)["hands"]
                for seat, suits in spec["voids"].items():
                    held = [c for c in hands[int(seat)] if c[1] in suits]
                    assert not held, f"{where}: sampled seat {seat} holds {held} despite its void"
        elif "expect_score_after_random_finish" in step:
            rng = random.Random(3)
            world = GAME.clone(state)
            while GAME.phase(world) not in ("deal_over", "match_over"):
                GAME.step(world, rng.choice(GAME.legal_actions(world)))
            result = GAME.to_json(world)["last_deal"]
            assert_facts(result, step["expect_score_after_random_finish"], where)
        else:  # pragma: no cover - a malformed data file
            raise AssertionError(f"{where}: unknown step {step}")


@pytest.mark.parametrize("example", EXAMPLES, ids=[rules_id_of_file(DATA / f"{e}.json") for e in EXAMPLES])
def test_worked_example(example: str) -> None:
    """Rules named in each file's "rules" list, exercised by the spec's own example."""
    data = json.loads((DATA / f"{example}.json").read_text())
    assert data["id"] == example
    ran = 0
    for case in data.get("cases", []):
        run_case(case)
        ran += 1
    for row in data.get("accounting", []):
        kind = KINDS[row["kind"]]
        decl, mult = row["declarer_team"], row["multiplier"]
        raiser = decl if row.get("gahwa") or mult in (1, 3) else 1 - decl
        res = settle(
            kind,
            decl,
            mult,
            row.get("gahwa", False),
            raiser,
            row["card_points"],
            row["tricks_won"],
            row["projects"],
            row["baloot"],
            compact(GAME.parse_options(row.get("options"), 4)),
        )
        assert res["adds"] == row["adds"], f"{row}: {res}"
        if "winner" in row:
            assert res["winner"] == row["winner"], row
        if "game_points" in row:
            assert res["game_points"] == row["game_points"], row
        if "items" in row:  # the itemised award, each item naming the options that changed it
            assert res["items"] == row["items"], f"{row}: {res['items']}"
        assert sum(i["points"] for i in res["items"]) == sum(res["adds"])
        ran += 1
    for row in data.get("match_end", []):
        after = [a + b for a, b in zip(row["scores"], row["adds"], strict=True)]
        assert after == row["after"]
        assert match_winner_after(after, row["target"]) == row["winner"]
        ran += 1
    for row in data.get("projects", []):
        kind = KINDS[row["kind"]]
        hand = 0
        for code in row["hand"]:
            hand |= 1 << SLOT[code]
        groups, value = project_set(hand, kind)
        assert value == row["value"]
        want = [sorted(SLOT[c] for c in g) for g in row["groups"]]
        got = [sorted(p for p in range(32) if m >> p & 1) for _, m in groups]
        assert sorted(got) == sorted(want)
        assert CLASS_NAMES[groups[0][0][0]] == row["best"]
        if "best_subkind" in row:
            assert SUBKIND_NAMES[groups[0][0][1]] == row["best_subkind"]
        if "baloot_trump" in row:
            t = SUIT_CHARS.index(row["baloot_trump"])
            kq = (1 << (8 * t + 1)) | (1 << (8 * t + 2))
            assert (
                baloot_scores((groups, value), kq, True, "not_in_hundred")
                == row["baloot_scores_if_project_team"]
            )
            assert baloot_scores((groups, value), kq, False, "not_in_hundred")
        ran += 1
    assert ran
