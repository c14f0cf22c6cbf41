"""Every stateless endpoint and its errors, over HTTP (Flask test client), with Ronda."""

from __future__ import annotations

import json

import pytest

from engine import get_game
from tests.engine.test_new_state import a_layout, other_value, two_options
from tests.problems import error_code, extensions
from tests.service.conftest import assert_error, post

E1_DECK = (
    "AS 2S 3S 4S 5S 6S 7S JS QS KS AH 2H 3H 5H JH KH "
    "AD AC 2D 2C 3D 3C 4H 4D 4C 5D 5C 6H 6D 6C 7H 7D 7C JD JC QH QD QC KD KC"
).split()


def deal(client, **body):
    body.setdefault("players", 2)
    return post(client, "/v1/games/ronda/deals", body)["state"]


def test_healthz(client):
    assert client.get("/healthz").get_json() == {"status": "ok"}


def test_games_lists_all_five(client):
    games = client.get("/v1/games").get_json()["games"]
    assert [g["id"] for g in games] == ["ronda", "baloot", "trex", "porrazo", "marriage"]
    ronda = client.get("/v1/games/ronda").get_json()
    assert ronda["players"] == [2, 3, 4]
    names = {o["name"]: o for o in ronda["options"]}
    assert names["target_score"]["default"] == 41
    assert "play" in ronda["verbs"]


def test_unknown_game_is_404(client):
    answer = client.get("/v1/games/chess")
    assert answer.status_code == 404
    assert_error(answer.get_json(), "unknown_game")
    answer = client.post("/v1/games/chess/deals", json={"players": 2})
    assert answer.status_code == 404
    assert_error(answer.get_json(), "unknown_game")


def test_unknown_path_and_method_are_json(client):
    assert_error(client.get("/v1/nothing").get_json(), "not_found")
    answer = client.get("/v1/games/ronda/moves")
    assert answer.status_code == 405
    assert_error(answer.get_json(), "method_not_allowed")


def test_deal_with_seed_is_reproducible(client):
    assert deal(client, seed=7) == deal(client, seed=7)
    assert deal(client, seed=7) != deal(client, seed=8)


def test_deal_without_seed_draws_one(client):
    state = deal(client)
    assert isinstance(state["rng_state"], str) and state["rng_state"].isdigit()


def test_deal_with_explicit_deck_e1(client):
    state = deal(client, players=4, dealer=3, deck=E1_DECK)
    assert state["hands"][0] == ["AS", "2S", "3S"]
    assert state["table"] == ["3H", "5H", "JH", "KH"]
    assert state["to_act"] == 0 and state["phase"] == "declare"


@pytest.mark.parametrize(
    "body, field",
    [
        ({"players": "two"}, "players"),
        ({"players": 2, "colour": "red"}, "colour"),
        ({"players": 2, "seed": -1}, "seed"),
        ({"players": 2, "deck": ["ZZ"]}, "deck"),
        ({"players": 5}, "players"),
        ({"players": 2, "dealer": 2}, "dealer"),
        ({"players": 2, "options": {"target_score": 0}}, "options.target_score"),
        ({"players": 2, "options": {"nonsense": 1}}, "options.nonsense"),
        ({"players": 3, "options": {"deal_style": "no_table"}}, "options"),
    ],
)
def test_bad_deal_requests_are_422_naming_the_field(client, body, field):
    answer = post(client, "/v1/games/ronda/deals", body, 422)
    assert error_code(answer) in {"invalid_request", "invalid_setup", "invalid_state"}
    assert field in json.dumps([answer["detail"], extensions(answer)]), answer


def test_invalid_json_is_400(client):
    response = client.post("/v1/games/ronda/deals", data="{not json", content_type="application/json")
    assert response.status_code == 400
    assert_error(response.get_json(), "invalid_json")


def test_body_that_is_not_an_object_is_rejected(client):
    response = client.post("/v1/games/ronda/deals", json=[1, 2])
    assert response.status_code in (400, 422)
    assert error_code(response)


def test_oversized_body_is_413(client, app):
    big = "x" * (app.config["MAX_CONTENT_LENGTH"] + 10)
    response = client.post("/v1/games/ronda/moves", data=big, content_type="application/json")
    assert response.status_code == 413
    assert_error(response.get_json(), "request_too_large")


