"""Rule tests for Ronda, named after the numbered rules of docs/rules/ronda.md."""

from __future__ import annotations

import random

import pytest
from ronda_helpers import ALL_CODES, GAME, L, act, facts, lay, run

from engine.cards import parse_cards
from engine.games.ronda.rules import holding
from engine.games.ronda.scoring import target_winner
from engine.games.ronda.tables import DOUBLE, NONE, RONDA, TRINGA
from engine.protocol import BadAction, IllegalAction, InvalidSetup, InvalidState

PASS = {"type": "pass"}


def declare(combo):
    return {"type": "declare", "combo": combo}


def challenge(t):
    return {"type": "challenge", "target": t}


def mask(codes: str) -> int:
    m = 0
    for c in parse_cards(codes):
        m |= 1 << c
    return m


def play_randomly_until(state, done, seed=0, limit=2000):
    """Random legal play, always passing in declaration/challenge rounds, until ``done``."""
    rng = random.Random(seed)
    for _ in range(limit):
        if done(state):
            return state
        acts = GAME.legal_actions(state)
        plays = [a for a in acts if isinstance(a, int) and a < 52]
        GAME.step(state, rng.choice(plays) if plays else acts[0])
    raise AssertionError("condition never reached")


# ---------------------------------------------------------------- dealing


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r3_first_hand_batches_start_left_of_dealer(players):
    deck = ALL_CODES[:]  # canonical order; R6 may touch the table, never the hands
    for dealer in range(players):
        js = facts(GAME.new_state(players, {"shuffle_returned_cards": False}, dealer, deck=deck))
        for k in range(players):
            assert sorted(js["hands"][(dealer + 1 + k) % players]) == sorted(deck[3 * k : 3 * k + 3])
        assert len(js["table"]) == 4
        assert len(js["stock"]) == 40 - 3 * players - 4


def test_r4_no_table_four_players_four_then_three_cards():
    s = GAME.new_state(4, {"deal_style": "no_table"}, 0, seed=5)
    js = facts(s)
    assert js["table"] == [] and len(js["stock"]) == 24
    assert all(len(h) == 4 for h in js["hands"])
    s = play_randomly_until(s, lambda s: GAME.to_json(s)["hand_number"] == 2)
    assert all(len(d) == 3 for d in facts(s)["dealt"]) and len(facts(s)["stock"]) == 12


def test_r4_no_table_two_players_every_hand_four_cards():
    s = GAME.new_state(2, {"deal_style": "no_table"}, 1, seed=3)
    for hand in (2, 3, 4, 5):
        s = play_randomly_until(s, lambda s, h=hand: GAME.to_json(s)["hand_number"] == h)
        assert [len(d) for d in facts(s)["dealt"]] == [4, 4]
    assert facts(s)["stock"] == []


def test_r5_later_hand_dealt_by_same_dealer_from_stock_top():
    s = lay(2, 1, ["AS 2S 3S", "4S 5S 6S"], "KD", "AH AD AC 2H 2D 2C")
    s, _ = run(s, (0, "pass"), (1, "pass"), (0, "AS"), (1, "4S"), (0, "2S"), (1, "5S"), (0, "3S"), (1, "6S"))
    js = facts(s)
    assert js["dealer"] == 1 and js["hand_number"] == 6
    assert js["hands"] == [L("AH AD AC"), L("2H 2D 2C")]
    assert js["table"] == L("KD AS 4S 2S 5S 3S 6S") and js["stock"] == []


def test_r6_three_of_a_rank_keeps_the_first_dealt():
    deck = L("AS 2S 3S 4S 5S 6S 7S 7H 7D KS AH 3H") + [
        c for c in ALL_CODES if c not in L("AS 2S 3S 4S 5S 6S 7S 7H 7D KS AH 3H")
    ]
    js = facts(GAME.new_state(2, {"shuffle_returned_cards": False}, 0, deck=deck))
    assert js["table"] == L("7S KS AH 3H")
    assert js["stock"][-2:] == L("7H 7D") and len(js["stock"]) == 30


