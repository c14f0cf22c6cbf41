"""Sessions on a real Redis and a real worker: tokens, versions, races, bot seats,
seat hand-over, the move log, seat isolation and expiry."""

from __future__ import annotations

import json
import threading
import time

import pytest

from engine import get_game
from service.redis_conn import Keys
from tests.integration.conftest import GAME, assert_error, wait_for

pytestmark = pytest.mark.integration

LONG_MATCH = {"target_score": 1000}


def create(client, seats=None, seed=7, options=None):
    body = {"game": GAME, "players": 2, "seed": seed, "options": options or {}}
    if seats is not None:
        body["seats"] = seats
    answer = client.post("/v1/sessions", json=body)
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def auth(token):
    return {"Authorization": f"Bearer {token}"}


def full_state(redis_client, prefix, session_id):
    game = get_game(GAME)
    raw = redis_client.hget(Keys(prefix).session(session_id), "state")
    return game, game.from_json(json.loads(raw))


def first_legal(redis_client, prefix, session_id):
    game, state = full_state(redis_client, prefix, session_id)
    return game.to_act(state), game.action_to_json(state, game.legal_actions(state)[0])


def test_create_get_and_move(client, redis_client, prefix):
    created = create(client)
    assert set(created) >= {"id", "tokens", "version", "to_act", "url"}
    assert len(created["tokens"]) == 2 and created["version"] == 0
    # tokens are stored hashed, never in clear
    raw = redis_client.hgetall(Keys(prefix).session(created["id"]))
    assert not any(token in json.dumps(raw) for token in created["tokens"])
    sid, tokens = created["id"], created["tokens"]
    seat, action = first_legal(redis_client, prefix, sid)
    got = client.get(f"/v1/sessions/{sid}", headers=auth(tokens[seat])).get_json()
    assert got["seat"] == seat and got["version"] == 0 and got["to_act"] == seat
    assert got["view"]["seat"] == seat
    moved = client.post(
        f"/v1/sessions/{sid}/moves",
        json={"action": action, "expected_version": 0},
        headers=auth(tokens[seat]),
    )
    assert moved.status_code == 200, moved.get_json()
    assert moved.get_json()["version"] == 1
    stale = client.post(
        f"/v1/sessions/{sid}/moves",
        json={"action": action, "expected_version": 0},
        headers=auth(tokens[seat]),
    )
    error = assert_error(stale, 409, "stale_version")
    assert error["version"] == 1


def test_credentials(client, redis_client, prefix):
    created = create(client)
    sid, tokens = created["id"], created["tokens"]
    seat, action = first_legal(redis_client, prefix, sid)
    assert_error(client.get(f"/v1/sessions/{sid}"), 401, "unauthorized")
    assert_error(client.get(f"/v1/sessions/{sid}", headers=auth("nope")), 401, "unauthorized")
    other = create(client, seed=8)
    assert_error(client.get(f"/v1/sessions/{sid}", headers=auth(other["tokens"][0])), 401)
    # a token acts only for its own seat
    assert_error(
        client.post(
            f"/v1/sessions/{sid}/moves",
            headers=auth(tokens[seat]),
            json={"action": action, "expected_version": 0, "seat": 1 - seat},
        ),
        403,
        "forbidden",
    )
    assert_error(
        client.post(f"/v1/sessions/{sid}/bot-move", headers=auth(tokens[1 - seat]), json={"seat": seat}),
        403,
        "forbidden",
    )
    # the other seat's token is not to act
    assert_error(
        client.post(
            f"/v1/sessions/{sid}/moves",
            headers=auth(tokens[1 - seat]),
            json={"action": action, "expected_version": 0},
        ),
        422,
        "not_your_turn",
    )
    assert_error(client.get("/v1/sessions/" + "f" * 32, headers=auth(tokens[0])), 404, "unknown_session")
    illegal = client.post(
        f"/v1/sessions/{sid}/moves",
        headers=auth(tokens[seat]),
        json={"action": {"type": "play", "card": "XX"}, "expected_version": 0},
    )
    assert illegal.status_code == 422


