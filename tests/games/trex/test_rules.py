"""Rule tests for Trex, named after the rules of docs/rules/trex.md."""

from __future__ import annotations

import random

import pytest
from trex_helpers import E3_HANDS, GAME, act, kh_deal, layout, legal, play

from engine.protocol import BadAction, IllegalAction, InvalidSetup, NotYourTurn

DECK = [r + s for s in "SHDC" for r in "23456789TJQKA"]


def test_player_count_is_exactly_four():
    for n in (2, 3, 5, True):
        with pytest.raises(InvalidSetup, match="players must be 4"):
            GAME.new_state(n, {}, 0, seed=1)


def test_r2_deal_pattern_starts_after_the_dealer():
    state = GAME.new_state(4, {}, 0, deck=DECK)
    hands = GAME.to_json(state)["hands"]
    for p, code in enumerate(DECK):
        assert code in hands[(0 + 1 + p) % 4]
    assert all(len(h) == 13 for h in hands)


@pytest.mark.parametrize("seed", range(5))
def test_r3_first_owner_holds_7h_and_chooses_first(seed):
    state = GAME.new_state(4, {}, seed % 4, seed=seed)
    data = GAME.to_json(state)
    assert "7H" in data["hands"][data["first_owner"]]
    assert data["to_act"] == data["kingdom_owner"] == data["first_owner"]
    assert data["dealer"] == seed % 4


def test_r6_last_contract_of_a_kingdom_must_still_be_chosen():
    state = layout(
        deal_no=5,
        first_owner=0,
        dealer=0,
        contracts_used=["king_of_hearts", "queens", "trex", "collections"],
        decks=[DECK],
    )
    assert legal(state) == [act("choose diamonds")]


def test_r6b_complex_contract_set():
    state = GAME.new_state(4, {"trex_complex": True}, 0, seed=3)
    assert legal(state) == [act("choose complex"), act("choose trex")]
    seat = GAME.to_act(state)
    with pytest.raises(IllegalAction, match="unknown contract: king_of_hearts"):
        GAME.check(state, seat, GAME.parse_action(state, act("choose king_of_hearts")))
    state = play(state, seat, "choose complex")
    assert GAME.phase(state) == "doubling"  # KH and queens are doublable in complex


def test_r7_doubling_only_for_kh_queens_and_complex():
    for contract, phase in [
        ("king_of_hearts", "doubling"),
        ("queens", "doubling"),
        ("diamonds", "tricks"),
        ("collections", "tricks"),
        ("trex", "layout"),
    ]:
        state = GAME.new_state(4, {}, 0, seed=11)
        state = play(state, GAME.to_act(state), f"choose {contract}")
        assert GAME.phase(state) == phase
        off = GAME.new_state(4, {"doubling": False}, 0, seed=11)
        off = play(off, GAME.to_act(off), f"choose {contract}")
        assert GAME.phase(off) == ("layout" if contract == "trex" else "tricks")


def test_r7_not_doublable_is_reported_before_not_held():
    state = kh_deal(phase="doubling")
    with pytest.raises(IllegalAction, match="QS cannot be doubled in king_of_hearts") as err:
        GAME.check(state, 0, GAME.parse_action(state, act("double QS")))
    assert err.value.rule == "R7"
    with pytest.raises(IllegalAction, match="action not allowed in phase doubling"):
        GAME.check(state, 0, GAME.parse_action(state, act("2S")))


def test_r7_every_seat_gets_one_turn_in_order_from_the_owner():
    state = kh_deal(phase="doubling")
    order = []
    while GAME.phase(state) == "doubling":
        order.append(GAME.to_act(state))
        state = play(state, GAME.to_act(state), "pass")
    assert order == [0, 1, 2, 3]
    assert GAME.to_act(state) == 0


