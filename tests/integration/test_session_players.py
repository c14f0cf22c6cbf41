"""POST /v1/sessions: the players default and the error for a wrong count (real Redis)."""

from __future__ import annotations

import pytest

from tests.engine.test_players import DEFAULT_PLAYERS
from tests.integration.conftest import assert_error
from tests.problems import extensions

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("game_id", ["ronda", "trex"])
def test_session_without_players_seats_the_default_count(client, game_id):
    answer = client.post("/v1/sessions", json={"game": game_id, "seed": 5})
    assert answer.status_code == 201, answer.get_json()
    created = answer.get_json()
    assert len(created["tokens"]) == len(created["seats"]) == DEFAULT_PLAYERS[game_id]


def test_session_with_a_wrong_count_names_the_field_and_the_allowed_counts(client):
    error = assert_error(client.post("/v1/sessions", json={"game": "baloot", "players": 2}), 422)
    assert error["code"] == "invalid_setup"
    assert error["detail"] == "players must be 4"
    assert extensions(error) == {"field": "players", "allowed": [4]}
