"""Marriage-specific property tests (beyond tests/properties/test_contract.py)."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import get_game
from engine.games.marriage import melds as M
from engine.games.marriage import tables as T
from engine.protocol import BadAction, EngineError

GAME = get_game("marriage")


def brute_finishes(cards, k, tiplu, max_wild):
    """R15 by brute force: every partition of the cards into k sets and a discard."""
    wild = M.joker_family(tiplu).wild
    out = set()

    def rec(rest, sets, discard):
        if not rest:
            if discard is not None:
                out.add((tuple(sorted(sets)), discard))
            return
        first, others = rest[0], rest[1:]
        if discard is None:
            rec(others, sets, first)
        for i, j in combinations(range(len(others)), 2):
            trio = tuple(sorted((first, others[i], others[j])))
            if M.set_kind(trio, wild, max_wild) is not None:
                left = [c for n, c in enumerate(others) if n not in (i, j)]
                rec(left, sets + [trio], discard)

    rec(sorted(cards), [], None)
    return sorted(out)


@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 2]), st.sampled_from([1, 2]))
@settings(max_examples=60)
def test_r15_finish_search_matches_brute_force(seed, k, max_wild):
    rng = random.Random(seed)
    tiplu = rng.randrange(52)
    fam = M.joker_family(tiplu)
    pool = T.pack_cards(3)
    # bias towards wild and near cards so that finishes exist
    near = [c for c in pool if abs((c >> 2) - (tiplu >> 2)) <= 2 or fam.wild >> c & 1]
    cards = [rng.choice(near if rng.random() < 0.7 else pool) for _ in range(3 * k + 1)]
    counts = [0] * T.NCODES
    for c in cards:
        counts[c] += 1
    assert M.finishes(counts, k, tiplu, max_wild) == brute_finishes(cards, k, tiplu, max_wild)


def random_play(seed, players, options, until=None):
    rng = random.Random(seed)
    state = GAME.new_state(players, options, seed % players, seed=seed)
    states = [state]
    while GAME.to_act(state) is not None:
        state = GAME.clone(state)
        GAME.step(state, rng.choice(GAME.legal_actions(state)))
        states.append(state)
        if until is not None and until(state):
            break
    return states


@given(
    st.integers(0, 10**6),
    st.sampled_from([2, 3, 4, 5]),
    st.sampled_from(["count", "murder", "kidnap"]),
    st.sampled_from([0, 5]),
)
@settings(max_examples=12)
def test_r32_deal_results_sum_to_zero_and_items_add_up(seed, players, unseen_maal, dublee_bonus):
    options = {
        "unseen_maal": unseen_maal,
        "dublee_bonus": dublee_bonus,
        "turn_limit": 150,
        "deals": 1,
    }
    end = random_play(seed, players, options)[-1]
    report = GAME.score(end)
    assert report.finished
    assert sum(report.deal_points) == 0 and sum(report.scores) == 0
    assert sum(i["points"] for i in report.items) == sum(report.deal_points)
    for seat in range(players):
        assert sum(i["points"] for i in report.items if i["side"] == seat) == report.deal_points[seat]
    if end.winner >= 0:
        assert end.route[end.winner] != 0  # R26: the winner is always seen


@given(st.integers(0, 10**6), st.sampled_from([2, 3, 5]), st.sampled_from([0, 3]))
@settings(max_examples=8)
def test_views_hide_hands_stock_and_tiplu(seed, players, men):
    states = random_play(seed, players, {"turn_limit": 60, "man_cards": men})
    for state in states[:: max(1, len(states) // 25)]:
        if GAME.phase(state) == "deal_over":
            continue
        for seat in range(players):
            view = GAME.view(state, seat)
            assert "rng_state" not in view and isinstance(view["stock"], int)
            for other, hand in enumerate(view["hands"]):
                assert isinstance(hand, int) == (other != seat)
            if not view["seen"][seat]:
                assert view["tiplu"] is None
            assert all(
                item["action"].get("type") != "deal" or isinstance(item["action"]["deck"], int)
                for item in view["history"]
            )
            assert Counter(GAME.cards_in_play(state)) == Counter(GAME.pack(state))


@given(st.integers(0, 10**6), st.sampled_from([2, 3, 4]))
@settings(max_examples=8)
def test_sampled_worlds_agree_with_the_view_and_its_deductions(seed, players):
    states = random_play(seed, players, {"turn_limit": 200, "reshuffle": "random"})
    rng = random.Random(seed)
    for state in states[:: max(1, len(states) // 15)]:
        for seat in range(players):
            view = GAME.view(state, seat)
            world = GAME.sample(view, rng)
            assert GAME.view(world, seat) == view
            assert GAME.info_key(world, seat) == GAME.info_key(state, seat)
            for other in range(players):  # §7: cards taken from the discard stay known
                assert not Counter(world.taken[other]) - Counter(
                    c for c in range(T.NCODES) for _ in range(world.hands[other][c])
                )
            if world.recycled:  # §7: recycled discards are the stock
                drawable = world.stock[1 + world.men_rev :] if world.tiplu >= 0 else world.stock
                assert not Counter(drawable) - Counter(world.recycled)
            if view["seen"][seat] and view["tiplu"]:
                assert T.card_code(world.stock[0]) == view["tiplu"]


def mutations():
    leaf = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 200),
        st.text(max_size=3),
        st.sampled_from(["AS", "XX", "KD", "fill", "act", "sets"]),
    )
    return st.recursive(
        leaf,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=3)
        ),
        max_leaves=8,
    )


BASE = GAME.to_json(random_play(3, 3, {"turn_limit": 40}, until=lambda s: s.route[0] or s.turns > 20)[-1])


@given(st.sampled_from(sorted(BASE)), mutations(), st.booleans())
@settings(max_examples=150)
def test_junk_states_raise_only_engine_errors(key, value, as_view):
    data = copy.deepcopy(GAME.view(GAME.from_json(BASE), 1) if as_view else BASE)
    data[key] = value
    try:
        if as_view:
            GAME.sampler(data)
        else:
            GAME.from_json(data)
    except EngineError:
        pass


@given(st.sampled_from(sorted(BASE)), st.integers(0, 30), mutations())
@settings(max_examples=100)
def test_junk_nested_state_fields_raise_only_engine_errors(key, index, value):
    data = copy.deepcopy(BASE)
    target = data[key]
    if isinstance(target, list) and target:
        target[index % len(target)] = value
    elif isinstance(target, dict) and target:
        target[sorted(target)[index % len(target)]] = value
    try:
        GAME.from_json(json.loads(json.dumps(data)))
    except EngineError:
        pass


@given(mutations())
@settings(max_examples=150)
def test_junk_actions_raise_only_bad_action(data):
    state = GAME.from_json(BASE)
    for candidate in (
        data,
        {"type": "discard", "card": data},
        {"type": "show", "sets": data},
        {"type": "finish", "sets": data, "discard": "AS"},
        {"type": "pick_tiplu", "index": data},
        {"type": "finish_dublees", "pair": data, "discard": data},
    ):
        try:
            action = GAME.parse_action(state, candidate)
        except BadAction:
            continue
        try:
            GAME.check(state, GAME.to_act(state), action)
        except EngineError:
            pass


@given(st.lists(st.integers(0, 52), min_size=1, max_size=16))
@settings(max_examples=200)
def test_r6_bit_parallel_partner_tests_match_the_definitions(cards):
    present = 0
    for c in cards:
        present |= 1 << c
    in_set = M.with_natural_set(present)
    partnered = M.with_partner(present)
    codes = sorted(set(cards))
    for c in codes:
        others = [x for x in codes if x != c]
        natural = any(
            M.natural_kind(*sorted((c, a, b))) in ("pure_sequence", "triplet")
            for a, b in combinations(others, 2)
        )
        assert bool(in_set >> c & 1) == natural
        assert bool(partnered >> c & 1) == any(M.is_completable((c, x)) for x in others)


@given(st.lists(st.integers(0, 51), min_size=3, max_size=10), st.integers(0, 3))
@settings(max_examples=150)
def test_r12_show_choices_match_brute_force(cards, k):
    counts = [0] * T.NCODES
    for c in cards:
        counts[c] += 1
    brute = set()

    def rec(rest, chosen):
        if len(chosen) == k:
            brute.add(tuple(sorted(chosen)))
            return
        for trio in combinations(range(len(rest)), 3):
            s = tuple(sorted(rest[i] for i in trio))
            if M.is_pure_set(s):
                rec([c for i, c in enumerate(rest) if i not in trio], chosen + [s])

    rec(sorted(cards), [])
    assert M.show_choices(counts, k) == sorted(brute)


LAYOUT = {
    "phase": "draw",
    "current": 0,
    "tiplu": "5D",
    "shown": [[["2C", "3C", "4C"], ["7H", "8H", "9H"], ["JS", "QS", "KS"]], []],
    "hands": [
        "9D TD JD 3S 3H 3D AH 2H 5C 8C 8S KD",
        "AS 2S 3S TH JH QH 6C 7C 8C 4S 6S 9S KH 2D 7D QD AC 9C TC KC 4H",
    ],
    "discard": ["6D(1,yes)"],
    "stock": ["fill", "5D"],
}


@given(st.sampled_from(sorted(LAYOUT) + ["route", "seen", "to_act", "dealer"]), mutations())
@settings(max_examples=150)
def test_junk_layouts_raise_only_engine_errors(key, value):
    layout = copy.deepcopy(LAYOUT)
    layout[key] = value
    try:
        GAME.new_state(2, {}, 1, layout=layout)
    except EngineError:
        pass


@given(st.integers(0, 10**6), st.sampled_from([2, 3, 4]), st.sampled_from([0, 3]))
@settings(max_examples=10)
def test_check_accepts_exactly_the_legal_actions(seed, players, men):
    """legal_actions and check agree both ways (R9-R18), on simple actions and on
    shows/finishes with one card swapped."""
    rng = random.Random(seed)
    states = random_play(seed, players, {"turn_limit": 80, "man_cards": men})
    for state in states[:: max(1, len(states) // 30)]:
        seat = GAME.to_act(state)
        if seat is None:
            continue
        legal = set(GAME.legal_actions(state))
        candidates = list(range(T.NCODES)) + [T.DRAW_STOCK, T.TAKE_DISCARD, T.PASS]
        candidates += [T.EXPOSE_BASE + c for c in range(T.NCODES)]
        candidates += [T.PICK_BASE + i for i in range(len(state.stock) + 2)]
        for action in list(legal):
            if isinstance(action, tuple) and action[0] in (T.SHOW, T.FINISH) and action[1]:
                sets = [list(s) for s in action[1]]
                sets[rng.randrange(len(sets))][rng.randrange(3)] = rng.randrange(52)
                mutated = tuple(sorted(tuple(sorted(s)) for s in sets))
                candidates.append((action[0], mutated, *action[2:]))
            if isinstance(action, tuple) and action[0] == T.FINISH_DUBLEES:
                candidates.append((T.FINISH_DUBLEES, rng.randrange(52), action[2]))
        for action in candidates:
            assert GAME.is_legal(state, seat, action) == (action in legal), action
