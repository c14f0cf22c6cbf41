"""Every worked example of docs/rules/marriage.md §10, replayed from tests/data/marriage/*.json.

A file has ``setup`` (players, dealer, options and a ``deck`` or ``layout``; or
``continue`` another example, optionally with other options and only its first
``actions`` actions) and ``steps``: an action to apply (or to see rejected with the
spec's reason), legal-move expectations, and expected facts about the state. Query-only
examples (joker family, set validation, maal) have ``queries`` instead.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from engine import get_game
from engine.games.marriage import melds as M
from engine.games.marriage import scoring
from engine.games.marriage import tables as T
from engine.protocol import IllegalAction
from tests.examples import rules_id

DATA = Path(__file__).parents[2] / "data" / "marriage"
EXAMPLES = {p.stem: json.loads(p.read_text()) for p in sorted(DATA.glob("*.json"))}
GAME = get_game("marriage")


def cards(text):
    return text.split() if isinstance(text, str) else list(text)


def canon(state, action_json):
    return json.dumps(GAME.action_to_json(state, GAME.parse_action(state, action_json)), sort_keys=True)


def legal_json(state):
    return [json.dumps(GAME.action_to_json(state, a), sort_keys=True) for a in GAME.legal_actions(state)]


def setup_state(example):
    setup = example["setup"]
    if "continue" in setup:
        base = EXAMPLES[setup["continue"]]
        merged = dict(base["setup"])
        merged["options"] = {**base["setup"].get("options", {}), **setup.get("options", {})}
        state = setup_state({"setup": merged})
        actions = [s for s in base["steps"] if "action" in s and "reject" not in s]
        for step in actions[: setup.get("actions", len(actions))]:
            state, _ = GAME.apply(state, step["seat"], GAME.parse_action(state, step["action"]))
        return state
    players, dealer, options = setup["players"], setup.get("dealer", 0), setup.get("options", {})
    if "deck" in setup:
        deck = T.codes(T.sorted_test_deck()) if setup["deck"] == "sorted" else cards(setup["deck"])
        return GAME.new_state(players, options, dealer, deck=deck)
    return GAME.new_state(players, options, dealer, layout=setup["layout"])


def check_expect(state, expect):
    data = GAME.to_json(state)
    for key, want in expect.items():
        if key == "hands":
            for seat, hand in want.items():
                assert Counter(data["hands"][int(seat)]) == Counter(cards(hand)), f"hand of seat {seat}"
        elif key == "hand_sizes":
            assert [len(h) for h in data["hands"]] == want
        elif key == "stock_size":
            assert len(data["stock"]) == want
        elif key == "stock_top":
            assert data["stock"][: len(cards(want))] == cards(want)
        elif key == "stock_tail":
            assert data["stock"][-len(cards(want)) :] == cards(want)
        elif key == "stock_bottom":
            assert data["stock"][-1] == want
        elif key == "stock_is_old_discards":
            fill = data["stock"][: len(data["stock"]) - 3]
            assert fill == sorted(fill, key=lambda c: T.CODE_TO_CARD[c])
        elif key == "discard_top":
            assert data["discard"][-1] == want
        elif key == "discard_size":
            assert len(data["discard"]) == want
        elif key == "discard_bottom":
            assert [e["card"] for e in data["discard"][: len(cards(want))]] == cards(want)
        elif key == "shown_count":
            assert [len(s) for s in data["shown"]] == want
        elif key == "view_tiplu":
            assert [GAME.view(state, s)["tiplu"] for s in range(state.n)] == want
        else:
            assert data[key] == want, key


def run_step(state, step):
    if "action" in step:
        action = GAME.parse_action(state, step["action"])
        if "reject" in step:
            before = GAME.to_json(state)
            with pytest.raises(IllegalAction) as err:
                GAME.apply(state, step["seat"], action)
            assert err.value.reason == step["reject"]
            assert err.value.rule == step["rule"]
            assert GAME.to_json(state) == before, "a rejected action changes nothing"
        else:
            state, events = GAME.apply(state, step["seat"], action)
            assert events
    legal = legal_json(state)
    if "legal" in step:
        assert sorted(legal) == sorted(canon(state, a) for a in step["legal"])
    if "legal_discards" in step:
        got = sorted(json.loads(a)["card"] for a in legal if json.loads(a)["type"] == "discard")
        assert got == sorted(cards(step["legal_discards"]))
    for kind, want in step.get("legal_of_type", {}).items():
        got = sorted(a for a in legal if json.loads(a)["type"] == kind)
        assert got == sorted(canon(state, a) for a in want), kind
    if "legal_count" in step:
        assert len(legal) == step["legal_count"]
    if "expect" in step:
        check_expect(state, step["expect"])
    if "score_items" in step:
        items = GAME.score(state).items
        for rule, per_seat in step["score_items"].items():
            got = [
                sum(i["points"] for i in items if i["rule"] == rule and i["side"] == s)
                for s in range(state.n)
            ]
            assert got == per_seat, rule
        report = GAME.score(state)
        assert sum(i["points"] for i in report.items) == sum(report.deal_points) == 0
    return state


def run_query(query):
    if "family" in query:
        fam = M.joker_family(T.CODE_TO_CARD[query["family"]])
        want = query["expect"]
        got = {
            "tiplu": T.card_code(fam.tiplu),
            "poplu": T.card_code(fam.poplu),
            "jhiplu": T.card_code(fam.jhiplu),
            "ordinary": T.codes(fam.ordinary),
            "alter": T.card_code(fam.alter),
        }
        wild = [c for c in range(52) if fam.wild >> c & 1]
        got["wild_in_play"] = sum(3 for c in wild) - 1  # one tiplu lies under the stock
        for key, value in want.items():
            assert got[key] == value, key
    elif "validate_set" in query:
        tiplu = T.CODE_TO_CARD[query["tiplu"]]
        wild = M.joker_family(tiplu).wild if query["wild_allowed"] else 0
        kind = M.set_kind(
            [T.CODE_TO_CARD[c] for c in query["validate_set"]],
            wild,
            query.get("max_wild_per_set", 2),
        )
        if query.get("first_show"):  # R7: only tunnelas and pure sequences
            kind = kind if M.is_pure_set([T.CODE_TO_CARD[c] for c in query["validate_set"]]) else None
        assert kind == query["expect"], query["validate_set"]
    else:
        counts = [0] * T.NCODES
        for c in cards(query["maal"]):
            counts[T.CODE_TO_CARD[c]] += 1
        exposed = [T.CODE_TO_CARD[c] for c in query.get("exposed", [])]
        for c in exposed:
            counts[c] += 3
        total, items = scoring.maal(
            counts, exposed, T.CODE_TO_CARD[query["tiplu"]], query.get("alter_points", 0), 5
        )
        assert total == query["expect"] == sum(v for _, v in items), query["maal"]


@pytest.mark.parametrize(
    "example_id", sorted(EXAMPLES), ids=[rules_id(EXAMPLES[e]) for e in sorted(EXAMPLES)]
)
def test_worked_example(example_id):
    """R1-R34 as exercised by each example (its ``rules`` list)."""
    example = EXAMPLES[example_id]
    assert example["id"] == example_id
    if "queries" in example:
        for query in example["queries"]:
            run_query(query)
        return
    state = setup_state(example)
    for step in example["steps"]:
        state = run_step(state, step)
