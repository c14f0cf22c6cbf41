"""Property tests specific to Trex (beyond tests/properties/test_contract.py)."""

from __future__ import annotations

import copy
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from trex_helpers import GAME

from engine.protocol import EngineError

TOTALS = {
    "king_of_hearts": -75,
    "queens": -100,
    "diamonds": -130,
    "collections": -195,
    "trex": 500,
    "complex": -500,
}
SWAPPED = {**TOTALS, "diamonds": -195, "collections": -130}

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 60)
    | st.sampled_from(["2S", "KH", "1S", "trex", "play", "pass", ""]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["type", "card", "contract", "deck", "seat", "hands", "phase", "x"]),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


def random_state(seed: int, options: dict, steps: int):
    rng = random.Random(seed)
    state = GAME.new_state(4, options, seed % 4, seed=seed)
    for _ in range(steps):
        if GAME.to_act(state) is None:
            break
        GAME.step(state, rng.choice(GAME.legal_actions(state)))
    return state


options_st = st.fixed_dictionaries(
    {
        "doubling": st.booleans(),
        "must_discard_penalty": st.booleans(),
        "free_heart_lead": st.booleans(),
        "partnership": st.booleans(),
        "trex_complex": st.booleans(),
        "play_all_tricks": st.booleans(),
        "diamonds_collections_swap": st.booleans(),
        "reversed_scores": st.booleans(),
        "trex_layout_start": st.sampled_from(["jacks", "sevens"]),
    }
)


@settings(max_examples=60)
@given(json_values)
def test_junk_input_only_raises_engine_errors(junk):
    state = GAME.new_state(4, {}, 0, seed=1)
    for call in (
        lambda: GAME.from_json(junk),
        lambda: GAME.parse_action(state, junk),
        lambda: GAME.sampler(junk),
        lambda: GAME.new_state(4, None, 0, layout=junk),
    ):
        try:
            call()
        except EngineError:
            pass


def _mutate(data, rng: random.Random, junk):
    """Replace one randomly chosen node of a JSON value by ``junk`` (or drop a key)."""
    data = copy.deepcopy(data)
    node = data
    for _ in range(rng.randrange(1, 4)):
        if isinstance(node, dict) and node:
            key = rng.choice(sorted(node))
            if rng.random() < 0.5 or not isinstance(node[key], (dict, list)) or not node[key]:
                if rng.random() < 0.2:
                    del node[key]
                else:
                    node[key] = junk
                return data
            node = node[key]
        elif isinstance(node, list) and node:
            i = rng.randrange(len(node))
            if rng.random() < 0.5 or not isinstance(node[i], (dict, list)) or not node[i]:
                node[i] = junk
                return data
            node = node[i]
        else:
            return data
    return data


@settings(max_examples=60)
@given(st.integers(0, 10**6), st.integers(0, 120), json_values, st.booleans())
def test_mutated_states_and_views_raise_only_engine_errors(seed, steps, junk, as_view):
    state = random_state(seed, {}, steps)
    data = GAME.view(state, seed % 4) if as_view else GAME.to_json(state)
    bad = _mutate(data, random.Random(seed), junk)
    try:
        if as_view:
            world = GAME.sampler(bad)(random.Random(0))
            assert GAME.view(world, seed % 4) == bad
        else:
            loaded = GAME.from_json(bad)
            assert GAME.to_json(loaded) == GAME.to_json(GAME.from_json(GAME.to_json(loaded)))
    except EngineError:
        pass


PENALTY = {
    "king_of_hearts": lambda c: c == "KH",
    "queens": lambda c: c[0] == "Q",
    "diamonds": lambda c: c[1] == "D",
    "complex": lambda c: c == "KH" or c[0] == "Q" or c[1] == "D",
}


def _shown_voids(view) -> list[set[str]]:
    """Section 7: suits a seat showed it lacks (from the view's played list): not following;
    with R10, leading a heart (only hearts held); ``"penalty"`` when R11 showed that the seat
    holds no penalty card."""
    voids: list[set[str]] = [set(), set(), set(), set()]
    tricks: dict[int, list] = {}
    for e in view["played"]:
        if "trick" in e:
            tricks.setdefault(e["trick"], []).append((e["seat"], e["action"]["card"]))
    r10 = view["contract"] in ("king_of_hearts", "complex") and not view["options"]["free_heart_lead"]
    r11 = view["options"]["must_discard_penalty"] and view["contract"] in PENALTY
    for plays in tricks.values():
        led = plays[0][1][1]
        if r10 and led == "H":
            voids[plays[0][0]] |= {"S", "D", "C"}
        for seat, card in plays[1:]:
            if card[1] != led:
                voids[seat].add(led)
                if r11 and not PENALTY[view["contract"]](card):
                    voids[seat].add("penalty")
    return voids


@settings(max_examples=40)
@given(st.integers(0, 10**6), st.integers(5, 45), options_st)
def test_sampled_worlds_respect_voids_doubles_and_the_view(seed, steps, options):
    state = random_state(seed, options, steps)
    for seat in range(4):
        view = GAME.view(state, seat)
        voids = _shown_voids(view)
        sample = GAME.sampler(view)
        rng = random.Random(seed)
        for _ in range(3):
            world = sample(rng)
            assert GAME.view(world, seat) == view
            hands = GAME.to_json(world)["hands"]
            assert hands[seat] == view["hands"][seat]
            for other in range(4):
                if other == seat:
                    continue
                assert not {c[1] for c in hands[other]} & voids[other]
                if "penalty" in voids[other]:
                    assert not any(PENALTY[view["contract"]](c) for c in hands[other])
            for card, doubler in view["doubled"].items():
                if card not in {t["card"] for t in view["trick"]} and not any(
                    card in w for w in view["cards_won"]
                ):
                    assert card in hands[doubler]
            for other, twos in enumerate(view["exposed_twos"]):
                assert set(twos) <= set(hands[other])


