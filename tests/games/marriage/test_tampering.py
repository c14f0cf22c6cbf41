"""Marriage: a tampered or rounded state is refused, naming the field (issue 15, bad input)."""

from __future__ import annotations

import json
import random

import pytest

from engine import get_game
from engine.protocol import InvalidSetup, InvalidState
from tests.games.loadback import worked_example_loads_back
from tests.games.marriage.test_examples import EXAMPLES
from tests.games.marriage.test_examples import test_worked_example as run_worked_example

GAME = get_game("marriage")
LAYOUT_A = {  # docs/rules/marriage.md layout A (E5)
    "phase": "draw",
    "current": 0,
    "hands": [
        "3S 4S 5S 9H TH JH 2D 3D 4D KC KC 7H 8D 6C 2S QH JD 5C 9S 4H AC",
        "7S 8S 9S 5H 6H 7H AS AS QS QS KH 3C 3C 4C JC JC 8C 2H",
    ],
    "tunnelas": [[], ["TD"]],
    "discard": ["9C"],
    "stock": "6D QC 7C 2H 9D KD 5H",
}


def played_until(seed: int, done, options=None, players: int = 3) -> dict:
    """The JSON of a seeded match played at random until ``done(state)``."""
    rng = random.Random(seed)
    state = GAME.new_state(players, options or {"turn_limit": 60}, 0, seed=seed)
    while not done(state):
        GAME.step(state, rng.choice(GAME.legal_actions(state)))
    return json.loads(json.dumps(GAME.to_json(state)))


def whole_match_until(seed: int, done, options=None, players: int = 3) -> dict:
    """``played_until``'s JSON in the form written before states held the current deal
    only (issue 33): ``history`` holds the whole match, ``deal_start`` where this deal's
    entries begin."""
    rng = random.Random(seed)
    state = GAME.new_state(players, options or {"turn_limit": 60}, 0, seed=seed)
    history = []
    while not done(state):
        action = rng.choice(GAME.legal_actions(state))
        history.append({"seat": GAME.to_act(state), "action": GAME.action_to_json(state, action)})
        GAME.step(state, action)
    doc = json.loads(json.dumps(GAME.to_json(state)))
    assert history[len(history) - len(doc["history"]) :] == doc["history"]
    doc["deal_start"] = len(history) - len(doc["history"])
    doc["history"] = history
    return doc


def refused(doc: dict) -> InvalidState:
    with pytest.raises(InvalidState) as caught:
        GAME.from_json(doc)
    return caught.value


def in_play() -> dict:
    return played_until(1, lambda s: GAME.phase(s) == "draw" and s.turns >= 5)


def match_over() -> dict:
    """A one-deal match (the default) whose deal was won by a finish: the match is over."""
    return played_until(0, lambda s: GAME.to_act(s) is None, {"turn_limit": 1000}, players=2)


# ---------------------------------------------------------------- the generator state


def test_rng_state_is_the_decimal_string_of_a_63_bit_state():
    doc = in_play()
    assert isinstance(doc["rng_state"], str) and 0 <= int(doc["rng_state"]) < 2**63
    assert GAME.to_json(GAME.from_json(doc)) == doc


def test_a_state_whose_rng_state_a_double_rounded_is_refused():
    doc = in_play()
    doc["rng_state"] = int(float(int(doc["rng_state"])))
    err = refused(doc)
    assert err.field == "rng_state" and "the decimal string the service wrote" in err.message


@pytest.mark.parametrize("bad", ["-1", "01", "1.5", str(2**63), "", 2**53, -1, 2.0, False])
def test_rng_state_other_than_the_written_string_or_a_small_int_is_refused(bad):
    doc = in_play()
    doc["rng_state"] = bad
    assert refused(doc).field == "rng_state"


def test_rng_state_as_a_small_json_int_is_still_read():
    doc = in_play()
    doc["rng_state"] = 77
    assert GAME.to_json(GAME.from_json(doc))["rng_state"] == "77"


def test_a_layout_seeded_above_2_53_writes_its_generator_as_a_string():
    state = GAME.new_state(2, {}, 1, seed=2**62 + 1, layout=LAYOUT_A)
    doc = GAME.to_json(state)
    assert doc["rng_state"] == str(2**62 + 1)
    assert GAME.to_json(GAME.from_json(doc)) == doc


def test_a_layout_seed_beyond_63_bits_is_refused():
    with pytest.raises(InvalidSetup) as caught:
        GAME.new_state(2, {}, 1, seed=2**63, layout=LAYOUT_A)
    assert caught.value.field == "seed"


@pytest.mark.parametrize("name", ["seen_payment", "unseen_payment", "dublee_bonus", "man_points", "deals"])
def test_point_options_stay_far_below_2_53(name):
    doc = in_play()
    doc["options"][name] = 10**18
    assert refused(doc).field == f"options.{name}"


# ---------------------------------------------------------------- R30-R34: scores and the match end


def test_r30_r31_scores_that_do_not_sum_to_zero_are_refused():
    doc = match_over()
    doc["scores"][0] += 1000
    assert refused(doc).field == "scores"


def test_r34_the_finished_last_deal_has_nobody_to_act():
    doc = match_over()
    doc["to_act"] = 0
    assert refused(doc).field == "to_act"


