"""Turn timers on a real Redis and the real worker: a person who does not move within
the limit is played for by a bot (logged ``"by": "timer"``, streamed, posted to the
webhook), one who moves in time is not, ``on_timeout: "seat"`` keeps the seat with the
bot until it is claimed back, bad limits get 4xx, and a timer outlives a killed worker
and a Redis restart. Limits of 1-2 s keep the waits short."""

from __future__ import annotations

import json
import time

import pytest
from majlis_client import Client

from service import create_app
from service import sessions as S
from service.redis_conn import EmbeddedRedis, Keys, connect
from service.runtime import RUNTIME_EXTENSION
from service.timers import claim_due, timer_member
from tests.clients.conftest import FlaskTransport
from tests.integration.conftest import GAME, IntegrationSettings, Worker, assert_error, wait_for
from tests.integration.test_sessions import auth
from tests.integration.test_webhooks import Receiver, kill_tree

pytestmark = pytest.mark.integration

LONG_MATCH = {"target_score": 1000}  # no match ends while a test watches it
PEOPLE = ["human", "human"]


@pytest.fixture(scope="module")
def client(make_app, worker):
    """Streams are read until caught up, i.e. until their first keep-alive: a short one."""
    return make_app(STREAM_HEARTBEAT=0.05).test_client()


@pytest.fixture()
def tables(redis_client, prefix):
    """The sessions a test made, deleted after it (their timers would play on for ever;
    a timer of a deleted session is dropped when it runs out)."""
    made: list[str] = []
    yield made
    keys = Keys(prefix)
    for session_id in made:
        redis_client.delete(keys.session(session_id), keys.session_log(session_id))


@pytest.fixture(scope="module")
def receiver():
    server = Receiver()
    yield server
    server.close()


def create(client, tables, timer, seats=PEOPLE, seed=3, **extra):
    body = {"game": GAME, "players": len(seats), "seed": seed, "seats": seats, "options": LONG_MATCH}
    answer = client.post("/v1/sessions", json={**body, "turn_timer": timer, **extra})
    assert answer.status_code == 201, answer.get_json()
    created = answer.get_json()
    tables.append(created["id"])
    return created


def session(client, session_id, token):
    answer = client.get(f"/v1/sessions/{session_id}", headers=auth(token))
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()


def entries(client, session_id, token):
    return client.get(f"/v1/sessions/{session_id}/log", headers=auth(token)).get_json()["entries"]


def first_by(client, session_id, token, by, after=0):
    """The first log entry made by ``by`` past version ``after``, or None."""
    found = [e for e in entries(client, session_id, token) if e["by"] == by and e["version"] > after]
    return found[0] if found else None


def stream(client, session_id, token, since=0):
    """The token's event stream after version ``since``, until caught up: [(event, data)]."""
    headers = {**auth(token), "Last-Event-ID": str(since)}
    response = client.get(f"/v1/sessions/{session_id}/events", headers=headers, buffered=False)
    assert response.status_code == 200
    events = []
    try:
        for chunk in response.response:
            text = chunk.decode() if isinstance(chunk, bytes) else chunk
            if text.startswith(": keep-alive"):
                break
            if text.startswith("id: "):
                lines = dict(line.split(": ", 1) for line in text.strip().split("\n"))
                events.append((lines["event"], json.loads(lines["data"])))
    finally:
        response.close()
    return events


def test_a_person_who_does_not_move_is_played_for_by_a_bot_after_the_limit(client, tables, receiver):
    timer = {"seconds": 1, "on_timeout": "move", "level": "random"}
    created = create(client, tables, timer, callback_url=receiver.url)
    sid, tokens, first = created["id"], created["tokens"], created["to_act"]
    assert created["turn_timer"] == timer
    deadline = created["turn_deadline"]
    assert deadline["seat"] == first and 0 < deadline["seconds_left"] <= 1
    spectator = client.post(f"/v1/sessions/{sid}/spectators", headers=auth(tokens[0])).get_json()["token"]
    # every token sees the same clock (a public fact)
    for token in (*tokens, spectator):
        shown = session(client, sid, token)
        assert shown["turn_timer"] == timer and shown["turn_deadline"]["at"] == deadline["at"]

    timed = wait_for(lambda: first_by(client, sid, tokens[0], "timer"), 15)
    assert (timed["n"], timed["seat"], timed["version"]) == (1, first, 1)
    # played once the limit had passed: the next turn's clock started from that move
    assert timed["turn_deadline"]["at"] - timer["seconds"] >= deadline["at"]
    assert timed["turn_deadline"]["seat"] == timed["to_act"]
    after = session(client, sid, tokens[first])
    assert after["seats"][first]["type"] == "human"  # for that one move only
    # announced like any other move: the event stream and the webhook
    moves = [data for event, data in stream(client, sid, spectator) if event == "move"]
    assert moves[0]["by"] == "timer" and moves[0]["version"] == 1 and moves[0]["seat"] == first

    def posted():
        bodies = [json.loads(r["body"]) for r in receiver.of(sid)]
        return next((b for b in bodies if b["version"] == 1), None)

    hook = wait_for(posted, 15)
    assert hook["by"] == "timer" and hook["turn_deadline"] == timed["turn_deadline"]