def test_r6_shuffled_return_is_reproducible_and_valid():
    deck = L("AS 2S 3S 4S 5S 6S 7S 7H JS KS QD 2H") + [
        c for c in ALL_CODES if c not in L("AS 2S 3S 4S 5S 6S 7S 7H JS KS QD 2H")
    ]
    a = facts(GAME.new_state(2, {}, 0, deck=deck))
    b = facts(GAME.new_state(2, {}, 0, deck=deck))
    assert a == b
    ranks = [c[0] for c in a["table"]]
    assert len(set(ranks)) == 4 and "7S" in a["table"] and "7H" not in a["table"]


@pytest.mark.parametrize("seed", range(30))
def test_r7_table_after_the_check_has_four_ranks_and_no_run(seed):
    js = facts(GAME.new_state(2, {}, 0, seed=seed))
    idx = sorted("A234567JQK".index(c[0]) for c in js["table"])
    assert len(set(idx)) == 4 and idx[3] - idx[0] != 3


# ---------------------------------------------------------------- declarations


def test_r8_holding_of_dealt_cards():
    assert holding(mask("7S 7H 7D"))[0] == TRINGA
    assert holding(mask("7S 7H 2D"))[0] == RONDA
    assert holding(mask("7S 6H 2D"))[0] == NONE
    assert holding(mask("7S 7H 7D 2C"))[0] == TRINGA
    assert holding(mask("7S 7H 2D 2C"))[0] == DOUBLE
    assert holding(mask("5S 5H 5D 5C"))[0] == DOUBLE


def test_r8_declaration_round_in_order_from_dealer_plus_one():
    s = lay(3, 1, ["AS 2S 3S", "4S 5S 6S", "7S JS QS"], "KD", "AH 2H 3H 4H 5H 6H 7H JH QH")
    assert GAME.to_act(s) == 2
    s, _ = run(s, (2, "pass"))
    assert GAME.to_act(s) == 0
    s, _ = run(s, (0, declare("tringa")))
    assert facts(s)["declarations"] == ["tringa", None, "none"]
    s, _ = run(s, (1, "pass"))
    assert GAME.phase(s) == "play" and GAME.to_act(s) == 2  # R11: no challenge round with 3 players


def test_r9_r18_declaring_ronda_while_holding_a_tringa_costs_five():
    s = lay(2, 0, ["AS 4D 6H", "7S 7H 7D"], "KD 5C", "3S 3H 4S 6C QH QD", scores=[0, 0])
    s, _ = run(s, (1, declare("ronda")), (0, "pass"), (0, "pass"))
    assert facts(s)["scores"] == [0, 1]  # R15: provisional
    s, _ = run(s, (1, "7S"), (0, "AS"), (1, "7H"), (0, "4D"), (1, "7D"), (0, "6H"))
    # provisional 1 withdrawn, no genuine declaration, penalty max(1, 5) = 5 to side 0
    assert facts(s)["scores"] == [5, 0]
    items = GAME.score(s).to_json()["items"]
    assert sum(i["points"] for i in items) == 5 and {i["rule"] for i in items} >= {"R15", "R17", "R18"}


def test_r10_auto_declare_records_true_holdings_and_settles():
    s = lay(2, 0, ["2S 2H KC", "7S 7H 7D"], "AD 5C", "3S 3H 4D 6C JH QD", options={"auto_declare": True})
    js = facts(s)
    assert js["phase"] == "play" and js["declarations"] == ["ronda", "tringa"]
    assert js["scores"] == [0, 6] and js["provisional_award"] == {"side": 1, "points": 6}
    assert all(isinstance(a, int) and a < 52 for a in GAME.legal_actions(s))