def test_r9_follow_suit_and_r10_heart_lead_ban():
    state = kh_deal(phase="tricks", doubling_turn=4)
    with pytest.raises(IllegalAction, match="cannot lead hearts: you hold other suits") as err:
        GAME.check(state, 0, GAME.parse_action(state, act("2H")))
    assert err.value.rule == "R10"
    with pytest.raises(NotYourTurn):
        GAME.check(state, 1, GAME.parse_action(state, act("KH")))
    state = play(state, 0, "7C")
    with pytest.raises(IllegalAction, match="must follow suit: you hold clubs") as err:
        GAME.check(state, 1, GAME.parse_action(state, act("KH")))
    assert err.value.rule == "R9"


def test_r10_does_not_apply_in_queens_diamonds_collections():
    for contract in ("queens", "diamonds", "collections"):
        state = kh_deal(
            contract=contract,
            contracts_used=[contract],
            phase="tricks",
            doubling_turn=4 if contract == "queens" else 0,
        )
        assert act("2H") in legal(state)


def test_r11_lists_penalty_cards_in_canonical_order():
    hands = [
        ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS", "AS"],
        ["9D", "2D", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH"],
        ["KH", "AH", "3D", "4D", "5D", "6D", "7D", "8D", "TD", "JD", "QD", "KD", "AD"],
        ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC", "AC"],
    ]
    state = kh_deal(
        {"must_discard_penalty": True},
        contract="diamonds",
        contracts_used=["diamonds"],
        hands=hands,
    )
    state = play(state, 0, "2S")
    with pytest.raises(
        IllegalAction, match="must play a penalty card: you cannot follow suit and hold 2D, 9D"
    ) as err:
        GAME.check(state, 1, GAME.parse_action(state, act("2H")))
    assert err.value.rule == "R11"
    assert legal(state) == [act("2D"), act("9D")]


def test_r11_does_not_exist_in_collections():
    state = kh_deal({"must_discard_penalty": True}, contract="collections", contracts_used=["collections"])
    state = play(state, 0, "2S")
    assert legal(state) == [act(c) for c in E3_HANDS[1]]


def test_r12_r13_king_of_hearts_ends_with_the_trick_holding_kh():
    state = kh_deal({"doubling": False})
    for seat, card in [(0, "2S"), (1, "KH"), (2, "9S"), (3, "QS")]:
        state = play(state, seat, card)
    data = GAME.to_json(state)
    assert data["phase"] == "deal_over" and data["deal_scores"] == [0, 0, 0, -75]
    assert data["to_act"] == 0  # caller-dealt: the next dealer (deal 7, still seat 0's kingdom)


def test_r13_complex_and_collections_play_all_13_tricks():
    rng = random.Random(5)
    for contract, options in (("collections", {}), ("complex", {"trex_complex": True})):
        state = GAME.new_state(4, options, 0, seed=21)
        state = play(state, GAME.to_act(state), f"choose {contract}")
        hist = []  # the deal's actions (a state's history is the current deal's: the next one's here)
        while GAME.phase(state) in ("doubling", "tricks") and GAME.deal_no(state) == 1:
            action = rng.choice(GAME.legal_actions(state))
            hist.append({"action": GAME.action_to_json(state, action)})
            GAME.step(state, action)
        result = GAME.to_json(state)["deal_results"][0]
        assert result["contract"] == contract
        assert sum(result["scores"]) == (-195 if contract == "collections" else -500)
        # the completed deal's 52 cards were all played: its history has 52 plays
        assert sum(1 for e in hist if e["action"]["type"] == "play") == 52


def test_r16_owner_without_a_jack_must_pass_first():
    hands = [
        ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "QS", "KS", "AS", "2H"],
        ["JS", "JH", "JD", "JC", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "QH"],
        ["KH", "AH", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "QD", "KD"],
        ["AD", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "QC", "KC", "AC"],
    ]
    state = kh_deal(contract="trex", contracts_used=["trex"], hands=hands)
    assert legal(state) == [act("pass")]
    with pytest.raises(IllegalAction, match="2S does not fit the layout"):
        GAME.check(state, 0, GAME.parse_action(state, act("2S")))
    state = play(state, 0, "pass")
    assert legal(state) == [act("JS"), act("JH"), act("JD"), act("JC")]


