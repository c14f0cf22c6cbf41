"""Marriage: the easy policy on fixed layouts, the search's playout hook, view-only play."""

from __future__ import annotations

import random

from ai import policies
from ai.arena import play_match
from engine import get_game
from engine.protocol import Game

GAME = get_game("marriage")


def deal_over(start: object, state: object) -> bool:
    """The protocol's end of a playout (end of the deal), without Marriage's search horizon."""
    return Game.is_playout_over(GAME, start, state)


# seat 0 (unseen): two pure sequences (3S 4S 5S, 9D TD JD) and the partial 5H 6H; the
# rest of the hand is loose
HAND0 = "3S 4S 5S 9D TD JD 5H 6H AC 4C 8C JC KS 2D 6D KH QD 7S TS 2H 9H"
HAND1 = "7C 8S 9S AS AS QS QS KH 3C 3C 4C JC JC 8C 2H 5D 5D 6S 9C TC KD"


def state_of(layout: dict) -> object:
    return GAME.new_state(2, None, 1, layout=layout)


def draw_state(top: str, hand: str = HAND0) -> object:
    return state_of(
        {
            "phase": "draw",
            "current": 0,
            "hands": [hand, HAND1],
            "discard": [{"card": top, "by": 1, "by_unseen": True}],
            "stock": ["fill"],
        }
    )


def act_state(hand: str, **extra: object) -> object:
    layout = {
        "phase": "act",
        "current": 0,
        "hands": [hand, HAND1],
        "discard": [{"card": "KC", "by": 1, "by_unseen": True}],
        "stock": ["fill"],
        "turn": {"drew": "stock", "took": None, "took_while_seen": False},
    }
    layout.update(extra)
    return state_of(layout)


def easy(state: object, seed: int = 0) -> dict:
    return GAME.action_to_json(state, policies.choose(GAME, state, GAME.to_act(state), random.Random(seed)))


def test_easy_takes_a_discard_that_completes_a_pure_sequence() -> None:
    assert easy(draw_state("7H")) == {"type": "take_discard"}
    assert easy(draw_state("4H")) == {"type": "take_discard"}


def test_easy_takes_a_discard_only_while_its_completions_are_live() -> None:
    # the top discard 3H would join 5H 6H (3H 5H + 4H) and 2H (2H 3H + AH or 4H); with
    # every AH in the pile it is still worth taking (4H is live), with every 4H in the
    # pile as well it completes nothing any more: draw from the stock
    hand1 = "3C 3C 4C JC JC 8C 2C 5D 5D 6S 9C TC KD QC 7D 8S 9S AS QS KC 7C"

    def with_pile(pile: str) -> object:
        entries = [{"card": c, "by": 1, "by_unseen": True} for c in pile.split()]
        return state_of(
            {"phase": "draw", "current": 0, "hands": [HAND0, hand1], "discard": entries, "stock": ["fill"]}
        )

    assert easy(with_pile("AH AH AH 3H")) == {"type": "take_discard"}
    assert easy(with_pile("4H 4H 4H AH AH AH 3H")) == {"type": "draw_stock"}


def test_easy_keeps_pure_sequences_and_discards_an_isolated_card() -> None:
    # 22 cards after the draw: two pure sequences, partial sets, and KC alone (no club
    # within two ranks, no other king)
    hand = "3S 4S 5S 9D TD JD 5H 6H 8H 9H 2D 3D 6C 7C QS QH 7S 7D AH 2H 4C KC"
    state = act_state(hand)
    action = easy(state)
    assert action == {"type": "discard", "card": "KC"}
    for seed in range(3):
        card = easy(state, seed)["card"]
        assert card not in ("3S", "4S", "5S", "9D", "TD", "JD")


def test_easy_shows_as_soon_as_it_can() -> None:
    hand = "3S 4S 5S 9D TD JD 5H 6H 7H AC 4C 8C JC KS 2D 6D KH QD 7S TS 2H 9H"
    action = easy(act_state(hand))
    assert action["type"] == "show"
    shown = sorted(tuple(s) for s in action["sets"])
    assert ("3S", "4S", "5S") in shown and ("5H", "6H", "7H") in shown  # and a diamond run