def test_legal_moves_from_state_and_from_view(client):
    state = deal(client, players=4, dealer=3, deck=E1_DECK)
    answer = post(client, "/v1/games/ronda/legal-moves", {"state": state})
    assert answer["to_act"] == 0
    assert answer["actions"] == [
        {"type": "pass"},
        {"type": "declare", "combo": "ronda"},
        {"type": "declare", "combo": "tringa"},
    ]
    assert answer["labels"] == ["pass", "declare ronda", "declare tringa"]
    view = post(client, "/v1/games/ronda/view", {"state": state, "seat": 0})["view"]
    assert post(client, "/v1/games/ronda/legal-moves", {"view": view}) == answer
    other = post(client, "/v1/games/ronda/view", {"state": state, "seat": 1})["view"]
    assert post(client, "/v1/games/ronda/legal-moves", {"view": other}) == {
        "to_act": 0,
        "actions": [],
        "labels": [],
    }


def test_legal_moves_needs_exactly_one_of_state_or_view(client):
    post(client, "/v1/games/ronda/legal-moves", {}, 422)
    state = deal(client, seed=1)
    post(client, "/v1/games/ronda/legal-moves", {"state": state, "view": state}, 422)


def test_move_applies_and_returns_events(client):
    state = deal(client, players=4, dealer=3, deck=E1_DECK)
    answer = post(client, "/v1/games/ronda/moves", {"state": state, "seat": 0, "action": {"type": "pass"}})
    assert answer["state"]["to_act"] == 1
    assert isinstance(answer["events"], list)
    assert answer["state"]["history"][-1]["seat"] == 0


def test_illegal_move_names_rule_reason_and_legal_actions(client):
    state = deal(client, players=4, dealer=3, deck=E1_DECK)
    answer = post(
        client,
        "/v1/games/ronda/moves",
        {"state": state, "seat": 0, "action": {"type": "play", "card": "AS"}},
        422,
    )
    assert_error(answer, "illegal_move")
    assert answer["detail"].startswith("wrong phase")
    assert {"type": "pass"} in answer["legal_actions"]


def test_acting_out_of_turn_is_not_your_turn(client):
    state = deal(client, players=4, dealer=3, deck=E1_DECK)
    answer = post(
        client, "/v1/games/ronda/moves", {"state": state, "seat": 2, "action": {"type": "pass"}}, 422
    )
    assert_error(answer, "not_your_turn")
    assert answer["detail"] == "not your turn: seat 0 is to act"


@pytest.mark.parametrize(
    "action, field",
    [
        ({"type": "play", "card": "TH"}, "TH"),
        ({"type": "play", "card": "ZZ"}, "ZZ"),
        ({"type": "play"}, "card"),
        ({"type": "fly"}, "type"),
        ({"card": "AS"}, "type"),
        ({"type": "pass", "extra": 1}, "extra"),
    ],
)
def test_unreadable_actions_are_422_naming_the_problem(client, action, field):
    state = deal(client, players=4, dealer=3, deck=E1_DECK)
    answer = post(client, "/v1/games/ronda/moves", {"state": state, "seat": 0, "action": action}, 422)
    assert error_code(answer) in {"invalid_action", "illegal_move"}
    assert field in json.dumps([answer["detail"], extensions(answer)]), answer


def test_move_request_fields_are_checked(client):
    state = deal(client, seed=3)
    answer = post(client, "/v1/games/ronda/moves", {"state": state, "action": {"type": "pass"}}, 422)
    assert_error(answer, "invalid_request")
    assert "seat" in answer["fields"]
    answer = post(
        client,
        "/v1/games/ronda/moves",
        {"state": state, "seat": 0, "action": {"type": "pass"}, "hello": 1},
        422,
    )
    assert "hello" in answer["fields"]
    answer = post(
        client, "/v1/games/ronda/moves", {"state": state, "seat": 9, "action": {"type": "pass"}}, 422
    )
    assert "seat" in json.dumps([answer["detail"], extensions(answer)])