def test_r17_r18_trex_deal_to_the_end_and_partnership_twos():
    rng = random.Random(2)
    for partnership in (False, True):
        state = GAME.new_state(4, {"partnership": partnership}, 0, deck=DECK)
        state = play(state, GAME.to_act(state), "choose trex")
        turns = 0
        while GAME.phase(state) == "layout":
            data = GAME.to_json(state)
            assert data["twos_exposed"] == (partnership and turns >= 4)
            state = play(
                state,
                GAME.to_act(state),
                GAME.action_to_json(state, rng.choice(GAME.legal_actions(state))),
            )
            turns += 1
        data = GAME.to_json(state)
        assert sorted(data["finish_order"]) == [0, 1, 2, 3]
        assert sum(data["deal_scores"]) == 500
        assert sorted(data["deal_scores"]) == [50, 100, 150, 200]


def test_r19_engine_deals_the_next_deal_itself():
    state = GAME.new_state(4, {"doubling": False}, 1, seed=8)
    owner = GAME.to_act(state)
    state = play(state, owner, "choose king_of_hearts")
    rng = random.Random(1)
    while GAME.deal_no(state) == 1:
        GAME.step(state, rng.choice(GAME.legal_actions(state)))
    data = GAME.to_json(state)
    assert data["phase"] == "choose_contract" and data["dealer"] == owner and data["to_act"] == owner
    assert data["contracts_used"] == ["king_of_hearts"] and sum(map(len, data["hands"])) == 52


def test_r19_caller_dealt_waits_for_a_deal_action():
    state = kh_deal({"doubling": False})
    for seat, card in [(0, "2S"), (1, "KH"), (2, "9S"), (3, "QS")]:
        state = play(state, seat, card)
    assert GAME.legal_actions(state) == []
    with pytest.raises(BadAction):
        GAME.parse_action(state, {"type": "deal", "deck": DECK[:51]})
    with pytest.raises(BadAction):
        GAME.parse_action(state, {"type": "deal", "deck": DECK[:51] + ["2S"]})
    with pytest.raises(NotYourTurn):
        GAME.check(state, 1, GAME.parse_action(state, {"type": "deal", "deck": DECK}))
    state, events = GAME.apply(state, 0, GAME.parse_action(state, {"type": "deal", "deck": DECK}))
    assert any(e["type"] == "deal" for e in events)
    data = GAME.to_json(state)
    assert data["deal_no"] == 7 and data["dealer"] == 0 and data["phase"] == "choose_contract"
    assert data["history"] == []  # the current deal's: the deal action is the session log's
    assert GAME.view(state, 2)["history"] == []  # the deck is never shown


def _doubled_kh_trick(options, lead_seat):
    """KH doubled by seat 1; seat 1 takes it in a trick led by ``lead_seat``."""
    hands = [["2H", "3H", "5H"], ["KH", "5S", "6S"], ["4H", "7S", "8S"], ["6H", "9S", "TS"]]
    return kh_deal(
        options,
        phase="tricks",
        doubled={"KH": 1},
        tricks_played=10,
        trick_leader=lead_seat,
        hands=hands,
        doubling_turn=4,
    )


def test_s5_single_penalty_option():
    state = _doubled_kh_trick({"self_capture_scoring": "single_penalty"}, 0)
    state = play(state, 0, "2H")
    for seat, card in [(1, "KH"), (2, "4H"), (3, "6H")]:
        state = play(state, seat, card)
    assert GAME.to_json(state)["deal_scores"] == [0, -75, 0, 0]
    state = _doubled_kh_trick({}, 0)
    for seat, card in [(0, "2H"), (1, "KH"), (2, "4H"), (3, "6H")]:
        state = play(state, seat, card)
    assert GAME.to_json(state)["deal_scores"] == [75, -150, 0, 0]


