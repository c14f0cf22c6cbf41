"""Issue 31's house rules over HTTP: GET /v1/games lists each with its default and allowed
values (the /play page's setup form builds a select of the choices from that list:
service/static/page/setup.js), the OpenAPI schema of the game's options has them, a deal
accepts them and echoes a non-default value, and an unknown value is a 422 naming the
allowed ones. The same for Marriage's money options, and the setup page's form offers each."""

from __future__ import annotations

import json
import re

import pytest

from tests.service.conftest import assert_error, post

HOUSE_RULES = {
    "trex": {
        "doubled_card_taken_by_other": ("doubler_gains", ["doubler_gains", "no_gain"]),
        "doubler_takes_after_other_lead": ("leader_gains", ["leader_gains", "no_gain"]),
        "doubler_leads_and_takes": (
            "single_penalty",
            ["single_penalty", "double_penalty", "double_penalty_opponent_gains"],
        ),
        "trex_layout_start": ("jacks", ["jacks", "sevens"]),
    },
    "ronda": {
        "este_capturing_card": ("taken", ["taken", "stays_on_table"]),
        "chain_bonus_players": ("three_or_four", ["three_or_four", "any"]),
        "chain_bonus_values": ("5_then_10", ["5_then_10", "5_then_11"]),
    },
}
CASES = [(game, name) for game, options in HOUSE_RULES.items() for name in options]


@pytest.mark.parametrize(("game_id", "name"), CASES)
def test_games_lists_the_option_with_its_default_and_values(client, game_id, name):
    games = {g["id"]: g for g in client.get("/v1/games").get_json()["games"]}
    listed = {o["name"]: o for o in games[game_id]["options"]}
    default, choices = HOUSE_RULES[game_id][name]
    assert listed[name]["type"] == "choice"
    assert listed[name]["default"] == default and listed[name]["choices"] == choices
    assert listed[name]["description"]


@pytest.mark.parametrize(("game_id", "name"), CASES)
def test_the_openapi_options_schema_has_the_option(client, game_id, name):
    schemas = client.get("/openapi.json").get_json()["components"]["schemas"]
    options = next(v for k, v in schemas.items() if k.lower() == f"{game_id}options")
    default, choices = HOUSE_RULES[game_id][name]
    assert options["properties"][name]["enum"] == choices
    assert options["properties"][name]["default"] == default


@pytest.mark.parametrize(("game_id", "name"), CASES)
def test_an_unknown_value_is_a_422_naming_the_allowed_values(client, game_id, name):
    answer = post(client, f"/v1/games/{game_id}/deals", {"seed": 3, "options": {name: "sometimes"}}, 422)
    assert_error(answer, "invalid_setup")
    text = str(answer)
    assert f"options.{name}" in text
    for choice in HOUSE_RULES[game_id][name][1]:
        assert repr(choice) in text


@pytest.mark.parametrize(("game_id", "name"), CASES)
def test_a_deal_with_another_value_echoes_it_and_moves(client, game_id, name):
    value = HOUSE_RULES[game_id][name][1][-1]
    state = post(client, f"/v1/games/{game_id}/deals", {"seed": 3, "options": {name: value}})["state"]
    assert state["options"][name] == value
    legal = post(client, f"/v1/games/{game_id}/legal-moves", {"state": state})
    assert legal


def test_default_deals_do_not_list_the_house_rules(client):
    for game_id, options in HOUSE_RULES.items():
        state = post(client, f"/v1/games/{game_id}/deals", {"seed": 3})["state"]
        assert not set(options) & set(state["options"])


def test_the_trex_combination_refused_names_the_field(client):
    body = {
        "seed": 3,
        "options": {"self_capture_scoring": "single_penalty", "doubler_leads_and_takes": "double_penalty"},
    }
    answer = post(client, "/v1/games/trex/deals", body, 422)
    assert_error(answer, "invalid_setup")
    assert "options.doubler_leads_and_takes" in str(answer)


