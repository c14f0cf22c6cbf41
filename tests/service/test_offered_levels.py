"""The bot levels each game offers (GET /v1/games): weakest first, each one measured above
the one below it (issue 32); every level is still accepted by the bot routes."""

from __future__ import annotations

from ai.bots import HARD_MEASURED_ABOVE_NORMAL, LEVELS, offered_levels
from engine import GAME_IDS


def test_every_game_offers_random_easy_and_normal_and_hard_only_where_it_beat_normal():
    for game_id in GAME_IDS:
        offered = offered_levels(game_id)
        assert offered[:3] == ("random", "easy", "normal")
        assert ("hard" in offered) == (game_id in HARD_MEASURED_ABOVE_NORMAL)
        assert [lv for lv in LEVELS if lv in offered] == list(offered)  # weakest first
    assert HARD_MEASURED_ABOVE_NORMAL == {"baloot", "porrazo"}


def test_the_games_list_and_each_game_say_their_levels(client):
    listed = {g["id"]: g["levels"] for g in client.get("/v1/games").get_json()["games"]}
    assert listed == {game_id: list(offered_levels(game_id)) for game_id in GAME_IDS}
    assert client.get("/v1/games/ronda").get_json()["levels"] == ["random", "easy", "normal"]
    assert client.get("/v1/games/baloot").get_json()["levels"] == ["random", "easy", "normal", "hard"]
    assert client.get("/v1/games/porrazo").get_json()["levels"] == ["random", "easy", "normal", "hard"]


def test_hard_is_still_accepted_where_it_is_not_offered(client):
    # a longer search for hints and analysis: an app that asks for it is not refused
    dealt = client.post("/v1/games/ronda/deals", json={"players": 2, "seed": 3}).get_json()
    body = {"state": dealt["state"], "level": "hard", "budget": {"iterations": 50}, "seed": 1}
    answer = client.post("/v1/games/ronda/bot-move", json=body)
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["stats"]["level"] == "hard"
