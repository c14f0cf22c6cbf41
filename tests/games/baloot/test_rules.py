"""Rule tests for Baloot, named after the rules of docs/rules/baloot.md."""

from __future__ import annotations

import itertools

import pytest

from engine import get_game
from engine.games.baloot.projects import baloot_scores, compare_declared, project_set
from engine.games.baloot.rules import trick_state
from engine.games.baloot.scoring import rounded, tie_winner
from engine.games.baloot.tables import HOKM, SLOT, SUN
from engine.protocol import IllegalAction, InvalidSetup, InvalidState

GAME = get_game("baloot")
D1 = [
    "AS",
    "KS",
    "9H",
    "7C",
    "8C",
    "TD",
    "AH",
    "TH",
    "KD",
    "QS",
    "JS",
    "8D",
    "JH",
    "7D",
    "9C",
    "QC",
    "AD",
    "TC",
    "7S",
    "8S",
    "QH",
    "KH",
    "AC",
    "TS",
    "9S",
    "JD",
    "QD",
    "9D",
    "KC",
    "JC",
    "8H",
    "7H",
]


def deal(dealer=0, options=None, deck=D1):
    return GAME.new_state(4, options, dealer, deck=list(deck))


def act(state, seat, action):
    nxt, _ = GAME.apply(state, seat, GAME.parse_action(state, action))
    return nxt


def calls(state, script):
    """Apply 'seat:call' items, e.g. '1:hokm 2:pass'."""
    for item in script.split():
        seat, call = item.split(":")
        if call in ("hokm", "sun", "ashkal"):
            state = act(state, int(seat), {"type": "bid", "bid": call})
        else:
            state = act(state, int(seat), {"type": call})
    return state


def legal_json(state):
    return [GAME.action_to_json(state, a) for a in GAME.legal_actions(state)]


def rejected(state, seat, action):
    with pytest.raises(IllegalAction) as err:
        act(state, seat, action)
    return err.value


def mask(codes):
    m = 0
    for c in codes.split():
        m |= 1 << SLOT[c]
    return m


# --------------------------------------------------------------------------- dealing


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_r1_deal_packets_candidate_and_stock(dealer):
    state = GAME.to_json(deal(dealer))
    first = [(dealer + k) % 4 for k in (1, 2, 3, 0)]
    for k, seat in enumerate(first):
        want = D1[3 * k : 3 * k + 3] + D1[12 + 2 * k : 14 + 2 * k]
        assert sorted(state["hands"][seat]) == sorted(want)
    assert state["candidate"] == D1[20]
    assert state["stock"] == D1[21:]
    assert state["to_act"] == (dealer + 1) % 4 and state["phase"] == "bidding"


def test_r1_deck_must_hold_every_card_once():
    with pytest.raises(InvalidSetup, match="appears twice"):
        deal(deck=D1[:-1] + ["AS"])
    with pytest.raises(InvalidSetup, match="no such card"):
        deal(deck=D1[:-1] + ["2S"])


# --------------------------------------------------------------------------- bidding


def test_r2_ashkal_forbidden_on_ace_option():
    deck = D1[:20] + ["AC"] + [c if c != "AC" else "QH" for c in D1[21:]]
    state = calls(deal(options={"ashkal_forbidden_on_ace": True}, deck=deck), "1:pass 2:pass")
    assert {"type": "bid", "bid": "ashkal"} not in legal_json(state)
    assert rejected(state, 3, {"type": "bid", "bid": "ashkal"}).reason == "ashkal is not allowed on an ace"
    plain = calls(deal(deck=deck), "1:pass 2:pass")
    assert {"type": "bid", "bid": "ashkal"} in legal_json(plain)


def test_r3_sun_window_all_pass_hokm_stands_with_candidate_suit():
    state = calls(deal(), "2:pass".replace("2", "1") + " 2:hokm 3:pass 0:pass 1:pass")
    doc = GAME.to_json(state)
    assert doc["contract"]["kind"] == "hokm" and doc["contract"]["trump"] == "H"
    assert doc["contract"]["bidder"] == 2 and doc["phase"] == "doubling"


def test_r3_window_includes_bidders_partner_and_earlier_passers():
    state = calls(deal(), "1:pass 2:hokm 3:pass 0:pass")
    assert GAME.to_act(state) == 1  # seat 1 passed before, is asked again
    state = calls(state, "1:sun")
    assert GAME.to_json(state)["contract"]["bidder"] == 1


def test_r5_round_two_hokm_by_dealer_has_no_window():
    state = calls(deal(), "1:pass 2:pass 3:pass 0:pass 1:pass 2:pass 3:pass 0:hokm")
    assert GAME.phase(state) == "choose_trump" and GAME.to_act(state) == 0


