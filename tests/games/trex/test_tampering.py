"""Trex: a tampered or rounded state is refused, naming the field (issue 15, bad input)."""

from __future__ import annotations

import json
import random

import pytest

from engine import get_game
from engine.protocol import InvalidState
from tests.games.loadback import worked_example_loads_back
from tests.games.trex.test_examples import EXAMPLES
from tests.games.trex.test_examples import test_worked_example as run_worked_example

GAME = get_game("trex")
CANONICAL = [rank + suit for suit in "SHDC" for rank in "23456789TJQKA"]


def played_until(seed: int, done) -> dict:
    """The JSON of a seeded match played at random until ``done(state)``."""
    rng = random.Random(seed)
    state = GAME.new_state(4, {}, 0, seed=seed)
    while not done(state):
        GAME.step(state, rng.choice(GAME.legal_actions(state)))
    return json.loads(json.dumps(GAME.to_json(state)))


def whole_match_until(seed: int, done) -> dict:
    """``played_until``'s JSON in the form written before states were cut to the current
    deal: its ``history`` holds the whole match (such a state still loads, and its earlier
    deals are checked before they are folded away)."""
    rng = random.Random(seed)
    state = GAME.new_state(4, {}, 0, seed=seed)
    history = []
    while not done(state):
        action = rng.choice(GAME.legal_actions(state))
        history.append({"seat": GAME.to_act(state), "action": GAME.action_to_json(state, action)})
        GAME.step(state, action)
    doc = json.loads(json.dumps(GAME.to_json(state)))
    assert history[len(history) - len(doc["history"]) :] == doc["history"]
    doc["history"] = history
    return doc


def refused(doc: dict) -> InvalidState:
    with pytest.raises(InvalidState) as caught:
        GAME.from_json(doc)
    return caught.value


def mid_trick() -> dict:
    return played_until(3, lambda s: GAME.phase(s) == "tricks" and len(GAME.to_json(s)["trick"]) == 2)


def layout_turns() -> dict:
    """Deal 2 or later of a seeded match, in the trex contract, some layout turns in."""
    return played_until(
        5, lambda s: GAME.deal_no(s) > 1 and GAME.phase(s) == "layout" and s.layout_turns >= 3
    )


# ---------------------------------------------------------------- the generator state


def test_rng_state_is_the_decimal_string_of_a_63_bit_state():
    doc = played_until(1, lambda s: True)
    assert isinstance(doc["rng_state"], str)
    assert 0 <= int(doc["rng_state"]) < 2**63 and str(int(doc["rng_state"])) == doc["rng_state"]
    assert GAME.to_json(GAME.from_json(doc)) == doc


def test_a_state_whose_rng_state_a_double_rounded_is_refused():
    doc = played_until(1, lambda s: True)
    doc["rng_state"] = int(float(int(doc["rng_state"])))  # what JSON.parse makes of the number
    err = refused(doc)
    assert err.field == "rng_state" and "the decimal string the service wrote" in err.message


@pytest.mark.parametrize("bad", ["-1", "+1", "01", " 1", "1.0", "1e3", str(2**63), "", 2**53, -1, 1.0, True])
def test_rng_state_other_than_the_written_string_or_a_small_int_is_refused(bad):
    doc = played_until(1, lambda s: True)
    doc["rng_state"] = bad
    assert refused(doc).field == "rng_state"


def test_rng_state_as_a_small_json_int_is_still_read():
    doc = played_until(1, lambda s: True)
    doc["rng_state"] = 123456789
    assert GAME.to_json(GAME.from_json(doc))["rng_state"] == "123456789"


def test_the_next_deal_is_the_same_after_a_round_trip_through_a_double():
    """What issue 15 saw (22 of 25 replays dealt differently): the state read back from a
    JavaScript client deals the same next deal as the engine's own."""
    doc = played_until(2, lambda s: GAME.deal_no(s) == 1 and len(GAME.legal_actions(s)) > 0)
    js = json.loads(json.dumps(doc), parse_int=lambda text: int(float(text)))
    state, again = GAME.from_json(doc), GAME.from_json(js)
    rng = random.Random(9)
    while GAME.deal_no(state) == 1:
        action = rng.choice(GAME.legal_actions(state))
        GAME.step(state, action)
        GAME.step(again, action)
    assert GAME.to_json(again) == GAME.to_json(state)


# ---------------------------------------------------------------- the turn follows the history


@pytest.mark.parametrize("shift", [1, 2, 3])
def test_r17_the_seat_to_act_on_the_layout_follows_the_played_entries(shift):
    doc = layout_turns()
    doc["to_act"] = (doc["to_act"] + shift) % 4
    assert refused(doc).field in ("to_act", "played[1]")


def test_r17_a_played_entry_by_another_seat_is_refused():
    doc = layout_turns()
    doc["played"][-1]["seat"] = (doc["played"][-1]["seat"] + 1) % 4
    doc["history"][-1]["seat"] = doc["played"][-1]["seat"]
    assert refused(doc).field.startswith("played")


