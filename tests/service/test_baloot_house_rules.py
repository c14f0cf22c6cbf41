"""Baloot's house rules of the award (issue 31, docs/rules/baloot.md section 5a) over HTTP:
listed with their defaults and values, in the OpenAPI schema and the setup page's form,
validated like every option, and named in the award they change."""

from __future__ import annotations

import json
import re

import pytest

from tests.problems import error_code, extensions
from tests.service.conftest import post

HOUSE_RULES = {
    "hokm_rounding": ("counted_team", ["counted_team", "both_sides"]),
    "doubled_award": ("winner_takes_all", ["winner_takes_all", "each_keeps_own"]),
    "doubled_kaboot": ("multiplied", ["multiplied", "flat"]),
    "projects_when_doubled": ("times_two", ["times_two", "times_multiplier"]),
    "projects_in_kaboot": ("added", ["added", "not_added"]),
}


def baloot_options(metadata: dict) -> dict:
    return {option["name"]: option for option in metadata["options"]}


def test_get_games_lists_each_house_rule_with_its_default_and_values(client):
    listed = next(g for g in client.get("/v1/games").get_json()["games"] if g["id"] == "baloot")
    one = client.get("/v1/games/baloot").get_json()
    for metadata in (listed, one):
        options = baloot_options(metadata)
        for name, (default, values) in HOUSE_RULES.items():
            assert options[name]["type"] == "choice"
            assert options[name]["default"] == default and options[name]["choices"] == values
            assert options[name]["description"]


def test_the_openapi_schema_has_each_house_rule(client):
    schemas = client.get("/openapi.json").get_json()["components"]["schemas"]
    props = schemas["BalootOptions"]["properties"]
    for name, (default, values) in HOUSE_RULES.items():
        assert props[name]["enum"] == values and props[name]["default"] == default


def test_the_setup_page_form_offers_each_house_rule(client):
    """The form is built from the games' metadata embedded in the page (setup.js: a
    select per choice option, its values as the choices, the default selected)."""
    html = client.get("/play/baloot").get_data(as_text=True)
    embedded = re.search(r'<script type="application/json" id="games">(.*?)</script>', html, re.S)
    assert embedded
    baloot = next(g for g in json.loads(embedded.group(1)) if g["id"] == "baloot")
    options = baloot_options(baloot)
    for name, (default, values) in HOUSE_RULES.items():
        assert options[name]["choices"] == values and options[name]["default"] == default


@pytest.mark.parametrize("name", sorted(HOUSE_RULES))
def test_an_unknown_value_is_422_naming_the_allowed_ones(client, name):
    answer = post(client, "/v1/games/baloot/deals", {"options": {name: "sometimes"}, "seed": 1}, 422)
    assert error_code(answer) == "invalid_setup"
    assert f"options.{name}" in json.dumps([answer["detail"], extensions(answer)])
    for value in HOUSE_RULES[name][1]:
        assert repr(value) in answer["detail"]


def test_a_deal_lists_only_the_house_rules_it_uses(client):
    plain = post(client, "/v1/games/baloot/deals", {"seed": 4})["state"]
    assert not set(HOUSE_RULES) & set(plain["options"])
    chosen = post(
        client, "/v1/games/baloot/deals", {"seed": 4, "options": {"doubled_award": "each_keeps_own"}}
    )
    assert chosen["state"]["options"]["doubled_award"] == "each_keeps_own"
    assert chosen["state"]["hands"] == plain["hands"]


# Hokm x2, declarer team 0 (counted): seat 0 leads JS and wins the last trick, 20 + 10.
# c = [100, 62]: gp = [10, 6]; the default gives team 0 2 x 16 = 32, each_keeps_own
# gives 2 x 10 = 20 and 2 x 6 = 12 (section 5a, V2).
DOUBLED = {
    "phase": "play",
    "dealer": 0,
    "trick_no": 8,
    "leader": 0,
    "contract": {"kind": "hokm", "bidder": 0, "multiplier": 2, "trump": "S"},
    "hands": {"0": ["JS"], "1": ["7D"], "2": ["8D"], "3": ["9D"]},
    "scores": [0, 0],
    "card_points": [70, 62],
    "tricks_won": [4, 3],
}


CARDS = {"key": "cards", "params": {}}
DOUBLED_AWARD = {"options": ["doubled_award"]}
"""What is served beside the item's text: its key and parameters (docs/api.md, Score items)."""


@pytest.mark.parametrize(
    "options, adds, items",
    [
        ({}, [32, 0], [{"side": 0, "points": 32, "item": "cards", "rule": "S7", **CARDS}]),
        (
            {"doubled_award": "each_keeps_own"},
            [20, 12],
            [
                {"side": 0, "points": 20, "item": "cards", "rule": "S7", **DOUBLED_AWARD, **CARDS},
                {"side": 1, "points": 12, "item": "cards", "rule": "S7", **DOUBLED_AWARD, **CARDS},
            ],
        ),
    ],
    ids=["default", "each_keeps_own"],
)
def test_moves_and_score_name_the_option_in_the_award(client, options, adds, items):
    state = post(client, "/v1/games/baloot/deals", {"layout": DOUBLED, "options": options})["state"]
    for seat, card in ((0, "JS"), (1, "7D"), (2, "8D"), (3, "9D")):
        answer = post(
            client,
            "/v1/games/baloot/moves",
            {"state": state, "seat": seat, "action": {"type": "play", "card": card}},
        )
        state = answer["state"]
    points = next(e for e in answer["events"] if e["type"] == "points")
    assert points["adds"] == adds and points["items"] == items
    score = post(client, "/v1/games/baloot/score", {"state": state})
    assert score["deal_points"] == adds and score["items"] == items and score["scores"] == adds