# Marriage's money options (issue 31: every option that changes money is named in the
# settlement's items): the int ones with their default and range, the choices with theirs.
MARRIAGE_MONEY = {
    "seen_payment": {"type": "integer", "default": 3, "minimum": 0},
    "unseen_payment": {"type": "integer", "default": 10, "minimum": 0},
    "dublee_bonus": {"type": "integer", "default": 5, "minimum": 0},
    "man_points": {"type": "integer", "default": 5, "minimum": 0},
    "unseen_maal": {"type": "choice", "default": "count", "choices": ["count", "murder", "kidnap"]},
    "alter_points": {"type": "choice", "default": 0, "choices": [0, 5]},
    "man_cards": {"type": "choice", "default": 0, "choices": [0, 3]},
}


def embedded_games(client, game_id: str) -> dict:
    """The games' metadata the /play page embeds; setup.js builds the form's options from
    it (a select of the choices for a choice option, a number input with the range for
    an int one, the default selected)."""
    html = client.get(f"/play/{game_id}").get_data(as_text=True)
    embedded = re.search(r'<script type="application/json" id="games">(.*?)</script>', html, re.S)
    assert embedded
    return {g["id"]: g for g in json.loads(embedded.group(1))}


@pytest.mark.parametrize("game_id", sorted(HOUSE_RULES))
def test_the_setup_page_form_offers_each_house_rule(client, game_id):
    game = embedded_games(client, game_id)[game_id]
    options = {o["name"]: o for o in game["options"]}
    for name, (default, choices) in HOUSE_RULES[game_id].items():
        assert options[name]["type"] == "choice"
        assert options[name]["choices"] == choices and options[name]["default"] == default


def test_the_setup_page_form_offers_marriages_money_options(client):
    game = embedded_games(client, "marriage")["marriage"]
    options = {o["name"]: o for o in game["options"]}
    for name, want in MARRIAGE_MONEY.items():
        assert {key: options[name].get(key) for key in want} == want, name
        if want["type"] == "integer":
            assert options[name]["maximum"] > want["default"]


@pytest.mark.parametrize("name", sorted(MARRIAGE_MONEY))
def test_a_marriage_deal_echoes_a_money_option(client, name):
    want = MARRIAGE_MONEY[name]
    value = want["choices"][-1] if want["type"] == "choice" else want["default"] + 1
    state = post(client, "/v1/games/marriage/deals", {"seed": 3, "options": {name: value}})["state"]
    assert state["options"][name] == value
    assert post(client, "/v1/games/marriage/legal-moves", {"state": state})["actions"]


def test_the_openapi_score_item_has_the_options_field(client):
    schemas = client.get("/openapi.json").get_json()["components"]["schemas"]
    options = schemas["ScoreItem"]["properties"]["options"]
    assert options["type"] == "array" and options["items"] == {"type": "string"}
    assert "options" not in schemas["ScoreItem"].get("required", [])


def test_a_trex_move_and_its_score_name_the_house_rule(client):
    """V1 over HTTP (rules file, Example 4): seat 1 doubles KH, seat 3 takes it with QS on
    seat 0's 2S lead; under no_gain the taker's item names the option in the move's points
    event and in the score, the default's does not."""
    hands = [["2S", "3S", "4S"], ["KH", "5D", "6D"], ["9S", "TS", "JS"], ["QS", "2C", "3C"]]
    layout = {
        "deal_no": 6,
        "first_owner": 3,
        "dealer": 0,
        "contract": "king_of_hearts",
        "contracts_used": ["king_of_hearts"],
        "hands": hands,
        "phase": "tricks",
        "doubled": {"KH": 1},
        "tricks_played": 10,
        "trick_leader": 0,
    }
    for options, named in (
        ({}, None),
        ({"doubled_card_taken_by_other": "no_gain"}, ["doubled_card_taken_by_other"]),
    ):
        state = post(client, "/v1/games/trex/deals", {"layout": layout, "options": options})["state"]
        for seat, card in ((0, "2S"), (1, "KH"), (2, "9S"), (3, "QS")):
            body = {"state": state, "seat": seat, "action": {"type": "play", "card": card}}
            answer = post(client, "/v1/games/trex/moves", body)
            state = answer["state"]
        taker = next(e for e in answer["events"] if e["type"] == "points" and e["seat"] == 3)
        assert taker["points"] == -150 and taker["item"] == "doubled KH" and taker.get("options") == named
        score = post(client, "/v1/games/trex/score", {"state": state})
        item = next(i for i in score["items"] if i["seat"] == 3)
        assert item.get("options") == named