def test_r11_no_challenge_round_when_challenges_are_off():
    s = lay(2, 1, ["5S 5H KD", "2C 7S JD"], "AC 3H QS 6D", "4S 4H 4D 4C 6S 6H", options={"challenges": False})
    s, _ = run(s, (0, declare("ronda")), (1, "pass"))
    assert GAME.phase(s) == "play" and facts(s)["scores"] == [1, 0]
    with pytest.raises(IllegalAction, match="challenges are not played in this game"):
        GAME.check(s, 0, GAME.parse_action(s, challenge(1)))


def test_r12_double_ronda_needs_four_cards():
    s = lay(2, 0, ["AS 4D 6H", "KS KH 3C"], "JD 5C", "3S 3H 7D 6C QH QD")
    with pytest.raises(IllegalAction, match="double_ronda needs a four-card hand") as err:
        act(s, 1, declare("double_ronda"))
    assert err.value.rule == "R12"


def test_r13_false_tringa_with_four_players_is_paid_once_to_the_other_team():
    s = lay(
        4,
        0,
        ["AS 5D KC", "2S 3H 7C", "3D JH QS", "6C 4H 7S"],
        "5C JD KH 6D",
        "AH AD AC 3S 2H 3C 4S 4D 4C QH QD QC",
        hand_number=2,
    )
    s, _ = run(s, (1, "pass"), (2, declare("tringa")), (3, "pass"), (0, "pass"))
    assert GAME.to_act(s) == 1
    assert [GAME.action_to_json(s, a) for a in GAME.legal_actions(s)] == [PASS, challenge(2)]
    s, _ = run(s, (1, challenge(2)))
    js = facts(s)
    assert js["scores"] == [0, 5] and js["revealed"] == [2] and js["withdrawn"] == [2]
    assert GAME.phase(s) == "play"  # seat 3's turn: no open target left anywhere


def test_r13_genuine_challenged_declaration_wins_even_when_behind():
    s = lay(2, 0, ["6S 6H 2D", "JS JH AC"], "KD 5C", "3S 3H 7D 6C QH QD", scores=[0, 40])
    s, _ = run(s, (1, declare("ronda")), (0, declare("ronda")), (1, challenge(0)))
    assert GAME.phase(s) == "match_over" and GAME.score(s).winner == 0 and GAME.to_act(s) is None


def test_r14_strength_order():
    key = lambda codes: holding(mask(codes))[1]  # noqa: E731
    assert key("2S 2H 2D") > key("KS KH QS QH")  # any tringa beats any ronda class
    assert key("KS KH 5S 5H") > key("KS KH 2C")  # a longer list wins over its prefix
    assert key("5S 5H 5D 5C") == (1, (4, 4))  # four of a kind is the list [5, 5]
    assert key("QS QH 3C") > key("JS JH 3D")
    assert key("6S 6H AC") == key("6D 6C KS")


def test_r15_partners_rondas_score_at_once():
    s = lay(
        4, 3, ["AS AH 2C", "3S 4S 5S", "KD KH 7C", "6S 7S JS"], "QS", "2D 2H 3C 3D 4C 4D 5C 5D 6C 6D JC JD"
    )
    s, _ = run(
        s, (0, declare("ronda")), (1, "pass"), (2, declare("ronda")), (3, "pass"), (1, "pass"), (3, "pass")
    )
    assert facts(s)["scores"] == [2, 0] and GAME.phase(s) == "play"


def test_r15_tringa_against_ronda_of_other_side_scores_at_once_but_two_tringas_wait():
    s = lay(2, 0, ["2S 2H 2D", "7S 7H 7D"], "AD 5C", "3S 3H 4D 6C JH QD")
    s, _ = run(s, (1, declare("tringa")), (0, declare("tringa")), (1, "pass"), (0, "pass"))
    assert facts(s)["scores"] == [0, 0] and facts(s)["provisional_award"] is None
    s, _ = run(s, (1, "7S"), (0, "2S"), (1, "7H"), (0, "2H"), (1, "7D"), (0, "2D"))
    assert facts(s)["scores"][1] - facts(s)["scores"][0] >= 10  # sevens beat twos: 5 + 5 to side 1


