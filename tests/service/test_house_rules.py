"""Issue 31's house rules over HTTP: GET /v1/games lists each with its default and allowed
values (the /play page's setup form builds a select of the choices from that list:
service/static/page/setup.js), the OpenAPI schema of the game's options has them, a deal
accepts them and echoes a non-default value, and an unknown value is a 422 naming the
allowed ones."""

from __future__ import annotations

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
