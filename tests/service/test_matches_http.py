"""Whole matches over HTTP: Ronda's worked examples replayed through the API, and a
seeded random match of every game and player count played to its end."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine import GAME_IDS, get_game
from tests.games.ronda.ronda_helpers import GAME as RONDA
from tests.games.ronda.ronda_helpers import check_facts, fill_rest, load_example
from tests.service.conftest import post

EXAMPLES = sorted(
    (Path(__file__).resolve().parents[1] / "data" / "ronda").glob("E*.json"), key=lambda p: int(p.stem[1:])
)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_ronda_worked_example_over_http(client, path):
    example = load_example(path)
    setup = example["setup"]
    body = {"players": setup["players"], "dealer": setup["dealer"], "options": setup.get("options", {})}
    if "deck" in setup:
        body["deck"] = setup["deck"]
    else:
        body["layout"] = fill_rest(setup["layout"], setup["players"])
    state = post(client, "/v1/games/ronda/deals", body)["state"]
    check_facts(RONDA.from_json(state), example.get("start", {}), "start")
    for i, step in enumerate(example["steps"], 1):
        check_facts(RONDA.from_json(state), step.get("before", {}), f"action {i} (before)")
        move = {"state": state, "seat": step["seat"], "action": step["action"]}
        if "reject" in step:
            error = post(client, "/v1/games/ronda/moves", move, 422)
            assert error["detail"] == step["reject"]
            assert error["code"] in {"illegal_move", "not_your_turn"}
            continue
        state = post(client, "/v1/games/ronda/moves", move)["state"]
        check_facts(RONDA.from_json(state), step.get("after", {}), f"action {i}")


def play_over_http(client, game_id: str, players: int, seed: int):
    """Random legal play through /legal-moves and /moves to the end of the match; returns
    the final state, every event, and the actions played."""
    rng = random.Random(seed)
    state = post(client, f"/v1/games/{game_id}/deals", {"players": players, "seed": seed})["state"]
    events, played = [], []
    while state["to_act"] is not None:
        legal = post(client, f"/v1/games/{game_id}/legal-moves", {"state": state})
        action = rng.choice(legal["actions"])
        answer = post(
            client, f"/v1/games/{game_id}/moves", {"state": state, "seat": legal["to_act"], "action": action}
        )
        state = answer["state"]
        events += answer["events"]
        played.append((legal["to_act"], action))
    return state, events, played


@pytest.mark.parametrize("players", [2, 3, 4])
def test_ronda_match_to_41_over_http_scores_add_up(client, players):
    state, events, _ = play_over_http(client, "ronda", players, seed=100 + players)
    score = post(client, "/v1/games/ronda/score", {"state": state})
    assert score["finished"] and score["winner"] is not None
    totals = [0] * len(score["scores"])
    for event in events:
        if event["type"] == "points":
            totals[event["side"]] += event["points"]
    assert totals == score["scores"] == state["scores"]
    ended_by_challenge = any(e["type"] == "challenge" and e.get("genuine") for e in events)
    assert ended_by_challenge or max(score["scores"]) >= 41
    assert sum(e["type"] == "match_over" for e in events) == 1


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_game_plays_a_whole_match_over_http(client, game_id):
    game = get_game(game_id)
    players = game.player_counts[0]  # the smallest table: the plumbing, not the rules, is tested here
    state, _, played = play_over_http(client, game_id, players, seed=7)
    # the service is a faithful carrier: the engine, fed the same actions, ends identically
    local = game.new_state(players, None, 0, seed=7)
    for seat, action in played:
        local, _ = game.apply(local, seat, game.parse_action(local, action))
    assert game.to_json(local) == state
    score = post(client, f"/v1/games/{game_id}/score", {"state": state})
    assert score["finished"] is True


@pytest.mark.parametrize("players", get_game("porrazo").player_counts)
def test_porrazo_match_to_61_over_http_every_table(client, players):
    state, events, _ = play_over_http(client, "porrazo", players, seed=200 + players)
    score = post(client, "/v1/games/porrazo/score", {"state": state})
    assert score["finished"]
    san_benito = any(e["type"] == "san_benito" for e in events)
    assert san_benito or max(score["scores"]) >= 61


@pytest.mark.parametrize("players", get_game("marriage").player_counts)
def test_marriage_deals_played_and_settled_over_http_every_table(client, players):
    state, events, _ = play_over_http(client, "marriage", players, seed=300 + players)
    score = post(client, "/v1/games/marriage/score", {"state": state})
    assert score["finished"]
    assert len(score["scores"]) == players
    assert sum(score["scores"]) == 0, "Marriage settlements are payments between players"