def test_easy_exposes_its_tunnelas() -> None:
    state = state_of(
        {
            "phase": "expose",
            "current": 0,
            "hands": ["QC QC QC " + " ".join(HAND0.split()[3:]), HAND1],
            "discard": [{"card": "KC", "by": None, "by_unseen": False}],
            "stock": ["fill"],
        }
    )
    assert easy(state) == {"type": "expose_tunnela", "card": "QC"}


def test_easy_keeps_its_wild_cards_once_seen() -> None:
    # seen with tiplu 5D: 5S (ordinary joker) and 6D (poplu) are wild; 8C is loose
    state = state_of(
        {
            "phase": "act",
            "current": 0,
            "tiplu": "5D",
            "shown": [[["2C", "3C", "4C"], ["7H", "8H", "9H"], ["JS", "QS", "KS"]], []],
            "hands": ["9D TD JD 3S 3H 2H AH 5S 6D 8C KH QD TS", HAND1],
            "discard": [{"card": "KC", "by": 1, "by_unseen": True}],
            "stock": ["fill", "5D"],
            "turn": {"drew": "stock", "took": None, "took_while_seen": False},
        }
    )
    action = easy(state)
    assert action["type"] == "discard"
    assert action["card"] not in ("5S", "6D", "9D", "TD", "JD")


def test_easy_finishes_keeping_its_maal() -> None:
    # layout B of the rules (example 7) with the poplu 6D instead of KD: after taking 8D
    # some finishes throw the 6D (maal, R27), others keep it; easy keeps it
    state = state_of(
        {
            "phase": "draw",
            "current": 0,
            "tiplu": "5D",
            "shown": [
                [["2C", "3C", "4C"], ["7H", "8H", "9H"], ["JS", "QS", "KS"]],
                [["AS", "2S", "3S"], ["TH", "JH", "QH"], ["6C", "7C", "8C"]],
            ],
            "hands": ["9D TD JD 3S 3H 3D AH 2H 5C 8C 8S 6D", "4S 6S 9S KH 2D 7D QD AC 9C TC KC 4H"],
            "discard": [{"card": "8D", "by": 1, "by_unseen": False}],
            "stock": ["fill", "5D"],
        }
    )
    assert easy(state) == {"type": "take_discard"}
    GAME.step(state, policies.choose(GAME, state, 0, random.Random(0)))
    throws = {GAME.action_to_json(state, a)["discard"] for a in GAME.legal_actions(state)}
    assert "6D" in throws and len(throws) > 1
    action = easy(state)
    assert action["type"] == "finish"
    assert action["discard"] != "6D"


def test_playout_hook_plays_legal_actions_and_ends_the_deal() -> None:
    hook = policies.playout_policy(GAME)
    assert hook is not None
    steps_seen = []
    for seed in range(12):
        state = GAME.new_state(2 + seed % 3, None, seed % 2, seed=seed)
        start = GAME.clone(state)
        rng = random.Random(seed)
        steps = 0
        while not deal_over(start, state):
            action = hook(GAME, state, rng)
            assert action in GAME.legal_actions(state)
            GAME.step(state, action)
            steps += 1
            assert steps < 600, f"seed {seed}: the playout does not end"
        assert GAME.phase(state) == "deal_over" or GAME.to_act(state) is None
        assert GAME.score(state).extra["void"] is False  # somebody finished
        steps_seen.append(steps)
    assert sum(steps_seen) / len(steps_seen) < 150


def test_playout_hook_from_a_sampled_world_mid_deal() -> None:
    hook = policies.playout_policy(GAME)
    assert hook is not None
    state = GAME.new_state(2, None, 0, seed=5)
    rng = random.Random(5)
    for _ in range(16):  # play into the deal with the easy policy
        GAME.step(state, policies.choose(GAME, state, GAME.to_act(state), rng))
    seat = GAME.to_act(state)
    assert seat is not None and GAME.phase(state) != "deal_over"
    world = GAME.sampler(GAME.view(state, seat))(random.Random(9))
    start = GAME.clone(world)
    steps = 0
    while not deal_over(start, world):
        action = hook(GAME, world, rng)
        assert action in GAME.legal_actions(world)
        GAME.step(world, action)
        steps += 1
        assert steps < 600


