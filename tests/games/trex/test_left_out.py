"""What a Trex layout leaves out, worked out by ``layout.fill_left_out``: the
phase from the contract, the first owner from the 7H (R3), the doubling turn, and the
cards out of sight as the leader's earlier tricks."""

from __future__ import annotations

from trex_helpers import GAME, layout

SUITS_BY_SEAT = [[rank + suit for rank in "23456789TJQKA"] for suit in "SHDC"]  # seat 1 holds 7H


def written(**fields) -> dict:
    return GAME.codec.dump(layout(**fields))


def test_a_layout_without_a_contract_waits_for_the_7h_holder_to_choose():
    doc = written(hands=SUITS_BY_SEAT)
    assert (doc["phase"], doc["first_owner"], doc["to_act"], doc["dealer"]) == ("choose_contract", 1, 1, 0)
    assert doc["contracts_used"] == []


def test_a_layout_with_a_contract_starts_in_that_contract_s_first_phase():
    assert written(hands=SUITS_BY_SEAT, contract="trex")["phase"] == "layout"
    doubling = written(hands=SUITS_BY_SEAT, contract="king_of_hearts")
    assert (doubling["phase"], doubling["doubling_turn"], doubling["contracts_used"]) == (
        "doubling",
        0,
        ["king_of_hearts"],
    )
    assert written(hands=SUITS_BY_SEAT, contract="queens", doubling_turn=4)["phase"] == "tricks"


def test_the_cards_out_of_sight_went_in_the_leader_s_earlier_tricks():
    nine_each = [hand[4:] for hand in SUITS_BY_SEAT]  # the four lowest of each suit are gone
    doc = written(hands=nine_each, contract="diamonds", trick_leader=2, deal_scores=[0, 0, -40, 0])
    assert (doc["phase"], doc["tricks_played"], doc["tricks_won"]) == ("tricks", 4, [0, 0, 4, 0])
    assert doc["cards_won"][2] == [c for hand in SUITS_BY_SEAT for c in hand[:4]]
    assert doc["to_act"] == 2
