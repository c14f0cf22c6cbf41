"""Every error is RFC 9457 problem details (service/errors.py); the old
``{"error": {...}}`` shape stays behind MAJLIS_ERROR_FORMAT=legacy for one version."""

from __future__ import annotations

import importlib.util
import json
import socket

import pytest

from service import create_app, errors
from service import settings as service_settings
from tests.clients.conftest import ROOT
from tests.clients.test_errors import answered_codes
from tests.problems import PROBLEM_JSON, error_code, extensions, problem


def illegal_move(client, **headers):
    """Seat 1 plays a card during Ronda's declaration round (rule R8)."""
    state = client.post("/v1/games/ronda/deals", json={"players": 2, "seed": 42}).get_json()["state"]
    body = {"state": state, "seat": 1, "action": {"type": "play", "card": state["hands"][1][0]}}
    return client.post("/v1/games/ronda/moves", json=body, headers=headers)


def test_an_illegal_move_is_problem_details_with_its_rule_and_legal_actions(client):
    answer = illegal_move(client, **{"X-Request-ID": "req-42"})
    body = problem(answer, 422)
    assert answer.mimetype == PROBLEM_JSON
    assert body["type"] == "/problems/illegal_move" and body["title"] == "Illegal move"
    assert body["instance"] == "urn:majlis:request:req-42"
    assert body["detail"].startswith("wrong phase")
    assert body["rule"] == "R8" and body["reason"] and {"type": "pass"} in body["legal_actions"]
    assert "error" not in body and "details" not in body


def test_a_detail_named_like_a_standard_member_is_kept_under_details():
    body = errors.problem(422, "invalid_state", "bad", {"field": "view", "status": "odd", "type": "x"})
    assert (body["status"], body["type"], body["field"]) == (422, "/problems/invalid_state", "view")
    assert body["details"] == {"status": "odd", "type": "x"}


def test_the_legacy_setting_answers_the_old_shape():
    settings = service_settings.TestSettings()
    settings.ERROR_FORMAT = "legacy"
    client = create_app(settings).test_client()
    answer = illegal_move(client)
    assert answer.status_code == 422 and answer.mimetype == "application/json"
    body = answer.get_json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}
    assert body["error"]["code"] == "illegal_move" and body["error"]["details"]["rule"] == "R8"
    missing = client.get("/v1/nowhere").get_json()
    assert missing["error"]["code"] == "not_found"


def test_the_default_setting_is_problem_details():
    assert service_settings.TestSettings().ERROR_FORMAT == "problem"


@pytest.mark.parametrize("code", sorted({code for _, code in answered_codes()} | {"job_failed"}))
def test_the_type_of_every_code_is_a_page_saying_what_it_means(client, code):
    answer = client.get(f"/problems/{code}")
    assert answer.status_code == 200, answer.get_json()
    page = answer.get_json()
    assert page == {"type": f"/problems/{code}", "code": code, "title": errors.title(code)} | {
        "description": page["description"]
    }
    assert page["description"] and "{" not in page["description"] and "[" not in page["description"]


def test_a_problem_type_page_is_html_for_a_browser_and_follows_the_language(client):
    answer = client.get("/problems/not_your_turn", headers={"Accept": "text/html", "Accept-Language": "es"})
    assert answer.status_code == 200 and answer.mimetype == "text/html"
    text = answer.get_data(as_text=True)
    assert "<h1>Not your turn</h1>" in text and "no es tu turno" in text and 'lang="es"' in text


def test_an_unknown_problem_type_is_a_404_problem(client):
    answer = client.get("/problems/teapot")
    assert answer.status_code == 404 and error_code(answer) == "not_found"


def test_a_failed_job_is_described_as_a_problem_too(app):
    with app.test_request_context(headers={"Accept-Language": "ar"}):
        arabic = errors.job_problem("the search ran past its time limit")
    with app.test_request_context():
        english = errors.job_problem("the search ran past its time limit")
    assert problem(english, 500)["code"] == "job_failed"
    assert english["detail"] == "the search ran past its time limit"
    assert arabic["detail"] == "فشلت المهمة" and extensions(arabic) == extensions(english) == {}


def gunicorn_writer():
    """deploy/gunicorn.conf.py's error writer (loading the file installs it in gunicorn)."""
    spec = importlib.util.spec_from_file_location(
        "majlis_gunicorn_conf", ROOT / "deploy" / "gunicorn.conf.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.write_json_error


def written_by_gunicorn(status: int, reason: str, message: str) -> tuple[str, dict]:
    """(Content-Type, JSON body) of gunicorn's own error answer."""
    ours, theirs = socket.socketpair()
    with ours, theirs:
        gunicorn_writer()(ours, status, reason, message)
        ours.shutdown(socket.SHUT_WR)
        raw = b"".join(iter(lambda: theirs.recv(65536), b""))
    head, _, body = raw.partition(b"\r\n\r\n")
    headers = dict(line.split(": ", 1) for line in head.decode().split("\r\n")[1:])
    return headers["Content-Type"], json.loads(body)


@pytest.mark.parametrize("legacy", [False, True], ids=["problem", "legacy"])
def test_gunicorns_own_errors_follow_the_setting(monkeypatch, legacy):
    if legacy:
        monkeypatch.setenv("MAJLIS_ERROR_FORMAT", "legacy")
    content_type, body = written_by_gunicorn(431, "Request Header Fields Too Large", "too many headers")
    if legacy:
        assert content_type == "application/json"
        assert body == {
            "error": {"code": "request_header_fields_too_large", "message": "too many headers", "details": {}}
        }
    else:
        assert content_type == PROBLEM_JSON
        assert problem(body, 431)["code"] == "request_header_fields_too_large"
        assert body["detail"] == "too many headers"
