"""Ronda-specific property tests (beyond tests/properties/test_contract.py)."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from ronda_helpers import ALL_CODES, GAME

from engine.protocol import EngineError

OPTIONS = st.fixed_dictionaries(
    {
        "deal_style": st.sampled_from(["table", "no_table"]),
        "tringa_points": st.sampled_from([5, 3]),
        "challenges": st.booleans(),
        "auto_declare": st.booleans(),
        "chain_bonuses": st.booleans(),
        "target_score": st.sampled_from([41, 15]),
        "shuffle_returned_cards": st.booleans(),
        "este_capturing_card": st.sampled_from(["taken", "stays_on_table"]),
        "chain_bonus_players": st.sampled_from(["three_or_four", "any"]),
        "chain_bonus_values": st.sampled_from(["5_then_10", "5_then_11"]),
    }
)


@st.composite
def matches(draw):
    players = draw(st.sampled_from([2, 3, 4]))
    options = draw(OPTIONS)
    if players == 3:
        options["deal_style"] = "table"
    return players, options, draw(st.integers(0, players - 1)), draw(st.integers(0, 2**32 - 1))


def random_states(players, options, dealer, seed, every=1):
    """Yield the states of a random match (every ``every``-th one), seeded."""
    rng = random.Random(seed)
    s = GAME.new_state(players, options, dealer, seed=seed)
    k = 0
    while GAME.to_act(s) is not None:
        if k % every == 0:
            yield s, rng
        acts = GAME.legal_actions(s)
        s = GAME.clone(s)
        GAME.step(s, rng.choice(acts))
        k += 1
    yield s, rng


@given(matches())
def test_scores_and_items_add_up_and_cards_are_conserved(match):
    players, options, dealer, seed = match
    prev_scores = None
    prev_deal = 0
    for s, _ in random_states(players, options, dealer, seed):
        js = GAME.to_json(s)
        report = GAME.score(s)
        assert all(v >= 0 for v in js["scores"])
        assert sum(i["points"] for i in report.items) == sum(report.deal_points)
        if js["deal_no"] == prev_deal and prev_scores is not None:
            # within a deal the scores move by exactly this deal's items
            assert [a - b for a, b in zip(js["scores"], report.deal_points, strict=True)] == prev_scores
        else:
            prev_scores = [a - b for a, b in zip(js["scores"], report.deal_points, strict=True)]
            prev_deal = js["deal_no"]
        places = [c for h in js["hands"] for c in h] + js["table"] + js["stock"]
        places += [c for p in js["piles"] for c in p]
        assert Counter(places) == Counter(ALL_CODES)
        ranks = [c[0] for c in js["table"]]
        assert len(ranks) == len(set(ranks)), "R7: never two cards of a rank on the table"
        if js["phase"] == "match_over":
            assert report.finished and report.winner == js["winner"]


@settings(max_examples=15)
@given(matches())
def test_views_hide_hands_stock_and_decks_and_samples_agree(match):
    players, options, dealer, seed = match
    for s, rng in random_states(players, options, dealer, seed, every=7):
        js = GAME.to_json(s)
        for seat in range(players):
            view = GAME.view(s, seat)
            text = json.dumps(view)
            for t in range(players):
                if t != seat and t not in js["revealed"]:
                    assert isinstance(view["hands"][t], int)
                    for c in js["hands"][t]:
                        assert f'"{c}"' not in text
            assert isinstance(view["stock"], int) and "rng_state" not in view
            world = GAME.sample(view, rng)
            assert GAME.view(world, seat) == view
            wjs = GAME.to_json(world)
            assert wjs["hands"][seat] == js["hands"][seat] and wjs["piles"] == js["piles"]
            assert wjs["played"] == js["played"] and wjs["table"] == js["table"]
            assert GAME.info_key(world, seat) == GAME.info_key(s, seat)
            if options["auto_declare"] and js["phase"] != "match_over":
                assert wjs["declarations"] == js["declarations"]
                assert GAME.to_json(GAME.from_json(wjs)) == wjs  # holdings match the declarations


JSON_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 60),
    st.text(max_size=3),
    st.sampled_from(ALL_CODES + ["TH", "8S", "pass", "play", "declare", "ronda"]),
)
JUNK = st.recursive(
    JSON_LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=20,
)


@given(JUNK)
def test_junk_input_raises_only_engine_errors(junk):
    s = GAME.new_state(2, {}, 0, seed=1)
    for call in (
        lambda: GAME.from_json(junk),
        lambda: GAME.parse_action(s, junk),
        lambda: GAME.sampler(junk),
        lambda: GAME.new_state(2, {}, 0, layout=junk),
    ):
        try:
            call()
        except EngineError:
            pass


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, prefix + (i,))


@given(st.integers(0, 2**32 - 1), st.integers(0, 60), st.data())
def test_mutated_states_and_views_raise_only_engine_errors(seed, steps, data):
    rng = random.Random(seed)
    s = GAME.new_state(rng.choice([2, 3, 4]), {}, 0, seed=seed)
    for _ in range(steps):
        if GAME.to_act(s) is None:
            break
        GAME.step(s, rng.choice(GAME.legal_actions(s)))
    for doc in (GAME.to_json(s), GAME.view(s, 0)):
        bad = copy.deepcopy(doc)
        path = data.draw(st.sampled_from(list(_paths(bad))[1:]))
        parent = bad
        for key in path[:-1]:
            parent = parent[key]
        if data.draw(st.booleans()):
            del parent[path[-1]]
        else:
            parent[path[-1]] = data.draw(JUNK)
        for call in (GAME.from_json, GAME.sampler):
            try:
                call(bad)
            except EngineError:
                pass
