"""Tampered or rounded Porrazo states are refused, naming the field (issue 15, "bad input").

Each test takes a state the engine wrote, changes one field, and expects InvalidState
(answered as 422 invalid_state) instead of a silent wrong answer."""

from __future__ import annotations

import json
import random

import pytest
from porrazo_helpers import GAME

from engine.cards import CODES
from engine.protocol import InvalidSetup, InvalidState
from tests.games.loadback import option_id, option_sets, seeded_matches_load_back, worked_example_loads_back
from tests.games.porrazo import test_examples as worked


def random_match(
    seed: int, players: int = 2, options: dict | None = None, until_over: bool = False, phase: str = "play"
):
    """A seeded match played at random: to its end, or into ``phase``."""
    rng = random.Random(seed)
    state = GAME.new_state(players, options or {}, 0, seed=seed)
    while GAME.to_act(state) is not None:
        if not until_over and GAME.phase(state) == phase:
            break
        state = GAME.apply(state, GAME.to_act(state), rng.choice(GAME.legal_actions(state)))[0]
    return state


def refused(data: dict, field: str) -> InvalidState:
    with pytest.raises(InvalidState) as info:
        GAME.from_json(data)
    assert info.value.field == field, info.value.message
    return info.value


# --------------------------------------------------------------------------- rng_state


def test_rng_state_is_a_decimal_string_that_survives_a_json_double():
    data = GAME.to_json(random_match(4))
    assert isinstance(data["rng_state"], str)
    through_js = json.loads(json.dumps(data), parse_int=float, parse_float=float)
    assert through_js["rng_state"] == data["rng_state"]
    assert GAME.to_json(GAME.from_json(json.loads(json.dumps(data)))) == data


def test_rng_state_rounded_by_a_double_is_refused():
    data = GAME.to_json(random_match(4))
    exact = int(data["rng_state"])
    assert exact >= 2**53
    for value in (int(float(exact)), exact, "+" + data["rng_state"], "x"):
        refused(dict(data, rng_state=value), "rng_state")


def test_layout_seed_becomes_a_string_rng_state():
    hands = [["AS", "2S", "3S"], ["4H", "5H", "6H"]]
    data = GAME.to_json(GAME.new_state(2, {}, 0, layout={"players": 2, "hands": hands}, seed=2**62 + 1))
    assert data["rng_state"] == str(2**62 + 1)
    with pytest.raises(InvalidSetup):
        GAME.new_state(2, {}, 0, seed=2**63)


# --------------------------------------------------------------------------- bounds


def test_huge_target_score_is_refused():
    data = GAME.to_json(random_match(4))
    data["options"] = dict(data["options"], target_score=10**400)
    refused(data, "options.target_score")


def test_huge_score_of_a_finished_match_is_refused():
    data = GAME.to_json(random_match(6, options={"target_score": 15}, until_over=True))
    assert data["phase"] == "match_over"
    data["scores"][data["winner"]] = 10**400
    refused(data, f"scores[{data['winner']}]")


def test_r25_two_sides_at_the_target_is_refused():
    data = GAME.to_json(random_match(6, options={"target_score": 15}, until_over=True))
    loser = 1 - data["winner"]
    data["scores"][loser] = 15  # the match ended when the first side reached 15
    refused(data, f"scores[{loser}]")


def test_r25_winner_by_target_below_the_target_is_refused():
    data = GAME.to_json(random_match(6, options={"target_score": 15}, until_over=True))
    data["scores"] = [0, 0]
    refused(data, "win_reason")


# --------------------------------------------------------------------------- turn and fields


@pytest.mark.parametrize("decisions", [0, 1, 2])
def test_r9_tampered_to_act_in_the_declarations_is_refused(decisions):
    state = random_match(3, players=4, phase="declare")
    for _ in range(decisions):
        state = GAME.apply(state, GAME.to_act(state), GAME.legal_actions(state)[-1])[0]  # pass
    data = GAME.to_json(state)
    assert data["phase"] == "declare"
    # The round's first seat after passes only is refused too (the tendido decision
    # before the round tells its entries from a claims pass of the previous deal).
    for seat in range(4):
        if seat != data["to_act"]:
            refused(dict(data, to_act=seat), "to_act")