def test_s5_doubler_leading_its_own_card_loses_single_value():
    # seat 1 holds KH and spades: R10 forbids leading KH, so give it only hearts
    state = kh_deal(
        phase="tricks",
        doubled={"KH": 1},
        tricks_played=10,
        trick_leader=1,
        hands=[["2H", "3S", "4S"], ["KH", "5H", "6H"], ["3H", "7S", "8S"], ["4H", "9S", "TS"]],
        doubling_turn=4,
    )
    for seat, card in [(1, "KH"), (2, "3H"), (3, "4H"), (0, "2H")]:
        state = play(state, seat, card)
    data = GAME.to_json(state)
    assert data["deal_scores"] == [0, -75, 0, 0]
    items = GAME.score(state).items
    assert [(i["seat"], i["points"], i["rule"]) for i in items] == [(1, -75, "S5")]


def test_s8_reversed_scores_negate_every_deal_score():
    state = kh_deal({"reversed_scores": True, "doubling": False})
    for seat, card in [(0, "2S"), (1, "KH"), (2, "9S"), (3, "QS")]:
        state = play(state, seat, card)
    assert GAME.to_json(state)["deal_scores"] == [0, 0, 0, 75]


@pytest.mark.parametrize("reversed_scores", [False, True])
def test_s8_e4_standings_rank_the_taker_of_the_king_last_either_way(reversed_scores):
    state = kh_deal({"reversed_scores": reversed_scores, "doubling": False})
    for seat, card in [(0, "2S"), (1, "KH"), (2, "9S"), (3, "QS")]:
        state = play(state, seat, card)
    assert GAME.standings(state) == [0.0, 0.0, 0.0, -75.0]


def test_score_report_items_add_up():
    state = kh_deal(phase="doubling")
    for seat, a in [
        (0, "pass"),
        (1, "double KH"),
        (1, "pass"),
        (2, "pass"),
        (3, "pass"),
        (0, "2S"),
        (1, "KH"),
        (2, "9S"),
        (3, "QS"),
    ]:
        state = play(state, seat, a)
    report = GAME.score(state)
    assert report.deal_points == [0, 75, 0, -150]
    assert sum(i["points"] for i in report.items) == sum(report.deal_points)
    assert {(i["seat"], i["points"]) for i in report.items} == {(3, -150), (1, 75)}


@pytest.mark.parametrize(
    "scores,options,winners,draw",
    [
        ([310, -120, 310, -500], {}, [0, 2], False),
        ([100, 100, -100, -100], {"partnership": True}, [], True),
        (
            [100, 50, -200, 50],
            {"partnership": True, "partnership_result": "lowest_player_loses"},
            [1],
            False,
        ),
        (
            [-200, 50, 350, -200],
            {"partnership": True, "partnership_result": "lowest_player_loses"},
            [],
            True,
        ),
    ],
)
def test_e4_match_result(scores, options, winners, draw):
    full = {"low": "2", "high": "A"}
    state = GAME.new_state(
        4,
        options,
        0,
        layout={
            "deal_no": 20,
            "first_owner": 1,
            "dealer": 0,
            "phase": "match_over",
            "contract": "trex",
            "contracts_used": ["king_of_hearts", "queens", "diamonds", "collections", "trex"],
            "layout": {"S": full, "H": full, "D": full, "C": full},
            "hands": [[], [], [], []],
            "finish_order": [0, 1, 2, 3],
            "deal_scores": [200, 150, 100, 50],
            "match_scores": scores,
        },
    )
    report = GAME.score(state).to_json()
    assert report["finished"] and report["winners"] == winners and report["draw"] == draw
    assert GAME.to_act(state) is None and GAME.legal_actions(state) == []
    out = GAME.outcome(state, state)
    assert all(0 <= x <= 1 for x in out)