def test_r4_no_ashkal_in_round_two():
    state = calls(deal(), "1:pass 2:pass 3:pass 0:pass 1:pass 2:pass")
    assert (
        rejected(state, 3, {"type": "bid", "bid": "ashkal"}).reason
        == "ashkal is only for the third or fourth bidder in round 1"
    )


def test_r6_hokm_bidder_may_switch_to_sun():
    opts = {"hokm_bidder_may_switch_to_sun": True}
    state = calls(deal(options=opts), "1:hokm 2:pass 3:pass 0:pass")
    assert GAME.to_act(state) == 1 and GAME.to_json(state)["bidding"]["stage"] == "switch"
    assert legal_json(state) == [{"type": "pass"}, {"type": "bid", "bid": "sun"}]
    sun = calls(state, "1:sun")
    assert GAME.to_json(sun)["contract"]["kind"] == "sun" and GAME.to_json(sun)["contract"]["bidder"] == 1
    hokm = calls(state, "1:pass")
    assert GAME.to_json(hokm)["contract"]["kind"] == "hokm"
    # without the option the window's close fixes the hokm at once
    assert GAME.phase(calls(deal(), "1:hokm 2:pass 3:pass 0:pass")) == "doubling"


def test_r7_ashkal_gives_candidate_to_partner():
    state = calls(deal(), "1:pass 2:pass 3:pass 0:ashkal")
    c = GAME.to_json(state)["contract"]
    assert (c["kind"], c["ashkal"], c["bidder"], c["taker"], c["declarer_team"]) == (
        "sun",
        True,
        0,
        2,
        0,
    )
    assert "QH" in GAME.to_json(state)["hands"][2]


def test_r9_every_hand_has_eight_cards_and_stock_is_empty():
    doc = GAME.to_json(calls(deal(), "1:sun"))
    assert [len(h) for h in doc["hands"]] == [8, 8, 8, 8] and doc["stock"] == []
    assert "QH" in doc["hands"][1]


def test_r10_kawesh_not_in_sun_window():
    low = ["9S", "8S", "7S", "8H", "7H"]
    rest = iter(c for c in D1 if c not in low)
    deck = [low[[0, 1, 2, 12, 13].index(i)] if i in (0, 1, 2, 12, 13) else next(rest) for i in range(32)]
    state = calls(deal(options={"kawesh": True}, deck=deck), "1:pass 2:hokm")
    assert GAME.to_json(state)["hands"][1] == ["9S", "8S", "7S", "8H", "7H"]
    assert rejected(state, 3, {"type": "kawesh"}).reason == "only sun or pass is allowed now"


# --------------------------------------------------------------------------- doubling


def hokm_by_1():
    return calls(deal(), "1:hokm 2:pass 3:pass 0:pass")


def test_r11_only_the_bidder_triples():
    state = act(hokm_by_1(), 2, {"type": "double", "locked": False})
    assert GAME.to_act(state) == 1
    assert rejected(state, 3, {"type": "triple"}).reason == "not your turn: seat 1 is to act"


def test_r11_double_must_say_locked_or_open():
    err = rejected(hokm_by_1(), 2, {"type": "double"})
    assert err.reason == "say locked or open" and err.rule == "R11"


def test_r11_four_always_open_without_lock_choice():
    state = deal(options={"four_lock_choice": False})
    state = calls(state, "1:hokm 2:pass 3:pass 0:pass")
    state = act(state, 2, {"type": "double", "locked": True})
    state = act(state, 1, {"type": "triple"})
    assert legal_json(state) == [{"type": "pass"}, {"type": "four"}]
    assert rejected(state, 2, {"type": "four", "locked": True}).reason == "four is always open in this match"
    state = act(state, 2, {"type": "four"})
    assert GAME.to_json(state)["contract"]["locked"] is False
    assert GAME.to_json(state)["contract"]["multiplier"] == 4


def test_r12_sun_double_refused_after_doubling_was_skipped():
    state = calls(deal(), "1:sun")
    assert GAME.phase(state) == "play"
    err = rejected(state, 1, {"type": "double"})
    assert err.reason == "sun can be doubled only when one team is over 100 and the other under 100"


# --------------------------------------------------------------------------- play


def test_r13_trick_winner_highest_trump_else_highest_of_led_suit():
    slots = [SLOT[c] for c in ["KS", "AH", "7S", "TS"]]
    assert trick_state(HOKM, 1, slots)[0] == 1  # AH is the only trump
    assert trick_state(SUN, -1, slots)[0] == 3  # TS beats KS in the plain order; AH is off-suit
    assert trick_state(HOKM, 0, [SLOT[c] for c in ["9S", "JS", "AH", "TS"]])[0] == 1


