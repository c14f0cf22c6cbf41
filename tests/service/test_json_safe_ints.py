"""Issue 15: every integer the service writes survives a JSON reader that parses numbers
as doubles (JavaScript's ``JSON.parse``), and a seed such a reader may have rounded is
refused rather than silently used."""

from __future__ import annotations

import pytest

from engine import GAME_IDS, get_game
from tests.service.conftest import assert_error, post

SAFE = 2**53


def integers(value):
    """Every integer (not bool) inside a JSON value."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from integers(v)
    elif isinstance(value, list):
        for v in value:
            yield from integers(v)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_unseeded_deals_and_bot_moves_write_only_double_safe_integers(client, game_id):
    game = get_game(game_id)
    state = post(client, f"/v1/games/{game_id}/deals", {})["state"]
    assert all(abs(n) < SAFE for n in integers(state)), state
    seat = post(client, f"/v1/games/{game_id}/legal-moves", {"state": state})["to_act"]
    if seat is None or not game.legal_actions(game.from_json(state)):
        return
    for level in ("random", "normal"):
        body = {"state": state, "seat": seat, "level": level, "budget": {"iterations": 5, "ms": 200}}
        answer = post(client, f"/v1/games/{game_id}/bot-move", body)
        assert 0 <= answer["stats"]["seed"] < SAFE, answer["stats"]
        assert all(abs(n) < SAFE for n in integers(answer)), answer


@pytest.mark.parametrize("path", ["/v1/games/ronda/deals", "/v1/games/ronda/bot-move"])
def test_a_seed_beyond_double_precision_is_refused(client, path):
    state = post(client, "/v1/games/ronda/deals", {"players": 2, "seed": 1})["state"]
    body = {"players": 2} if path.endswith("deals") else {"state": state, "seat": 1}
    body["seed"] = SAFE
    answer = client.post(path, json=body)
    assert answer.status_code == 422, answer.get_json()
    assert_error(answer.get_json(), "invalid_request")
    assert "seed" in answer.get_json()["fields"]
    body["seed"] = SAFE - 1
    assert client.post(path, json=body).status_code == 200
