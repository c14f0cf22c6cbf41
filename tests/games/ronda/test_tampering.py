"""Tampered or rounded Ronda states are refused, naming the field (issue 15, "bad input").

Each test takes a state the engine wrote, changes one field, and expects InvalidState
(answered as 422 invalid_state) instead of a silent wrong answer."""

from __future__ import annotations

import copy
import json
import random

import pytest
from ronda_helpers import GAME

from engine.protocol import InvalidSetup, InvalidState
from tests.games.loadback import option_id, option_sets, seeded_matches_load_back, worked_example_loads_back
from tests.games.ronda import test_examples as worked


def playing_state(seed: int = 3, players: int = 2, phase: str = "play") -> dict:
    """The JSON of the first state in phase ``phase`` along a seeded random match."""
    rng = random.Random(seed)
    state = GAME.new_state(players, {}, 0, seed=seed)
    while GAME.phase(state) != phase:
        state = GAME.apply(state, GAME.to_act(state), rng.choice(GAME.legal_actions(state)))[0]
    return GAME.to_json(state)


def refused(data: dict, field: str) -> InvalidState:
    with pytest.raises(InvalidState) as info:
        GAME.from_json(data)
    assert info.value.field == field, info.value.message
    return info.value


def next_deals(state, count: int, seed: int = 1) -> list[list[str]]:
    """The first hands of the next ``count`` deals, playing on at random."""
    rng = random.Random(seed)
    hands = []
    deal_no = GAME.deal_no(state)
    while len(hands) < count and GAME.to_act(state) is not None:
        state = GAME.apply(state, GAME.to_act(state), rng.choice(GAME.legal_actions(state)))[0]
        if GAME.deal_no(state) != deal_no:
            deal_no = GAME.deal_no(state)
            hands.append(GAME.to_json(state)["hands"])
    return hands


# --------------------------------------------------------------------------- rng_state


def test_rng_state_is_a_decimal_string_that_survives_a_json_double():
    data = playing_state()
    assert isinstance(data["rng_state"], str) and int(data["rng_state"]) < 2**63
    through_js = json.loads(json.dumps(data), parse_int=float, parse_float=float)
    assert through_js["rng_state"] == data["rng_state"]
    original = GAME.from_json(data)
    again = GAME.from_json(json.loads(json.dumps(data)))
    assert GAME.to_json(again) == data
    assert next_deals(again, 2) == next_deals(original, 2)


def test_rng_state_rounded_by_a_double_is_refused():
    data = playing_state()
    exact = int(data["rng_state"])
    assert exact >= 2**53  # true of nearly every state: the case JSON.parse rounds
    for value in (int(float(exact)), exact):
        error = refused(dict(data, rng_state=value), "rng_state")
        assert "string" in error.message


@pytest.mark.parametrize("value", ["-1", "007", "1e5", "", " 12", str(2**63), 2**53, -1, 1.5, True, [1]])
def test_malformed_rng_state_is_refused(value):
    refused(dict(playing_state(), rng_state=value), "rng_state")


def test_small_integer_rng_state_is_still_read():
    data = dict(playing_state(), rng_state=12345)
    assert GAME.to_json(GAME.from_json(data))["rng_state"] == "12345"


# --------------------------------------------------------------------------- bounds


def test_huge_score_is_refused():
    data = playing_state()
    data["scores"] = [10**400, 0]
    refused(data, "scores[0]")


def test_huge_target_score_is_refused():
    data = playing_state()
    data["options"] = dict(data["options"], target_score=10**400)
    refused(data, "options.target_score")
    with pytest.raises(InvalidSetup):
        GAME.new_state(2, {"target_score": 10**400}, 0, seed=1)


def test_target_score_keeps_a_long_match_possible():
    state = GAME.new_state(2, {"target_score": 10_000}, 0, seed=1)
    assert GAME.from_json(GAME.to_json(state)) is not None


def test_r32_score_above_the_target_without_a_winner_is_refused():
    data = playing_state()
    data["scores"] = [50, 3]  # target 41: side 0 has won
    error = refused(data, "scores")
    assert "R32" in error.message


def test_r32_tie_at_the_target_plays_on():
    data = playing_state()
    data["scores"] = [45, 45]  # R32: nobody wins while the highest score is shared
    assert GAME.to_json(GAME.from_json(data))["scores"] == [45, 45]


def test_r32_match_over_needs_the_winner_the_scores_give():
    rng = random.Random(8)
    state = GAME.new_state(2, {"target_score": 5, "challenges": False}, 0, seed=8)  # won on points
    while GAME.to_act(state) is not None:
        state = GAME.apply(state, GAME.to_act(state), rng.choice(GAME.legal_actions(state)))[0]
    data = GAME.to_json(state)
    assert data["phase"] == "match_over"
    winner = data["winner"]
    refused(dict(data, winner=1 - winner), "winner")
    refused(dict(data, scores=[0, 0]), "winner")


# --------------------------------------------------------------------------- turn and fields


def test_tampered_to_act_is_refused():
    data = playing_state()
    data["to_act"] = 1 - data["to_act"]
    refused(data, "to_act")


def test_unknown_field_is_refused():
    data = copy.deepcopy(playing_state())
    data["bonus"] = 1
    refused(data, "bonus")


# --------------------------------------------------------------------------- written as the engine writes it


def test_a_hand_out_of_canonical_order_is_refused():
    data = copy.deepcopy(playing_state())
    hand = data["hands"][0]
    assert len(hand) >= 2
    hand[0], hand[1] = hand[1], hand[0]  # the same cards: the loader used to re-sort them
    refused(data, "hands")


