"""Match review on a real Redis and a real worker: a planted blunder is flagged, progress
is counted in decisions, a finished review is kept with the session, another seat's
review is refused during the match, and no review shows its token a card it may not see."""

from __future__ import annotations

import json
import re

import pytest

from engine import get_game
from service.redis_conn import Keys
from tests.integration.conftest import GAME, assert_error, wait_for

pytestmark = pytest.mark.integration

BLUNDER_SEED = 4
"""Ronda, 2 players, seed 4: seat 1 passes its declaration; then seat 0 holds a ronda
(a pair) and no tringa. Declaring a *tringa* it does not hold is a clear mistake: the
search values it about 0.3 below declaring the ronda (found by searching each action)."""
BLUNDER = {"type": "declare", "combo": "tringa"}
CARD = re.compile(r'"([2-7AJQK][CDHS])"')


def auth(token):
    return {"Authorization": f"Bearer {token}"}


def planted_moves(game, state, extra: int):
    """Seat 1 passes, seat 0 blunders, then ``extra`` first-legal moves; the JSON actions."""
    moves = []
    for action_json in ({"type": "pass"}, BLUNDER):
        moves.append(action_json)
        state, _ = game.apply(state, game.to_act(state), game.parse_action(state, action_json))
    for _ in range(extra):
        action = game.legal_actions(state)[0]
        moves.append(game.action_to_json(state, action))
        state, _ = game.apply(state, game.to_act(state), action)
    return moves


def finished_job(client, job):
    def done():
        got = client.get(job["url"]).get_json()
        return got if got["status"] in ("done", "failed") else None

    got = wait_for(done, timeout=90, interval=0.2)
    assert got["status"] == "done", got
    return got


def test_a_planted_blunder_is_flagged_in_a_stateless_review(client):
    game = get_game(GAME)
    initial = game.new_state(2, game.parse_options({}, 2), 0, seed=BLUNDER_SEED)
    assert game.to_act(initial) == 1
    moves = planted_moves(game, initial, extra=6)
    answer = client.post(
        f"/v1/games/{GAME}/review",
        json={"state": game.to_json(initial), "actions": moves, "seat": 0, "iterations": 1000},
    )
    assert answer.status_code == 202, answer.get_json()
    job = finished_job(client, answer.get_json()["job"])
    review = job["review"]
    assert job["progress"]["done"] == job["progress"]["total"] == job["parts"]
    assert job["parts"] == len(review["decisions"]) >= 2
    blunder = next(d for d in review["decisions"] if d["n"] == 2)
    assert blunder["seat"] == 0 and blunder["played"] == BLUNDER
    assert blunder["best"] != BLUNDER
    assert blunder["loss"] == pytest.approx(blunder["best_value"] - blunder["played_value"], abs=1e-5)
    assert blunder["mistake"] and blunder["loss"] >= review["mistake_loss"]
    [summary] = review["summary"]
    assert summary["seat"] == 0 and summary["mistakes"] >= 1
    assert summary["biggest_mistakes"][0]["n"] == 2
    assert summary["accuracy"] < 100.0
    assert all(d["seat"] == 0 for d in review["decisions"])


def test_a_stateless_review_names_the_move_that_does_not_apply(client):
    game = get_game(GAME)
    initial = game.new_state(2, game.parse_options({}, 2), 0, seed=BLUNDER_SEED)
    bad = [{"type": "pass"}, {"type": "play", "card": "AS"}]
    answer = client.post(
        f"/v1/games/{GAME}/review", json={"state": game.to_json(initial), "actions": bad, "seat": 0}
    )
    error = assert_error(answer, 422)
    assert error["move"] == 2
    answer = client.post(
        f"/v1/games/{GAME}/review", json={"state": game.to_json(initial), "actions": [], "seat": 5}
    )
    assert_error(answer, 422, "wrong_seat")


def test_a_review_longer_than_the_server_searches_is_refused(client, monkeypatch):
    from service import review

    monkeypatch.setattr(review, "MAX_DECISIONS", 1)
    game = get_game(GAME)
    initial = game.new_state(2, game.parse_options({}, 2), 0, seed=BLUNDER_SEED)
    moves = planted_moves(game, initial, extra=6)
    answer = client.post(
        f"/v1/games/{GAME}/review", json={"state": game.to_json(initial), "actions": moves, "seat": 0}
    )
    error = assert_error(answer, 422, "too_many_decisions")
    assert error["decisions"] > 1


def start_session(client, seed=BLUNDER_SEED, options=None):
    body = {"game": GAME, "players": 2, "seed": seed, "options": options or {}}
    answer = client.post("/v1/sessions", json=body)
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def play(client, created, moves):
    game = get_game(GAME)
    for version, action in enumerate(moves):
        seat = client.get(f"/v1/sessions/{created['id']}", headers=auth(created["tokens"][0])).get_json()[
            "to_act"
        ]
        answer = client.post(
            f"/v1/sessions/{created['id']}/moves",
            json={"action": action, "expected_version": version},
            headers=auth(created["tokens"][seat]),
        )
        assert answer.status_code == 200, (game.id, answer.get_json())


