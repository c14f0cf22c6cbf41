"""Game.check_players: the default player count and the error for a wrong one."""

from __future__ import annotations

import pytest

from engine import get_game
from engine.protocol import InvalidSetup

# The only count where a game has one (Baloot, Trex), else the smallest.
DEFAULT_PLAYERS = {"ronda": 2, "baloot": 4, "trex": 4, "porrazo": 2, "marriage": 2}


@pytest.mark.parametrize("game_id", DEFAULT_PLAYERS)
def test_players_not_given_is_the_default_count(game_id):
    assert get_game(game_id).check_players(None) == DEFAULT_PLAYERS[game_id]


@pytest.mark.parametrize("game_id", DEFAULT_PLAYERS)
def test_every_listed_count_is_accepted(game_id):
    game = get_game(game_id)
    assert [game.check_players(n) for n in game.player_counts] == list(game.player_counts)


@pytest.mark.parametrize("players", [1, 5, 0, True, 2.0, "2"])
def test_wrong_count_names_the_field_and_the_allowed_counts(players):
    with pytest.raises(InvalidSetup) as error:
        get_game("ronda").check_players(players)
    assert error.value.message == "players must be one of 2, 3, 4"
    assert error.value.field == "players"
    assert error.value.details == {"allowed": [2, 3, 4]}


def test_a_game_of_one_count_says_that_count():
    with pytest.raises(InvalidSetup) as error:
        get_game("trex").check_players(3)
    assert error.value.message == "players must be 4"
    assert error.value.details == {"allowed": [4]}
