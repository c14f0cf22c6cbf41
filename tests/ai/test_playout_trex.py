"""The Trex playout policy of the normal level: the easy policy's trick play in its cheapest
form. It plays only legal actions, its playouts reach the end of the deal, and in built
positions it ducks, sheds penalty cards and leads low like the easy seats."""

from __future__ import annotations

import random

import pytest
from test_policies_trex import E3_HANDS, card, play, trick_deal

from ai import ismcts, policies
from ai.policies import trex as policy
from engine import get_game

GAME = get_game("trex")
PLAYOUT = policy.make_trex_playout()


class NeverRandom(random.Random):
    """A generator whose epsilon draw never picks a random action (0.99 > epsilon)."""

    def random(self) -> float:
        return 0.99


def choose(state) -> dict:
    return GAME.action_to_json(state, PLAYOUT(GAME, state, NeverRandom()))


def test_it_is_the_registered_playout_of_trex():
    assert policies.playout_policy(GAME) is not None
    assert policies.PLAYOUT_FACTORIES["trex"] is policy.make_trex_playout


def test_leads_its_lowest_card():
    assert choose(trick_deal("king_of_hearts")) == card("2S")


def test_ducks_under_the_winner_with_the_highest_card_that_loses():
    state = trick_deal("collections")
    play(state, card("9C"))
    play(state, card("2C"))
    play(state, card("TC"))
    # seat 3 holds 5C and 6C: both lose to TC, it keeps the lower one
    assert choose(state) == card("6C")


def test_plays_low_when_every_card_wins_and_others_are_still_to_play():
    hands = [list(h) for h in E3_HANDS]
    state = trick_deal("diamonds", hands=hands)
    play(state, card("4D"))  # seat 1 holds 8D 9D TD JD: all win
    assert choose(state) == card("8D")


def test_last_and_winning_anyway_sheds_its_highest_card_without_a_penalty():
    state = trick_deal("queens")
    play(state, card("2S"))
    play(state, card("2C"))  # seat 1 is void in spades
    play(state, card("4S"))
    # seat 3 holds TS JS QS: all win; the queen costs, so the highest safe card is JS
    assert choose(state) == card("JS")


def test_sheds_the_king_of_hearts_when_void():
    state = trick_deal("king_of_hearts")
    play(state, card("2S"))  # seat 1 holds no spade
    assert choose(state) == card("KH")


def test_sheds_the_highest_penalty_card_when_void():
    state = trick_deal("diamonds")
    play(state, card("2S"))  # seat 1 holds no spade, and 8D 9D TD JD
    assert choose(state) == card("JD")


def test_sheds_a_highest_card_when_void_without_a_penalty_card():
    hands = [list(h) for h in E3_HANDS]
    hands[1][hands[1].index("KH")] = "AH"  # seat 1 gives KH for seat 3's AH
    hands[3][hands[3].index("AH")] = "KH"
    state = trick_deal("king_of_hearts", hands=hands)
    play(state, card("2S"))  # seat 1: no spade, no penalty card
    assert choose(state)["card"][0] == "A"


@pytest.mark.parametrize("seed", range(30))
def test_playouts_play_only_legal_actions_to_the_end_of_the_deal(seed):
    state = GAME.new_state(4, None, seed % 4, seed=seed)
    start = GAME.clone(state)
    rng = random.Random(seed)
    for _ in range(400):
        if GAME.is_playout_over(start, state):
            break
        action = PLAYOUT(GAME, state, rng)
        assert action in GAME.legal_actions(state)
        GAME.step(state, action)
    assert GAME.is_playout_over(start, state)


def test_the_search_uses_it_and_stays_seeded():
    state = trick_deal("king_of_hearts")
    view = GAME.view(state, 0)
    runs = [
        ismcts.search(GAME, view, random.Random(5), iterations=150, playout=PLAYOUT).visits for _ in range(2)
    ]
    assert runs[0] == runs[1] and sum(runs[0]) == 150
