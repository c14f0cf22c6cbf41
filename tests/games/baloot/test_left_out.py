"""What a Baloot layout leaves out takes the value the rules imply (engine/games/baloot:
``layout.fill_left_out``, ``layout.layout_deals_left_out_cards``, ``layout.natural_*``,
``rules.set_trick_so_far``), and every card is in one place (``checks.check_cards``)."""

from __future__ import annotations

import pytest

from engine import get_game
from engine.codec import STATE
from engine.games.baloot import layout, rules
from engine.games.baloot.options import compact
from engine.games.baloot.state import State, blank
from engine.games.baloot.tables import (
    BIDDING,
    CHOOSE_TRUMP,
    DEAL_OVER,
    DOUBLING,
    FOUR_STEP,
    HOKM,
    PLAY,
    SLOT,
    SUN,
)
from engine.protocol import InvalidState

GAME = get_game("baloot")


def blank_in(phase: int, hands: list[int] | None = None) -> State:
    st = blank(compact(GAME.parse_options({}, 4)), 0, [0, 0], None)
    st.phase = phase
    st.hands = hands or [0, 0, 0, 0]
    return st


def mask(*codes: str) -> int:
    return sum(1 << SLOT[code] for code in codes)


@pytest.mark.parametrize(
    ("phase", "hands", "stock_given", "dealt"),
    [
        (BIDDING, None, False, True),
        (CHOOSE_TRUMP, None, False, True),
        (DOUBLING, None, False, False),
        (PLAY, None, False, False),
        (DEAL_OVER, [mask("AS"), 0, 0, 0], False, True),
        (DEAL_OVER, [mask("AS"), 0, 0, 0], True, False),
        (DEAL_OVER, None, False, False),
    ],
)
def test_r1_a_layouts_left_out_cards_are_dealt_while_the_calls_go_on(phase, hands, stock_given, dealt):
    assert layout.layout_deals_left_out_cards(blank_in(phase, hands), stock_given) is dealt


def test_r1_a_bidding_layout_puts_its_left_out_cards_in_the_stock_and_a_play_layout_plays_them():
    hands = {"0": ["AS", "KS", "QS", "JS", "TS"], "1": ["AH", "KH", "QH", "JH", "TH"]}
    hands |= {"2": ["AD", "KD", "QD", "JD", "TD"], "3": ["AC", "KC", "QC", "JC", "TC"]}
    bidding = GAME.to_json(GAME.new_state(4, {}, 0, layout={"hands": hands, "candidate": "9S"}))
    assert len(bidding["stock"]) == 11 and bidding["played_by"] == {}
    play = {"hands": hands, "phase": "play", "contract": {"kind": "sun", "bidder": 1}}
    play |= {"trick_no": 4, "leader": 0, "tricks_won": [2, 1], "card_points": [30, 10]}
    played = GAME.to_json(GAME.new_state(4, {}, 0, layout=play))
    assert played["stock"] == [] and len(played["played_by"]) == 12
    assert set(played["played_by"].values()) == {None}


def test_r4_trump_is_chosen_in_round_two():
    assert layout.natural_round(blank_in(CHOOSE_TRUMP)) == 2
    assert layout.natural_round(blank_in(BIDDING)) == 1


def test_r6_the_candidate_is_taken_once_the_hands_are_dealt_out():
    assert layout.natural_candidate_taken(blank_in(DOUBLING))
    assert layout.natural_candidate_taken(blank_in(PLAY))
    assert layout.natural_candidate_taken(blank_in(DEAL_OVER))
    assert not layout.natural_candidate_taken(blank_in(DEAL_OVER, [mask("AS"), 0, 0, 0]))
    assert not layout.natural_candidate_taken(blank_in(BIDDING))


def values_leaving_out(*left_out: str) -> dict:
    """Decoded values giving every value ``fill_left_out`` may work out but ``left_out``
    (JSON names: ``to_act``, ``contract.taker``); it looks only at which are given."""
    values: dict = {"contract": {"taker": 0, "last_raiser_team": 0}, "bidding": {"round": 1}}
    values |= {"candidate_taken": False, "doubling_step": 0, "to_act": 0, "stock": []}
    for name in left_out:
        part, _, key = name.partition(".")
        if key:
            del values[part][key]
        else:
            del values[part]
    return values


def test_r13_the_trick_so_far_is_won_by_the_highest_trump():
    st = blank_in(PLAY)
    st.kind, st.trump, st.leader = HOKM, SLOT["7H"] >> 3, 1
    st.table = [SLOT["AS"], SLOT["7H"], SLOT["TS"]]
    rules.set_trick_so_far(st)
    assert (st.led, st.win_seat) == (SLOT["AS"] >> 3, 2)
    assert st.win_str > 16 and st.top_trump > 0


def test_r7_r11_a_left_out_taker_and_raiser_follow_the_contract_given():
    st = blank_in(DOUBLING)
    st.kind, st.ashkal, st.bidder, st.mult = SUN, True, 1, 2
    layout.fill_left_out(st, values_leaving_out("contract.taker", "contract.last_raiser_team"), STATE)
    assert (st.taker, st.raiser) == (3, 0)  # the bidder's partner; the defenders doubled


def test_r11_a_left_out_doubling_step_and_seat_to_act_follow_the_multiplier():
    st = blank_in(DOUBLING)
    st.kind, st.trump, st.bidder, st.mult = HOKM, 0, 1, 3
    layout.fill_left_out(st, values_leaving_out("doubling_step", "to_act"), STATE)
    assert (st.dstep, st.to_act) == (FOUR_STEP, 2)  # tripled: the first defender (dealer 0) may four


def test_values_a_document_gives_are_never_settled():
    st = blank_in(CHOOSE_TRUMP)
    st.kind, st.bidder, st.taker, st.round, st.to_act = HOKM, 2, 2, 1, 3
    layout.fill_left_out(st, values_leaving_out(), STATE)
    assert (st.taker, st.round, st.to_act) == (2, 1, 3)


def test_r1_a_layouts_stock_is_never_added_to():
    hands = {"0": ["AS", "KS", "QS", "JS", "TS"], "1": ["AH", "KH", "QH", "JH", "TH"]}
    hands |= {"2": ["AD", "KD", "QD", "JD", "TD"], "3": ["AC", "KC", "QC", "JC", "TC"]}
    layout = {"hands": hands, "candidate": "9S", "stock": ["8S", "7S", "9H", "8H", "7H"]}
    with pytest.raises(InvalidState) as refused:
        GAME.new_state(4, {}, 0, layout=layout)
    assert refused.value.field == "stock"
    assert refused.value.message == "stock: card 9D is nowhere"


def test_r1_a_card_twice_is_named_where_it_is_read_the_second_time():
    st = GAME.new_state(4, {}, 0, seed=7)
    doc = GAME.to_json(st)
    doc["stock"][0] = doc["candidate"]
    with pytest.raises(InvalidState) as refused:
        GAME.from_json(doc)
    assert refused.value.field == "stock"
    assert "(candidate and stock)" in refused.value.message