def test_a_seat_reviews_its_own_decisions_during_the_match_and_the_review_is_kept(client):
    game = get_game(GAME)
    created = start_session(client)
    sid, tokens = created["id"], created["tokens"]
    initial = game.new_state(2, game.parse_options({}, 2), 0, seed=BLUNDER_SEED)
    play(client, created, planted_moves(game, initial, extra=4))
    assert_error(client.get(f"/v1/sessions/{sid}/review", headers=auth(tokens[0])), 404, "unknown_review")
    answer = client.post(f"/v1/sessions/{sid}/review", json={"iterations": 1000}, headers=auth(tokens[0]))
    assert answer.status_code == 202, answer.get_json()
    job = finished_job(client, answer.get_json()["job"])
    assert job["progress"]["total"] == len(job["review"]["decisions"])
    assert any(d["n"] == 2 and d["mistake"] for d in job["review"]["decisions"])
    kept = client.get(f"/v1/sessions/{sid}/review", headers=auth(tokens[0]))
    assert kept.status_code == 200 and kept.get_json()["review"] == job["review"]
    assert kept.get_json()["review"]["session"] == sid and kept.get_json()["review"]["version"] == 6


def test_during_the_match_another_seat_s_review_is_refused(client):
    created = start_session(client, seed=5)
    sid, tokens = created["id"], created["tokens"]
    for body in ({"seat": 0}, {"all_seats": True}):
        answer = client.post(f"/v1/sessions/{sid}/review", json=body, headers=auth(tokens[1]))
        assert_error(answer, 403, "review_refused")
    assert_error(
        client.get(f"/v1/sessions/{sid}/review?seat=0", headers=auth(tokens[1])), 403, "review_refused"
    )
    assert_error(client.post(f"/v1/sessions/{sid}/review", json={"seat": 0}), 401)
    answer = client.post(f"/v1/sessions/{sid}/review", json={"seat": 9}, headers=auth(tokens[1]))
    assert_error(answer, 422, "wrong_seat")


@pytest.mark.parametrize("seat", [0, 1])
def test_property_a_seat_s_review_shows_only_what_that_seat_could_see_at_each_decision(
    client, redis_client, prefix, seat
):
    game = get_game(GAME)
    created = start_session(client, seed=21 + seat)
    sid, tokens = created["id"], created["tokens"]
    initial = game.new_state(2, game.parse_options({}, 2), 0, seed=21 + seat)
    state, moves = initial, []
    for _ in range(14):  # a few first-legal moves: declarations, then plays
        action = game.legal_actions(state)[0]
        moves.append(game.action_to_json(state, action))
        state, _ = game.apply(state, game.to_act(state), action)
    play(client, created, moves)
    answer = client.post(f"/v1/sessions/{sid}/review", json={"iterations": 60}, headers=auth(tokens[seat]))
    review = finished_job(client, answer.get_json()["job"])["review"]
    kept = client.get(f"/v1/sessions/{sid}/review", headers=auth(tokens[seat])).get_json()["review"]
    assert kept == review and review["decisions"]
    # each decision against the state when it was taken (from the log in Redis)
    before = {}
    state = initial
    for n, raw in enumerate(redis_client.lrange(Keys(prefix).session_log(sid), 0, -1), start=1):
        entry = json.loads(raw)
        before[n] = state
        state, _ = game.apply(state, entry["seat"], game.parse_action(state, entry["action"]))
    for decision in review["decisions"]:
        assert decision["seat"] == seat
        hidden = set(game.hidden_cards(before[decision["n"]], seat))
        shown = set(CARD.findall(json.dumps(decision)))
        assert not shown & hidden, (decision, shown & hidden)
    summary_cards = set(CARD.findall(json.dumps(review["summary"])))
    assert summary_cards <= set(CARD.findall(json.dumps(review["decisions"])))


def test_after_the_match_every_seat_is_reviewed_and_unseen_cards_stay_hidden(client, redis_client, prefix):
    game = get_game(GAME)
    created = start_session(client, seed=8, options={"target_score": 1})
    sid, tokens = created["id"], created["tokens"]
    raw = redis_client.hget(Keys(prefix).session(sid), "state")
    state, moves = game.from_json(json.loads(raw)), []
    while game.to_act(state) is not None:
        action = game.legal_actions(state)[0]
        moves.append(game.action_to_json(state, action))
        state, _ = game.apply(state, game.to_act(state), action)
    play(client, created, moves)
    answer = client.post(
        f"/v1/sessions/{sid}/review", json={"all_seats": True, "iterations": 30}, headers=auth(tokens[1])
    )
    assert answer.status_code == 202, answer.get_json()
    review = finished_job(client, answer.get_json()["job"])["review"]
    assert review["seats"] == [0, 1] and {s["seat"] for s in review["summary"]} == {0, 1}
    assert {d["seat"] for d in review["decisions"]} == {0, 1}
    hidden = set(game.hidden_cards(state, 1))
    for token in tokens:
        kept = client.get(f"/v1/sessions/{sid}/review?all_seats=true", headers=auth(token)).get_json()[
            "review"
        ]
        assert len(kept["decisions"]) == len(review["decisions"])
    assert not set(CARD.findall(json.dumps(review))) & hidden