@pytest.mark.parametrize("seed", range(6))
def test_r2_a_card_moved_between_hands_is_refused(seed):
    """Found by the mutation suite: in the trex contract no hand size follows from the
    tricks, so a card moved from one hand to another loaded (205 of 1,344 such moves over
    these seeds) until the replay counted each seat's 13 dealt cards."""
    rng = random.Random(seed)
    state = GAME.new_state(4, {}, 0, seed=seed)
    for step in range(400):
        if GAME.to_act(state) is None:
            break
        GAME.step(state, rng.choice(GAME.legal_actions(state)))
        if step % 7:
            continue
        doc = json.loads(json.dumps(GAME.to_json(state)))
        for giver in (i for i in range(4) if doc["hands"][i]):
            moved = json.loads(json.dumps(doc))
            taker = (giver + 1) % 4
            moved["hands"][taker] = sorted(
                moved["hands"][taker] + [moved["hands"][giver].pop()], key=CANONICAL.index
            )
            refused(moved)


def test_s9_deal_scores_moved_between_seats_are_refused():
    doc = played_until(4, lambda s: GAME.phase(s) == "tricks" and any(s.deal_scores))
    scores = doc["deal_scores"]
    scores[0], scores[1] = scores[0] - 15, scores[1] + 15  # the sum (S9) still holds
    assert refused(doc).field == "deal_scores"


def test_r10_a_trick_credited_to_another_seat_is_refused():
    doc = played_until(6, lambda s: GAME.phase(s) == "tricks" and s.tricks_played >= 2)
    winner = next(i for i in range(4) if doc["tricks_won"][i])
    other = (winner + 1) % 4
    moved = doc["cards_won"][winner][:4]
    doc["cards_won"][winner] = doc["cards_won"][winner][4:]
    doc["cards_won"][other] = sorted(doc["cards_won"][other] + moved, key=CANONICAL.index)
    doc["tricks_won"][winner] -= 1
    doc["tricks_won"][other] += 1
    assert refused(doc).field in ("tricks_won", "cards_won", "deal_scores")


# ---------------------------------------------------------------- the match record


def test_r19_match_scores_must_be_the_sum_of_deal_results():
    doc = whole_match_until(7, lambda s: GAME.deal_no(s) == 3)
    doc["match_scores"][0] += 10
    doc["match_scores"][1] -= 10
    doc["scores"] = doc["match_scores"]
    assert refused(doc).field == "match_scores"


def test_r19_match_scores_must_be_the_sum_of_deal_results_in_a_current_deal_state():
    """A state holds its current deal only (issue 33): its record of every finished deal
    is still checked against match_scores."""
    doc = played_until(7, lambda s: GAME.deal_no(s) == 3)
    assert len(doc["history"]) < 10  # the current deal's entries only
    doc["match_scores"][0] += 10
    doc["match_scores"][1] -= 10
    doc["scores"] = doc["match_scores"]
    assert refused(doc).field == "match_scores"


def test_r5_a_deal_result_under_another_owner_is_refused():
    doc = played_until(7, lambda s: GAME.deal_no(s) == 3)
    doc["deal_results"][0]["owner"] = (doc["deal_results"][0]["owner"] + 1) % 4
    assert refused(doc).field == "deal_results[0]"


def test_r10_an_earlier_deal_played_out_of_turn_is_refused():
    doc = whole_match_until(7, lambda s: GAME.deal_no(s) == 3)
    entry = doc["history"][20]  # deal 1, in its tricks (or on the layout)
    entry["seat"] = (entry["seat"] + 1) % 4
    assert refused(doc).field.startswith("history")


def test_s9_an_earlier_deal_scored_otherwise_than_its_history_is_refused():
    doc = whole_match_until(7, lambda s: GAME.deal_no(s) == 3)
    first = doc["deal_results"][0]["scores"]
    moved = [first[1], first[0], first[2], first[3]]  # two seats' results swapped: sums hold
    assert moved != first, "seed 7's first deal scores seats 0 and 1 differently"
    doc["deal_results"][0]["scores"] = moved
    doc["match_scores"] = [sum(r["scores"][seat] for r in doc["deal_results"]) for seat in range(4)]
    doc["scores"] = doc["match_scores"]
    assert refused(doc).field == "deal_results"


def test_a_mid_trick_state_still_loads():
    doc = mid_trick()
    assert GAME.to_json(GAME.from_json(doc)) == doc


# ---------------------------------------------------------------- no reachable state refused


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_state_the_worked_examples_reach_loads_back(path, monkeypatch):
    """The checks must not refuse a state the engine reaches: every state the worked
    examples build (layouts of later deals and their results included) loads back."""
    worked_example_loads_back(GAME, lambda: run_worked_example(path), monkeypatch)
