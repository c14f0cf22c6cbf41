"""The table as an app sees it, on a real Redis and a real worker: the seat's legal
actions with labels, hints (session and stateless), spectator tokens, and the event
stream (Server-Sent Events over a real HTTP server: order, resumption, spectators)."""

from __future__ import annotations

import http.client
import json
import threading
import time

import pytest
from werkzeug.serving import make_server

from engine import get_game
from engine.labels import label
from tests.integration.conftest import GAME, assert_error
from tests.integration.test_session_leaks import leaked
from tests.integration.test_sessions import LONG_MATCH, auth, create, first_legal, full_state
from tests.problems import PROBLEM_JSON, error_code, problem

pytestmark = pytest.mark.integration

SMALL = {"iterations": 40, "ms": 500}


def spectator_of(client, sid, token) -> str:
    answer = client.post(f"/v1/sessions/{sid}/spectators", headers=auth(token))
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()["token"]


def play_first_legal(client, redis_client, prefix, sid, tokens) -> dict:
    seat, action = first_legal(redis_client, prefix, sid)
    version = client.get(f"/v1/sessions/{sid}", headers=auth(tokens[seat])).get_json()["version"]
    moved = client.post(
        f"/v1/sessions/{sid}/moves",
        json={"action": action, "expected_version": version},
        headers=auth(tokens[seat]),
    )
    assert moved.status_code == 200, moved.get_json()
    return moved.get_json()


# ---------------------------------------------------------------- legal actions


def test_the_seat_to_act_is_told_its_legal_actions_with_labels(client, redis_client, prefix):
    created = create(client, seed=71)
    sid, tokens = created["id"], created["tokens"]
    seat, _ = first_legal(redis_client, prefix, sid)
    game, state = full_state(redis_client, prefix, sid)
    mine = client.get(f"/v1/sessions/{sid}", headers=auth(tokens[seat])).get_json()
    expected = [game.action_to_json(state, a) for a in game.legal_actions(state)]
    assert [a["action"] for a in mine["legal_actions"]] == expected
    assert [a["label"] for a in mine["legal_actions"]] == [label(a) for a in expected]
    theirs = client.get(f"/v1/sessions/{sid}", headers=auth(tokens[1 - seat])).get_json()
    assert theirs["legal_actions"] == []
    # each listed action is accepted by the moves endpoint as it is
    moved = client.post(
        f"/v1/sessions/{sid}/moves",
        json={"action": mine["legal_actions"][-1]["action"], "expected_version": 0},
        headers=auth(tokens[seat]),
    )
    assert moved.status_code == 200, moved.get_json()


# ---------------------------------------------------------------- hints


def test_a_hint_ranks_the_seats_own_actions_and_plays_nothing(client, redis_client, prefix):
    created = create(client, seed=72, options=LONG_MATCH)
    sid, tokens = created["id"], created["tokens"]
    seat, _ = first_legal(redis_client, prefix, sid)
    game, state = full_state(redis_client, prefix, sid)
    answer = client.post(
        f"/v1/sessions/{sid}/hint", json={"budget": SMALL, "seed": 3}, headers=auth(tokens[seat])
    )
    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    legal = [game.action_to_json(state, a) for a in game.legal_actions(state)]
    assert sorted(map(json.dumps, (a["action"] for a in body["actions"]))) == sorted(map(json.dumps, legal))
    visits = [a["visits"] for a in body["actions"]]
    assert visits == sorted(visits, reverse=True) and body["version"] == 0 and body["seat"] == seat
    if body["iterations"]:
        assert abs(sum(a["share"] for a in body["actions"]) - 1.0) < 0.01
    assert body["easy"]["action"] in legal and body["easy"]["label"] == label(body["easy"]["action"])
    assert body["budget"]["iterations"] == 40
    after = client.get(f"/v1/sessions/{sid}", headers=auth(tokens[seat])).get_json()
    assert after["version"] == 0  # nothing was played
    # only the seat itself, and only on its turn
    other = client.post(f"/v1/sessions/{sid}/hint", json={}, headers=auth(tokens[1 - seat]))
    assert_error(other, 422, "not_your_turn")
    watcher = spectator_of(client, sid, tokens[1 - seat])
    assert_error(client.post(f"/v1/sessions/{sid}/hint", json={}, headers=auth(watcher)), 403, "forbidden")
    assert not leaked(game, state, 1 - seat, other.get_json())