@pytest.mark.parametrize("name", ["target_score", "tringa_points", "challenges"])
def test_a_missing_option_is_refused(name):
    data = copy.deepcopy(playing_state())
    del data["options"][name]  # the loader used to fill in the default
    refused(data, "options")


@pytest.mark.parametrize("name", ["to_act", "played", "deal_items"])
def test_a_missing_field_is_refused(name):
    data = copy.deepcopy(playing_state())
    del data[name]  # the loader used to work it out (or to fail with a KeyError: a 500)
    refused(data, name)


# --------------------------------------------------------------------------- R13: the challenge round


def round_entries(data: dict) -> int:
    """How many entries this hand's challenge round has had (after its declarations)."""
    run = 0
    for entry in reversed(data["history"]):
        if entry["action"]["type"] in ("play", "deal"):
            break
        run += 1
    return run - data["players"]


def challenge_state(wanted) -> dict:
    """The first challenge-phase state of seeded 2-player matches that ``wanted`` accepts."""
    for seed in range(300):
        rng = random.Random(seed)
        state = GAME.new_state(2, {}, 0, seed=seed)
        while GAME.to_act(state) is not None:
            data = GAME.to_json(state)
            if data["phase"] == "challenge" and wanted(data):
                return data
            state = GAME.apply(state, GAME.to_act(state), rng.choice(GAME.legal_actions(state)))[0]
    raise AssertionError("no such challenge round")


def test_r13_the_seat_asked_follows_the_round_so_far():
    # Both seats declared, nobody asked yet: the other seat has an open target too, but the
    # round asks from dealer+1 (the loader used to take any seat with an open target).
    data = challenge_state(lambda d: round_entries(d) == 0 and "none" not in d["declarations"])
    data["to_act"] = 1 - data["to_act"]
    refused(data, "to_act")


def test_r13_a_challenge_round_entry_by_the_wrong_seat_is_refused():
    data = challenge_state(lambda d: round_entries(d) == 1)
    data["history"][-1]["seat"] = 1 - data["history"][-1]["seat"]
    refused(data, "history")


def ronda_state(wanted, players: int = 2) -> dict:
    """The first state of seeded matches that ``wanted`` accepts."""
    for seed in range(200):
        rng = random.Random(seed)
        state = GAME.new_state(players, {}, 0, seed=seed)
        while GAME.to_act(state) is not None:
            data = GAME.to_json(state)
            if wanted(data):
                return data
            state = GAME.apply(state, GAME.to_act(state), rng.choice(GAME.legal_actions(state)))[0]
    raise AssertionError("no such state")


def test_r8_a_declaration_by_the_wrong_seat_is_refused():
    data = ronda_state(
        lambda d: (
            d["phase"] == "declare"
            and d["deal_no"] >= 2
            and d["history"]
            and d["history"][-1]["action"]["type"] == "declare"
        )
    )
    data["history"][-1]["seat"] = 1 - data["history"][-1]["seat"]
    refused(data, "history")


def test_r19_a_play_by_the_wrong_seat_is_refused():
    data = ronda_state(lambda d: d["phase"] == "play" and d["history"][-1]["action"]["type"] == "play")
    data["history"][-1]["seat"] = 1 - data["history"][-1]["seat"]
    refused(data, "history")


# --------------------------------------------------------------------------- no reachable state refused


@pytest.mark.parametrize("options", option_sets(GAME), ids=option_id)
@pytest.mark.slow
def test_every_state_and_view_of_seeded_matches_loads_back(options):
    """The checks must not refuse a state the engine reaches (seeded matches, every option)."""
    seeded_matches_load_back(GAME, options)


@pytest.mark.parametrize("example", worked.EXAMPLES, ids=[p.stem for p in worked.EXAMPLES])
def test_every_state_the_worked_examples_reach_loads_back(example, monkeypatch):
    """The checks must not refuse a state the engine reaches: every state the worked
    examples build (from decks and layouts, and every action after) loads back."""
    worked_example_loads_back(GAME, lambda: worked.test_worked_example(example), monkeypatch)


# --------------------------------------------------------------------------- derived fields and decks


def test_r13_the_revealed_seats_are_the_challenged_seats():
    data = playing_state()
    assert data["challenged"] == data["revealed"] == []
    refused(dict(data, revealed=[0]), "revealed")


def test_r5_the_hand_number_follows_from_the_stock():
    data = playing_state()
    refused(dict(data, hand_number=data["hand_number"] + 1), "hand_number")


def test_r2_a_callers_deck_in_the_history_holds_each_card_once():
    rng = random.Random(5)
    deck = list(GAME.pack(None))
    state = GAME.new_state(2, {"target_score": 10_000, "challenges": False}, 0, deck=deck)
    while GAME.phase(state) != "deal_over":
        state = GAME.apply(state, GAME.to_act(state), rng.choice(GAME.legal_actions(state)))[0]
    rng.shuffle(deck)
    action = GAME.parse_action(state, {"type": "deal", "deck": deck})
    data = GAME.to_json(GAME.apply(state, GAME.to_act(state), action)[0])
    last = len(data["history"]) - 1
    assert data["history"][last]["action"]["type"] == "deal"
    assert GAME.to_json(GAME.from_json(copy.deepcopy(data))) == data
    data["history"][last]["action"]["deck"][1] = data["history"][last]["action"]["deck"][0]
    refused(data, f"history[{last}].action.deck")
