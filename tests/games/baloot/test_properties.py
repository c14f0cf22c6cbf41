"""Property tests specific to Baloot (beyond tests/properties/test_contract.py)."""

from __future__ import annotations

import copy
import functools
import json
import operator
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import get_game
from engine.games.baloot import rules
from engine.games.baloot.tables import CODE, EKKA, NSLOTS, SLOT
from engine.protocol import BadAction, EngineError, IllegalAction

GAME = get_game("baloot")
ALL_INT_ACTIONS = list(range(64)) + [64, 65, 66, 67, 68, 70, 71, 72, 73] + list(range(80, 88)) + [90, 91]
OPTION_SETS = [
    {},
    {
        "must_undertrump": True,
        "trump_lead_must_beat": "opponent_winning",
        "four_lock_choice": False,
    },
    {"void_partner_exemption": "always", "kawesh": True, "hokm_bidder_may_switch_to_sun": True},
    {
        "void_partner_exemption": "never",
        "project_tie": "trump_then_first",
        "baloot_with_projects": "not_in_any",
        "ashkal_forbidden_on_ace": True,
        "sun_double_rule": "doubler_behind",
        "target_score": 40,
    },
    {  # the house rules of the award (section 5a), all at their other reading
        "hokm_rounding": "both_sides",
        "doubled_award": "each_keeps_own",
        "doubled_kaboot": "flat",
        "projects_when_doubled": "times_multiplier",
        "projects_in_kaboot": "not_added",
    },
    {"doubled_award": "each_keeps_own", "hokm_rounding": "both_sides", "target_score": 60},
]


def random_states(seed: int, options: dict, limit: int = 400):
    """States met along a random match (engine-dealt)."""
    rng = random.Random(seed)
    state = GAME.new_state(4, options, seed % 4, seed=seed)
    for _ in range(limit):
        if GAME.to_act(state) is None:
            return
        yield state
        GAME.step(state, rng.choice(GAME.legal_actions(state)))


@settings(max_examples=12)
@given(st.integers(0, 2**31), st.sampled_from(OPTION_SETS))
def test_legal_actions_are_exactly_the_checked_ones(seed, options):
    """legal_actions and check_action agree on every action the engine knows (an
    "ekka": true on a led Ace is accepted but not listed, R14)."""
    for i, state in enumerate(random_states(seed, options, 150)):
        if i % 3:
            continue
        seat = GAME.to_act(state)
        legal = set(GAME.legal_actions(state))
        for action in ALL_INT_ACTIONS:
            ok = GAME.is_legal(state, seat, action)
            if action >= EKKA and action < 64 and CODE[action - EKKA][0] == "A":
                continue
            assert ok == (action in legal), (GAME.to_json(state)["phase"], action, sorted(legal))
            if not ok:
                try:
                    GAME.check(state, seat, action)
                except IllegalAction as err:
                    assert err.reason and err.rule


def expected_adds(res: dict, options: dict) -> list[int]:
    """S6/S7 and section 5a: a finished deal's adds, worked out from its workings (card
    game points, projects, baloot, multiplier, winner) as the rules file says."""
    opts = GAME.parse_options(options, 4)
    m, w, d = res["multiplier"], res["winner"], res["declarer_team"]
    proj, bal = res["projects"], res["baloot"]
    pm = 1 if m < 2 else m if opts["projects_when_doubled"] == "times_multiplier" else 2
    adds = [0, 0]
    if res["gahwa"]:
        return adds
    if res["kaboot"]:
        base = {"hokm": 25, "sun": 44}[res["kind"]]
        adds[w] = base * (1 if opts["doubled_kaboot"] == "flat" else m) + bal[w]
        if opts["projects_in_kaboot"] == "added":
            adds[w] += pm * proj[w]
        return adds
    t = {"hokm": 16, "sun": 26}[res["kind"]]
    gp = res["game_points"]
    if w == d and (m == 1 or opts["doubled_award"] == "each_keeps_own"):
        return [m * gp[k] + pm * proj[k] + bal[k] for k in (0, 1)]
    adds[w] = m * t + pm * sum(proj) + sum(bal)
    return adds


def check_award(res: dict, options: dict) -> None:
    """The invariants of a finished deal's award under ``options``."""
    total = {"hokm": 162, "sun": 130}[res["kind"]]
    assert sum(res["card_points"]) == total
    assert sum(i["points"] for i in res["items"]) == sum(res["adds"])
    assert res["adds"] == expected_adds(res, options), res
    if not res["kaboot"]:
        assert sum(res["game_points"]) == {"hokm": 16, "sun": 26}[res["kind"]]
        c = res["card_points"]
        if res["kind"] == "hokm" and c[0] % 10 == 6 and options.get("hokm_rounding") == "both_sides":
            more = 0 if c[0] > c[1] else 1
            assert res["game_points"][more] == c[more] // 10  # the larger lowered
    for item in res["items"]:  # only a non-default option is ever named
        for name in item.get("options", []):
            assert name in options and options[name] != GAME.parse_options({}, 4)[name], item