def test_a_person_who_moves_in_time_is_not_played_for(app, client, tables, redis_client, prefix):
    created = create(client, tables, {"seconds": 2}, seed=4)
    sid, tokens, to_act = created["id"], created["tokens"], created["to_act"]
    started = time.monotonic()
    version = 0
    while time.monotonic() - started < 3.0:  # well past the first turn's limit
        legal = session(client, sid, tokens[to_act])["legal_actions"]
        moved = client.post(
            f"/v1/sessions/{sid}/moves",
            json={"action": legal[0]["action"], "expected_version": version},
            headers=auth(tokens[to_act]),
        )
        assert moved.status_code == 200, moved.get_json()
        to_act, version = moved.get_json()["to_act"], moved.get_json()["version"]
        time.sleep(0.25)
    log = entries(client, sid, tokens[0])
    assert len(log) == version >= 3 and {e["by"] for e in log} == {"human"}
    # each move dropped its turn's timer and set the next one: one timer left
    timers = redis_client.zrange(Keys(prefix).turn_timers(), 0, -1)
    assert [m for m in timers if m.startswith(sid)] == [timer_member(sid, version)]
    # a timer of a version gone is a no-op, even when a worker runs it late
    S.timeout_turn(S.SessionStore(app.extensions[RUNTIME_EXTENSION]), sid, version - 1)
    assert session(client, sid, tokens[0])["version"] == version


def test_on_timeout_seat_gives_the_seat_to_the_bot_until_it_is_claimed(client, tables):
    timer = {"seconds": 1, "on_timeout": "seat", "level": "random"}
    seats = ["human", {"type": "bot", "level": "random"}]
    created = create(client, tables, timer, seats=seats, seed=5)
    sid, tokens = created["id"], created["tokens"]
    timed = wait_for(lambda: first_by(client, sid, tokens[0], "timer"), 15)
    assert timed["seat"] == 0
    shown = session(client, sid, tokens[0])
    assert shown["seats"][0] == {"type": "bot", "level": "random"}

    # the workers play seat 0 on, at once, with no clock (no person is to act)
    def bot_moves_of_seat_0():
        return sum(e["seat"] == 0 and e["by"] == "bot" for e in entries(client, sid, tokens[0]))

    wait_for(lambda: bot_moves_of_seat_0() >= 2, 15)
    assert session(client, sid, tokens[0])["turn_deadline"] is None

    claimed = client.post(f"/v1/sessions/{sid}/claim", headers=auth(tokens[0]))
    assert claimed.status_code == 200 and claimed.get_json()["seats"][0]["type"] == "human"
    since = claimed.get_json()["version"]
    # its person has the seat again: its next move is the timer's, not the bot's
    again = wait_for(lambda: first_by(client, sid, tokens[0], "timer", after=since), 15)
    ours = [e for e in entries(client, sid, tokens[0]) if e["seat"] == 0 and e["version"] > since]
    assert ours[0] == again


