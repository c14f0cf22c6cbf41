"""No input, however malformed, gets a 500: random bodies and mutated states."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import GAME_IDS
from tests.problems import problem

ENDPOINTS = ["deals", "legal-moves", "moves", "score", "view", "bot-move"]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=6)
    | st.sampled_from(["AS", "TH", "KC", "play", "pass", "deal", "declare"]),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)


def assert_clean(response):
    assert response.status_code < 500, response.get_data(as_text=True)[:500]
    if response.status_code >= 400:
        problem(response)


@settings(max_examples=60)
@given(endpoint=st.sampled_from(ENDPOINTS), body=json_values)
def test_random_bodies_never_500(app, endpoint, body):
    client = app.test_client()
    assert_clean(client.post(f"/v1/games/ronda/{endpoint}", json=body))


@settings(max_examples=30)
@given(raw=st.binary(max_size=64))
def test_random_bytes_never_500(app, raw):
    client = app.test_client()
    assert_clean(client.post("/v1/games/ronda/moves", data=raw, content_type="application/json"))


def mutate(value, rng: random.Random, junk):
    """One random change somewhere inside a JSON value."""
    if isinstance(value, dict) and value:
        key = rng.choice(sorted(value))
        out = dict(value)
        roll = rng.random()
        if roll < 0.2:
            del out[key]
        elif roll < 0.4:
            out[key] = junk
        else:
            out[key] = mutate(value[key], rng, junk)
        return out
    if isinstance(value, list) and value:
        out = list(value)
        i = rng.randrange(len(out))
        roll = rng.random()
        if roll < 0.25:
            del out[i]
        elif roll < 0.5:
            out.append(out[i])
        elif roll < 0.7:
            out[i] = junk
        else:
            out[i] = mutate(out[i], rng, junk)
        return out
    return junk


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_mutated_states_never_500(app, game_id):
    client = app.test_client()
    game = client.get(f"/v1/games/{game_id}").get_json()
    players = game["players"][0]
    state = client.post(f"/v1/games/{game_id}/deals", json={"players": players, "seed": 3}).get_json()[
        "state"
    ]
    # walk a few legal moves in so that history and piles are not empty
    for _ in range(6):
        legal = client.post(f"/v1/games/{game_id}/legal-moves", json={"state": state}).get_json()
        if not legal["actions"]:
            break
        state = client.post(
            f"/v1/games/{game_id}/moves",
            json={"state": state, "seat": legal["to_act"], "action": legal["actions"][0]},
        ).get_json()["state"]

    @settings(max_examples=40)
    @given(
        seed=st.integers(0, 2**32),
        junk=json_values,
        endpoint=st.sampled_from(["legal-moves", "score", "view", "moves", "bot-move"]),
    )
    def run(seed, junk, endpoint):
        rng = random.Random(seed)
        bad = state
        for _ in range(rng.randint(1, 3)):
            bad = mutate(bad, rng, junk)
        body = {"state": bad}
        if endpoint in ("view", "moves", "bot-move"):
            body["seat"] = 0
        if endpoint == "moves":
            body["action"] = {"type": "pass"}
        if endpoint == "bot-move":
            body["level"] = "random"
        assert_clean(client.post(f"/v1/games/{game_id}/{endpoint}", json=body))
        view = client.post(f"/v1/games/{game_id}/view", json={"state": state, "seat": 0}).get_json()["view"]
        assert_clean(client.post(f"/v1/games/{game_id}/legal-moves", json={"view": mutate(view, rng, junk)}))

    run()
    json.dumps(state)
