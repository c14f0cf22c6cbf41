"""The Trex easy policy: sensible decisions in built positions, the same decision on the
real state and on a world sampled from the seat's view, and more points than random play."""

from __future__ import annotations

import random

import pytest

from ai import bots, policies
from ai.policies import trex as policy
from engine import get_game

GAME = get_game("trex")

# docs/rules/trex.md Example 3's hands (deal 6, kingdom owner = dealer = seat 0)
E3_HANDS = [
    ["2S", "3S", "KS", "AS", "2H", "3H", "4H", "4D", "5D", "6D", "7C", "8C", "9C"],
    ["5H", "6H", "7H", "KH", "8D", "9D", "TD", "JD", "2C", "JC", "QC", "KC", "AC"],
    ["4S", "5S", "6S", "7S", "8S", "9S", "8H", "9H", "2D", "3D", "3C", "4C", "TC"],
    ["TS", "JS", "QS", "TH", "JH", "QH", "AH", "7D", "QD", "KD", "AD", "5C", "6C"],
]


def build(options=None, **fields):
    base = {"deal_no": 6, "first_owner": 3, "dealer": 0}
    base.update(fields)
    return GAME.new_state(4, options, 0, layout=base)


def decide(state, seed: int = 0) -> dict:
    seat = GAME.to_act(state)
    action = policies.choose(GAME, state, seat, random.Random(seed))
    return GAME.action_to_json(state, action)


def play(state, data: dict) -> None:
    GAME.step(state, GAME.parse_action(state, data))


def card(code: str) -> dict:
    return {"type": "play", "card": code}


def trick_deal(contract: str, hands=E3_HANDS, options=None, **fields):
    """A trick deal in phase ``tricks`` with seat 0 to lead (no doubling phase)."""
    opts = {"doubling": False, **(options or {})}
    return build(opts, contract=contract, contracts_used=[contract], hands=hands, **fields)


def test_sheds_the_king_of_hearts_when_void():
    state = trick_deal("king_of_hearts")
    play(state, card("2S"))  # seat 1 holds no spade
    assert decide(state) == card("KH")


def test_ducks_with_the_highest_card_that_still_loses():
    state = trick_deal("collections")
    play(state, card("9C"))
    play(state, card("2C"))  # seat 1: its only club under 9C
    # seat 2 holds 3C 4C TC: 4C is the highest card that loses to 9C
    assert decide(state) == card("4C")


def test_a_queen_goes_under_a_higher_card_of_its_suit():
    hands = [list(h) for h in E3_HANDS]
    state = trick_deal("queens", hands=hands)
    play(state, card("KS"))
    play(state, card("2C"))  # seat 1: void in spades, sheds a low club (not forced to the queen)
    play(state, card("4S"))
    # seat 3 holds TS JS QS: QS loses to KS, so the queen goes to seat 0
    assert decide(state) == card("QS")


def test_last_to_play_on_a_clean_trick_wins_with_the_highest_card():
    hands = [
        ["2S", "3H"],
        ["3S", "4H"],
        ["4S", "5H"],
        ["KS", "AS"],
    ]
    state = trick_deal(
        "collections", hands=hands, tricks_won=[3, 4, 2, 2], trick_leader=0, deal_scores=[-45, -60, -30, -30]
    )
    for code in ("2S", "3S", "4S"):
        play(state, card(code))
    # the trick is seat 3's whatever it plays: the ace goes now, the king may still lose later
    assert decide(state) == card("AS")


def test_discards_the_most_dangerous_diamond_when_void():
    state = trick_deal("diamonds")
    play(state, card("2S"))
    # seat 1 holds no spade: its highest diamond (JD) goes while someone else wins
    assert decide(state) == card("JD")


def test_leads_a_low_card_not_its_own_penalty_card():
    state = trick_deal("diamonds")
    data = decide(state)
    assert data["type"] == "play"
    assert data["card"][1] != "D"
    assert data["card"][0] in "23"