@settings(max_examples=10)
@given(st.integers(0, 2**31), st.sampled_from(OPTION_SETS))
def test_cards_and_scores_add_up(seed, options):
    """S2/S7 (and section 5a's readings): every finished deal's card points sum to 162
    (Hokm) or 130 (Sun); the award is what the rules file says from its workings; the
    items add up to the award and name only non-default options."""
    rng = random.Random(seed)
    state = GAME.new_state(4, options, 0, seed=seed)
    while GAME.to_act(state) is not None:
        events: list = []
        GAME.step(state, rng.choice(GAME.legal_actions(state)), events)
        for e in events:
            if e["type"] == "points":
                check_award(GAME.score(state).extra["last_deal"], options)


def hand_at(world_doc, seat, trick_index, position):
    """A seat's hand just before its play ``position`` of trick ``trick_index``: its
    current hand plus every card it played from then on."""
    cards = set(world_doc["hands"][seat])
    tricks = world_doc["tricks"]
    for t, trick in enumerate(tricks):
        for k, code in enumerate(trick["cards"]):
            if (trick["leader"] + k) % 4 == seat and (t, k) >= (trick_index, position):
                cards.add(code)
    for k, entry in enumerate(world_doc["table"]):
        if entry["seat"] == seat and (len(tricks), k) >= (trick_index, position):
            cards.add(entry["card"])
    return cards


@settings(max_examples=10)
@given(st.integers(0, 2**31), st.sampled_from(OPTION_SETS), st.integers(0, 3))
def test_sampled_worlds_make_every_past_play_legal(seed, options, viewer):
    """Section 7: in every sampled world each recorded card was a legal play from the
    hand its seat held then (voids, trump duties, the lock), the taker holds the
    candidate, and the view and the info key are unchanged."""
    rng = random.Random(seed)
    for i, state in enumerate(random_states(seed, options, 120)):
        if i % 7 or GAME.phase(state) != "play":
            continue
        view = GAME.view(state, viewer)
        sample = GAME.sampler(view)
        for _ in range(3):
            world = sample(rng)
            assert GAME.view(world, viewer) == view
            assert GAME.info_key(world, viewer) == GAME.info_key(state, viewer)
            doc = GAME.to_json(world)
            c = doc["contract"]
            trump = "SHDC".index(c["trump"]) if c["trump"] else -1
            kind = 1 if c["kind"] == "hokm" else 2
            plays = [(t, tr["leader"], tr["cards"], tr["ekka"]) for t, tr in enumerate(doc["tricks"])]
            if doc["table"]:
                plays.append(
                    (
                        len(doc["tricks"]),
                        doc["leader"],
                        [e["card"] for e in doc["table"]],
                        doc["lead_ekka"],
                    )
                )
            for t, leader, cards, ekka in plays:
                for k, code in enumerate(cards):
                    seat = (leader + k) % 4
                    hand = 0
                    for h in hand_at(doc, seat, t, k):
                        hand |= 1 << SLOT[h]
                    tiers = rules.play_tiers(
                        kind,
                        trump,
                        c["locked"],
                        world.opts,
                        [SLOT[x] for x in cards[:k]],
                        leader,
                        ekka,
                        seat,
                    )
                    assert rules.play_error(hand, SLOT[code], tiers, trump) is None, (t, k, code)
            if (
                c["taker"] != viewer
                and doc["candidate"]
                and doc["candidate"]
                not in functools.reduce(operator.iadd, (tr["cards"] for tr in doc["tricks"]), [])
                and doc["candidate"] not in [e["card"] for e in doc["table"]]
            ):
                assert doc["candidate"] in doc["hands"][c["taker"]]


def mutate(value, rng: random.Random, depth=0):
    junk = [None, True, -1, 3.5, "XX", "AS", [], {}, [1, 2], {"a": 1}, 10**30, "play", [None] * 4]
    if isinstance(value, dict) and value:
        out = dict(value)
        key = rng.choice(sorted(out))
        roll = rng.random()
        if roll < 0.3:
            del out[key]
        elif roll < 0.6 or depth > 3:
            out[key] = rng.choice(junk)
        else:
            out[key] = mutate(out[key], rng, depth + 1)
        return out
    if isinstance(value, list) and value:
        out = list(value)
        i = rng.randrange(len(out))
        roll = rng.random()
        if roll < 0.25:
            del out[i]
        elif roll < 0.5:
            out.append(rng.choice(junk + out))
        elif roll < 0.75 or depth > 3:
            out[i] = rng.choice(junk)
        else:
            out[i] = mutate(out[i], rng, depth + 1)
        return out
    return rng.choice(junk)


