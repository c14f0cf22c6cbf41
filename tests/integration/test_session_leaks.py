"""What a seat may learn from a session, and who may play a seat, on a real Redis and a
real worker: search statistics go only to the seat searched for, a refusal lists legal
actions only to the seat to act, leave and claim move the version, a bot never plays a
seat claimed back, and bot-moves beyond the sync threshold run as jobs on the workers."""

from __future__ import annotations

import time
from collections import Counter

import pytest

from engine import get_game
from service import sessions as S
from service.domain_errors import SeatClaimed
from service.errors import domain_status
from service.redis_conn import Keys
from service.runtime import RUNTIME_EXTENSION
from tests.integration.conftest import GAME, assert_error, wait_for
from tests.integration.test_sessions import LONG_MATCH, auth, create, first_legal, full_state, walk_strings

pytestmark = pytest.mark.integration


WORKER_FIRST = {409: "stale_version", 422: "not_your_turn"}
"""The refusal a bot-move for a bot seat gets when the workers' bot played it first."""


def wholly_hidden(game, state, seat: int) -> set[str]:
    """Card codes of which ``seat`` can see no copy (a code with a visible copy proves nothing)."""
    pack = Counter(game.pack(state))
    hidden = Counter(game.hidden_cards(state, seat))
    return {code for code, n in hidden.items() if n >= pack[code]}


def leaked(game, state, seat: int, answer) -> set[str]:
    return wholly_hidden(game, state, seat) & set(walk_strings(answer))


def finished_job(client, url: str, timeout: float = 30.0) -> dict:
    def done():
        body = client.get(url).get_json()
        return body if body["status"] in ("done", "failed") else None

    return wait_for(done, timeout, 0.05)


def version_of(redis_client, prefix, sid) -> int:
    return int(redis_client.hget(Keys(prefix).session(sid), "version"))


def test_a_refusal_lists_legal_actions_only_to_the_seat_to_act(client, redis_client, prefix):
    created = create(client, seed=91)
    sid, tokens = created["id"], created["tokens"]
    seat, action = first_legal(redis_client, prefix, sid)
    game, state = full_state(redis_client, prefix, sid)
    other = 1 - seat
    refused = client.post(
        f"/v1/sessions/{sid}/moves",
        json={"action": action, "expected_version": 0},
        headers=auth(tokens[other]),
    )
    error = assert_error(refused, 422, "not_your_turn")
    assert "legal_actions" not in error, error
    assert not leaked(game, state, other, refused.get_json())
    # the seat to act, refused a card it does not hold, is shown its own legal actions
    not_held = sorted(wholly_hidden(game, state, seat))[0]
    own = client.post(
        f"/v1/sessions/{sid}/moves",
        json={"action": {"type": "play", "card": not_held}, "expected_version": 0},
        headers=auth(tokens[seat]),
    )
    error = assert_error(own, 422)
    assert error["legal_actions"] == [game.action_to_json(state, a) for a in game.legal_actions(state)]


def test_bot_move_for_a_bot_seat_shows_another_token_no_search_stats(client, redis_client, prefix):
    game = get_game(GAME)
    for attempt in range(5):
        created = create(client, seed=200 + attempt, options=LONG_MATCH)
        sid, tokens = created["id"], created["tokens"]
        seat, _ = first_legal(redis_client, prefix, sid)
        other = 1 - seat
        # the seat's player leaves; the workers' bot searches (100 ms) while the other
        # player lets a random bot play that seat at once
        client.post(f"/v1/sessions/{sid}/leave", json={"level": "normal"}, headers=auth(tokens[seat]))
        _, before = full_state(redis_client, prefix, sid)
        answer = client.post(
            f"/v1/sessions/{sid}/bot-move",
            json={"seat": seat, "level": "random", "seed": 1},
            headers=auth(tokens[other]),
        )
        if answer.status_code in (409, 422):
            assert_error(answer, answer.status_code, WORKER_FIRST[answer.status_code])
            continue  # the workers' bot was faster: try again
        body = answer.get_json()
        assert answer.status_code == 200, body
        assert "stats" not in body, body["stats"]
        _, after = full_state(redis_client, prefix, sid)
        assert not leaked(game, before, other, body) and not leaked(game, after, other, body)
        entry = client.get(f"/v1/sessions/{sid}/log", headers=auth(tokens[other])).get_json()["entries"][0]
        assert (entry["seat"], entry["by"], entry["action"]) == (seat, "bot", body["action"])
        assert body["events"] == entry["events"] and body["seat"] == other
        return
    pytest.fail("the workers' bot always played first")


