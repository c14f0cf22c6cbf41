"""Property tests specific to Porrazo (beyond tests/properties/test_contract.py)."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from porrazo_helpers import GAME

from engine.cards import CODES
from engine.games.porrazo.rules import holding
from engine.protocol import BadAction, EngineError

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 60)
    | st.sampled_from(list(CODES) + ["x", "", "play", "ronda"]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=20,
)


def random_state(seed: int, players: int, options: dict, steps: int):
    """A state after ``steps`` random legal actions of a seeded match."""
    rng = random.Random(seed)
    state = GAME.new_state(players, options, seed % players, seed=seed)
    for _ in range(steps):
        if GAME.to_act(state) is None:
            break
        GAME.step(state, rng.choice(GAME.legal_actions(state)))
    return state


matches = st.tuples(
    st.integers(0, 2**31),
    st.sampled_from((2, 3, 4, 5, 6, 8)),
    st.fixed_dictionaries(
        {
            "declaration_mode": st.sampled_from(["manual", "auto"]),
            "deal_pattern": st.sampled_from(["threes", "singles"]),
        }
    ),
    st.integers(0, 120),
)


@given(json_values)
def test_junk_states_raise_only_engine_errors(junk):
    try:
        GAME.from_json(junk)
    except EngineError:
        pass


@given(matches, st.data())
def test_mutated_states_raise_only_engine_errors(match, data):
    dumped = GAME.to_json(random_state(*match))
    key = data.draw(st.sampled_from(sorted(dumped)))
    mutated = dict(dumped)
    mutated[key] = data.draw(json_values)
    try:
        GAME.from_json(mutated)
    except EngineError:
        pass
    view = GAME.view(random_state(*match), 0)
    view[key if key in view else "table"] = data.draw(json_values)
    try:
        GAME.sampler(view)
    except EngineError:
        pass


@given(json_values)
def test_junk_actions_raise_only_bad_action(junk):
    state = GAME.new_state(3, {}, 0, seed=1)
    try:
        action = GAME.parse_action(state, junk)
    except BadAction:
        return
    assert GAME.parse_action(state, GAME.action_to_json(state, action)) == action


@settings(max_examples=10)
@given(st.integers(0, 2**31), st.sampled_from((2, 3, 4, 6)), st.booleans())
def test_points_events_add_up_to_the_score_changes(seed, players, teams):
    options = {"teams": "alternate"} if teams and players in (4, 6) else {}
    rng = random.Random(seed)
    state = GAME.new_state(players, options, 0, seed=seed)
    while GAME.to_act(state) is not None:
        before = list(GAME.score(state).scores)
        seat = GAME.to_act(state)
        state, events = GAME.apply(state, seat, rng.choice(GAME.legal_actions(state)))
        after = GAME.score(state).scores
        gained = [0] * len(before)
        for event in events:
            if event["type"] == "points":
                gained[event["side"]] += event["points"]
        assert [a - b for a, b in zip(after, before, strict=True)] == gained
        assert all(g >= 0 for g in gained)
        report = GAME.score(state)
        assert sum(report.deal_points) == sum(item["points"] for item in report.items)
    report = GAME.score(state)
    assert report.finished and report.winner is not None
    win_reason = GAME.to_json(state)["win_reason"]
    assert win_reason == "san_benito" or report.scores[report.winner] >= 61


@settings(max_examples=30)
@given(matches)
def test_sampled_worlds_agree_with_the_view_and_the_declarations(match):
    state = random_state(*match)
    if GAME.to_act(state) is None:
        return
    auto = match[2]["declaration_mode"] == "auto"
    rng = random.Random(match[0])
    for seat in range(match[1]):
        view = GAME.view(state, seat)
        sample = GAME.sampler(view)
        key = GAME.info_key(state, seat)
        for _ in range(3):
            world = sample(rng)
            assert GAME.view(world, seat) == view
            assert GAME.info_key(world, seat) == key
            assert Counter(GAME.cards_in_play(world)) == Counter(CODES)
            data = GAME.to_json(world)
            for s, kind in enumerate(data["declarations"]):
                dealt = world.dealt[s]
                if kind is not None:
                    assert holding(dealt)[0] == (1 if kind == "ronda" else 2)
                elif auto and data["phase"] == "play":
                    assert holding(dealt)[0] == 0


def test_dealers_own_hand_is_resampled_during_the_tendido_choice():
    state = GAME.new_state(2, {}, 0, seed=21)
    assert GAME.phase(state) == "tendido_choice"
    sample = GAME.sampler(GAME.view(state, 0))
    rng = random.Random(1)
    hands = {tuple(GAME.to_json(sample(rng))["hands"][0]) for _ in range(10)}
    assert len(hands) > 1


def test_views_hide_other_hands_and_the_stock():
    state = random_state(5, 4, {}, 10)
    data = GAME.to_json(state)
    for seat in range(4):
        view = GAME.view(state, seat)
        assert view["stock"] == len(data["stock"])
        assert "rng_state" not in view and "decks" not in view
        for s in range(4):
            if s != seat:
                assert view["hands"][s] == len(data["hands"][s])