@settings(max_examples=15)
@given(st.integers(0, 2**31))
def test_junk_states_views_and_layouts_raise_only_engine_errors(seed):
    """from_json, sampler and layouts never crash: junk gives an EngineError."""
    rng = random.Random(seed)
    states = list(random_states(seed, {}, 60))
    for state in states[:: max(1, len(states) // 6)]:
        doc = GAME.to_json(state)
        view = GAME.view(state, rng.randrange(4))
        for _ in range(20):
            for target, load in (
                (doc, GAME.from_json),
                (view, GAME.sampler),
                (doc, lambda d: GAME.new_state(4, None, 0, layout=d)),
            ):
                bad = mutate(copy.deepcopy(target), rng)
                try:
                    result = load(bad)
                    if callable(result):
                        result(rng)
                except EngineError:
                    pass


@settings(max_examples=25)
@given(
    st.one_of(
        st.none(),
        st.integers(),
        st.text(max_size=5),
        st.lists(st.integers(), max_size=3),
        st.dictionaries(
            st.sampled_from(["type", "card", "ekka", "bid", "suit", "locked", "deck", "x"]),
            st.one_of(
                st.none(),
                st.booleans(),
                st.integers(),
                st.sampled_from(
                    ["play", "bid", "pass", "deal", "AS", "ZZ", "hokm", "four", "double", "S", "Q"]
                ),
                st.lists(st.sampled_from(["AS", "KS", "2C"]), max_size=40),
            ),
            max_size=4,
        ),
    )
)
def test_junk_actions_raise_only_bad_action(data):
    """parse_action names the bad field; it never raises anything but BadAction."""
    state = GAME.new_state(4, {}, 0, seed=1)
    try:
        action = GAME.parse_action(state, data)
    except BadAction as err:
        assert err.field
        return
    json.dumps(GAME.action_to_json(state, action))
    try:
        GAME.check(state, 1, action)
    except IllegalAction:
        pass


def test_views_hide_hands_stock_and_deal_decks():
    deck = [CODE[p] for p in range(NSLOTS)]
    state = GAME.new_state(4, {}, 0, deck=deck)
    for seat in range(4):
        view = GAME.view(state, seat)
        assert view["stock"] == 11 and all(
            isinstance(h, int) for s, h in enumerate(view["hands"]) if s != seat
        )
        assert "rng_state" not in view
    rng = random.Random(0)
    while GAME.phase(state) != "deal_over":
        state = GAME.apply(state, GAME.to_act(state), rng.choice(GAME.legal_actions(state)))[0]
    state = GAME.apply(state, GAME.to_act(state), GAME.parse_action(state, {"type": "deal", "deck": deck}))[0]
    view = GAME.view(state, 0)
    assert all(e["action"].get("deck") in (None, 32) for e in view["history"])
    assert GAME.to_json(state)["history"] == [], "a state keeps the current deal only (issue 33)"


def test_caller_dealt_match_views_samples_and_round_trips():
    """Caller-dealt matches: deal_over waits for the next dealer's deck; at every step
    the state round-trips through JSON and every seat's sampled world has its view."""
    rng = random.Random(4)
    deck = [CODE[p] for p in range(NSLOTS)]
    state = GAME.new_state(4, {"kawesh": True, "target_score": 40}, 1, deck=deck)
    steps = 0
    while GAME.to_act(state) is not None:
        seat = GAME.to_act(state)
        if steps % 4 == 0:
            doc = GAME.to_json(state)
            assert GAME.to_json(GAME.from_json(json.loads(json.dumps(doc)))) == doc
            for s in range(4):
                view = GAME.view(state, s)
                world = GAME.sampler(view)(rng)
                assert GAME.view(world, s) == view
                assert GAME.info_key(world, s) == GAME.info_key(state, s)
        if GAME.phase(state) == "deal_over":
            assert GAME.legal_actions(state) == [] and seat == (GAME.to_json(state)["dealer"] + 1) % 4
            rng.shuffle(deck)
            action = GAME.parse_action(state, {"type": "deal", "deck": list(deck)})
        else:
            action = rng.choice(GAME.legal_actions(state))
        state = GAME.apply(state, seat, action)[0]
        steps += 1
    assert GAME.score(state).finished