def test_leave_and_claim_move_the_version(client, redis_client, prefix):
    created = create(client, seed=93, options=LONG_MATCH)
    sid, tokens = created["id"], created["tokens"]
    seat, action = first_legal(redis_client, prefix, sid)
    other = 1 - seat
    left = client.post(f"/v1/sessions/{sid}/leave", json={"level": "random"}, headers=auth(tokens[other]))
    assert left.get_json()["version"] == 1 and version_of(redis_client, prefix, sid) == 1
    stale = client.post(
        f"/v1/sessions/{sid}/moves",
        json={"action": action, "expected_version": 0},
        headers=auth(tokens[seat]),
    )
    assert assert_error(stale, 409, "stale_version")["version"] == 1
    claimed = client.post(f"/v1/sessions/{sid}/claim", headers=auth(tokens[other]))
    assert claimed.get_json()["version"] == 2 and claimed.get_json()["seats"][other]["type"] == "human"
    moved = client.post(
        f"/v1/sessions/{sid}/moves",
        json={"action": action, "expected_version": 2},
        headers=auth(tokens[seat]),
    )
    assert moved.status_code == 200 and moved.get_json()["version"] == 3


def test_a_bot_move_for_a_seat_no_longer_a_bot_seat_is_refused_in_the_atomic_write(app, redis_client, prefix):
    client = app.test_client()
    created = create(client, seed=94)
    sid = created["id"]
    seat, action = first_legal(redis_client, prefix, sid)
    store = S.SessionStore(app.extensions[RUNTIME_EXTENSION])
    session = store.load(sid)
    with pytest.raises(SeatClaimed) as refused:
        store.apply(session, seat, action, 0, by="bot", must_be_bot=True)
    assert (domain_status(SeatClaimed), refused.value.code) == (409, "seat_claimed")
    assert version_of(redis_client, prefix, sid) == 0
    assert redis_client.llen(Keys(prefix).session_log(sid)) == 0


def test_a_bot_never_plays_a_seat_after_its_player_claimed_it_back(client, redis_client, prefix):
    """Claim while the worker's bot searches for the seat (100 ms): its move must not land."""
    late = []
    for attempt in range(10):
        created = create(client, seed=300 + attempt, options=LONG_MATCH)
        sid, tokens = created["id"], created["tokens"]
        seat, _ = first_legal(redis_client, prefix, sid)
        client.post(f"/v1/sessions/{sid}/leave", json={"level": "normal"}, headers=auth(tokens[seat]))
        # the worker has taken the turn off the queue: it is loading or searching
        wait_for(lambda: redis_client.llen("sessions") == 0, 5.0, 0.002)
        time.sleep(0.02 + 0.01 * (attempt % 4))
        claimed = client.post(f"/v1/sessions/{sid}/claim", headers=auth(tokens[seat])).get_json()
        assert claimed["seats"][seat]["type"] == "human"
        time.sleep(0.4)  # longer than the worker's search
        entries = client.get(f"/v1/sessions/{sid}/log", headers=auth(tokens[seat])).get_json()["entries"]
        late += [e for e in entries if e["by"] == "bot" and e["version"] > claimed["version"]]
    assert not late, late


def test_session_bot_move_as_a_job_on_the_workers(client, redis_client, prefix):
    created = create(client, seed=95, options=LONG_MATCH)
    sid, tokens = created["id"], created["tokens"]
    seat, _ = first_legal(redis_client, prefix, sid)
    game, state = full_state(redis_client, prefix, sid)
    answer = client.post(
        f"/v1/sessions/{sid}/bot-move",
        json={"async": True, "budget": {"iterations": 200}, "seed": 5, "expected_version": 0},
        headers=auth(tokens[seat]),
    )
    assert answer.status_code == 202, answer.get_json()
    job = answer.get_json()["job"]
    assert set(job) == {"id", "status", "url"} and job["url"] == f"/v1/jobs/{job['id']}"
    result = finished_job(client, job["url"])
    assert result["status"] == "done", result
    assert result["seat"] == seat and result["version"] == 1
    assert result["action"] in [game.action_to_json(state, a) for a in game.legal_actions(state)]
    assert result["stats"]["iterations"] == 200  # the token's own seat: its statistics
    entries = client.get(f"/v1/sessions/{sid}/log", headers=auth(tokens[seat])).get_json()["entries"]
    assert [(e["seat"], e["by"], e["action"], e["version"]) for e in entries] == [
        (seat, "bot", result["action"], 1)
    ]
    assert result["events"] == entries[0]["events"]


def test_a_budget_above_the_sync_threshold_is_a_job(client, redis_client, prefix):
    created = create(client, seed=96, options=LONG_MATCH)
    sid, tokens = created["id"], created["tokens"]
    seat, _ = first_legal(redis_client, prefix, sid)
    answer = client.post(  # 1,500 ms > the test server's ASYNC_MS (1,000)
        f"/v1/sessions/{sid}/bot-move",
        json={"budget": {"ms": 1500, "iterations": 300}, "seed": 5},
        headers=auth(tokens[seat]),
    )
    assert answer.status_code == 202, answer.get_json()
    assert finished_job(client, answer.get_json()["job"]["url"])["status"] == "done"
    assert version_of(redis_client, prefix, sid) == 1