def test_200_racing_move_pairs_exactly_one_applied_each(app, redis_client, prefix):
    client = app.test_client()
    created = create(client, options=LONG_MATCH, seed=21)
    sid, tokens = created["id"], created["tokens"]
    outcomes: list[tuple[int, int]] = []
    for _ in range(200):
        seat, action = first_legal(redis_client, prefix, sid)
        version = int(redis_client.hget(Keys(prefix).session(sid), "version"))
        barrier = threading.Barrier(2)
        statuses: list[int] = []

        def race(action=action, version=version, seat=seat, barrier=barrier, statuses=statuses):
            c = app.test_client()
            barrier.wait(5)
            r = c.post(
                f"/v1/sessions/{sid}/moves",
                json={"action": action, "expected_version": version},
                headers=auth(tokens[seat]),
            )
            statuses.append(r.status_code)

        threads = [threading.Thread(target=race) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        outcomes.append(tuple(sorted(statuses)))
    assert all(o == (200, 409) for o in outcomes), [o for o in outcomes if o != (200, 409)][:5]
    # none lost, none doubled: 200 versions, 200 log entries, replayable
    assert int(redis_client.hget(Keys(prefix).session(sid), "version")) == 200
    assert redis_client.llen(Keys(prefix).session_log(sid)) == 200


def test_log_is_replayable_and_redacted(client, redis_client, prefix):
    created = create(client, seed=12)
    sid, tokens = created["id"], created["tokens"]
    for version in range(12):
        seat, action = first_legal(redis_client, prefix, sid)
        r = client.post(
            f"/v1/sessions/{sid}/moves",
            json={"action": action, "expected_version": version},
            headers=auth(tokens[seat]),
        )
        assert r.status_code == 200, r.get_json()
    log = client.get(f"/v1/sessions/{sid}/log", headers=auth(tokens[0])).get_json()
    assert log["version"] == 12 and [e["n"] for e in log["entries"]] == list(range(1, 13))
    game = get_game(GAME)
    initial = game.from_json(json.loads(redis_client.hget(Keys(prefix).session(sid), "initial")))
    assert log["initial"] == game.view(initial, 0)
    state = initial
    for entry in log["entries"]:
        state, _ = game.apply(state, entry["seat"], game.parse_action(state, entry["action"]))
    _, current = full_state(redis_client, prefix, sid)
    assert game.to_json(state) == game.to_json(current)


def walk_strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from walk_strings(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from walk_strings(v)


def test_seat_token_sees_no_other_seats_cards(client, redis_client, prefix):
    created = create(client, seed=31)
    sid, tokens = created["id"], created["tokens"]
    game = get_game(GAME)
    checked = 0
    version = 0
    while True:
        _, state = full_state(redis_client, prefix, sid)
        if game.deal_no(state) != 1 or game.to_act(state) is None or version >= 30:
            break
        seat, action = first_legal(redis_client, prefix, sid)
        if seat == 0:
            answers = [
                client.post(
                    f"/v1/sessions/{sid}/moves",
                    headers=auth(tokens[0]),
                    json={"action": action, "expected_version": version},
                )
            ]
        else:  # seat 1 lets a bot play (its answer shows seat 1's own cards: not checked)
            assert (
                client.post(
                    f"/v1/sessions/{sid}/bot-move",
                    headers=auth(tokens[1]),
                    json={"level": "random", "seed": version},
                ).status_code
                == 200
            )
            answers = []
        version += 1
        answers += [
            client.get(f"/v1/sessions/{sid}", headers=auth(tokens[0])),
            client.get(f"/v1/sessions/{sid}/log", headers=auth(tokens[0])),
        ]
        _, after = full_state(redis_client, prefix, sid)
        if game.deal_no(after) != 1:
            break  # a new deal reuses the pack: earlier public cards are in new hands
        hidden = set(game.hidden_cards(after, 0))
        assert hidden
        for answer in answers:
            assert answer.status_code == 200, answer.get_json()
            leaked = hidden & set(walk_strings(answer.get_json()))
            assert not leaked, (leaked, answer.get_json())
            checked += 1
    assert checked >= 20


def test_bot_seat_plays_on_the_workers(client, redis_client, prefix):
    created = create(client, seats=["human", {"type": "bot", "level": "easy"}], seed=41)
    sid, tokens = created["id"], created["tokens"]

    def human_to_act():
        body = client.get(f"/v1/sessions/{sid}", headers=auth(tokens[0])).get_json()
        return body if body["to_act"] in (0, None) else None

    for _ in range(4):
        body = wait_for(human_to_act, 30)
        if body["to_act"] is None:
            break
        _, action = first_legal(redis_client, prefix, sid)
        r = client.post(
            f"/v1/sessions/{sid}/moves",
            json={"action": action, "expected_version": body["version"]},
            headers=auth(tokens[0]),
        )
        assert r.status_code == 200, r.get_json()
    log = client.get(f"/v1/sessions/{sid}/log", headers=auth(tokens[0])).get_json()
    assert any(e["by"] == "bot" and e["seat"] == 1 for e in log["entries"])
    assert any(e["by"] == "human" and e["seat"] == 0 for e in log["entries"])


def test_leave_hands_the_seat_to_a_bot_and_claim_takes_it_back(client, redis_client, prefix):
    created = create(client, seed=51)
    sid, tokens = created["id"], created["tokens"]
    seat, _ = first_legal(redis_client, prefix, sid)
    left = client.post(f"/v1/sessions/{sid}/leave", json={"level": "random"}, headers=auth(tokens[seat]))
    assert left.status_code == 200 and left.get_json()["seats"][seat]["type"] == "bot"
    assert left.get_json()["version"] == 1  # handing the seat over moves the version
    wait_for(  # the bot's move makes version 2
        lambda: client.get(f"/v1/sessions/{sid}", headers=auth(tokens[seat])).get_json()["version"] >= 2, 30
    )
    # the other player may let a bot play the abandoned seat when it is its turn
    claimed = client.post(f"/v1/sessions/{sid}/claim", headers=auth(tokens[seat]))
    assert claimed.status_code == 200 and claimed.get_json()["seats"][seat]["type"] == "human"
    log = client.get(f"/v1/sessions/{sid}/log", headers=auth(tokens[seat])).get_json()
    assert log["entries"][0]["seat"] == seat and log["entries"][0]["by"] == "bot"


def test_session_bot_move_for_own_seat(client, redis_client, prefix):
    created = create(client, seed=61)
    sid, tokens = created["id"], created["tokens"]
    seat, _ = first_legal(redis_client, prefix, sid)
    r = client.post(
        f"/v1/sessions/{sid}/bot-move",
        json={"budget": {"iterations": 30, "ms": 500}, "seed": 3, "expected_version": 0},
        headers=auth(tokens[seat]),
    )
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert body["version"] == 1 and "action" in body and body["stats"]["iterations"] >= 0
    stale = client.post(
        f"/v1/sessions/{sid}/bot-move", json={"expected_version": 0}, headers=auth(tokens[1 - seat])
    )
    assert stale.status_code in (409, 422)


def test_idle_sessions_expire_and_moves_refresh_the_ttl(make_app, worker, redis_client, prefix):
    client = make_app(SESSION_TTL=2).test_client()
    created = create(client, seed=71)
    sid, tokens = created["id"], created["tokens"]
    time.sleep(1.2)
    seat, action = first_legal(redis_client, prefix, sid)
    assert (
        client.post(
            f"/v1/sessions/{sid}/moves",
            json={"action": action, "expected_version": 0},
            headers=auth(tokens[seat]),
        ).status_code
        == 200
    )
    time.sleep(1.2)  # 2.4 s after creation, 1.2 s after the move: still there
    assert client.get(f"/v1/sessions/{sid}", headers=auth(tokens[0])).status_code == 200
    time.sleep(1.5)
    assert_error(client.get(f"/v1/sessions/{sid}", headers=auth(tokens[0])), 404, "unknown_session")
    assert not redis_client.exists(Keys(prefix).session_log(sid))


JUNK_CREATE = [
    None,
    [],
    "x",
    {"game": "chess", "players": 2},
    {"game": "ronda", "players": 7},
    {"game": "ronda", "players": 2, "seats": ["human"]},
    {"game": "ronda", "players": 2, "seats": ["alien", "bot"]},
    {"game": "ronda", "players": 2, "seats": [{"type": "bot", "level": "god"}, "human"]},
    {"game": "ronda", "players": 2, "options": {"nope": 1}},
    {"game": "ronda", "players": 2, "dealer": 5},
    {"game": "ronda", "players": 2, "seed": -1},
    {"game": "ronda", "players": True},
]


@pytest.mark.parametrize("body", JUNK_CREATE, ids=range(len(JUNK_CREATE)))
def test_junk_create_bodies_get_4xx_in_the_error_shape(client, body):
    answer = client.post("/v1/sessions", json=body)
    assert 400 <= answer.status_code < 500
    assert_error(answer, answer.status_code)


JUNK_MOVES = [
    None,
    {},
    {"action": "play"},
    {"action": {}, "expected_version": 0},
    {"action": {"type": "play", "card": 5}, "expected_version": 0},
    {"action": {"type": "zzz"}, "expected_version": "0"},
    {"action": {"type": "pass"}, "expected_version": -3},
    {"action": {"type": "pass"}, "expected_version": 0, "extra": 1},
]


@pytest.mark.parametrize("body", JUNK_MOVES, ids=range(len(JUNK_MOVES)))
def test_junk_moves_get_4xx_in_the_error_shape(client, redis_client, prefix, body):
    created = create(client, seed=81)
    seat, _ = first_legal(redis_client, prefix, created["id"])
    for headers in ({}, {"Authorization": "Basic abc"}, auth(created["tokens"][seat])):
        answer = client.post(f"/v1/sessions/{created['id']}/moves", json=body, headers=headers)
        assert 400 <= answer.status_code < 500, answer.get_json()
        assert_error(answer, answer.status_code)
    long_id = client.get("/v1/sessions/" + "a" * 5000, headers=auth(created["tokens"][0]))
    assert_error(long_id, 404)
