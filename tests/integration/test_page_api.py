"""The table page's two JSON routes on a real Redis: the replay's positions (the token's
seat's view after each logged move) and the itemised score, each as that token may see it."""

from __future__ import annotations

import pytest

from tests.integration.conftest import assert_error

pytestmark = pytest.mark.integration

MOVES = 6


def auth(token):
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture()
def played(client):
    """A two-seat Ronda session (both seats people) after MOVES first-legal moves."""
    created = client.post("/v1/sessions", json={"game": "ronda", "players": 2, "seed": 7}).get_json()
    tokens = created["tokens"]
    for _ in range(MOVES):
        seat = client.get(f"/v1/sessions/{created['id']}", headers=auth(tokens[0])).get_json()["to_act"]
        answer = client.get(f"/v1/sessions/{created['id']}", headers=auth(tokens[seat])).get_json()
        move = {"action": answer["legal_actions"][0]["action"], "expected_version": answer["version"]}
        moved = client.post(f"/v1/sessions/{created['id']}/moves", json=move, headers=auth(tokens[seat]))
        assert moved.status_code == 200
    return created["id"], tokens


def test_positions_replay_the_log_as_the_seat_saw_it(client, played):
    session_id, tokens = played
    answer = client.get(f"/play/api/sessions/{session_id}/positions", headers=auth(tokens[0])).get_json()
    positions = answer["positions"]
    assert answer["seat"] == 0 and len(positions) == MOVES + 1
    assert positions[0]["move"] is None
    assert [p["move"]["n"] for p in positions[1:]] == list(range(1, MOVES + 1))
    assert all(p["move"]["label"] for p in positions[1:])
    now = client.get(f"/v1/sessions/{session_id}", headers=auth(tokens[0])).get_json()
    assert positions[-1]["view"] == now["view"] and positions[-1]["to_act"] == now["to_act"]
    assert all(isinstance(p["view"]["hands"][1], int) for p in positions)  # never seat 1's cards


def test_a_spectator_replays_the_public_view(client, played):
    session_id, tokens = played
    spectator = client.post(f"/v1/sessions/{session_id}/spectators", headers=auth(tokens[0])).get_json()
    answer = client.get(f"/play/api/sessions/{session_id}/positions", headers=auth(spectator["token"]))
    assert answer.status_code == 200 and answer.get_json()["seat"] is None
    assert all(isinstance(h, int) for p in answer.get_json()["positions"] for h in p["view"]["hands"])


def test_score_is_the_engines_report(client, played):
    session_id, tokens = played
    answer = client.get(f"/play/api/sessions/{session_id}/score", headers=auth(tokens[1])).get_json()
    now = client.get(f"/v1/sessions/{session_id}", headers=auth(tokens[1])).get_json()
    assert answer["version"] == now["version"]
    assert answer["score"]["scores"] == now["view"]["scores"]
    assert {"sides", "deal_no", "deal_points", "items", "finished"} <= set(answer["score"])


def test_unknown_session_and_foreign_token_are_refused(client, played):
    session_id, _tokens = played
    foreign = client.get(f"/play/api/sessions/{session_id}/score", headers=auth("nope"))
    assert_error(foreign, 401, "unauthorized")
    assert_error(client.get("/play/api/sessions/nope/positions", headers=auth("x")), 404)


def test_with_api_keys_the_page_loads_but_its_json_needs_a_key(make_app):
    client = make_app(API_KEYS=True).test_client()
    for path in ("/play", "/play/ronda", "/static/page/page.css", "/docs"):
        assert client.get(path).status_code == 200, path
    assert client.get("/play/table/abc").status_code == 404  # the page for no such match, not a 401
    assert_error(client.get("/play/api/sessions/abc/score"), 401, "unauthorized")
    assert_error(client.get("/v1/sessions/abc"), 401, "unauthorized")