def test_a_hint_budget_is_capped_at_the_sync_threshold(make_app, worker, redis_client, prefix):
    client = make_app(ASYNC_MS=50.0, ASYNC_ITERATIONS=1_000_000).test_client()
    created = create(client, seed=73, options=LONG_MATCH)
    sid, tokens = created["id"], created["tokens"]
    seat, _ = first_legal(redis_client, prefix, sid)
    started = time.monotonic()
    answer = client.post(
        f"/v1/sessions/{sid}/hint", json={"budget": {"iterations": 500_000}}, headers=auth(tokens[seat])
    )
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["budget"]["ms"] == 50.0 and time.monotonic() - started < 2.0


def test_a_stateless_hint_from_a_state_or_a_view(client):
    game = get_game(GAME)
    state = game.new_state(2, game.parse_options({}, 2), 0, seed=74)
    seat = game.to_act(state)
    body = {"state": game.to_json(state), "seat": seat, "budget": SMALL, "seed": 1}
    from_state = client.post(f"/v1/games/{GAME}/hint", json=body)
    assert from_state.status_code == 200, from_state.get_json()
    view = game.view(state, seat)
    from_view = client.post(
        f"/v1/games/{GAME}/hint", json={"view": view, "seat": seat, "budget": SMALL, "seed": 1}
    )
    assert from_view.get_json()["actions"] == from_state.get_json()["actions"]
    legal = sorted(json.dumps(game.action_to_json(state, a)) for a in game.legal_actions(state))
    assert sorted(json.dumps(a["action"]) for a in from_state.get_json()["actions"]) == legal
    wrong = client.post(f"/v1/games/{GAME}/hint", json=dict(body, seat=1 - seat))
    assert_error(wrong, 422, "not_your_turn")


# ---------------------------------------------------------------- spectators


def test_a_spectator_sees_the_public_view_and_plays_nothing(client, redis_client, prefix):
    created = create(client, seed=75, options=LONG_MATCH)
    sid, tokens = created["id"], created["tokens"]
    watcher = spectator_of(client, sid, tokens[0])
    assert watcher not in json.dumps(redis_client.hgetall(f"{prefix}:session:{sid}"))  # kept hashed
    play_first_legal(client, redis_client, prefix, sid, tokens)
    game, state = full_state(redis_client, prefix, sid)
    seen = client.get(f"/v1/sessions/{sid}", headers=auth(watcher)).get_json()
    assert seen["seat"] is None and seen["legal_actions"] == [] and seen["view"] == game.public_view(state)
    assert all(isinstance(h, int) for h in seen["view"]["hands"])
    log = client.get(f"/v1/sessions/{sid}/log", headers=auth(watcher)).get_json()
    assert log["seat"] is None and len(log["entries"]) == 1
    for seat in range(2):
        assert not leaked(game, state, seat, seen) and not leaked(game, state, seat, log)
    seat, action = first_legal(redis_client, prefix, sid)
    refused = [
        client.post(
            f"/v1/sessions/{sid}/moves", json={"action": action, "expected_version": 1}, headers=auth(watcher)
        ),
        client.post(f"/v1/sessions/{sid}/bot-move", json={}, headers=auth(watcher)),
        client.post(f"/v1/sessions/{sid}/leave", json={}, headers=auth(watcher)),
        client.post(f"/v1/sessions/{sid}/claim", headers=auth(watcher)),
        client.post(f"/v1/sessions/{sid}/spectators", headers=auth(watcher)),
    ]
    for answer in refused:
        assert_error(answer, 403, "forbidden")
    other = create(client, seed=76)
    assert_error(client.get(f"/v1/sessions/{other['id']}", headers=auth(watcher)), 401, "unauthorized")


# ---------------------------------------------------------------- events (SSE)


@pytest.fixture(scope="module")
def live(make_app, worker):
    """The app behind a real threaded HTTP server (streams need real sockets)."""
    app = make_app(STREAM_HEARTBEAT=0.3)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield app, server.server_port
    server.shutdown()
    thread.join(5)


class Stream:
    """One SSE connection, read line by line."""

    def __init__(self, port: int, sid: str, token: str, last_id: int | None = None) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        headers = auth(token)
        if last_id is not None:
            headers["Last-Event-ID"] = str(last_id)
        self.conn.request("GET", f"/v1/sessions/{sid}/events", headers=headers)
        self.response = self.conn.getresponse()

    def next_event(self) -> dict:
        """The next event (comments and the retry line skipped): {id, event, data}."""
        event: dict = {}
        deadline = time.monotonic() + 10.0  # keep-alives flow meanwhile: bound the wait
        while time.monotonic() < deadline:
            line = self.response.fp.readline().decode()
            assert line, "the stream ended"
            line = line.rstrip("\n")
            if not line:
                if "event" in event:
                    return event
                event = {}
            elif not line.startswith(":"):
                name, _, value = line.partition(": ")
                event[name] = json.loads(value) if name == "data" else value
        raise AssertionError("no event within 10 s")

    def close(self) -> None:
        self.conn.close()