@pytest.mark.parametrize(
    ("hand", "contract"),
    [
        ("JS QS KS TS JH QH TH JD TD QD JC TC QC", "trex"),  # four jacks, all connected
        ("KH AH 9H 8H 7H 2S 3S 4S 5S 6S 7S 8S 2C", "king_of_hearts"),  # KH guarded by AH
        ("2S 3S 4S 5S 2H 3H 4H 2D 3D 4D 2C 3C 4C", "diamonds"),  # low cards: no trick taken
    ],
)
def test_chooses_the_contract_the_hand_suits(hand, contract):
    hands = [list(h) for h in E3_HANDS]
    mine = hand.split()
    # give seat 0 the hand; the cards it displaces go to the seats that held ours
    pool = [c for h in hands for c in h if c not in mine]
    others = [pool[0:13], pool[13:26], pool[26:39]]
    state = build(hands=[mine, *others], contracts_used=[])
    assert GAME.phase(state) == "choose_contract"
    assert decide(state) == {"type": "choose", "contract": contract}


def test_a_weak_trex_hand_keeps_the_layout_for_later():
    mine = "2S 3S 4S 5S 2H 3H 4H 2D 3D 4D 2C 3C 4C".split()
    assert policy.choose_contract(["queens", "trex"], mine) == "queens"


def test_doubles_a_well_guarded_king_and_not_a_bare_one():
    guarded = "KH AH 9H 8H 7H 2S 3S 4S 5S 6S 7S 8S 2C".split()
    # a lone KH, no short side suit: it waits long for a discard and must follow a heart lead
    bare = "KH 2S 3S 4S 5S 2D 3D 4D 5D 2C 3C 4C 5C".split()
    assert policy.cards_to_double("king_of_hearts", guarded, {}) == ["KH"]
    assert policy.cards_to_double("king_of_hearts", bare, {}) == []
    pool = [c for c in policy.ALL_CARDS if c not in guarded]
    state = build(
        {"doubling": True},
        hands=[guarded, pool[0:13], pool[13:26], pool[26:39]],
        contracts_used=[],
    )
    play(state, {"type": "choose", "contract": "king_of_hearts"})
    assert GAME.phase(state) == "doubling"
    assert decide(state) == {"type": "double", "card": "KH"}
    play(state, {"type": "double", "card": "KH"})
    assert decide(state) == {"type": "pass"}


def layout_state(layout: dict, mine: str):
    """A Trex deal with seat 0 to act holding ``mine``; the cards that are neither on the
    layout nor ours are dealt round the other seats."""
    on_layout = set()
    for suit, span in layout.items():
        if span:
            low, high = policy.RANKS.index(span["low"]), policy.RANKS.index(span["high"])
            on_layout |= {policy.RANKS[r] + suit for r in range(low, high + 1)}
    hands: list[list[str]] = [mine.split(), [], [], []]
    rest = [c for c in policy.ALL_CARDS if c not in on_layout and c not in hands[0]]
    for i, code in enumerate(rest):
        hands[1 + i % 3].append(code)
    return build(
        contract="trex", contracts_used=["trex"], phase="layout", to_act=0, layout=layout, hands=hands
    )


EMPTY = {"S": None, "H": None, "D": None, "C": None}


def test_layout_opens_the_jack_that_unlocks_our_own_cards():
    # JH would open hearts for the others only; JS frees our own TS then 9S
    state = layout_state(EMPTY, "JS TS 9S JH 2D 3D 4D 5D 2C 3C 4C 5C 6C")
    assert decide(state) == card("JS")


def test_layout_holds_back_a_card_that_only_helps_the_others():
    # TS opens 9S..2S, none of them ours; AD closes diamonds and helps nobody
    layout = {"S": {"low": "J", "high": "J"}, "H": None, "D": {"low": "3", "high": "K"}, "C": None}
    state = layout_state(layout, "TS AD 2H 3H")
    assert decide(state) == card("AD")


def test_layout_plays_toward_our_own_chain():
    # QS leads to our KS and AS; TS would only help the others
    layout = {"S": {"low": "J", "high": "J"}, "H": None, "D": None, "C": None}
    state = layout_state(layout, "TS QS KS AS 2H 3H 4H 5H 2D 3D 4D 5D")
    assert decide(state) == card("QS")


