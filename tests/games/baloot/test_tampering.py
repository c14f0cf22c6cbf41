"""Tampered or rounded Baloot states are refused, naming the field (issue 15, "bad input").

Each test takes a state the engine wrote, changes one field, and expects InvalidState
(answered as 422 invalid_state) instead of a silent wrong answer."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest

from engine import get_game
from engine.games.baloot.tables import CLASS_NAMES
from engine.protocol import InvalidSetup, InvalidState
from tests.games.baloot import test_examples as worked
from tests.games.loadback import option_id, option_sets, seeded_matches_load_back, worked_example_loads_back

GAME = get_game("baloot")
OPTIONS = {"hokm_bidder_may_switch_to_sun": True}


def state_where(
    wanted: Callable[[dict], bool], seed: int = 0, deck: bool = False, options: dict | None = None
) -> dict:
    """The JSON of the first state of a seeded random match (or of several) that ``wanted``
    accepts. ``deck``: a caller-dealt match (it waits in deal_over between deals)."""
    for attempt in range(200):
        rng = random.Random(seed * 1000 + attempt)
        if deck:
            cards = [c + s for s in "SHDC" for c in "789TJQKA"]
            rng.shuffle(cards)
            state = GAME.new_state(4, options or OPTIONS, 0, deck=cards)
        else:
            state = GAME.new_state(4, options or OPTIONS, 0, seed=seed * 1000 + attempt)
        for _ in range(300):
            data = GAME.to_json(state)
            if wanted(data):
                return data
            legal = GAME.legal_actions(state)
            if not legal:
                break
            state = GAME.apply(state, GAME.to_act(state), rng.choice(legal))[0]
    raise AssertionError("no such state in 200 random matches")


def in_phase(phase: str, calls: int = 0) -> Callable[[dict], bool]:
    def wanted(data: dict) -> bool:
        deal_calls = len(data["history"]) - data["deal_history_start"]
        return data["phase"] == phase and deal_calls >= calls

    return wanted


def refused(data: dict, field: str) -> InvalidState:
    with pytest.raises(InvalidState) as info:
        GAME.from_json(data)
    assert info.value.field == field, info.value.message
    return info.value


def other_seat(seat: int) -> int:
    return (seat + 1) & 3


# --------------------------------------------------------------------------- rng_state


def test_rng_state_is_a_decimal_string_that_survives_a_json_double():
    data = state_where(in_phase("play"))
    assert isinstance(data["rng_state"], str) and int(data["rng_state"]) < 2**63
    through_js = json.loads(json.dumps(data), parse_int=float, parse_float=float)
    assert through_js["rng_state"] == data["rng_state"]
    assert GAME.to_json(GAME.from_json(json.loads(json.dumps(data)))) == data


def test_rng_state_rounded_by_a_double_is_refused():
    data = state_where(in_phase("play"))
    exact = int(data["rng_state"])
    assert exact >= 2**53
    for value in (int(float(exact)), exact, "0" + data["rng_state"], "-5", 2**64):
        refused(dict(data, rng_state=value), "rng_state")


def test_seed_outside_the_generator_range_is_refused():
    with pytest.raises(InvalidSetup):
        GAME.new_state(4, {}, 0, seed=2**63)


# --------------------------------------------------------------------------- to_act


def test_tampered_to_act_in_bidding_is_refused():
    data = state_where(in_phase("bidding", calls=1))
    data["to_act"] = other_seat(data["to_act"])
    refused(data, "to_act")


def test_tampered_to_act_in_doubling_is_refused():
    data = state_where(in_phase("doubling"))
    contract = data["contract"]
    bidder_team = contract["bidder"] & 1
    data["to_act"] = contract["bidder"] if data["to_act"] & 1 != bidder_team else other_seat(data["to_act"])
    refused(data, "to_act")


def test_tampered_to_act_in_choose_trump_is_refused():
    state = GAME.new_state(4, {}, 0, seed=5)
    calls = [{"type": "pass"}] * 4 + [{"type": "bid", "bid": "hokm"}] + [{"type": "pass"}] * 3
    for call in calls:  # R4/R5: all pass, then a round-2 hokm by seat 1 that nobody overcalls
        state = GAME.apply(state, GAME.to_act(state), GAME.parse_action(state, call))[0]
    data = GAME.to_json(state)
    assert data["phase"] == "choose_trump" and data["to_act"] == 1
    data["to_act"] = other_seat(data["to_act"])
    refused(data, "to_act")


def test_tampered_to_act_in_deal_over_is_refused():
    data = state_where(in_phase("deal_over"), deck=True)
    data["to_act"] = other_seat(data["to_act"])
    refused(data, "to_act")


def test_tampered_to_act_does_not_answer_legal_moves_for_another_seat():
    data = state_where(in_phase("bidding", calls=2))
    for seat in range(4):
        if seat != data["to_act"]:
            refused(dict(data, to_act=seat), "to_act")


# --------------------------------------------------------------------------- unknown keys


@pytest.mark.parametrize(
    ("part", "field"),
    [
        (None, "bonus"),
        ("contract", "contract.bonus"),
        ("projects", "projects.bonus"),
        ("bidding", "bidding.bonus"),
    ],
)
def test_unknown_field_is_refused(part, field):
    data = state_where(in_phase("play"))
    (data if part is None else data[part])["bonus"] = 1
    refused(data, field)


# --------------------------------------------------------------------------- projects and bidding


def test_project_revealed_during_bidding_is_refused():
    data = state_where(in_phase("bidding"))
    data["projects"]["revealed"][1] = {"kind": "sequence", "top": "A"}
    refused(data, "projects")


def test_project_team_before_the_end_of_trick_1_is_refused():
    data = state_where(lambda d: d["phase"] == "play" and d["trick_no"] == 1)
    data["projects"]["team"] = 0
    refused(data, "projects")


def test_r21_project_team_that_is_not_the_comparisons_is_refused():
    data = state_where(lambda d: d["phase"] == "play" and d["trick_no"] >= 3)
    team = data["projects"]["team"]
    data["projects"]["team"] = 1 if team is None else (None if team == 1 else 1)
    if data["projects"]["team"] is not None:  # no shown set may contradict it first
        data["projects"]["shown"] = [None] * 4
    refused(data, "projects.team")


def test_r20_declaration_by_a_seat_yet_to_play_is_refused():
    def later_seat_with_project(data: dict) -> int | None:
        if data["phase"] != "play" or data["trick_no"] != 1 or data["table"]:
            return None
        psets = GAME.from_json(data).psets
        later = [(data["leader"] + k) & 3 for k in (1, 2, 3)]
        return next((s for s in later if psets[s][0]), None)

    data = state_where(lambda d: later_seat_with_project(d) is not None)
    seat = later_seat_with_project(data)
    assert seat is not None
    best_class = GAME.from_json(data).psets[seat][0][0][0][0]
    data["projects"]["declared"][seat] = CLASS_NAMES[best_class]  # his true best, too early
    refused(data, "projects.declared")


def test_hokm_bidder_in_the_main_stage_is_refused():
    data = state_where(lambda d: d["phase"] == "bidding" and d["bidding"]["stage"] == "main")
    data["bidding"]["hokm_bidder"] = 2
    refused(data, "bidding.hokm_bidder")


def test_doubling_step_that_does_not_follow_the_multiplier_is_refused():
    data = state_where(in_phase("doubling"))
    data["doubling_step"] = "gahwa" if data["doubling_step"] != "gahwa" else "double"
    with pytest.raises(InvalidState):
        GAME.from_json(data)


def test_round_1_hokm_with_another_trump_is_refused():
    data = state_where(
        lambda d: d["phase"] == "play" and d["bidding"]["round"] == 1 and d["contract"]["trump"]
    )
    data["contract"]["trump"] = next(s for s in "SHDC" if s != data["contract"]["trump"])
    with pytest.raises(InvalidState):
        GAME.from_json(data)


def test_tricks_won_that_the_tricks_do_not_give_is_refused():
    data = state_where(lambda d: d["phase"] == "play" and d["trick_no"] >= 3)
    won = data["tricks_won"]
    data["tricks_won"] = [won[0] + 1, won[1] - 1] if won[1] else [won[0] - 1, won[1] + 1]
    with pytest.raises(InvalidState):
        GAME.from_json(data)


# --------------------------------------------------------------------------- scores and target


def test_huge_score_is_refused():
    data = state_where(in_phase("bidding"))
    data["scores"] = [10**400, 0]
    refused(data, "scores")


def test_huge_target_score_is_refused():
    data = state_where(in_phase("bidding"))
    data["options"]["target_score"] = 10**400
    refused(data, "options.target_score")


def test_e2_score_above_the_target_without_a_winner_is_refused():
    data = state_where(in_phase("bidding"))
    data["scores"] = [160, 20]  # target 152: team 0 has won
    error = refused(data, "scores")
    assert "E2" in error.message


def test_e2_equal_scores_at_the_target_play_on():
    data = state_where(in_phase("bidding"))
    data["scores"] = [160, 160]
    assert GAME.to_json(GAME.from_json(data))["scores"] == [160, 160]


def test_e2_match_winner_must_be_the_higher_team():
    data = state_where(
        lambda d: d["phase"] == "match_over" and not (d["contract"] and d["contract"]["gahwa"]),
        options={"target_score": 30},
    )
    data["match_winner"] = 1 - data["match_winner"]
    refused(data, "match_winner")


@pytest.mark.parametrize("extra", [{"bonus": 1}, {"deal_no": 10**400}, {"totals": [10**400, 0]}])
def test_last_deal_with_unknown_fields_or_huge_numbers_is_refused(extra):
    data = state_where(lambda d: d["last_deal"] is not None and d["phase"] == "bidding")
    data["last_deal"].update(extra)
    refused(data, "last_deal" if "bonus" not in extra else "last_deal.bonus")


@pytest.mark.parametrize(
    ("phase", "path", "field"),
    [
        ("bidding", ("hands", 1, 0), "hands[1]"),
        ("bidding", ("stock", 0), "stock"),
        ("play", ("tricks", 0, "cards", 0), "tricks[0].cards"),
        ("bidding", ("scores", 1), "scores"),
    ],
    ids=lambda value: ".".join(map(str, value)) if isinstance(value, tuple) else value,
)
def test_a_value_refused_inside_a_list_names_the_list(phase, path, field):
    """The field of an error is the list (as it always was), not the entry in it."""
    data = state_where(lambda d: d["phase"] == phase and (phase != "play" or d["trick_no"] >= 2))
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = "1S"  # no such card; not a number either
    refused(data, field)


# --------------------------------------------------------------------------- written as the engine writes it


def test_a_hand_out_of_canonical_order_is_refused():
    data = state_where(in_phase("bidding"))
    hand = data["hands"][0]
    hand[0], hand[1] = hand[1], hand[0]  # the same cards: the loader used to re-sort them
    refused(data, "hands")


@pytest.mark.parametrize(
    "path",
    [
        ("baloot",),
        ("match_winner",),
        ("bidding",),
        ("projects", "shown"),
        ("contract", "trump"),
        ("options", "must_undertrump"),
    ],
    ids=".".join,
)
def test_a_missing_field_is_refused(path):
    data = state_where(in_phase("play"))
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    del parent[path[-1]]  # the loader used to fill in the default
    refused(data, path[0])


# --------------------------------------------------------------------------- R2: who opens the bidding


@pytest.mark.parametrize("seat", [0, 2, 3])
def test_r2_a_deal_without_calls_opens_at_the_dealers_left(seat):
    data = state_where(in_phase("bidding"))
    assert data["deal_history_start"] == len(data["history"]) and data["to_act"] == (data["dealer"] + 1) % 4
    data["to_act"] = seat  # the loader used to take any seat before the first call
    refused(data, "to_act")


def test_r2_a_bidding_layout_opens_after_the_calls_of_its_history():
    dealt = GAME.to_json(GAME.new_state(4, {}, 0, seed=3))
    layout = {key: dealt[key] for key in ("hands", "candidate", "stock")} | {"phase": "bidding", "dealer": 0}
    passes = [{"seat": seat, "action": {"type": "pass"}} for seat in (1, 2)]
    state = GAME.new_state(4, {}, 0, layout=layout | {"history": passes}, seed=1)
    assert GAME.to_act(state) == 3
    assert GAME.to_json(GAME.from_json(GAME.to_json(state))) == GAME.to_json(state)
    with pytest.raises(InvalidState) as info:
        GAME.new_state(4, {}, 0, layout=layout | {"to_act": 3}, seed=1)
    assert info.value.field == "to_act" and "history" in info.value.message


def test_r11_the_first_defender_is_not_asked_twice():
    # A Sun bid fixes the contract, the first defender passes, the second is asked. Back to
    # the first was accepted: a pass closing a Sun window can be the first defender's.
    def second_defender_asked(data: dict) -> bool:
        deal = data["history"][data["deal_history_start"] :]
        return (
            data["phase"] == "doubling"
            and len(deal) >= 2
            and deal[-2]["action"]["type"] == "bid"
            and deal[-1]["action"] == {"type": "pass"}
        )

    data = state_where(second_defender_asked)
    data["to_act"] = data["history"][-1]["seat"]
    refused(data, "to_act")


def test_r13_a_play_by_another_seat_is_refused():
    data = state_where(lambda d: d["phase"] == "play" and d["history"][-1]["action"]["type"] == "play")
    data["history"][-1]["seat"] = other_seat(data["history"][-1]["seat"])
    refused(data, "history")


# --------------------------------------------------------------------------- no reachable state refused


@pytest.mark.parametrize("options", option_sets(GAME), ids=option_id)
@pytest.mark.slow
def test_every_state_and_view_of_seeded_matches_loads_back(options):
    """The checks must not refuse a state the engine reaches (seeded matches, every option)."""
    seeded_matches_load_back(GAME, options)


@pytest.mark.parametrize("example", worked.EXAMPLES, ids=worked.EXAMPLES)
def test_every_state_the_worked_examples_reach_loads_back(example, monkeypatch):
    """The checks must not refuse a state the engine reaches: every state the worked
    examples build (from decks and layouts, and every action after) loads back."""
    worked_example_loads_back(GAME, lambda: worked.test_worked_example(example), monkeypatch)


@pytest.mark.parametrize("phase", ["bidding", "play"])
def test_a_state_whose_project_decision_is_null_is_refused(phase: str) -> None:
    """``projects.declare_done`` is null only in another seat's view (R20); in a state it
    is refused as invalid, naming the field (the compiled state class raised a TypeError,
    a 500, before the check: found by the junk-state property test, seed 1967)."""
    data = state_where(lambda d: d["phase"] == phase)
    data["projects"]["declare_done"] = None
    with pytest.raises(InvalidState) as refused:
        GAME.from_json(data)
    assert refused.value.field == "projects.declare_done"
