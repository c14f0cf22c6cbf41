"""bot-move's ``seat`` is optional: it defaults to the seat to act (from a state) or to
the view's own seat, and the bot decides exactly as if that seat had been given."""

from __future__ import annotations

from tests.service.conftest import assert_error, post

PATH = "/v1/games/ronda/bot-move"


def dealt(client) -> dict:
    return post(client, "/v1/games/ronda/deals", {"players": 2, "seed": 42})["state"]


def test_bot_move_without_seat_plays_the_seat_to_act(client):
    state = dealt(client)
    body = {"state": state, "level": "normal", "budget": {"iterations": 60}, "seed": 3}
    without = post(client, PATH, body)
    given = post(client, PATH, dict(body, seat=state["to_act"]))
    assert without["action"] == given["action"]
    assert without["stats"]["iterations"] == given["stats"]["iterations"] == 60


def test_bot_move_from_a_view_without_seat_plays_the_views_seat(client):
    state = dealt(client)
    view = post(client, "/v1/games/ronda/view", {"state": state, "seat": state["to_act"]})["view"]
    answer = post(client, PATH, {"view": view, "level": "random", "seed": 1})
    legal = post(client, "/v1/games/ronda/legal-moves", {"state": state})["actions"]
    assert answer["action"] in legal


def test_a_view_of_a_seat_not_to_act_is_still_refused(client):
    state = dealt(client)
    other = 1 - state["to_act"]
    view = post(client, "/v1/games/ronda/view", {"state": state, "seat": other})["view"]
    answer = post(client, PATH, {"view": view, "level": "random"}, 422)
    assert_error(answer, "not_your_turn")
