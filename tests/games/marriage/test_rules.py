"""Marriage rule tests, named after the rules of docs/rules/marriage.md."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from engine import get_game
from engine.games.marriage import layout as L
from engine.games.marriage import melds as M
from engine.games.marriage import scoring
from engine.games.marriage import tables as T
from engine.protocol import BadAction, IllegalAction, InvalidSetup, InvalidState

GAME = get_game("marriage")
C = T.CODE_TO_CARD

LAYOUT_B = {
    "phase": "draw",
    "current": 0,
    "tiplu": "5D",
    "shown": [
        [["2C", "3C", "4C"], ["7H", "8H", "9H"], ["JS", "QS", "KS"]],
        [["AS", "2S", "3S"], ["TH", "JH", "QH"], ["6C", "7C", "8C"]],
    ],
    "hands": ["9D TD JD 3S 3H 3D AH 2H 5C 8C 8S KD", "4S 6S 9S KH 2D 7D QD AC 9C TC KC 4H"],
    "discard": [{"card": "8D", "by": 1, "by_unseen": False}],
    "stock": ["fill", "5D"],
}

LAYOUT_A = {
    "phase": "draw",
    "current": 0,
    "hands": [
        "3S 4S 5S 9H TH JH 2D 3D 4D KC KC 7H 8D 6C 2S QH JD 5C 9S 4H AC",
        "7S 8S 9S 5H 6H 7H AS AS QS QS KH 3C 3C 4C JC JC 8C 2H",
    ],
    "tunnelas": [[], ["TD"]],
    "discard": ["9C"],
    "stock": "6D QC 7C 2H 9D KD 5H",
}


def act(state, seat, data):
    state, _ = GAME.apply(state, seat, GAME.parse_action(state, data))
    return state


def reason(state, seat, data):
    with pytest.raises(IllegalAction) as err:
        GAME.check(state, seat, GAME.parse_action(state, data))
    return err.value.reason


def legal(state):
    return [GAME.action_to_json(state, a) for a in GAME.legal_actions(state)]


@pytest.mark.parametrize("players,stock", [(2, 113), (3, 92), (4, 71), (5, 50)])
def test_r2_deal_gives_21_each_one_upcard_and_the_stock(players, stock):
    state = GAME.new_state(players, {}, 1, seed=7)
    data = GAME.to_json(state)
    assert [len(h) for h in data["hands"]] == [21] * players
    assert len(data["stock"]) == stock and len(data["discard"]) == 1
    assert data["phase"] == "expose" and data["to_act"] == 2 % players
    men = GAME.new_state(players, {"man_cards": 3}, 1, seed=7)
    assert len(GAME.to_json(men)["stock"]) == stock + 3
    assert Counter(GAME.cards_in_play(men))["XX"] == 3


def test_r4_ranks_are_circular_for_poplu_and_jhiplu():
    fam = M.joker_family(C["KS"])
    assert (T.card_code(fam.poplu), T.card_code(fam.jhiplu)) == ("AS", "QS")
    fam = M.joker_family(C["2H"])
    assert (T.card_code(fam.poplu), T.card_code(fam.jhiplu), T.card_code(fam.alter)) == (
        "3H",
        "AH",
        "2D",
    )


def test_r6_a_man_is_wild_only_and_never_natural():
    wild = M.joker_family(C["8H"]).wild
    xx = T.XX
    assert M.set_kind([xx, xx, xx], 0, 2) is None
    assert M.set_kind([xx, C["3S"], C["4S"]], wild, 1) == "dirty"
    assert M.set_kind([xx, xx, C["4S"]], wild, 2) == "dirty"
    assert M.set_kind([xx, xx, C["4S"]], wild, 1) is None
    assert M.set_kind([xx, C["3S"], C["4S"]], 0, 2) is None  # before the tiplu: no wild use


def test_r6_two_identical_cards_and_a_wild_is_never_a_set():
    wild = M.joker_family(C["8H"]).wild
    assert M.set_kind([C["KS"], C["KS"], C["8D"]], wild, 2) is None
    assert M.set_kind([C["QS"], C["KS"], C["8D"]], wild, 2) == "dirty"  # completes JQK or QKA
    assert M.set_kind([C["AS"], C["KS"], C["8D"]], wild, 2) == "dirty"  # QKA
    assert M.set_kind([C["AS"], C["QS"], C["8D"]], wild, 2) == "dirty"  # QKA
    assert M.set_kind([C["2S"], C["KS"], C["8D"]], wild, 2) is None  # no wrap


def test_r9_expose_goes_round_from_the_dealers_left_dealer_last():
    state = GAME.new_state(3, {}, 1, seed=3)
    order = []
    while GAME.phase(state) == "expose":
        order.append(GAME.to_act(state))
        state = act(state, GAME.to_act(state), {"type": "pass"})
    assert order == [2, 0, 1]
    assert GAME.phase(state) == "draw" and GAME.to_act(state) == 2


def test_r10_house_rule_unseen_may_not_take_the_discard():
    state = GAME.new_state(2, {"unseen_take_discard": False}, 1, layout=LAYOUT_A)
    assert legal(state) == [{"type": "draw_stock"}]
    assert reason(state, 0, {"type": "take_discard"}) == "you cannot take the discard before seeing the joker"


def test_r10_an_unseen_player_may_take_any_card_and_throw_it_back():
    state = GAME.new_state(2, {}, 1, layout=LAYOUT_A)
    state = act(state, 0, {"type": "take_discard"})
    assert {"type": "discard", "card": "9C"} in legal(state)
    assert GAME.to_json(state)["taken"] == [["9C"], []]
    state = act(state, 0, {"type": "discard", "card": "9C"})
    assert GAME.to_json(state)["taken"] == [[], []]
    assert GAME.to_json(state)["discard"][-1] == {"card": "9C", "by": 0, "by_unseen": True}


def test_r12_three_exposed_tunnelas_show_no_set():
    layout = {
        "phase": "draw",
        "current": 0,
        "hands": [
            "4C 7C JC QC KH 8S 3D 6D TS AH 3H 6C",
            "AD 2D 3D 4D 5D 6D 7D 8D TD JD QD KD AC AC 2C 2C 3C 3C 4C 4C 5C",
        ],
        "tunnelas": [["2S", "5H", "9D"], []],
        "discard": ["KS"],
    }
    state = GAME.new_state(2, {}, 1, layout=layout)
    state = act(state, 0, {"type": "draw_stock"})
    assert {"type": "show", "sets": []} in legal(state)
    state = act(state, 0, {"type": "show", "sets": []})
    assert GAME.phase(state) == "pick_tiplu"


def test_r13_show_dublees_needs_exactly_k_pairs():
    state = GAME.new_state(2, {}, 1, layout=LAYOUT_A)
    state = act(state, 0, {"type": "draw_stock"})
    assert (
        reason(state, 0, {"type": "show_dublees", "pairs": ["KC"]})
        == "show needs exactly 7 dublees of identical cards"
    )


def test_r14_a_man_picked_as_tiplu_is_shown_and_the_pick_repeats():
    layout = dict(LAYOUT_A, stock="6D XX QC 7C")
    state = GAME.new_state(2, {"man_cards": 3}, 1, layout=layout)
    state = act(state, 0, {"type": "draw_stock"})
    state = act(
        state,
        0,
        {"type": "show", "sets": [["2D", "3D", "4D"], ["3S", "4S", "5S"], ["9H", "TH", "JH"]]},
    )
    size = len(GAME.to_json(state)["stock"])
    state = act(state, 0, {"type": "pick_tiplu", "index": 0})
    data = GAME.to_json(state)
    assert data["phase"] == "pick_tiplu" and data["men_revealed"] == 1 and data["stock"][-1] == "XX"
    assert len(legal(state)) == size - 1
    assert GAME.to_json(GAME.from_json(json.loads(json.dumps(data)))) == data
    for seat in (0, 1):
        view = GAME.view(state, seat)
        assert GAME.view(GAME.sample(view, random.Random(seat)), seat) == view
        assert Counter(GAME.hidden_cards(state, seat))["XX"] == 2  # the shown man is public
    state = act(state, 0, {"type": "pick_tiplu", "index": 0})
    data = GAME.to_json(state)
    assert data["tiplu"] == "QC" and data["stock"][-2:] == ["XX", "QC"] and data["phase"] == "act"
    assert reason(state, 0, {"type": "pick_tiplu", "index": 0}) == "wrong phase: expected act"


def test_r14_pick_index_out_of_range():
    state = GAME.new_state(2, {}, 1, layout=LAYOUT_A)
    state = act(state, 0, {"type": "draw_stock"})
    state = act(
        state,
        0,
        {"type": "show", "sets": [["2D", "3D", "4D"], ["3S", "4S", "5S"], ["9H", "TH", "JH"]]},
    )
    assert reason(state, 0, {"type": "pick_tiplu", "index": 112}) == "index must be between 0 and 111"


def test_r15_finish_reasons():
    state = GAME.new_state(2, {}, 1, layout=LAYOUT_B)
    state = act(state, 0, {"type": "draw_stock"})
    assert (
        reason(state, 0, {"type": "finish", "sets": [["AH", "2H", "3H"]], "discard": "KD"})
        == "finish needs exactly 4 sets and one discard"
    )
    bad = {
        "type": "finish",
        "sets": [["KD", "AH", "2H"], ["3S", "3H", "3D"], ["8S", "8C", "5C"], ["9D", "TD", "JD"]],
        "discard": "2H",
    }
    assert reason(state, 0, bad).startswith("you do not hold")
    wrap = {
        "type": "finish",
        "sets": [["9D", "TD", "JD"], ["KD", "AH", "2H"], ["3S", "3H", "3D"], ["8S", "8C", "5C"]],
        "discard": "AS",
    }
    assert reason(state, 0, wrap) == "not a valid set: KD AH 2H"  # the drawn card is AS


def test_r15_a_wrap_around_run_is_not_a_valid_set():
    layout = dict(
        LAYOUT_B,
        hands=["KD AD 2D 3S 3H 3C 9D TD JD 8C 8S 4H", "4S 6S 9S KH 2H 7D QD AC 9C TC KC AH"],
    )
    state = GAME.new_state(2, {}, 1, layout=layout)
    state = act(state, 0, {"type": "draw_stock"})
    drawn = next(c for c in GAME.to_json(state)["hands"][0] if c not in layout["hands"][0].split())
    sets = [["KD", "AD", "2D"], ["3S", "3H", "3C"], ["9D", "TD", "JD"], ["8C", "8S", drawn]]
    assert reason(state, 0, {"type": "finish", "sets": sets, "discard": "4H"}) == "not a valid set: KD AD 2D"


def test_r16_after_a_seen_take_the_dublee_must_be_the_taken_card():
    layout = {
        "phase": "draw",
        "current": 0,
        "tiplu": "4C",
        "shown": [["AS", "3H", "5D", "7C", "9S", "TD", "KH"], []],
        "hands": [
            "6S 8H JH QD 4S 6C 9H",
            "5C 3C 3C 4H AH AD 8C 9C JD QD KC 2S 5H 7S 8D TH QS JC 6D 9D 2C",
        ],
        "discard": [{"card": "6S", "by": 1, "by_unseen": True}],
        "stock": ["fill", "4C"],
    }
    state = GAME.new_state(2, {}, 1, layout=layout)
    state = act(state, 0, {"type": "take_discard"})
    acts = legal(state)
    assert acts and all(a["type"] == "finish_dublees" and a["pair"] == "6S" for a in acts)
    assert reason(state, 0, {"type": "finish_dublees", "pair": "JH", "discard": "8H"}) == "you do not hold JH"


def test_r17_routes_are_fixed():
    state = GAME.new_state(2, {}, 1, layout=LAYOUT_B)
    state = act(state, 0, {"type": "draw_stock"})
    assert (
        reason(state, 0, {"type": "finish_dublees", "pair": "3S", "discard": "KD"})
        == "you showed sets: finish with sets"
    )
    assert reason(state, 0, {"type": "show", "sets": []}) == "you have already seen the joker"


def test_r22_random_reshuffle_is_seeded_and_conserves_cards():
    layout = {
        "phase": "draw",
        "current": 1,
        "tiplu": "9S",
        "shown": [[["AS", "2S", "3S"], ["4H", "5H", "6H"], ["7D", "8D", "9D"]], []],
        "hands": [
            "TC JC QC KS KH KD 2C 3C 4C 6S 7S 8S",
            "AH 2H 3H 4D 5D 6D 7C 8C 9C TS JS QS KC KC 2D 3D 4S 5S 6C 7H 8H",
        ],
        "stock": "5H 9S",
        "discard": ["fill", {"card": "QC", "by": 0, "by_unseen": False}],
    }
    runs = []
    for _ in range(2):
        state = GAME.new_state(2, {}, 0, seed=11, layout=layout)
        state = act(state, 1, {"type": "draw_stock"})
        state = act(state, 1, {"type": "discard", "card": "5H"})
        runs.append(GAME.to_json(state)["stock"])
    assert runs[0] == runs[1] and len(runs[0]) == 113 and runs[0][-1] == "9S"
    assert runs[0][:-1] != sorted(runs[0][:-1], key=lambda c: C[c])
    assert GAME.to_json(state)["recycled"] == sorted(runs[0][:-1], key=lambda c: C[c])


def test_r28_breaking_a_marriage_when_it_pays():
    counts = [0] * T.NCODES
    for code in "8C 9C 9C 9C 7C 7C 7C".split():
        counts[C[code]] += 1
    assert scoring.maal(counts, [], C["8C"], 0, 5)[0] == 23


def test_r27_men_score_man_points():
    counts = [0] * T.NCODES
    counts[T.XX] = 2
    assert scoring.maal(counts, [], C["8C"], 0, 5)[0] == 10
    assert scoring.maal(counts, [], C["8C"], 0, 7)[0] == 14


def test_r33_turn_limit_voids_the_deal():
    state = GAME.new_state(2, {"turn_limit": 3, "deals": 2}, 0, seed=5)
    while GAME.deal_no(state) == 1:
        actions = GAME.legal_actions(state)
        plain = [
            a for a in actions if GAME.action_to_json(state, a)["type"] in ("pass", "draw_stock", "discard")
        ]
        state, events = GAME.apply(state, GAME.to_act(state), plain[0])
    over = [e for e in events if e["type"] == "deal_over"][0]
    assert over["void"] and over["deltas"] == [0, 0]
    assert GAME.to_json(state)["dealer"] == 1 and GAME.phase(state) == "expose"


def test_r34_caller_dealt_match_waits_for_the_next_deck():
    from engine.games.marriage.tables import sorted_test_deck

    deck = T.codes(sorted_test_deck())
    state = GAME.new_state(2, {"turn_limit": 1, "deals": 2}, 0, deck=deck)
    while GAME.phase(state) != "deal_over":
        a = GAME.legal_actions(state)
        plain = [x for x in a if GAME.action_to_json(state, x)["type"] in ("pass", "draw_stock", "discard")]
        state = act(state, GAME.to_act(state), GAME.action_to_json(state, plain[0]))
    assert GAME.to_act(state) == 1 and GAME.legal_actions(state) == []
    for seat in (0, 1):  # §7: at deal_over every hand is shown; the stock stays hidden
        view = GAME.view(state, seat)
        assert all(isinstance(h, list) for h in view["hands"]) and isinstance(view["stock"], int)
        assert GAME.view(GAME.sample(view, random.Random(seat)), seat) == view
    assert reason(state, 1, {"type": "draw_stock"}) == "the deal is over"
    assert reason(state, 1, {"type": "deal", "deck": deck[:-1] + ["AS"]}).startswith("the deck must hold")
    state = act(state, 1, {"type": "deal", "deck": deck})
    assert GAME.deal_no(state) == 2 and GAME.to_json(state)["dealer"] == 1 and GAME.to_act(state) == 0
    assert GAME.to_json(state)["history"] == []  # a state holds this deal's (issue 33): the deck is the log's
    assert GAME.view(state, 0)["history"] == []  # a view shows this deal's history only


def test_r34_match_ends_after_the_given_number_of_deals():
    state = GAME.new_state(3, {"turn_limit": 2, "deals": 2}, 0, seed=9)
    while GAME.to_act(state) is not None:
        state, _ = GAME.apply(state, GAME.to_act(state), GAME.legal_actions(state)[-1])
    report = GAME.score(state)
    assert report.finished and GAME.deal_no(state) == 2


def test_options_are_validated_by_name():
    with pytest.raises(InvalidSetup) as err:
        GAME.new_state(2, {"max_wild_per_set": 3}, 0, seed=1)
    assert err.value.field == "options.max_wild_per_set"
    with pytest.raises(InvalidSetup):
        GAME.new_state(2, {"bogus": 1}, 0, seed=1)
    with pytest.raises(InvalidSetup):
        GAME.new_state(6, {}, 0, seed=1)


def test_bad_actions_name_the_field():
    state = GAME.new_state(2, {}, 0, seed=1)
    for data, field in [
        ({"type": "discard", "card": "XX"}, "card"),
        ({"type": "fly"}, "type"),
        ({"type": "discard"}, "card"),
        ("discard", "action"),
        ({"type": "show", "sets": [["AS", "2S"]]}, "sets[0]"),
        ({"type": "show", "sets": [["AS", "2S", "3S"]] * 9}, "sets"),  # longer than any show
        ({"type": "show_dublees", "pairs": ["AS"] * 9}, "pairs"),
        ({"type": "deal", "deck": ["AS"] * 201}, "deck"),
    ]:
        with pytest.raises(BadAction) as err:
            GAME.parse_action(state, data)
        assert err.value.field == field


def test_from_json_rejects_inconsistent_states():
    state = GAME.new_state(2, {}, 0, seed=1)
    good = GAME.to_json(state)
    cases = {
        "phase": dict(good, phase="bidding"),
        "hands[0]": dict(good, hands=[good["hands"][0][:-1], good["hands"][1]]),
        "cards": dict(good, stock=good["stock"][:-1] + [good["stock"][0]]),
        "players": dict(good, players="2"),
        "discard": dict(good, discard=[]),
    }
    for field, data in cases.items():
        with pytest.raises(InvalidState) as err:
            GAME.from_json(json.loads(json.dumps(data)))
        assert err.value.field == field, field


def test_views_carry_this_deals_history_and_count_the_earlier_entries():
    state = GAME.new_state(2, {"turn_limit": 2, "deals": 3}, 0, seed=4)
    while GAME.deal_no(state) < 2:
        state = act(state, GAME.to_act(state), GAME.action_to_json(state, GAME.legal_actions(state)[0]))
    state = act(state, GAME.to_act(state), {"type": "pass"})
    full = GAME.to_json(state)
    view = GAME.view(state, 1)
    assert view["deal_start"] == full["deal_start"] == 0  # states hold this deal only (issue 33)
    assert view["history"] == full["history"][full["deal_start"] :]
    world = GAME.sample(view, random.Random(0))
    assert GAME.view(world, 1) == view
    data = GAME.to_json(world)
    assert GAME.to_json(GAME.from_json(json.loads(json.dumps(data)))) == data
    assert GAME.info_key(world, 1) == GAME.info_key(state, 1)


# --------------------------------------------------------------------------- §10 layouts


def test_s10_fill_rule_puts_the_left_out_cards_after_the_listed_stock_above_the_tiplu():
    stock, discard = ["6D", "5D"], [{"card": "8D", "by": 1, "by_unseen": False}]
    L.place_left_out(stock, discard, ["AS", "AS"], tiplu_at_bottom=True)
    assert stock == ["6D", "AS", "AS", "5D"] and len(discard) == 1
    stock = ["6D"]
    L.place_left_out(stock, discard, ["AS"], tiplu_at_bottom=False)
    assert stock == ["6D", "AS"]


def test_s10_fill_rule_makes_the_first_left_out_card_the_upcard_when_no_discard_is_given():
    stock: list[str] = []
    discard: list[object] = []
    L.place_left_out(stock, discard, ["AS", "2S", "3S"], tiplu_at_bottom=False)
    assert (discard, stock) == (["AS"], ["2S", "3S"])


def test_s10_a_fill_marker_places_the_left_out_cards_in_the_discard_pile_else_the_stock():
    stock, discard = ["TS", L.FILL, "JC"], [L.FILL, "2C"]
    L.place_left_out(stock, discard, ["AS", "2S"], tiplu_at_bottom=False)
    assert (discard, stock) == (["AS", "2S", "2C"], ["TS", L.FILL, "JC"])
    stock, discard = ["TS", L.FILL, "JC"], []
    L.place_left_out(stock, discard, ["AS", "2S"], tiplu_at_bottom=True)
    assert (discard, stock) == ([], ["TS", "AS", "2S", "JC"])


def test_s10_r2_the_cards_a_layout_leaves_out_are_the_rest_of_the_pack_in_canonical_order():
    placed = [0] * T.NCODES
    placed[C["AS"]] = 3
    placed[C["2S"]] = 1
    left_out = L.cards_left_out(placed, man_cards=2)
    assert len(left_out) == 52 * 3 + 2 - 4 and left_out == sorted(left_out)
    assert C["AS"] not in left_out and left_out.count(C["2S"]) == 2 and left_out[-2:] == [T.XX, T.XX]
    placed[C["AS"]] = 4
    with pytest.raises(InvalidState) as err:
        L.cards_left_out(placed, man_cards=0)
    assert (err.value.field, err.value.message) == ("layout", "layout: too many copies of AS")


def test_s10_a_layouts_route_follows_from_what_the_seat_has_shown():
    assert L.route_shown([(C["2C"], C["3C"], C["4C"])], seen=True) == T.SETS
    assert L.route_shown([C["5D"]], seen=True) == T.DUBLEES
    assert L.route_shown([], seen=True) == T.SETS
    assert L.route_shown([], seen=False) == T.UNSEEN


def test_s10_a_layouts_tiplu_lies_at_the_bottom_of_the_stock():
    stock = ["6D"]
    L.tiplu_at_bottom(stock, "5D")
    assert stock == ["6D", "5D"]
    L.tiplu_at_bottom(stock, "5D")
    assert stock == ["6D", "5D"]
    L.tiplu_at_bottom(stock, None)
    assert stock == ["6D", "5D"]