def test_easy_decides_the_same_on_the_state_and_on_a_sampled_world() -> None:
    checked = 0
    for seed in (1, 2):
        state = GAME.new_state(2, None, 0, seed=seed)
        rng = random.Random(seed)
        for k in range(60):
            seat = GAME.to_act(state)
            if seat is None:
                break
            if len(GAME.legal_actions(state)) > 1 and k % 3 == 0:
                view = GAME.view(state, seat)
                world = GAME.sampler(view)(random.Random(k))
                mine = policies.choose(GAME, state, seat, random.Random(k))
                theirs = policies.choose(GAME, world, seat, random.Random(k))
                assert GAME.action_to_json(state, mine) == GAME.action_to_json(world, theirs)
                checked += 1
            GAME.step(state, policies.choose(GAME, state, seat, rng))
    assert checked >= 10


def test_easy_outscores_random() -> None:
    results = [
        play_match(
            GAME, players=2, options=None, level_a="easy", level_b="random", budget=None, seed=3, index=i
        )
        for i in range(12)
    ]
    assert sum(r.score for r in results) >= 10
    assert sum(r.a_points for r in results) > 0


def test_candidates_are_legal_and_start_with_the_easy_choice() -> None:
    from ai.policies.marriage import marriage_candidates

    hand = "3S 4S 5S 9D TD JD 5H 6H 8H 9H 2D 3D 6C 7C QS QH 7S 7D AH 2H 4C KC"
    state = act_state(hand)
    cands = marriage_candidates(GAME, state, 0, 3)
    assert len(cands) == 3 and len(set(cands)) == 3
    assert cands[0] == policies.choose(GAME, state, 0, random.Random(0))
    assert all(GAME.action_to_json(state, a)["type"] == "discard" for a in cands)
    assert all(a in GAME.legal_actions(state) for a in cands)
    # a show available: the easy choice alone (a show), nothing searched
    show_hand = "3S 4S 5S 9D TD JD 5H 6H 7H AC 4C 8C JC KS 2D 6D KH QD 7S TS 2H 9H"
    state = act_state(show_hand)
    cands = marriage_candidates(GAME, state, 0, 3)
    assert cands == [policies.choose(GAME, state, 0, random.Random(0))]
    assert GAME.action_to_json(state, cands[0])["type"] == "show"
    # at the draw: the easy choice alone
    state = draw_state("7H")
    assert [GAME.action_to_json(state, a) for a in marriage_candidates(GAME, state, 0)] == [
        {"type": "take_discard"}
    ]


def test_normal_searches_only_the_candidate_discards() -> None:
    """bots.decide hands the root candidates to the search: a Marriage discard is chosen
    among three searched discards; a draw is the easy choice without a search."""
    from ai.bots import Budget, decide
    from ai.policies.marriage import marriage_candidates

    hand = "3S 4S 5S 9D TD JD 5H 6H 8H 9H 2D 3D 6C 7C QS QH 7S 7D AH 2H 4C KC"
    state = act_state(hand)
    view = GAME.view(state, 0)
    decision = decide(GAME, view, level="normal", budget=Budget(iterations=30), seed=3)
    searched = [e for e in decision.stats["actions"] if e["visits"]]
    wanted = [GAME.action_to_json(state, a) for a in marriage_candidates(GAME, state, 0)]
    assert len(searched) == 3 and all(e["action"] in wanted for e in searched)
    assert sum(e["visits"] for e in decision.stats["actions"]) == 30
    assert decision.action in marriage_candidates(GAME, state, 0)
    state = draw_state("7H")
    decision = decide(GAME, GAME.view(state, 0), level="normal", budget=Budget(iterations=30), seed=3)
    assert decision.stats["iterations"] == 0 and decision.stats["chosen_by"] == "policy"
    assert decision.action == policies.choose(GAME, state, 0, random.Random(0))