def test_r17_false_uncontested_declaration_is_corrected_at_end_of_hand():
    s = lay(2, 0, ["AS 4D 6H", "KS QH 3C"], "JD 5C", "3S 3H 7D 6C QS QD", scores=[0, 0])
    s, _ = run(s, (1, declare("ronda")), (0, "pass"), (0, "pass"))  # declaration, then no challenge
    assert facts(s)["scores"] == [0, 1]
    s, _ = run(s, (1, "3C"), (0, "AS"), (1, "KS"), (0, "4D"), (1, "QH"), (0, "6H"))
    assert facts(s)["scores"] == [1, 0]  # -1 provisional, +1 penalty to side 0
    assert GAME.score(s).deal_points == [1, 0]


def test_r17_tringa_points_option_changes_award_not_penalty():
    s = lay(2, 0, ["2S 2H KC", "7S 7H 7D"], "AD 5C", "3S 3H 4D 6C JH QD", options={"tringa_points": 3})
    s, _ = run(s, (1, declare("tringa")), (0, declare("ronda")), (1, "pass"), (0, "pass"))
    assert facts(s)["scores"] == [0, 4]
    s = lay(2, 0, ["2S 5H KC", "7S 7H 7D"], "AD 5C", "3S 3H 4D 6C JH QD", options={"tringa_points": 3})
    s, _ = run(s, (1, "pass"), (0, "pass"), (1, "7S"), (0, "KC"), (1, "7H"), (0, "2S"), (1, "7D"), (0, "5H"))
    assert facts(s)["scores"] == [5, 0]


# ---------------------------------------------------------------- play


def test_r19_legal_plays_in_canonical_order_and_free_choice():
    s = lay(2, 0, ["KC 2D AS", "QH 5C 5H"], "5S", "3S 3H 7D 6C QS QD")
    s, _ = run(s, (1, "pass"), (0, "pass"))
    assert [GAME.action_to_json(s, a)["card"] for a in GAME.legal_actions(s)] == ["5H", "5C", "QH"]
    s, _ = run(s, (1, "QH"))  # not forced to capture the 5
    assert facts(s)["table"] == L("5S QH")


def test_r19_reason_for_a_card_not_in_hand():
    s = lay(2, 0, ["KC 2D AS", "QH 5C 5H"], "5S", "3S 3H 7D 6C QS QD")
    s, _ = run(s, (1, "pass"), (0, "pass"))
    with pytest.raises(IllegalAction, match="card not in hand: KC"):
        act(s, 1, {"type": "play", "card": "KC"})
    with pytest.raises(BadAction, match="no such card in the Ronda pack: TH"):
        GAME.parse_action(s, {"type": "play", "card": "TH"})


def test_r20_run_stops_at_a_gap_and_goes_upward_only():
    s = lay(2, 0, ["3C 6H 2D", "4D 6S AH"], "3S 4H 5H KC", "")
    s, _ = run(s, (1, "pass"), (0, "pass"), (1, "4D"))
    assert facts(s)["table"] == L("3S KC")  # 4H matched, 5H by the run, not the 3S below
    assert facts(s)["last_capturer"] == 1 and facts(s)["scores"] == [0, 0]


def test_r22_no_chain_bonus_across_a_re_deal():
    s = lay(3, 2, ["AS 2S 3S", "4H 5H QH", "6D 7D QS"], "JC KC", "QD 4C 5C 4D 5D 6C 7C JH KH")
    moves = [
        (0, "pass"),
        (1, "pass"),
        (2, "pass"),
        (0, "AS"),
        (1, "4H"),
        (2, "6D"),
        (0, "2S"),
        (1, "5H"),
        (2, "7D"),
        (0, "3S"),
        (1, "QH"),
        (2, "QS"),
    ]
    s, _ = run(s, *moves)
    js = facts(s)
    assert js["scores"] == [0, 0, 1] and js["chain"] is None and js["hand_number"] == 4
    s, _ = run(s, (0, "pass"), (1, "pass"), (2, "pass"), (0, "QD"))
    assert facts(s)["scores"] == [0, 0, 1] and facts(s)["table"][-1] == "QD"


