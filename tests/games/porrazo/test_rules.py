"""Porrazo rule tests, named after the rules of docs/rules/porrazo.md."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from porrazo_helpers import GAME, layout, legal_json, play

from engine.cards import CODES
from engine.games.porrazo.tables import deals_per_hand, leftover_cards
from engine.protocol import BadAction, IllegalAction, InvalidSetup, InvalidState, NotYourTurn

DATA = Path(__file__).resolve().parents[2] / "data" / "porrazo"


def example_layout(eid: str) -> dict:
    return json.loads((DATA / f"{eid}.json").read_text())["cases"][0]["setup"]["layout"]


def j(state) -> dict:
    return GAME.to_json(state)


# --------------------------------------------------------------------------- seats, dealing


def test_r1_teams_need_4_6_or_8_players():
    with pytest.raises(InvalidSetup) as info:
        GAME.new_state(3, {"teams": "alternate"}, 0, seed=1)
    assert info.value.field == "options.teams"
    state = GAME.new_state(6, {"teams": "alternate"}, 0, seed=1)
    assert j(state)["scores"] == [0, 0]
    assert GAME.score(state).sides == [[0, 2, 4], [1, 3, 5]]


def test_r1_seven_players_refused():
    with pytest.raises(InvalidSetup):
        GAME.new_state(7, {}, 0, seed=1)


def test_r3_deals_and_leftovers_per_player_count():
    assert {n: deals_per_hand(n) for n in (2, 3, 4, 5, 6, 8)} == {
        2: 8,
        3: 5,
        4: 4,
        5: 3,
        6: 2,
        8: 2,
    }
    assert {n: leftover_cards(n) for n in (2, 3, 4, 5, 6, 8)} == {
        2: 0,
        3: 3,
        4: 0,
        5: 3,
        6: 12,
        8: 0,
    }


def test_r4_threes_deal_from_dealers_left():
    deck = list(CODES)
    state = GAME.new_state(3, {}, 1, deck=deck)
    hands = j(state)["hands"]
    assert hands[2] == deck[0:3] and hands[0] == deck[3:6] and hands[1] == deck[6:9]
    assert j(state)["dealt"] == hands


def test_r5_r6_dealer_decides_tendido_without_seeing_his_hand():
    state = GAME.new_state(2, {}, 0, seed=5)
    assert GAME.phase(state) == "tendido_choice" and GAME.to_act(state) == 0
    assert legal_json(state) == [{"type": "tendido"}, {"type": "pass"}]
    view = GAME.view(state, 0)
    assert view["hands"][0] == 3 and view["dealt"][0] == 3
    assert set(j(state)["hands"][0]) <= set(GAME.hidden_cards(state, 0))
    state, _ = play(state, {"type": "pass"})
    assert GAME.view(state, 0)["hands"][0] == j(state)["hands"][0]
    assert j(state)["tendido_done"] is False and j(state)["tendido"] is None


def test_r7_tendido_dealt_exactly_once_per_hand():
    state = GAME.new_state(2, {}, 0, seed=11)
    offered = 0
    while j(state)["hand_no"] == 1 and GAME.to_act(state) is not None:
        if GAME.phase(state) == "tendido_choice":
            offered += 1
            state, _ = play(state, {"type": "pass"})
            continue
        state, _ = play(state, GAME.action_to_json(state, GAME.legal_actions(state)[0]))
        if j(state)["hand_no"] == 1 and j(state)["deal_no"] == 8:
            assert j(state)["tendido_done"] is True and len(j(state)["tendido"]) == 4
    assert offered == 7  # deals 1..7 ask; deal 8 deals it without asking


def test_r8_six_players_put_twelve_leftover_cards_face_up():
    state = layout(6, 0, [[]] * 6, deal_no=1, tendido_done=False, phase="dealing")
    data = j(state)
    assert data["deal_no"] == 2 and data["stock"] == [] and data["tendido_done"] is True
    assert len(data["table"]) == 4 + 12
    assert data["table"][:4] == data["tendido"]


# --------------------------------------------------------------------------- declarations


def test_r9_declare_only_what_you_hold():
    # stock in code order: seat 1 gets AS AH AD (rondine), seat 0 gets AC 2S 2H (ronda)
    state = layout(2, 0, [[], []], deal_no=1, phase="dealing")
    assert GAME.phase(state) == "declare" and GAME.to_act(state) == 1
    assert legal_json(state) == [{"type": "declare", "combo": "rondine"}, {"type": "pass"}]
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, 1, GAME.parse_action(state, {"type": "declare", "combo": "ronda"}))
    assert info.value.reason == "you hold a rondine, not a ronda" and info.value.rule == "R9"
    state, _ = play(state, {"type": "declare", "combo": "rondine"})
    assert legal_json(state) == [{"type": "declare", "combo": "ronda"}, {"type": "pass"}]
    state, _ = play(state, {"type": "pass"})
    assert j(state)["declarations"] == [None, "rondine"]
    assert GAME.phase(state) == "play" and GAME.to_act(state) == 1


def test_r9_pass_only_without_a_combination():
    state = layout(2, 1, [["2C", "6D", "JS"], ["9S", "9H", "4D"]], deal_no=3, phase="declare")
    assert legal_json(state) == [{"type": "pass"}]
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, 0, GAME.parse_action(state, {"type": "declare", "combo": "ronda"}))
    assert info.value.reason == "you hold no ronda or rondine"


def test_r9_auto_mode_declares_for_everyone():
    state = layout(2, 0, [[], []], deal_no=1, phase="dealing", options={"declaration_mode": "auto"})
    assert GAME.phase(state) == "play" and j(state)["declarations"] == ["ronda", "rondine"]


# --------------------------------------------------------------------------- the play


def test_r10_any_card_may_be_played():
    state = layout(2, 1, [["5D", "7H", "JC"], ["2S", "9C", "KD"]], deal_no=3, table=["5C"])
    assert legal_json(state) == [{"type": "play", "card": c} for c in ("5D", "7H", "JC")]


def test_r10_capture_true_is_normalised():
    state = layout(2, 1, [["5D", "7H", "JC"], ["2S", "9C", "KD"]], deal_no=3, table=["5C"])
    assert GAME.parse_action(state, {"type": "play", "card": "5D", "capture": True}) == GAME.parse_action(
        state, {"type": "play", "card": "5D"}
    )


def test_r12_run_takes_one_card_per_rank_and_never_returns_to_the_matched_rank():
    table = ["5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS", "AS", "2S", "3S", "4S", "5H"]
    state = layout(2, 1, [["5D", "9H", "9D"], ["2D", "3D", "4D"]], deal_no=3, table=table)
    state, _ = play(state, "5D")
    data = j(state)
    assert data["table"] == ["5S"]
    assert data["piles"][0][-14:] == [
        "5H",
        "6S",
        "7S",
        "8S",
        "9S",
        "TS",
        "JS",
        "QS",
        "KS",
        "AS",
        "2S",
        "3S",
        "4S",
        "5D",
    ]
    assert data["scores"] == [0, 0]


def test_r12_most_recent_card_of_the_rank_is_taken():
    state = layout(2, 1, [["KD", "9H", "8D"], ["2D", "3D", "4D"]], deal_no=3, table=["KH", "5C", "KS"])
    state, _ = play(state, "KD")
    assert j(state)["table"] == ["KH", "5C"]


def test_r13_en_su_lugar_only_on_a_discard():
    state = layout(2, 1, [["3S", "9H", "8D"], ["2D", "5D", "6D"]], deal_no=3, table=["3H", "9C", "8C", "7C"])
    state, _ = play(state, "3S")  # captures 3H: three cards stay, but a capture scores no en su lugar
    assert j(state)["table"] == ["9C", "8C", "7C"] and j(state)["scores"] == [0, 0]


def test_r14_no_decline_for_a_counter_porrazo():
    hands = [["2H", "9S", "8D"], ["2S", "TS", "JD"], ["2C", "QS", "KD"]]
    state = layout(3, 2, hands, deal_no=2, table=["2D"])
    state, _ = play(state, {"type": "play", "card": "2H", "capture": False})
    assert j(state)["scores"] == [2, 0, 0] and j(state)["table"] == ["2D", "2H"]
    state, _ = play(state, "2S")  # porrazo of twos: takes 2H, leaves 2D
    assert j(state)["pending_porrazo"] == {
        "seat": 1,
        "porrazo_points": 1,
        "limpia_points": 0,
        "cards": ["2H", "2S"],
    }
    assert legal_json(state) == [{"type": "play", "card": c} for c in ("2C", "QS", "KD")]
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, 2, GAME.parse_action(state, {"type": "play", "card": "2C", "capture": False}))
    assert info.value.reason.startswith("you must capture with 2C") and info.value.rule == "R14"
    state, _ = play(state, "2C")
    data = j(state)
    assert data["scores"] == [2, 0, 3] and data["table"] == ["2D"]
    assert data["piles"][2][-3:] == ["2H", "2S", "2C"] and "2S" not in data["piles"][1]
    assert data["chain"] == {"stage": "counter", "rank": "2", "seat": 2}


def test_r14_option_off_makes_capture_compulsory():
    state = layout(
        2,
        1,
        [["2S", "9C", "KD"], ["5D", "7H", "JC"]],
        deal_no=3,
        table=["2H"],
        options={"en_su_lugar_decline": False},
    )
    assert legal_json(state) == [{"type": "play", "card": c} for c in ("2S", "9C", "KD")]


@pytest.mark.parametrize("value, expected", [("highest", [16, 0]), ("last_in_run", [13, 0])])
def test_r16_counter_porrazo_that_clears_scores_a_limpia(value, expected):
    hands = [["KH", "KD", "5S"], ["KS", "9D", "8C"]]
    state = layout(2, 1, hands, deal_no=3, table=["AC"], options={"limpia_value": value})
    state, _ = play(state, "KH", "KS")
    assert j(state)["table"] == [] and j(state)["pending_porrazo"]["cards"] == ["KH", "AC", "KS"]
    state, _ = play(state, "KD")
    assert j(state)["scores"] == expected and j(state)["pending_porrazo"] is None
    assert j(state)["piles"][0][-4:] == ["KH", "AC", "KS", "KD"]


def test_r16_pending_porrazo_credited_when_the_deal_ends():
    state = layout(
        2,
        1,
        [["8H"], ["8S"]],
        deal_no=3,
        dealt=[["8H", "2C", "3C"], ["8S", "4C", "5C"]],
        piles=[["2C", "3C"], ["4C", "5C"]],
    )
    state, events = play(state, "8H", "8S")
    assert j(state)["scores"] == [0, 2]  # porrazo 1 + limpia 1, credited at the end of the deal
    assert j(state)["deal_no"] == 4 and j(state)["pending_porrazo"] is None
    assert any(e["type"] == "points" and e["item"] == "porrazo" for e in events)


def test_r18_limpia_on_the_last_play_of_an_earlier_deal():
    state = layout(
        2,
        1,
        [["JH"], ["TS"]],
        deal_no=3,
        table=["TD"],
        dealt=[["JH", "2C", "3C"], ["TS", "4C", "5C"]],
        piles=[["2C", "3C"], ["4C", "5C"]],
    )
    state, _ = play(state, "JH", "TS")
    assert j(state)["scores"] == [0, 2]  # run T-J, highest J: 2


def test_r19_chain_is_reset_at_every_deal():
    state = layout(
        2,
        1,
        [["5H"], ["KS"]],
        deal_no=3,
        dealt=[["5H", "2C", "3C"], ["KS", "4C", "5C"]],
        piles=[["2C", "3C"], ["4C", "5C"]],
    )
    state, _ = play(state, "5H")
    assert j(state)["chain"] == {"stage": "discard", "rank": "5", "seat": 0}
    state, _ = play(state, "KS")
    assert j(state)["deal_no"] == 4 and j(state)["chain"] is None


# --------------------------------------------------------------------------- claims and settlement


def claim_layout(options=None):
    dealt = [["2S", "5H", "9C"], ["QS", "QH", "8D"], ["JS", "JH", "3D"], ["6S", "7H", "TC"]]
    table = [c for h in dealt for c in h]
    return layout(
        4,
        3,
        [[], [], [], []],
        deal_no=2,
        table=table,
        phase="claim",
        dealt=dealt,
        options={"teams": "alternate", **(options or {})},
    )


def test_r21_claims_by_opponents_only():
    state = claim_layout()
    assert GAME.to_act(state) == 0 and legal_json(state) == [
        {"type": "claim", "seat": 1},
        {"type": "pass"},
    ]
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, 0, GAME.parse_action(state, {"type": "claim", "seat": 2}))
    assert info.value.reason == "you cannot claim your own side's ronda or rondine"
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, 0, GAME.parse_action(state, {"type": "claim", "seat": 3}))
    assert info.value.reason == "seat 3 has no unclaimed undeclared ronda or rondine"
    state, _ = play(state, {"type": "claim", "seat": 1})
    assert GAME.to_act(state) == 1 and legal_json(state) == [
        {"type": "claim", "seat": 2},
        {"type": "pass"},
    ]
    state, _ = play(state, {"type": "pass"})
    assert GAME.to_act(state) == 3  # seat 2 has nothing left to claim; seat 3 may claim seat 2's
    state, _ = play(state, {"type": "pass"})
    # R22: seat 1's queens, claimed by seat 0, are the only entry: team 0 scores 3
    assert j(state)["scores"] == [3, 0] and GAME.phase(state) == "declare" and j(state)["deal_no"] == 3


def test_r21_no_claim_phase_when_claims_are_off():
    with pytest.raises(InvalidState):
        claim_layout({"undeclared_claims": False})
    state = layout(
        2,
        1,
        [["9H"], ["KS"]],
        deal_no=3,
        dealt=[["9H", "9D", "3C"], ["KS", "4C", "5C"]],
        piles=[["9D", "3C"], ["4C", "5C"]],
        options={"undeclared_claims": False},
    )
    state, _ = play(state, "9H", "KS")
    assert GAME.phase(state) == "declare" and j(state)["deal_no"] == 4 and j(state)["scores"] == [0, 0]


def test_r22_claimed_combination_competes_as_the_claimers():
    state = layout(
        2,
        1,
        [["9H"], ["KS"]],
        deal_no=3,
        dealt=[["9H", "9D", "3C"], ["KS", "KD", "5C"]],
        piles=[["9D", "3C"], ["KD", "5C"]],
        declarations=[None, "ronda"],
    )
    state, _ = play(state, "9H", "KS")
    # seat 0's nines are undeclared: seat 1 claims them and owns both entries (kings best)
    assert GAME.phase(state) == "claim" and GAME.to_act(state) == 1
    state, _ = play(state, {"type": "claim", "seat": 0})
    assert j(state)["scores"] == [0, 5]


# --------------------------------------------------------------------------- end of hand and match


def final_deal(piles0: int, last_capturer: int):
    hands = [["5H"], ["6S"]]
    dealt = [["5H", "2C", "3C"], ["6S", "4C", "5C"]]
    rest = [c for c in CODES if c not in {"5H", "6S"}]
    piles = [rest[:piles0], rest[piles0:]]
    return layout(2, 1, hands, deal_no=8, dealt=dealt, piles=piles, last_capturer=last_capturer)


def test_r23_r24_sweep_then_card_count_difference():
    state = final_deal(25, 1)  # 25 v 25, the sweep gives seat 1 two more
    state, _ = play(state, "5H", "6S")
    assert [len(p) for p in j(state)["piles"]] == [25, 27]
    assert j(state)["scores"] == [0, 2] and GAME.phase(state) == "deal_over"


def test_r24_tied_count_scores_nothing():
    state = final_deal(26, 1)  # 26 v 24, the sweep gives seat 1 two more: 26 v 26
    state, _ = play(state, "5H", "6S")
    assert [len(p) for p in j(state)["piles"]] == [26, 26] and j(state)["scores"] == [0, 0]


def test_r25_pending_porrazo_can_win_before_the_next_plays_points():
    state = layout(2, 1, [["8H", "AH", "9C"], ["8S", "TD", "QC"]], deal_no=3, scores=[60, 60])
    state, _ = play(state, "8H", "8S")
    assert j(state)["scores"] == [60, 60]
    state, _ = play(state, "AH")  # en su lugar for seat 0, but seat 1's porrazo + limpia come first
    data = j(state)
    assert data["scores"] == [60, 62] and data["winner"] == 1 and data["win_reason"] == "target"
    assert GAME.to_act(state) is None and GAME.legal_actions(state) == []


def test_r26_engine_dealt_next_hand():
    state = GAME.new_state(3, {}, 0, layout=example_layout("E10"), seed=7)
    state, _ = play(state, "9S", "KD", "TC", "2H", "5S", "3H", "6C", "TS", "QS")
    data = j(state)
    assert data["scores"] == [40, 35, 48]
    assert data["hand_no"] == 2 and data["dealer"] == 1 and data["deal_no"] == 1
    assert GAME.phase(state) == "tendido_choice" and GAME.to_act(state) == 1
    assert data["piles"] == [[], [], []] and data["table"] == [] and len(data["stock"]) == 52 - 9


def test_r26_caller_dealt_next_hand_waits_for_the_deck():
    state = GAME.new_state(3, {}, 0, layout=example_layout("E10"))
    state, _ = play(state, "9S", "KD", "TC", "2H", "5S", "3H", "6C", "TS", "QS")
    assert GAME.phase(state) == "deal_over" and GAME.to_act(state) == 1 and GAME.legal_actions(state) == []
    deck = list(reversed(CODES))
    with pytest.raises(NotYourTurn):
        GAME.apply(state, 0, GAME.parse_action(state, {"type": "deal", "deck": deck}))
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, 1, GAME.parse_action(state, {"type": "deal", "deck": deck[:51]}))
    assert info.value.rule == "R2"
    state, _ = play(state, {"type": "deal", "deck": deck})
    data = j(state)
    assert data["hand_no"] == 2 and data["hands"][2] == deck[0:3] and GAME.phase(state) == "tendido_choice"
    assert GAME.view(state, 0)["history"] == []  # the deck never shows in a view
    assert GAME.to_json(GAME.from_json(data)) == data


# --------------------------------------------------------------------------- section 3: layouts and states


def test_layout_rejects_duplicate_and_missing_cards():
    base = example_layout("E5")
    dup = dict(base, table=["2H", "2S"])
    with pytest.raises(InvalidState) as info:
        GAME.new_state(2, None, 0, layout=dup)
    assert "2S" in info.value.message
    missing = dict(base, table=[])
    with pytest.raises(InvalidState) as info:
        GAME.new_state(2, None, 0, layout=missing)
    assert "2H" in info.value.message


def test_layout_rejects_wrong_hand_sizes_and_unknown_phase():
    base = example_layout("E5")
    with pytest.raises(InvalidState) as info:
        GAME.new_state(2, None, 0, layout=dict(base, phase="bidding"))
    assert info.value.field == "phase"
    bad = dict(base, hands=[["5D", "7H"], ["2S", "9C", "KD"]], stock=base["stock"] + ["JC"])
    with pytest.raises(InvalidState):
        GAME.new_state(2, None, 0, layout=bad)


def test_from_json_names_the_bad_field():
    data = GAME.to_json(GAME.new_state(2, {}, 0, seed=3))
    for field, value in [
        ("scores", "x"),
        ("dealer", 9),
        ("hands", [["AS", "2S", "3S", "4S"], []]),
        ("stock", [1, 2]),
        ("phase", "x"),
        ("declarations", ["rondo", None]),
        ("rng_state", -1),
    ]:
        with pytest.raises(InvalidState) as info:
            GAME.from_json(dict(data, **{field: value}))
        assert info.value.field and info.value.field.split("[")[0].split(".")[0] in (
            field,
            "dealt",
            "hands",
        ), field


def test_parse_action_errors_are_bad_actions():
    state = GAME.new_state(2, {}, 0, seed=3)
    for junk, field in [
        (5, "action"),
        ({}, "type"),
        ({"type": "bid"}, "type"),
        ({"type": "play"}, "card"),
        ({"type": "play", "card": "1S"}, "card"),
        ({"type": "play", "card": "AS", "x": 1}, "x"),
        ({"type": "play", "card": "AS", "capture": "no"}, "capture"),
        ({"type": "claim", "seat": 5}, "seat"),
        ({"type": "declare", "combo": "pair"}, "combo"),
        ({"type": "deal", "deck": "AS"}, "deck"),
    ]:
        with pytest.raises(BadAction) as info:
            GAME.parse_action(state, junk)
        assert info.value.field == field, junk


def test_section3_a_deck_is_a_layout_in_phase_dealing():
    """E1's deck setup and the same deck as a layout (phase dealing, deal_no 0) agree."""
    example = json.loads((DATA / "E1.json").read_text())["cases"][0]["setup"]
    from_deck = GAME.new_state(2, None, 0, deck=example["deck"])
    from_layout = GAME.new_state(
        2, None, 0, layout={"players": 2, "dealer": 0, "phase": "dealing", "stock": example["deck"]}
    )
    assert j(from_layout) == j(from_deck)


def test_section3_layout_stock_defaults_to_the_unplaced_cards():
    base = example_layout("E5")
    explicit = GAME.new_state(2, None, 0, layout=base)
    stockless = {k: v for k, v in base.items() if k != "stock"}
    implicit = GAME.new_state(2, None, 0, layout=stockless)
    assert sorted(j(implicit)["stock"]) == sorted(j(explicit)["stock"])
    assert j(implicit)["hands"] == j(explicit)["hands"]


def test_section3_layout_values_and_request_parameters():
    base = example_layout("E6")  # players 3, dealer 2 in the layout itself
    state = GAME.new_state(3, {"target_score": 50}, 0, layout=base)
    assert j(state)["dealer"] == 2 and j(state)["options"]["target_score"] == 50
    with pytest.raises(InvalidState):
        GAME.new_state(3, {"target_score": 30}, 0, layout=base)  # seat 2 already has 30