def test_tampered_states_are_invalid_state(client):
    state = deal(client, seed=5)
    tampered = [
        dict(state, phase="dancing"),
        dict(state, hands=[state["hands"][0] + [state["hands"][1][0]], state["hands"][1]]),
        dict(state, hands=[state["hands"][0][:1], state["hands"][1]]),
        dict(state, table=state["table"] + ["QQ"]),
        dict(state, scores="lots"),
        {k: v for k, v in state.items() if k != "hands"},
    ]
    for bad in tampered:
        answer = post(client, "/v1/games/ronda/legal-moves", {"state": bad}, 422)
        assert_error(answer, "invalid_state")


def test_view_hides_other_hands_and_stock(client):
    state = deal(client, seed=11)
    view = post(client, "/v1/games/ronda/view", {"state": state, "seat": 0})["view"]
    text = json.dumps(view)
    for card in state["hands"][1] + state["stock"]:
        if card not in state["table"]:
            assert f'"{card}"' not in text
    assert "rng_state" not in view
    assert view["seat"] == 0


def test_score_answers_totals_and_items(client):
    state = deal(client, seed=2)
    answer = post(client, "/v1/games/ronda/score", {"state": state})
    assert answer["scores"] == [0, 0]
    assert answer["finished"] is False
    assert isinstance(answer["items"], list)


def test_bot_move_random_is_seeded_and_legal(client):
    state = deal(client, seed=21)
    seat = state["to_act"]
    body = {"state": state, "seat": seat, "level": "random", "seed": 4}
    first = post(client, "/v1/games/ronda/bot-move", body)
    assert post(client, "/v1/games/ronda/bot-move", body)["action"] == first["action"]
    legal = post(client, "/v1/games/ronda/legal-moves", {"state": state})["actions"]
    assert first["action"] in legal


def test_bot_move_from_a_view_and_wrong_seat(client):
    state = deal(client, seed=22)
    seat = state["to_act"]
    view = post(client, "/v1/games/ronda/view", {"state": state, "seat": seat})["view"]
    answer = post(
        client,
        "/v1/games/ronda/bot-move",
        {"view": view, "seat": seat, "level": "normal", "budget": {"iterations": 50}, "seed": 1},
    )
    assert answer["stats"]["iterations"] <= 50
    answer = post(client, "/v1/games/ronda/bot-move", {"view": view, "seat": 1 - seat}, 422)
    assert_error(answer, "wrong_seat")
    answer = post(client, "/v1/games/ronda/bot-move", {"state": state, "seat": 1 - seat}, 422)
    assert_error(answer, "not_your_turn")
    post(client, "/v1/games/ronda/bot-move", {"state": state, "seat": seat, "level": "genius"}, 422)


def test_openapi_and_docs(client):
    spec = client.get("/openapi.json").get_json()
    assert spec["openapi"].startswith("3.")
    for path in [
        "/v1/games",
        "/v1/games/{game_id}/deals",
        "/v1/games/{game_id}/legal-moves",
        "/v1/games/{game_id}/moves",
        "/v1/games/{game_id}/score",
        "/v1/games/{game_id}/view",
        "/v1/games/{game_id}/bot-move",
    ]:
        assert path in spec["paths"], path
    assert client.get("/docs").status_code == 200


@pytest.mark.parametrize("game_id", ["ronda", "baloot", "trex", "porrazo", "marriage"])
def test_a_layouts_options_and_the_requests_are_one_set_over_http(client, game_id):
    """Game.layout_options through the stateless API: an option named once holds, the
    same option named twice with two values is a 422 naming it."""
    game = get_game(game_id)
    first, second = two_options(game)
    layout = a_layout(game, {first.name: other_value(first)})
    body = {
        "players": min(game.player_counts),
        "layout": layout,
        "options": {second.name: other_value(second)},
    }
    options = post(client, f"/v1/games/{game_id}/deals", body)["state"]["options"]
    assert (options[first.name], options[second.name]) == (other_value(first), other_value(second))
    body["options"] = {first.name: first.default}
    answer = post(client, f"/v1/games/{game_id}/deals", body, 422)
    assert_error(answer, "invalid_setup")
    assert extensions(answer).get("field") == f"options.{first.name}", answer