def test_tampered_to_act_in_play_is_refused():
    data = GAME.to_json(random_match(4))
    data["to_act"] = 1 - data["to_act"]
    refused(data, "to_act")


def test_unknown_field_is_refused():
    data = GAME.to_json(random_match(4))
    data["bonus"] = 1
    refused(data, "bonus")


def test_r21_finished_deal_keeps_its_claims_in_deal_over():
    """Not a tampering: a caller-dealt state waiting for the next deck still lists the
    finished deal's claims, and must load (it was refused)."""
    rng = random.Random(3)
    deck = [CODES[c] for c in range(52)]
    rng.shuffle(deck)
    state = GAME.new_state(6, {}, 3, deck=deck)
    while not (GAME.phase(state) == "deal_over" and GAME.to_json(state)["claims"]):
        assert GAME.to_act(state) is not None, "the match ended without such a state"
        if GAME.phase(state) == "deal_over":
            rng.shuffle(deck)
            action = GAME.parse_action(state, {"type": "deal", "deck": deck})
        else:
            action = rng.choice(GAME.legal_actions(state))
        state = GAME.apply(state, GAME.to_act(state), action)[0]
    data = GAME.to_json(state)
    assert GAME.to_json(GAME.from_json(data)) == data


def first_state(wanted, players: int = 4, options: dict | None = None) -> dict:
    """The JSON of the first state of seeded random matches that ``wanted`` accepts."""
    for seed in range(300):
        rng = random.Random(seed)
        state = GAME.new_state(players, options or {}, 0, seed=seed)
        while GAME.to_act(state) is not None:
            data = GAME.to_json(state)
            if wanted(data):
                return data
            state = GAME.apply(state, GAME.to_act(state), rng.choice(GAME.legal_actions(state)))[0]
    raise AssertionError("no such state")


def round_after_claims(data: dict) -> bool:
    """A declaration round with decisions made (the first seat's pass among them looks like
    a claims pass) that follows a claims phase of the previous deal (its last entry a pass
    or a claim)."""
    n, dealer, history = data["players"], data["dealer"], data["history"]
    k = (data["to_act"] - dealer - 1) % n
    before = history[-k - 1] if len(history) > k else None
    return (
        data["phase"] == "declare"
        and k >= 1
        and before is not None
        and before["seat"] != dealer
        and before["action"]["type"] in ("pass", "claim")
    )


def test_r21_a_declaration_round_after_claims_follows_the_claims_replayed():
    data = first_state(round_after_claims)
    for seat in range(data["players"]):
        if seat != data["to_act"]:
            refused(dict(data, to_act=seat), "to_act")


def test_r21_the_seat_asked_to_claim_follows_the_claims_replayed():
    data = first_state(lambda d: d["phase"] == "claim")
    for seat in range(data["players"]):
        if seat != data["to_act"]:
            with pytest.raises(InvalidState):
                GAME.from_json(dict(data, to_act=seat))


def test_r10_a_play_of_this_deal_by_another_seat_is_refused():
    data = first_state(lambda d: d["phase"] == "play" and d["history"][-1]["action"]["type"] == "play")
    data["history"][-1]["seat"] = (data["history"][-1]["seat"] + 1) % data["players"]
    refused(data, "history")


def test_r10_a_play_of_an_earlier_deal_of_the_hand_by_another_seat_is_refused():
    def previous_deal_over(data: dict) -> bool:
        hand = data["history"][data["hand_start"] :]
        return (
            data["phase"] in ("declare", "tendido_choice")
            and bool(hand)
            and hand[-1]["action"]["type"] == "play"
        )

    data = first_state(previous_deal_over)
    data["history"][-1]["seat"] = (data["history"][-1]["seat"] + 1) % data["players"]
    refused(data, "history")


@pytest.mark.parametrize(
    "path", [("played",), ("options", "teams"), ("options", "declaration_mode")], ids=".".join
)
def test_a_missing_field_is_refused(path):
    data = GAME.to_json(random_match(4))
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    del parent[path[-1]]  # the loader used to fill in the default
    refused(data, path[0])


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