def test_r34_an_engine_dealt_match_does_not_wait_after_a_deal():
    doc = match_over()
    doc["options"]["deals"] = 2  # the match would go on: the engine deals deal 2 at once
    doc["to_act"] = (doc["dealer"] + 1) % doc["players"]
    assert refused(doc).field == "phase"


def test_r30_r31_deal_deltas_must_be_what_settling_the_deal_gives():
    doc = match_over()
    assert doc["winner"] is not None, "seed 0 gives a deal won by a finish"
    doc["deal_delta"][0] += 3
    doc["deal_delta"][1] -= 3
    doc["scores"][0] += 3
    doc["scores"][1] -= 3
    assert refused(doc).field == "deal_delta"


def test_scores_before_any_deal_ended_are_zero():
    doc = in_play()
    doc["scores"] = [5, -5, 0]  # summing to 0, but no deal has ended
    assert refused(doc).field == "scores"


# ---------------------------------------------------------------- R9-R18: the turn follows the history


@pytest.mark.parametrize("shift", [1, 2])
def test_the_seat_to_act_follows_the_history(shift):
    doc = in_play()
    doc["to_act"] = (doc["to_act"] + shift) % 3
    assert refused(doc).field == "to_act"


def test_a_history_entry_by_the_wrong_seat_is_refused():
    doc = in_play()
    doc["history"][-1]["seat"] = (doc["history"][-1]["seat"] + 1) % 3
    assert refused(doc).field.startswith("history[")


def test_turns_completed_counts_the_discards_of_the_deal():
    doc = in_play()
    doc["turns_completed"] += 1
    assert refused(doc).field == "turns_completed"


def test_r18_a_discard_credited_to_another_seat_is_refused():
    doc = in_play()
    top = doc["discard"][-1]
    assert top["by"] is not None, "five turns in, the top discard is a seat's"
    top["by"] = (top["by"] + 1) % 3
    assert refused(doc).field == "discard"


def test_r9_a_tunnela_the_history_never_exposed_is_refused():
    doc = played_until(0, lambda s: GAME.phase(s) == "draw" and any(s.tunnelas))
    seat = next(i for i, t in enumerate(doc["tunnelas"]) if t)
    doc["history"] = [e for e in doc["history"] if e["action"]["type"] != "expose_tunnela"]
    doc["deal_start"] = min(doc["deal_start"], len(doc["history"]))
    assert refused(doc).field == "tunnelas", f"seat {seat}'s tunnela is in no history entry"


def test_a_hand_out_of_canonical_order_is_refused():
    doc = in_play()
    doc["hands"][0] = doc["hands"][0][::-1]
    assert refused(doc).field == "hands"


# ---------------------------------------------------------------- no reachable state refused


@pytest.mark.parametrize("example_id", sorted(EXAMPLES))
def test_every_state_the_worked_examples_reach_loads_back(example_id, monkeypatch):
    """The checks must not refuse a state the engine reaches: every state the worked
    examples build (from layouts, decks and seeds) loads back from its JSON."""
    worked_example_loads_back(GAME, lambda: run_worked_example(example_id), monkeypatch)


def test_a_layout_of_a_later_deal_loads_back_without_the_result_before_it():
    state = GAME.new_state(2, {"deals": 3}, 1, seed=5, layout={**LAYOUT_A, "deal_no": 2, "scores": [7, -7]})
    doc = json.loads(json.dumps(GAME.to_json(state)))
    assert doc["result_deal"] is None and doc["scores"] == [7, -7]
    assert GAME.to_json(GAME.from_json(doc)) == doc


# ---------------------------------------------------------------- the declared codec (issue 19)


def test_a_full_state_of_a_later_deal_given_as_a_layout_is_that_state():
    """A layout may be a whole state: its history, earlier deals included, is read as a
    state's (not as a view's, whose earlier entries are only counted)."""
    second_deal = lambda s: s.deal_no == 2 and GAME.phase(s) == "draw"  # noqa: E731
    doc = played_until(3, second_deal, {"turn_limit": 6, "deals": 3}, players=2)
    old = whole_match_until(3, second_deal, {"turn_limit": 6, "deals": 3}, players=2)
    assert old["deal_start"] > 0  # the form written before states held the current deal only
    state = GAME.new_state(2, old["options"], old["dealer"], seed=int(old["rng_state"]), layout=old)
    assert GAME.to_json(state) == doc


def test_a_man_in_a_history_is_refused_in_a_match_without_men_after_one_with_men_was_read():
    """The history reader memoises actions; a man (XX) reads only where man_cards is 3."""
    with_men = played_until(5, lambda s: s.turns >= 3, {"turn_limit": 60, "man_cards": 3}, 2)
    with_men["history"].append({"seat": 0, "action": {"type": "discard", "card": "XX"}})
    refused(with_men)  # XX read (and memoised) under man_cards 3; the entry breaks the turn order
    plain = in_play()
    plain["history"][-1] = {"seat": plain["history"][-1]["seat"], "action": {"type": "discard", "card": "XX"}}
    assert refused(plain).field == f"history[{len(plain['history']) - 1}].action"
