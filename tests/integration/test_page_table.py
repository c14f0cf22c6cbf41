"""The table page on a real Redis: its HTML for a real session and the 404 page for an
unknown one, the score sheet replayed from the log, and the deal-end hold (the bots wait
for a page's seat to dismiss the summary of a deal, at most page_hold.MOST_SECONDS)."""

from __future__ import annotations

import uuid

import pytest

from service import sessions as S
from service.page import hold as page_hold
from service.runtime import RUNTIME_EXTENSION
from tests.integration.conftest import assert_error

pytestmark = pytest.mark.integration


def auth(token):
    return {"Authorization": f"Bearer {token}"}


def new_ronda(client):
    created = client.post("/v1/sessions", json={"game": "ronda", "players": 2, "seed": 11}).get_json()
    return created["id"], created["tokens"]


def play_first_legal(client, session_id, tokens, until_deal: int) -> dict:
    """Both seats (people) play their first legal action until deal ``until_deal`` starts."""
    for _ in range(500):
        answer = client.get(f"/v1/sessions/{session_id}", headers=auth(tokens[0])).get_json()
        if answer["view"]["deal_no"] >= until_deal or answer["finished"]:
            return answer
        seat = answer["to_act"]
        mine = client.get(f"/v1/sessions/{session_id}", headers=auth(tokens[seat])).get_json()
        move = {"action": mine["legal_actions"][0]["action"], "expected_version": mine["version"]}
        assert (
            client.post(f"/v1/sessions/{session_id}/moves", json=move, headers=auth(tokens[seat])).status_code
            == 200
        )
    raise AssertionError("the deal did not end")


def test_the_table_of_a_session_and_the_404_page_of_an_unknown_one(client):
    session_id, _tokens = new_ronda(client)
    html = client.get(f"/play/table/{session_id}").get_data(as_text=True)
    assert 'data-game="ronda"' in html and f"/v1/sessions/{session_id}/events" in html
    assert client.get(f"/play/replay/{session_id}").status_code == 200
    missing = client.get(f"/play/table/{uuid.uuid4().hex}")
    assert missing.status_code == 404 and 'id="missing"' in missing.get_data(as_text=True)


def test_the_sheet_itemises_each_finished_deal(client):
    session_id, tokens = new_ronda(client)
    assert (
        client.get(f"/play/api/sessions/{session_id}/sheet", headers=auth(tokens[0])).get_json()["deals"]
        == []
    )
    now = play_first_legal(client, session_id, tokens, until_deal=2)
    sheet = client.get(f"/play/api/sessions/{session_id}/sheet", headers=auth(tokens[1])).get_json()
    [deal] = sheet["deals"]
    assert deal["deal_no"] == 1 and deal["totals"] == now["view"]["scores"]
    assert deal["points"] == deal["totals"]  # the first deal: the match started at 0
    for side in range(2):  # its items add up to its points
        assert sum(item["points"] for item in deal["items"] if item["side"] == side) == deal["points"][side]
    assert sheet["sides"] == [[0], [1]] and sheet["version"] == now["version"]


def test_bots_wait_for_a_held_seat_to_dismiss_the_deal_summary(client, app):
    session_id, tokens = new_ronda(client)
    assert client.post(f"/play/api/sessions/{session_id}/hold", headers=auth(tokens[0])).status_code == 200
    play_first_legal(client, session_id, tokens, until_deal=2)
    store = S.SessionStore(app.extensions[RUNTIME_EXTENSION])
    session = store.load(session_id)
    left = page_hold.wait_left(store, session)
    assert 0 < left <= page_hold.MOST_SECONDS  # deal 1's summary is not dismissed yet
    since = float(store.r.hget(page_hold.key(store, session_id), "since:1"))
    assert page_hold.wait_left(store, session, now=since + page_hold.MOST_SECONDS + 1) == 0  # bounded
    ack = f"/play/api/sessions/{session_id}/ack"
    answer = client.post(ack, json={"deals": 1}, headers=auth(tokens[0]))
    assert answer.status_code == 200 and answer.get_json() == {"seat": 0, "deals": 1}
    assert page_hold.wait_left(store, session) == 0
    # an older acknowledgement never takes it back
    client.post(ack, json={"deals": 0}, headers=auth(tokens[0]))
    assert page_hold.wait_left(store, session) == 0


def test_a_session_no_page_holds_never_waits(client, app):
    session_id, tokens = new_ronda(client)
    play_first_legal(client, session_id, tokens, until_deal=2)
    store = S.SessionStore(app.extensions[RUNTIME_EXTENSION])
    assert page_hold.wait_left(store, store.load(session_id)) == 0


@pytest.mark.parametrize("body", [None, {}, {"deals": "1"}, {"deals": -1}, {"deals": True}, [1]])
def test_an_ack_needs_a_number_of_deals(client, body):
    session_id, tokens = new_ronda(client)
    answer = client.post(f"/play/api/sessions/{session_id}/ack", json=body, headers=auth(tokens[0]))
    assert_error(answer, 422, "invalid_request")


def test_hold_and_ack_need_a_seat_token(client):
    session_id, tokens = new_ronda(client)
    spectator = client.post(f"/v1/sessions/{session_id}/spectators", headers=auth(tokens[0])).get_json()[
        "token"
    ]
    for route in ("hold", "ack"):
        path = f"/play/api/sessions/{session_id}/{route}"
        assert_error(client.post(path, json={"deals": 0}), 401, "unauthorized")
        assert_error(client.post(path, json={"deals": 0}, headers=auth(spectator)), 403, "forbidden")
