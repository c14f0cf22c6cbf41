"""Issue 15: what a client sends is refused with a 4xx JSON error, never a 500 or a
misleading answer: JSON nested too deep, bodies that are not JSON, ids that the
service never issued."""

from __future__ import annotations

import json

import pytest

from service.domain_errors import NotFound
from service.errors import domain_status
from service.redis_conn import Keys
from tests.problems import extensions
from tests.service.conftest import assert_error

SESSION = "0123456789abcdef" * 2
# Every POST endpoint that reads a JSON body (claim reads none).
BODY_ENDPOINTS = [
    "/v1/games/ronda/deals",
    "/v1/games/ronda/legal-moves",
    "/v1/games/ronda/moves",
    "/v1/games/ronda/score",
    "/v1/games/ronda/view",
    "/v1/games/ronda/bot-move",
    "/v1/games/ronda/hint",
    "/v1/sessions",
    f"/v1/sessions/{SESSION}/moves",
    f"/v1/sessions/{SESSION}/bot-move",
    f"/v1/sessions/{SESSION}/leave",
    f"/v1/sessions/{SESSION}/hint",
    "/v1/games/ronda/review",
    f"/v1/sessions/{SESSION}/review",
    f"/play/api/sessions/{SESSION}/ack",
]


def test_the_list_covers_every_post_endpoint(app):
    posts = {rule.rule for rule in app.url_map.iter_rules() if "POST" in rule.methods}
    listed = {path.replace("ronda", "<game_id>").replace(SESSION, "<session_id>") for path in BODY_ENDPOINTS}
    assert posts - listed == {
        "/v1/sessions/<session_id>/claim",
        "/v1/sessions/<session_id>/spectators",
        "/play/api/sessions/<session_id>/hold",
    }


def nested(depth: int) -> str:
    return '{"state": ' + "[" * depth + "]" * depth + "}"


@pytest.mark.parametrize("path", BODY_ENDPOINTS)
@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_json_nested_too_deep_is_400_invalid_json(client, path, depth):
    """It was a 500: RecursionError in json.loads (the fast path and webargs)."""
    response = client.post(path, data=nested(depth), content_type="application/json")
    assert response.status_code == 400, response.get_data(as_text=True)[:300]
    assert_error(response.get_json(), "invalid_json")


@pytest.mark.parametrize("path", ["/v1/games/ronda/legal-moves", "/v1/games/ronda/deals"])
@pytest.mark.parametrize("raw", [b"{not json", b'{"players": \xff}', b"[1, 2"])
def test_unparsable_json_is_400_invalid_json_on_both_paths(client, path, raw):
    """legal-moves reads its body on the fast path, deals through webargs: one code."""
    response = client.post(path, data=raw, content_type="application/json")
    assert response.status_code == 400
    assert_error(response.get_json(), "invalid_json")
    assert response.get_json()["reason"]


@pytest.mark.parametrize("path", BODY_ENDPOINTS)
@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded"])
def test_a_body_that_is_not_json_is_415(client, path, content_type):
    """It was a 422 about the fields ("give exactly one of 'state' or 'view'")."""
    response = client.post(path, data='{"players": 2}', content_type=content_type)
    assert response.status_code == 415
    assert_error(response, "unsupported_media_type")
    error = response.get_json()
    assert "application/json" in error["detail"]
    assert extensions(error) == {"expected": "application/json", "received": content_type}


def test_a_json_body_without_content_type_is_read_as_json(client):
    """It was answered "players: Missing data" (the body was ignored)."""
    response = client.post("/v1/games/ronda/deals", data='{"players": 2, "seed": 1}')
    assert response.status_code == 200, response.get_json()
    state = response.get_json()["state"]
    response = client.post("/v1/games/ronda/legal-moves", data=json.dumps({"state": state}))
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["to_act"] == state["to_act"]


def test_a_json_subtype_is_json(client):
    response = client.post(
        "/v1/games/ronda/deals", data='{"players": 2}', content_type="application/vnd.api+json"
    )
    assert response.status_code == 200


@pytest.mark.parametrize(
    "name, code",
    [
        ("job", "unknown_job"),
        ("job_parts", "unknown_job"),
        ("session", "unknown_session"),
        ("session_log", "unknown_session"),
    ],
)
@pytest.mark.parametrize("bad", [SESSION + ":log", SESSION.upper(), SESSION[:-1], "", "*", SESSION + "\n"])
def test_keys_refuse_an_id_the_service_never_issued(name, code, bad):
    """A session id from the URL reached a Redis key unchecked: ``<id>:log`` named the
    session's log list, and its HGETALL answered 503 "WRONGTYPE"."""
    with pytest.raises(NotFound) as raised:
        getattr(Keys("p"), name)(bad)
    assert domain_status(type(raised.value)) == 404 and raised.value.code == code


def test_keys_of_issued_ids():
    keys = Keys("p")
    assert keys.session(SESSION) == f"p:session:{SESSION}"
    assert keys.session_log(SESSION) == f"p:session:{SESSION}:log"
    assert keys.job(SESSION) == f"p:job:{SESSION}"
    assert keys.job_parts(SESSION) == f"p:job:{SESSION}:parts"