def test_a_sync_bot_move_searches_no_longer_than_the_sync_threshold(make_app, worker, redis_client, prefix):
    client = make_app(ASYNC_MS=50.0, ASYNC_ITERATIONS=1_000_000).test_client()
    created = create(client, seed=97, options=LONG_MATCH)
    sid, tokens = created["id"], created["tokens"]
    seat, _ = first_legal(redis_client, prefix, sid)
    answer = client.post(  # no ms: bounded only by the 10 s time cap, so a job
        f"/v1/sessions/{sid}/bot-move",
        json={"budget": {"iterations": 500_000}, "seed": 5},
        headers=auth(tokens[seat]),
    )
    assert answer.status_code == 202, answer.get_json()
    assert finished_job(client, answer.get_json()["job"]["url"])["status"] == "done"
    seat, _ = first_legal(redis_client, prefix, sid)
    answer = client.post(  # within the threshold: searched at once, for at most ASYNC_MS
        f"/v1/sessions/{sid}/bot-move",
        json={"budget": {"iterations": 500_000, "ms": 50}, "seed": 5, "expected_version": 1},
        headers=auth(tokens[seat]),
    )
    assert answer.status_code == 200, answer.get_json()
    stats = answer.get_json()["stats"]
    assert stats["budget"]["ms"] == 50.0 and stats["elapsed_ms"] < 1_000, stats


def test_a_job_for_another_seat_tells_the_asker_only_what_its_seat_may_see(client, redis_client, prefix):
    game = get_game(GAME)
    for attempt in range(5):
        created = create(client, seed=400 + attempt, options=LONG_MATCH)
        sid, tokens = created["id"], created["tokens"]
        seat, _ = first_legal(redis_client, prefix, sid)
        other = 1 - seat
        client.post(f"/v1/sessions/{sid}/leave", json={"level": "normal"}, headers=auth(tokens[seat]))
        _, before = full_state(redis_client, prefix, sid)
        answer = client.post(
            f"/v1/sessions/{sid}/bot-move",
            json={"seat": seat, "level": "random", "async": True, "seed": 2},
            headers=auth(tokens[other]),
        )
        if answer.status_code == 422:
            assert_error(answer, 422, "not_your_turn")
            continue  # the workers' bot was faster: try again
        assert answer.status_code == 202, answer.get_json()
        result = finished_job(client, answer.get_json()["job"]["url"])
        if result["status"] == "failed":
            assert result["error"].startswith("stale_version"), result
            continue  # the workers' own bot turn played the seat first
        assert "stats" not in result, result
        _, after = full_state(redis_client, prefix, sid)
        assert not leaked(game, before, other, result) and not leaked(game, after, other, result)
        return
    pytest.fail("the workers' bot always played first")


def test_a_job_whose_session_moved_on_fails_and_applies_nothing(client, redis_client, prefix):
    created = create(client, seed=98, options=LONG_MATCH)
    sid, tokens = created["id"], created["tokens"]
    seat, _ = first_legal(redis_client, prefix, sid)
    other = 1 - seat
    answer = client.post(
        f"/v1/sessions/{sid}/bot-move",
        json={"async": True, "budget": {"ms": 1500}, "seed": 5},
        headers=auth(tokens[seat]),
    )
    job_url = answer.get_json()["job"]["url"]
    wait_for(lambda: client.get(job_url).get_json()["status"] == "running", 10.0, 0.01)
    # while the worker searches, the other player's seat is handed to a bot: version 1
    client.post(f"/v1/sessions/{sid}/leave", json={"level": "random"}, headers=auth(tokens[other]))
    result = finished_job(client, job_url)
    assert result["status"] == "failed" and result["error"].startswith("stale_version"), result
    assert redis_client.llen(Keys(prefix).session_log(sid)) == 0


def test_a_hand_over_goes_on_from_the_session_as_it_is_after_it(app, redis_client, prefix):
    """Leave and claim answer, and schedule the bot to act from, the session just after the
    hand-over: a move may land between the handler's load and its write (a bot turn was
    lost when the stale state said a person was to act)."""
    client = app.test_client()
    created = create(client, seed=99, options=LONG_MATCH)
    sid, tokens = created["id"], created["tokens"]
    seat, action = first_legal(redis_client, prefix, sid)
    store = S.SessionStore(app.extensions[RUNTIME_EXTENSION])
    loaded = store.load(sid)  # the other seat's claim loads the session ...
    moved = client.post(  # ... a move lands meanwhile ...
        f"/v1/sessions/{sid}/moves",
        json={"action": action, "expected_version": 0},
        headers=auth(tokens[seat]),
    )
    assert moved.status_code == 200
    after = store.set_seat(loaded, 1 - seat, {"type": "bot", "level": "random"})  # ... and writes
    game, state = full_state(redis_client, prefix, sid)
    assert after.version == 2 and after.seats[1 - seat]["type"] == "bot"
    assert game.to_json(after.state) == game.to_json(state)