def test_same_decision_on_the_real_state_on_the_real_state_and_on_a_sampled_world():
    rng = random.Random(7)
    checked = 0
    for match_seed in (3, 11):
        state = GAME.new_state(4, None, match_seed % 4, seed=match_seed)
        while GAME.to_act(state) is not None and GAME.deal_no(state) <= 6:
            seat = GAME.to_act(state)
            actions = GAME.legal_actions(state)
            if len(actions) > 1:
                world = GAME.sampler(GAME.view(state, seat))(rng)
                on_state = policies.choose(GAME, state, seat, random.Random(1))
                on_world = policies.choose(GAME, world, seat, random.Random(1))
                assert GAME.action_to_json(state, on_state) == GAME.action_to_json(world, on_world)
                checked += 1
            # move on with a mix of policy and random moves to reach varied positions
            if rng.random() < 0.5:
                GAME.step(state, policies.choose(GAME, state, seat, rng))
            else:
                GAME.step(state, actions[int(rng.random() * len(actions))])
    assert checked > 300


def test_easy_scores_more_points_per_deal_than_random():
    easy_points = random_points = deals = 0.0
    for index in range(12):
        seed = 1_000_003 + index
        state = GAME.new_state(4, None, index % 4, seed=seed)
        easy_seat = index % 4
        rng = random.Random(seed)
        while (seat := GAME.to_act(state)) is not None:
            actions = GAME.legal_actions(state)
            if seat == easy_seat:
                GAME.step(state, policies.choose(GAME, state, seat, rng))
            else:
                GAME.step(state, actions[int(rng.random() * len(actions))])
        report = GAME.score(state)
        deals += report.deal_no
        easy_points += report.scores[easy_seat]
        random_points += sum(report.scores) - report.scores[easy_seat]
    assert easy_points / deals > 10.0
    assert easy_points / deals > random_points / deals / 3 + 15.0


def normal_takes_the_policys_choice_and_hard_searches(state) -> dict:
    """The view of the seat to act, after checking the root candidates of both levels:
    normal's the easy choice alone, hard's every legal action (None)."""
    seat = GAME.to_act(state)
    assert policies.search_candidates(GAME, state, seat, "normal") == [
        policy.trex_policy(GAME, state, seat, random.Random(0))
    ]
    assert policies.search_candidates(GAME, state, seat, "hard") is None
    return GAME.view(state, seat)


def test_the_hard_level_searches_the_contract_choice_and_normal_plays_the_policys():
    """Root candidates by level: at the contract choice normal plays the easy policy's
    contract without a search; hard searches every contract the kingdom has left (the
    decision where its search sees further than normal's: docs/bots-history.md, "Tried in
    session 45")."""
    state = GAME.new_state(4, None, 0, seed=11)
    assert GAME.phase(state) == "choose_contract"
    view = normal_takes_the_policys_choice_and_hard_searches(state)
    normal = bots.decide(GAME, view, level="normal", seed=3)
    assert normal.stats["chosen_by"] == "policy" and normal.stats["iterations"] == 0
    hard = bots.decide(GAME, view, level="hard", budget=bots.Budget(iterations=400), seed=3)
    assert hard.stats["iterations"] == 400
    contracts = [a["action"]["contract"] for a in hard.stats["actions"]]
    assert len(contracts) == len(GAME.legal_actions(state)) > 1
    assert all(a["visits"] > 0 for a in hard.stats["actions"])


def test_the_hard_level_searches_the_doubles():
    """In the doubling phase normal doubles as the easy policy does; hard searches the
    double against the pass."""
    state = build(
        {"doubling": True}, hands=E3_HANDS, contract="king_of_hearts", contracts_used=["king_of_hearts"]
    )
    while GAME.phase(state) == "doubling" and len(GAME.legal_actions(state)) < 2:
        play(state, {"type": "pass"})
    assert GAME.phase(state) == "doubling"
    view = normal_takes_the_policys_choice_and_hard_searches(state)
    hard = bots.decide(GAME, view, level="hard", budget=bots.Budget(iterations=200), seed=1)
    assert hard.stats["iterations"] == 200 and hard.stats["chosen_by"] in ("search", "policy")
    assert all(a["visits"] > 0 for a in hard.stats["actions"])


def test_marriage_keeps_its_candidates_at_both_searching_levels():
    """Marriage's root candidates (three discards, the policy's other choices) are both
    searching levels'."""
    game = get_game("marriage")
    state = game.new_state(2, None, 0, seed=4)
    seat = game.to_act(state)
    assert policies.search_candidates(game, state, seat, "hard") == policies.search_candidates(
        game, state, seat, "normal"
    )
    assert policies.search_candidates(game, state, seat, "normal") is not None