def test_r24_two_players_have_no_chain_bonus():
    s = lay(2, 0, ["QS 4C 7H", "QH QD 6S"], "KD 2S", "3S 3H 4D 6C JH JD")
    s, _ = run(s, (1, "pass"), (0, "pass"), (1, "6S"), (0, "QS"), (1, "QH"))
    assert facts(s)["scores"] == [0, 1]  # este; no chain
    s, _ = run(s, (0, "4C"), (1, "QD"))
    assert facts(s)["table"][-1] == "QD" and facts(s)["scores"] == [0, 1]


def test_r24_chain_bonuses_off_with_three_players():
    s = lay(3, 2, ["QS 4C 7H", "QH 2C 6S", "QD 3D JS"], "KD 4S", "", options={"chain_bonuses": False})
    s, _ = run(s, (0, "pass"), (1, "pass"), (2, "pass"), (0, "QS"), (1, "QH"), (2, "QD"))
    assert facts(s)["scores"] == [0, 1, 0] and facts(s)["table"] == L("4S QD")


def test_r24_fourth_card_after_bkhamsa_with_three_players_is_ordinary():
    s = lay(3, 2, ["QS QC 7H", "QH 2C 6S", "QD 3D JS"], "KD 4S", "")
    s, _ = run(s, (0, "pass"), (1, "pass"), (2, "pass"), (0, "QS"), (1, "QH"), (2, "QD"))
    assert facts(s)["scores"] == [0, 1, 5] and facts(s)["chain"]["level"] == 2
    s, _ = run(s, (0, "QC"))
    assert facts(s)["scores"] == [0, 1, 5] and facts(s)["table"] == L("4S QC") and facts(s)["chain"] is None


def test_r27_leftovers_go_to_the_last_table_capturer_not_the_claimer():
    s = lay(3, 2, ["QS 2C 3D", "QH 5C 6S", "QD 7D JS"], "KD 4S", "")
    s, _ = run(s, (0, "pass"), (1, "pass"), (2, "pass"), (0, "QS"), (1, "QH"), (2, "QD"))
    assert facts(s)["last_capturer"] == 1
    s, events = run(s, (0, "2C"), (1, "5C"), (2, "7D"), (0, "3D"), (1, "6S"), (2, "JS"))
    left = [e for e in events if e["type"] == "leftovers"]
    assert left == [{"type": "leftovers", "side": 1, "cards": L("4S 2C 5C 7D 3D 6S JS")}]
    assert set(L("4S 2C 5C 7D 3D 6S JS")) <= set(facts(s)["piles"][1])


def test_r27_r28_leftovers_then_card_points_above_twenty_for_partners():
    hands = ["AS", "2S", "3S", "4S"]
    played = ["5H 6D", "7H JD", "QH KH", "5D 6H"]  # no seat holds a combination
    placed = set(L(" ".join(hands))) | {"KD"}
    others = [c for c in ALL_CODES if c not in placed and c not in L(" ".join(played))]
    side0 = L(" ".join(played)) + others[:14]
    side1 = others[14:]
    s = lay(
        4,
        3,
        hands,
        "KD",
        "",
        piles=[" ".join(side0), " ".join(side1)],
        phase="play",
        played=[L(p) for p in played],
        declarations=["none"] * 4,
        last_capturer=1,
        hand_number=3,
    )
    assert GAME.to_act(s) == 0
    s, events = run(s, (0, "AS"), (1, "2S"), (2, "3S"), (3, "4S"))
    js = facts(s)
    assert [len(p) for p in js["piles"]] == [22, 18]  # leftovers KD AS 2S 3S 4S to side 1
    assert js["scores"] == [2, 0] and js["phase"] == "deal_over"
    assert {"type": "points", "side": 0, "points": 2, "item": "cards (22)", "rule": "R28"} in events