def test_phase_errors_and_bad_actions():
    state = GAME.new_state(4, {}, 0, seed=4)
    seat = GAME.to_act(state)
    for bad in (
        None,
        [],
        {"type": "jump"},
        {"type": "play"},
        {"type": "play", "card": "1S"},
        {"type": "play", "card": "2S", "x": 1},
        {"type": "choose", "contract": "hearts"},
        {"type": "deal", "deck": "2S"},
    ):
        with pytest.raises(BadAction):
            GAME.parse_action(state, bad)
    with pytest.raises(IllegalAction, match="action not allowed in phase choose_contract"):
        GAME.check(state, seat, GAME.parse_action(state, act("pass")))
    with pytest.raises(IllegalAction, match="you do not hold"):
        state2 = play(state, seat, "choose diamonds")
        held = set(GAME.to_json(state2)["hands"][seat])
        other = next(c for c in DECK if c not in held)
        GAME.check(state2, seat, GAME.parse_action(state2, act(other)))


def test_options_are_validated_by_name():
    with pytest.raises(InvalidSetup) as err:
        GAME.new_state(4, {"doubling": "yes"}, 0, seed=1)
    assert err.value.field == "options.doubling"
    with pytest.raises(InvalidSetup) as err:
        GAME.new_state(4, {"self_capture_scoring": "half"}, 0, seed=1)
    assert err.value.field == "options.self_capture_scoring"
    with pytest.raises(InvalidSetup):
        GAME.new_state(4, {"nope": 1}, 0, seed=1)


def test_outcome_rewards_the_deal_score_and_partners_share():
    for options in ({}, {"partnership": True}, {"reversed_scores": True}):
        start = kh_deal({"doubling": False, **options})
        end = start
        for seat, card in [(0, "2S"), (1, "KH"), (2, "9S"), (3, "QS")]:
            end = play(end, seat, card)
        out = GAME.outcome(start, end)
        assert all(0 < x < 1 for x in out)
        if options.get("partnership"):
            assert out[0] == out[2] and out[1] == out[3] and out[1] < out[0]
        else:
            assert out[3] < out[0] == out[1] == out[2]


def test_layout_shorthands_deck_and_decks():
    one = GAME.new_state(4, None, 2, layout={"deck": DECK})
    two = GAME.new_state(4, None, 2, deck=DECK)
    assert GAME.to_json(one)["hands"] == GAME.to_json(two)["hands"]
    later = GAME.new_state(4, None, 2, layout={"decks": [DECK, DECK[::-1]]})
    assert GAME.to_json(later)["decks"] == [DECK[::-1]]
    with pytest.raises(InvalidSetup):
        GAME.new_state(4, {"partnership": True}, 0, layout={"options": {"partnership": False}, "deck": DECK})


@pytest.mark.parametrize("swap", [False, True])
def test_card_penalty_is_what_a_trick_costs_S1_S3(swap):
    """tables.card_penalty (read by the easy bot) agrees with scoring.score_trick for every
    contract and card: one undoubled card alone in a trick (S4's per-trick value aside)."""
    from engine.games.trex import scoring, tables

    state = GAME.new_state(4, {"diamonds_collections_swap": swap}, 0, seed=1)
    for contract in range(len(tables.CONTRACT_NAMES)):
        for card in range(52):
            state.contract, state.dbl_mask, state.deal_scores = contract, 0, [0, 0, 0, 0]
            scoring.score_trick(state, 1 << card, 0, 0, None)
            per_trick = state.opts.tv if contract in (tables.COLLECTIONS, tables.COMPLEX) else 0
            assert -state.deal_scores[0] * state.opts.sign - per_trick == tables.card_penalty(
                contract, card, swap
            ), (tables.CONTRACT_NAMES[contract], tables.CODES[card])