def test_events_arrive_in_order_and_none_is_missed_after_a_reconnect(live, redis_client, prefix):
    app, port = live
    client = app.test_client()
    created = create(client, seed=77, options=LONG_MATCH)
    sid, tokens = created["id"], created["tokens"]
    streams = [Stream(port, sid, tokens[s]) for s in range(2)]
    watcher = Stream(port, sid, spectator_of(client, sid, tokens[0]))
    for stream in [*streams, watcher]:
        assert stream.response.status == 200
        assert stream.response.getheader("Content-Type").startswith("text/event-stream")
        hello = stream.next_event()
        assert hello["event"] == "session" and hello["id"] == "0" and hello["data"]["version"] == 0
    for _ in range(4):
        play_first_legal(client, redis_client, prefix, sid, tokens)
    for seat, stream in enumerate(streams):
        moves = [stream.next_event() for _ in range(4)]
        assert [m["id"] for m in moves] == ["1", "2", "3", "4"] and {m["event"] for m in moves} == {"move"}
        log = client.get(f"/v1/sessions/{sid}/log", headers=auth(tokens[seat])).get_json()["entries"]
        assert [m["data"] for m in moves] == log  # the log entry as this seat may see it
    watched = [watcher.next_event()["data"] for _ in range(4)]
    assert [w["version"] for w in watched] == [1, 2, 3, 4] and all(w["seat"] is not None for w in watched)
    # seat 0 drops after version 2: on reconnect it gets 3 and 4 and what happened since
    streams[0].close()
    client.post(f"/v1/sessions/{sid}/leave", json={"level": "random"}, headers=auth(tokens[1]))  # version 5
    resumed = Stream(port, sid, tokens[0], last_id=2)
    events = [resumed.next_event() for _ in range(3)]
    assert [(e["event"], e["id"]) for e in events[:2]] == [("move", "3"), ("move", "4")]
    # then the hand-over (a session event), or the worker's bot's move after it
    assert events[2]["event"] in ("session", "move") and int(events[2]["id"]) >= 5
    if events[2]["event"] == "session":
        assert events[2]["data"]["seats"][1]["type"] == "bot"
    for stream in [resumed, streams[1], watcher]:
        stream.close()


def test_the_event_stream_needs_a_token_and_answers_json_errors(live):
    app, port = live
    client = app.test_client()
    created = create(client, seed=78)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", f"/v1/sessions/{created['id']}/events")
    response = conn.getresponse()
    assert response.status == 401 and response.getheader("Content-Type") == PROBLEM_JSON
    assert error_code(response.read()) == "unauthorized"
    conn.request(
        "GET",
        f"/v1/sessions/{created['id']}/events",
        headers={**auth(created["tokens"][0]), "Last-Event-ID": "x"},
    )
    response = conn.getresponse()
    assert response.status == 422 and problem(response.read(), 422)["field"] == "Last-Event-ID"
    conn.close()


def test_the_api_sends_event_streams_to_the_stream_server(make_app, worker):
    client = make_app(STREAM_URL="http://127.0.0.1:8001").test_client()
    created = create(client, seed=79)
    answer = client.get(f"/v1/sessions/{created['id']}/events", headers=auth(created["tokens"][0]))
    assert answer.status_code == 307
    assert answer.headers["Location"] == f"http://127.0.0.1:8001/v1/sessions/{created['id']}/events"


def test_a_stream_server_on_every_interface_is_named_by_the_host_the_client_used(make_app, worker):
    """A client on another machine must not be sent to 0.0.0.0 (the page and the 307 agree)."""
    client = make_app(STREAM_URL="http://0.0.0.0:8001").test_client()
    created = create(client, seed=80)
    answer = client.get(
        f"/v1/sessions/{created['id']}/events?x=1",
        headers={**auth(created["tokens"][0]), "Host": "192.168.1.5:8000"},
    )
    assert answer.status_code == 307
    assert answer.headers["Location"] == f"http://192.168.1.5:8001/v1/sessions/{created['id']}/events?x=1"