def test_r29_caller_dealt_match_waits_for_the_next_dealers_deck():
    s = lay(2, 0, ["KD AH 5S", "KS AS JS"], "5C 6D 7H JH", "", hand_number=6)
    s, _ = run(s, (1, "pass"), (0, "pass"), (1, "KS"), (0, "KD"), (1, "AS"), (0, "AH"), (1, "JS"), (0, "5S"))
    assert GAME.phase(s) == "deal_over" and GAME.to_act(s) == 1 and GAME.legal_actions(s) == []
    with pytest.raises(IllegalAction, match="wrong phase: deal_over expects deal"):
        act(s, 1, {"type": "pass"})
    with pytest.raises(IllegalAction, match="not your turn: seat 1 is to act"):
        act(s, 0, {"type": "deal", "deck": ALL_CODES})
    with pytest.raises(IllegalAction) as err:
        act(s, 1, {"type": "deal", "deck": ALL_CODES[:39] + ["AS"]})
    assert err.value.rule == "R2"
    with pytest.raises(BadAction):
        GAME.parse_action(s, {"type": "deal", "deck": ALL_CODES[:39]})
    scores = facts(s)["scores"]
    s, events = act(s, 1, {"type": "deal", "deck": ALL_CODES})
    js = facts(s)
    assert js["deal_no"] == 2 and js["dealer"] == 1 and js["phase"] == "declare" and js["to_act"] == 0
    assert js["scores"] == scores and js["piles"] == [[], []] and len(js["stock"]) == 30
    assert js["hands"][0] == ALL_CODES[:3]
    assert js["history"][-1] == {"seat": 1, "action": {"type": "deal", "deck": ALL_CODES}}
    view = GAME.view(s, 0)
    assert view["history"] == [{"seat": 1, "action": {"type": "deal", "deck": 40}}]
    assert view["deal_start"] == js["deal_start"] == 0  # states hold the current deal only (issue 33)


def test_r29_engine_dealt_match_deals_on_by_itself():
    s = GAME.new_state(3, {}, 1, seed=11)
    s = play_randomly_until(s, lambda s: GAME.deal_no(s) == 2)
    js = facts(s)
    assert js["dealer"] == 2 and js["phase"] == "declare" and js["hand_number"] == 1
    assert isinstance(js["rng_state"], str) and sum(len(h) for h in js["hands"]) == 9


@pytest.mark.parametrize(
    ("scores", "winner"),
    [
        ([41, 30], 0),
        ([30, 41], 1),
        ([41, 41], None),
        ([40, 12], None),
        ([10, 50, 49], 1),
        ([50, 10, 50], None),
        ([3, 12, 45, 44], 2),
        ([45, 12, 45, 44], None),
    ],
)
def test_r32_the_winner_has_the_target_and_more_than_every_other_side(scores, winner):
    assert target_winner(scores, 41) == winner


def test_r32_a_shared_top_score_at_the_target_does_not_end_the_match():
    s = lay(2, 0, ["6D 6C KS", "6S 6H AC"], "2D QC", "3S 3H 4D 7C JH JD", scores=[40, 40])
    s, _ = run(
        s,
        (1, declare("ronda")),
        (0, declare("ronda")),
        (1, "pass"),
        (0, "pass"),
        (1, "6S"),
        (0, "KS"),
        (1, "6H"),
        (0, "6D"),
        (1, "AC"),
        (0, "6C"),
    )
    js = facts(s)
    assert js["scores"] == [41, 41] and js["phase"] == "declare" and js["winner"] is None


# ---------------------------------------------------------------- setup and errors


def test_setup_no_table_with_three_players_is_rejected():
    with pytest.raises(InvalidSetup, match="the no_table deal needs 2 or 4 players") as err:
        GAME.new_state(3, {"deal_style": "no_table"}, 0, seed=1)
    assert err.value.field == "options.deal_style"