def test_r13_every_trick_leader_is_the_previous_winner():
    state = GAME.new_state(4, {}, 0, seed=5)
    import random

    rng = random.Random(5)
    while GAME.deal_no(state) == 1 and GAME.to_act(state) is not None:
        doc = GAME.to_json(state)
        tricks = doc["tricks"]
        for a, b in itertools.pairwise(tricks):
            assert b["leader"] == a["winner"]
        GAME.step(state, rng.choice(GAME.legal_actions(state)))


def play_layout(hands, **more):
    layout = {
        "phase": "play",
        "dealer": 0,
        "trick_no": 6,
        "leader": 1,
        "contract": {"kind": "hokm", "trump": "H", "bidder": 1},
        "hands": hands,
    }
    layout.update(more)
    return GAME.new_state(4, None, 0, layout=layout)


def test_r14_ekka_rejected_on_trump_non_lead_and_in_sun():
    hands = {
        "1": ["KS", "9H", "7D"],
        "2": ["QC", "8D", "7C"],
        "3": ["QH", "TD", "8C"],
        "0": ["JH", "AH", "AC"],
    }
    state = play_layout(hands)
    why = "ekka only when leading a non-trump card in hokm"
    assert rejected(state, 1, {"type": "play", "card": "9H", "ekka": True}).reason == why
    nxt = act(state, 1, {"type": "play", "card": "KS", "ekka": True})
    assert rejected(nxt, 2, {"type": "play", "card": "7C", "ekka": True}).reason == why
    sun = play_layout(hands, contract={"kind": "sun", "bidder": 1})
    assert rejected(sun, 1, {"type": "play", "card": "KS", "ekka": True}).reason == why


def test_r14_ekka_field_on_a_led_ace_is_accepted_and_changes_nothing():
    hands = {
        "1": ["AS", "9C", "7D"],
        "2": ["KC", "8D", "7C"],
        "3": ["QH", "TD", "8C"],
        "0": ["JH", "9H", "QC"],
    }
    state = play_layout(hands)
    a = act(state, 1, {"type": "play", "card": "AS", "ekka": True})
    b = act(state, 1, {"type": "play", "card": "AS"})
    assert GAME.to_json(a) == GAME.to_json(b)


def test_r15_sun_follow_suit_reason():
    hands = {"1": ["8S", "KD"], "2": ["AS", "7D"], "3": ["AD", "7C"], "0": ["QH", "JC"]}
    state = play_layout(hands, trick_no=7, contract={"kind": "sun", "bidder": 3})
    state = act(state, 1, {"type": "play", "card": "KD"})
    err = rejected(state, 2, {"type": "play", "card": "AS"})
    assert (err.reason, err.rule) == ("must follow suit: you hold diamonds", "R15")


def test_r17_card_not_in_hand():
    hands = {"1": ["8S", "KD"], "2": ["AS", "7D"], "3": ["AD", "7C"], "0": ["QH", "JC"]}
    state = play_layout(hands, trick_no=7)
    assert rejected(state, 1, {"type": "play", "card": "AS"}).reason == "card not in hand: AS"


# --------------------------------------------------------------------------- projects


def test_r18_run_longer_than_five_splits_into_pieces():
    groups, value = project_set(mask("AS KS QS JS TS 9S 8S 7S"), HOKM)
    assert value == 12  # hundred A-T + sira 9-8-7, not two fifties (10)
    assert [g[0][:3] for g in groups] == [(3, 0, 7), (1, 0, 2)]
    assert project_set(mask("AS KS QS JS TS 9S 8S 7S"), SUN)[1] == 24


def test_r18_four_nines_eights_sevens_are_nothing():
    assert project_set(mask("9S 9H 9D 9C 8S 8H 8D 8C"), HOKM) == ((), 0)
    assert project_set(mask("AS AH AD AC 8S 8H 8D 7C"), HOKM)[1] == 10  # four aces: hundred in hokm


def test_r19_card_in_at_most_one_group():
    groups, value = project_set(mask("KS KH KD KC QS JS 7D 8C"), SUN)
    # four kings (hundred, 20) beats K-Q-J of spades (sira, 4); they share KS
    assert value == 20 and len(groups) == 1