@settings(max_examples=4)
@given(st.integers(0, 10**6), options_st)
def test_s9_deal_totals_and_zero_sum_kingdoms(seed, options):
    state = random_state(seed, options, 10**6)
    data = GAME.to_json(state)
    assert data["phase"] == "match_over"
    totals = SWAPPED if options["diamonds_collections_swap"] else TOTALS
    sign = -1 if options["reversed_scores"] else 1
    per_kingdom = 2 if options["trex_complex"] else 5
    assert len(data["deal_results"]) == 4 * per_kingdom
    running = [0, 0, 0, 0]
    for i, result in enumerate(data["deal_results"]):
        assert sum(result["scores"]) == sign * totals[result["contract"]]
        running = [a + b for a, b in zip(running, result["scores"], strict=True)]
        if (i + 1) % per_kingdom == 0:
            assert sum(running) == 0
            used = [r["contract"] for r in data["deal_results"][i + 1 - per_kingdom : i + 1]]
            assert sorted(used) == sorted(
                ["complex", "trex"] if options["trex_complex"] else TOTALS.keys() - {"complex"}
            )
    assert running == data["match_scores"]
    owners = [r["owner"] for r in data["deal_results"]]
    assert sorted(set(owners)) == [0, 1, 2, 3]


@settings(max_examples=15)
@given(st.integers(0, 10**6), st.integers(0, 300))
def test_views_show_only_own_hand_and_public_cards(seed, steps):
    state = random_state(seed, {"partnership": True}, steps)
    full = GAME.to_json(state)
    for seat in range(4):
        view = GAME.view(state, seat)
        assert "rng_state" not in view and "decks" not in view
        for other in range(4):
            if other != seat:
                assert view["hands"][other] == len(full["hands"][other])
        assert view["hands"][seat] == full["hands"][seat]
        assert all(isinstance(e["action"].get("deck", 52), int) for e in view["history"])


@settings(max_examples=15)
@given(st.integers(0, 10**6), st.integers(0, 200))
def test_info_key_matches_view_equality(seed, steps):
    state = random_state(seed, {}, steps)
    seat = GAME.to_act(state) if GAME.to_act(state) is not None else 0
    view = GAME.view(state, seat)
    world = GAME.sample(view, random.Random(seed))
    assert GAME.info_key(world, seat) == GAME.info_key(state, seat)
    nxt = GAME.clone(state)
    if GAME.legal_actions(nxt):
        GAME.step(nxt, GAME.legal_actions(nxt)[0])
        assert (GAME.info_key(nxt, seat) == GAME.info_key(state, seat)) == (GAME.view(nxt, seat) == view)


SEQ = "23456789TJQKA"


def _fitting(layout: dict) -> set[str]:
    """R15 from the JSON layout: the cards that would fit now."""
    out = set()
    for suit, rng in layout.items():
        if rng is None:
            out.add("J" + suit)
            continue
        lo, hi = SEQ.index(rng["low"]), SEQ.index(rng["high"])
        if lo > 0:
            out.add(SEQ[lo - 1] + suit)
        if hi < 12:
            out.add(SEQ[hi + 1] + suit)
    return out


@settings(max_examples=10)
@given(st.integers(0, 10**6), st.integers(4, 60))
def test_sampler_respects_trex_passes(seed, turns):
    rng = random.Random(seed)
    state = GAME.new_state(4, {}, 0, seed=seed)
    GAME.step(state, GAME.parse_action(state, {"type": "choose", "contract": "trex"}))
    excluded: list[set[str]] = [set(), set(), set(), set()]
    for _ in range(turns):
        if GAME.phase(state) != "layout":
            break
        seat = GAME.to_act(state)
        action = rng.choice(GAME.legal_actions(state))
        if GAME.action_to_json(state, action) == {"type": "pass"}:
            excluded[seat] |= _fitting(GAME.to_json(state)["layout"])
        GAME.step(state, action)
    if GAME.phase(state) != "layout":
        return
    for seat in range(4):
        sample = GAME.sampler(GAME.view(state, seat))
        for _ in range(3):
            hands = GAME.to_json(sample(rng))["hands"]
            for other in range(4):
                assert not set(hands[other]) & excluded[other]


def test_unhashable_junk_in_history_is_an_invalid_state():
    data = GAME.to_json(GAME.new_state(4, {}, 0, seed=1))
    for bad in (
        {"type": ["x"]},
        {"type": {}},
        {"type": "play", "card": {}},
        {"card": "2S", "type": [1]},
    ):
        try:
            GAME.from_json({**data, "history": [{"seat": 0, "action": bad}]})
        except EngineError as err:
            assert "history[0]" in err.message
        else:
            raise AssertionError("accepted a broken history")


ALL_ACTIONS = [*range(53), *range(64, 116), *range(128, 134)]


@settings(max_examples=30)
@given(st.integers(0, 10**6), st.integers(0, 400), options_st)
def test_check_accepts_exactly_the_legal_actions(seed, steps, options):
    state = random_state(seed, options, steps)
    seat = GAME.to_act(state)
    if seat is None:
        return
    legal = set(GAME.legal_actions(state))
    for action in ALL_ACTIONS:
        assert GAME.is_legal(state, seat, action) == (action in legal), action