@pytest.mark.parametrize(
    "options, field",
    [
        ({"target_score": 0}, "options.target_score"),
        ({"tringa_points": 4}, "options.tringa_points"),
        ({"challenges": "yes"}, "options.challenges"),
        ({"speed": 1}, "options.speed"),
    ],
)
def test_options_are_validated_naming_the_option(options, field):
    with pytest.raises(InvalidSetup) as err:
        GAME.new_state(2, options, 0, seed=1)
    assert err.value.field == field


def test_errors_unknown_combination_and_malformed_actions():
    s = lay(2, 0, ["AS 4D 6H", "KS KH 3C"], "JD 5C", "3S 3H 7D 6C QH QD")
    with pytest.raises(BadAction, match="combo: must be one of ronda, tringa, double_ronda"):
        GAME.parse_action(s, declare("quad"))
    for junk in [
        None,
        [],
        {"type": "fold"},
        {"type": "play"},
        {"type": "pass", "x": 1},
        {"type": "challenge", "target": 9},
    ]:
        with pytest.raises(BadAction, match="malformed action"):
            GAME.parse_action(s, junk)


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda js: js.update(phase="bidding"), "phase"),
        (lambda js: js["hands"][0].append(js["stock"].pop()), "dealt[0]"),
        (lambda js: js["stock"].append(js["hands"][0][0]), "stock"),
        (lambda js: js["piles"][0].pop(), "cards"),
        (lambda js: js.update(scores=[0]), "scores"),
        (lambda js: js["table"].append("TH"), "table[2]"),
        (lambda js: js.update(to_act=0), "to_act"),
    ],
)
def test_from_json_names_the_bad_field(change, field):
    s = lay(2, 0, ["AS 4D 6H", "KS KH 3C"], "JD 5C", "3S 3H 7D 6C QH QD")
    js = facts(s)
    change(js)
    with pytest.raises(InvalidState) as err:
        GAME.from_json(js)
    assert err.value.field == field


def test_r13_layout_in_the_challenge_round_takes_the_first_asked_seat():
    s = lay(
        2,
        0,
        ["AS 4D 6H", "KS KH 3C"],
        "JD 5C",
        "3S 3H 7D 6C QH QD",
        phase="challenge",
        declarations=["none", "ronda"],
    )
    assert GAME.to_act(s) == 0
    s, _ = run(s, (0, "pass"))
    assert facts(s)["scores"] == [0, 1] and GAME.phase(s) == "play"


def test_layout_options_must_agree_with_the_requests():
    layout = {
        "hands": [L("AS 4D 6H"), L("KS KH 3C")],
        "table": L("JD 5C"),
        "stock": L("3S 3H 7D 6C QH QD"),
        "options": {"target_score": 11},
    }
    placed = sum(layout["hands"], []) + layout["table"] + layout["stock"]
    layout["piles"] = [[c for c in ALL_CODES if c not in placed], []]
    assert GAME.to_json(GAME.new_state(2, None, 0, layout=layout))["options"]["target_score"] == 11
    with pytest.raises(InvalidSetup) as err:
        GAME.new_state(2, {"target_score": 21}, 0, layout=layout)
    assert err.value.field == "options.target_score"


def test_outcome_is_win_loss_at_match_end_and_a_shared_value_for_partners():
    start = lay(2, 1, ["QS 3D 7C", "QH AS 5D"], "2C JD", "3S 3H 4D 6C KH KD", scores=[40, 38])
    end, _ = run(start, (0, "pass"), (1, "pass"), (0, "3D"), (1, "QH"), (0, "QS"))
    assert GAME.outcome(start, end) == [1.0, 0.0]
    start = lay(
        4,
        3,
        ["4S AH 6C", "4H 2D 7S", "4D 3C JH", "4C 5D QS"],
        "",
        "AS 2S 3S 5S 6S JS KS AD 3D 5H 6H 7H",
        hand_number=2,
    )
    end, _ = run(start, (0, "pass"), (1, "pass"), (2, "pass"), (3, "pass"), (0, "4S"), (1, "4H"))
    value = GAME.outcome(start, end)
    assert value[1] == value[3] > 0.5 > value[0] == value[2] > 0.0
