"""Languages on a session, on a real Redis: the labels of the seat's legal actions and
the session's errors follow Accept-Language (service/i18n.py)."""

from __future__ import annotations

import re

import pytest

from tests.integration.conftest import GAME, assert_error
from tests.problems import extensions

pytestmark = pytest.mark.integration

ARABIC = re.compile(r"[\u0600-\u06ff]")


@pytest.fixture(scope="module")
def humans_only(make_app):
    """An app without a worker: every seat is a person's, so no bot job runs."""
    return make_app().test_client()


def test_a_session_answer_labels_its_legal_actions_in_the_language(humans_only):
    created = humans_only.post("/v1/sessions", json={"game": GAME, "players": 2, "seed": 7}).get_json()
    seat, token = created["to_act"], created["tokens"][created["to_act"]]
    headers = {"Authorization": f"Bearer {token}", "Accept-Language": "ar, en;q=0.5"}
    arabic = humans_only.get(f"/v1/sessions/{created['id']}", headers=headers)
    english = humans_only.get(f"/v1/sessions/{created['id']}", headers={"Authorization": f"Bearer {token}"})
    assert arabic.status_code == 200 and arabic.headers["Content-Language"] == "ar"
    assert english.headers["Content-Language"] == "en"
    legal, english_legal = arabic.get_json()["legal_actions"], english.get_json()["legal_actions"]
    assert arabic.get_json()["seat"] == seat and legal
    assert [a["action"] for a in legal] == [a["action"] for a in english_legal]
    assert all(ARABIC.search(entry["label"]) for entry in legal)
    assert not any(ARABIC.search(entry["label"]) for entry in english_legal)


def test_a_stale_version_is_refused_in_spanish_with_the_same_details(humans_only):
    created = humans_only.post("/v1/sessions", json={"game": GAME, "players": 2, "seed": 7}).get_json()
    token = created["tokens"][created["to_act"]]
    headers = {"Authorization": f"Bearer {token}", "Accept-Language": "es-ES"}
    url = f"/v1/sessions/{created['id']}"
    action = humans_only.get(url, headers=headers).get_json()["legal_actions"][0]["action"]
    body = {"action": action, "expected_version": 0}
    assert humans_only.post(f"{url}/moves", json=body, headers=headers).status_code == 200
    stale = humans_only.post(f"{url}/moves", json=body, headers=headers)
    error = assert_error(stale, 409, "stale_version")
    assert stale.headers["Content-Language"] == "es"
    assert extensions(error) == {"version": 1, "expected_version": 0}
    assert error["detail"] == "la sesión ha cambiado (versión 1, no 0): recárgala y vuelve a intentarlo"