def test_r21_exact_tie_goes_to_earlier_seat_or_trump_sequence():
    best = {2: (1, 0, 5, 3), 3: (1, 0, 5, 2)}  # two Q-high siras: spades (seat 2), hearts (seat 3)
    order = [1, 2, 3, 0]
    assert compare_declared(best, order, HOKM, 1, False) == (2, [2, 3])
    assert compare_declared(best, order, HOKM, 1, True)[0] == 3  # hearts are trumps
    assert compare_declared({2: (2, 0, 5, 3), 3: (1, 0, 7, 2)}, order, HOKM, 1, False) == (2, [])


def test_r21_four_of_a_kind_beats_sequence_among_hundreds():
    best = {1: (3, 0, 7, 3), 2: (3, 1, 3, 4)}  # A-high five run vs four tens
    assert compare_declared(best, [1, 2, 3, 0], SUN, -1, False) == (2, [1, 2])


def test_r20_project_pass_is_private():
    state = calls(deal(), "1:hokm 2:pass 3:sun")  # E1: seat 2 has two siras
    state = act(state, 1, {"type": "play", "card": "AS"})
    state = act(state, 2, {"type": "pass"})
    for seat in (0, 1, 3):
        view = GAME.view(state, seat)
        assert view["history"][-1]["action"] == {"type": "play", "card": "AS"}
        assert view["projects"]["declare_done"] is None
    own = GAME.view(state, 2)
    assert own["history"][-1]["action"] == {"type": "pass"} and own["projects"]["declare_done"] is True
    assert GAME.info_key(state, 0) == GAME.info_key(
        act(calls(deal(), "1:hokm 2:pass 3:sun"), 1, {"type": "play", "card": "AS"}), 0
    )
    err = rejected(state, 2, {"type": "declare"})
    assert err.reason == "no project to declare"


def test_r23_baloot_options():
    kq = (1 << SLOT["KH"]) | (1 << SLOT["QH"])
    pset = project_set(mask("KH QH JH TH 9H 9C 8C 7C"), HOKM)
    assert not baloot_scores(pset, kq, True, "not_in_hundred")
    assert baloot_scores(pset, kq, True, "always")
    sira = project_set(mask("KH QH JH 9C 7C 8S AD TD"), HOKM)
    assert baloot_scores(sira, kq, True, "not_in_hundred")
    assert not baloot_scores(sira, kq, True, "not_in_any")
    assert baloot_scores(sira, kq, False, "not_in_any")  # an unscored set never blocks it


# --------------------------------------------------------------------------- scoring and match


def test_s2_rounding():
    assert [rounded(HOKM, c) for c in (65, 66, 70, 96, 105)] == [6, 7, 7, 10, 10]
    assert [rounded(SUN, c) for c in (64, 65, 66, 72, 58)] == [12, 13, 14, 14, 12]


def test_s5_tie_rules():
    assert tie_winner(HOKM, 1, 0, 76) == 1 and tie_winner(HOKM, 1, 0, 85) == 0
    assert tie_winner(HOKM, 1, 0, 81) == 1 and tie_winner(SUN, 1, 0, 65) == 1
    assert tie_winner(SUN, 1, 0, 62) == 0 and tie_winner(SUN, 1, 0, 67) == 1


def test_e2_target_option_ends_the_match():
    import random

    state = GAME.new_state(4, {"target_score": 30}, 0, seed=11)
    rng = random.Random(1)
    while GAME.to_act(state) is not None:
        GAME.step(state, rng.choice(GAME.legal_actions(state)))
    report = GAME.score(state)
    assert report.finished and report.winner in (0, 1)
    assert max(report.scores) >= 30 or GAME.to_json(state)["contract"]["gahwa"]


def test_errors_action_of_another_phase_and_after_the_deal():
    state = deal()
    assert rejected(state, 1, {"type": "play", "card": "AS"}).reason == "not allowed in phase bidding"
    over = calls(deal(), "1:pass 2:pass 3:pass 0:pass 1:pass 2:pass 3:pass 0:pass")
    assert rejected(over, 1, {"type": "pass"}).reason == "the deal is over"
    assert GAME.legal_actions(over) == []


def test_layout_rejects_inconsistent_states():
    with pytest.raises(InvalidState, match="appears twice"):
        play_layout(
            {
                "1": ["AS", "KS", "QS"],
                "2": ["AS", "7D", "8D"],
                "3": ["AD", "7C", "8C"],
                "0": ["QH", "JC", "9C"],
            }
        )
    with pytest.raises(InvalidState, match="hands must hold"):
        play_layout(
            {
                "1": ["AS", "KS"],
                "2": ["7D", "8D", "9D"],
                "3": ["AD", "7C", "8C"],
                "0": ["QH", "JC", "9C"],
            }
        )
    with pytest.raises(InvalidState, match="phase"):
        GAME.from_json({**GAME.to_json(deal()), "phase": "dancing"})