def test_a_hand_over_keeps_a_running_clock_and_a_bot_to_act_has_none(client, tables, redis_client, prefix):
    created = create(client, tables, {"seconds": 30}, seed=6)
    sid, tokens, person = created["id"], created["tokens"], created["to_act"]
    other = 1 - person
    clock = created["turn_deadline"]
    # the other seat leaves and comes back: the person to act keeps its clock
    for hand_over in ("leave", "claim"):
        answer = client.post(f"/v1/sessions/{sid}/{hand_over}", json={}, headers=auth(tokens[other]))
        assert answer.status_code == 200, answer.get_json()
        kept = answer.get_json()["turn_deadline"]
        assert (kept["seat"], kept["at"]) == (clock["seat"], clock["at"])
    # the person to act hands its seat to a bot: no clock runs while a bot is to act ...
    left = client.post(f"/v1/sessions/{sid}/leave", json={"level": "random"}, headers=auth(tokens[person]))
    assert left.status_code == 200 and left.get_json()["turn_deadline"] is None
    # ... and the bot's move starts the next person's clock afresh

    def next_clock():
        shown = session(client, sid, tokens[other])
        return shown if shown["version"] > left.get_json()["version"] and shown["turn_deadline"] else None

    shown = wait_for(next_clock, 15)
    assert shown["turn_deadline"]["seat"] == other and shown["turn_deadline"]["at"] > clock["at"]
    timers = redis_client.zrange(Keys(prefix).turn_timers(), 0, -1)
    assert [m for m in timers if m.startswith(sid)] == [timer_member(sid, shown["version"])]


@pytest.mark.parametrize(
    "timer",
    [
        {"seconds": 0},
        {"seconds": -5},
        {"seconds": 6 * 3600 + 1},  # above MAJLIS_TURN_SECONDS_MAX
        {"seconds": 1.5},
        {"seconds": "30"},
        {"seconds": True},
        {},
        {"seconds": 30, "on_timeout": "wait"},
        {"seconds": 30, "level": "genius"},
        {"seconds": 30, "warning": 5},
        30,
        "fast",
        [30],
    ],
)
def test_a_bad_turn_timer_gets_a_4xx_naming_it(client, timer):
    body = {"game": GAME, "players": 2, "turn_timer": timer}
    answer = client.post("/v1/sessions", json=body)
    assert_error(answer, 422, "invalid_request")
    assert "turn_timer" in json.dumps(answer.get_json())


def test_the_python_client_sets_a_turn_timer(app, tables):
    majlis = Client("http://local", transport=FlaskTransport(app))
    created = majlis.create_session(
        GAME, seats=PEOPLE, options=LONG_MATCH, turn_timer={"seconds": 60, "on_timeout": "seat"}
    )
    tables.append(created.id)
    assert created.turn_timer == {"seconds": 60, "on_timeout": "seat", "level": "normal"}
    state = majlis.session(created.id, created.tokens[0]).get()
    assert state.turn_timer == created.turn_timer
    assert state.turn_deadline is not None and state.turn_deadline["seat"] == state.to_act
    assert 55 < state.turn_deadline["seconds_left"] <= 60


def test_a_timer_outlives_a_killed_worker_and_a_redis_restart(tmp_path):
    """The worker dies before the limit, and another that claimed the timer dies before
    running it (its lease: 2 s); Redis restarts from its append-only file; a new worker
    still plays the timed-out move."""
    server = EmbeddedRedis(directory=str(tmp_path / "redis"), append_only=True)
    url = server.start()
    prefix, lease = "majlis-timers", 2.0
    env = {"MAJLIS_TURN_TIMER_LEASE": str(lease)}
    first = Worker(url, prefix, tmp_path / "first.log", concurrency=1, **env)
    second = None
    try:
        first.wait_ready()
        client = create_app(IntegrationSettings(url, prefix)).test_client()
        created = create(client, [], {"seconds": 2})
        sid, tokens = created["id"], created["tokens"]
        kill_tree(first.proc.pid)
        first.proc.wait(10)
        redis_client = connect(url, 2.0)
        key = Keys(prefix).turn_timers()
        time.sleep(max(0.0, created["turn_deadline"]["seconds_left"]) + 0.1)
        assert claim_due(redis_client, key, time.time(), lease) == [timer_member(sid, 0)]
        time.sleep(1.2)  # the append-only file is written to disk every second
        server.proc.kill()
        server.proc.wait(10)
        server.start()
        assert redis_client.zscore(key, timer_member(sid, 0)) is not None
        assert session(client, sid, tokens[0])["version"] == 0
        second = Worker(url, prefix, tmp_path / "second.log", concurrency=1, **env)
        timed = wait_for(lambda: first_by(client, sid, tokens[0], "timer"), 60)
        assert (timed["seat"], timed["version"]) == (created["to_act"], 1)
    finally:
        first.stop()
        if second is not None:
            second.stop()
        server.stop()
