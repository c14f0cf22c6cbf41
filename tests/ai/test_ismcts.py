"""ISMCTS and the bot levels on the toy trick game (tests/ai/toy.py), budgets in iterations."""

from __future__ import annotations

import json
import random

import pytest
from toy import GAME, position

from ai import ismcts
from ai.bots import LEVEL_BUDGETS, Budget, best_action, clip_budget, decide, merge_root_stats, search_root
from engine.cards import parse_card
from engine.protocol import IllegalAction, NotYourTurn

LEAD = position(["5S", "2H"], ["3H", "2S"])  # seat 0 leads; best is 5S (see toy.py)
FOLLOW = position(["5H", "2H"], ["3S"], seat=1, history=[(0, "4H")])  # best: 5H


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_finds_the_best_lead(seed: int) -> None:
    decision = decide(GAME, GAME.view(LEAD, 0), budget=Budget(iterations=2000), seed=seed)
    assert decision.action == parse_card("5S")
    assert decision.stats["iterations"] == 2000
    by_card = {a["action"]["card"]: a for a in decision.stats["actions"]}
    # exact values 0.6 and 0.5 (toy.py): the means approach them
    assert by_card["5S"]["mean"] == pytest.approx(0.6, abs=0.05)
    assert by_card["5S"]["visits"] > by_card["2H"]["visits"]


@pytest.mark.parametrize("seed", [0, 1])
def test_finds_the_best_follow(seed: int) -> None:
    view = GAME.view(FOLLOW, 1)
    decision = decide(GAME, view, budget=Budget(iterations=1000), seed=seed)
    assert decision.action == parse_card("5H")


def test_same_seed_same_decision() -> None:
    view = GAME.view(LEAD, 0)
    a = decide(GAME, view, budget=Budget(iterations=500), seed=7)
    b = decide(GAME, view, budget=Budget(iterations=500), seed=7)
    assert a.action == b.action
    assert a.stats["actions"] == b.stats["actions"]


def test_hidden_cards_do_not_change_the_decision() -> None:
    """Two states that differ only in cards seat 0 cannot see give the same view and so,
    for the same seed, exactly the same search."""
    other = position(["5S", "2H"], ["4S", "5H"])
    assert GAME.hidden_cards(other, 0) != GAME.hidden_cards(LEAD, 0)
    view_a, view_b = GAME.view(LEAD, 0), GAME.view(other, 0)
    assert view_a == view_b
    for level in ("random", "easy", "normal"):
        a = decide(GAME, view_a, level=level, budget=Budget(iterations=300), seed=3)
        b = decide(GAME, view_b, level=level, budget=Budget(iterations=300), seed=3)
        assert a.action == b.action
        assert a.stats["actions"] == b.stats["actions"]


def test_should_stop_ends_the_search() -> None:
    calls = 0

    def should_stop() -> bool:
        nonlocal calls
        calls += 1
        return calls >= 10

    decision = decide(GAME, GAME.view(LEAD, 0), budget=Budget(iterations=10_000), should_stop=should_stop)
    assert decision.stats["iterations"] == 9
    assert sum(a["visits"] for a in decision.stats["actions"]) == 9


def test_time_budget_uses_the_clock() -> None:
    ticks = iter(range(1_000_000))

    def clock() -> float:  # one millisecond per reading
        return next(ticks) / 1000.0

    decision = decide(GAME, GAME.view(LEAD, 0), budget=Budget(ms=50), seed=1, clock=clock)
    assert 0 < decision.stats["iterations"] <= 50


def busy_host_clocks() -> tuple[object, object]:
    """(wall clock, CPU clock) of a busy host: the wall clock runs 10 ms per reading, the
    search's CPU clock 0.1 ms (other processes take the rest of the time)."""
    wall_ticks = iter(range(10**7))
    cpu_ticks = iter(range(10**7))
    return (lambda: next(wall_ticks) / 100.0), (lambda: next(cpu_ticks) / 10_000.0)


def test_a_cpu_budget_does_its_iterations_on_a_busy_host() -> None:
    wall, cpu = busy_host_clocks()
    view = GAME.view(LEAD, 0)
    level_like = decide(
        GAME, view, budget=Budget(iterations=300, ms=50, cpu=True), seed=1, clock=wall, cpu_clock=cpu
    )
    assert level_like.stats["iterations"] == 300 and level_like.stats["cut_short"] is False
    assert level_like.stats["budget"] == {"iterations": 300, "ms": 50.0, "cpu": True}
    wall, cpu = busy_host_clocks()
    wall_timed = decide(GAME, view, budget=Budget(iterations=300, ms=50), seed=1, clock=wall, cpu_clock=cpu)
    assert wall_timed.stats["iterations"] < 10 and wall_timed.stats["cut_short"] is True


def test_a_cpu_budget_still_stops_at_the_wall_cap() -> None:
    wall, cpu = busy_host_clocks()
    decision = decide(
        GAME, GAME.view(LEAD, 0), budget=Budget(iterations=10**6, ms=10**6, cpu=True), max_ms=200,
        seed=1, clock=wall, cpu_clock=cpu,
    )  # fmt: skip
    assert 0 < decision.stats["iterations"] <= 20 and decision.stats["cut_short"] is True


def test_a_cpu_cap_cuts_a_search_short_and_says_so() -> None:
    ticks = iter(range(10**6))
    burning = lambda: next(ticks) / 1000.0  # one CPU millisecond per reading
    part = search_root(
        GAME, GAME.view(LEAD, 0), Budget(iterations=10_000, ms=30, cpu=True), 3, cpu_clock=burning
    )
    assert 0 < part["iterations"] <= 30 and part["cut_short"] is True
    whole = search_root(GAME, GAME.view(LEAD, 0), Budget(iterations=200, ms=10_000, cpu=True), 4)
    assert whole["iterations"] == 200 and whole["cut_short"] is False
    assert merge_root_stats([part, whole])["cut_short"] is True


def test_the_levels_count_iterations_with_a_cpu_cap() -> None:
    for level in ("normal", "hard"):
        budget = LEVEL_BUDGETS[level]
        assert budget.iterations and budget.cpu and budget.ms and budget.ms >= 1_000
        assert clip_budget(budget, 10**6, 10_000).cpu  # the service's clip keeps the clock


def test_one_legal_action_returns_at_once() -> None:
    state = position(["5H", "2S"], ["3S"], seat=1, history=[(0, "2H")])
    view = GAME.view(state, 1)
    assert len(GAME.legal_actions(state)) == 1
    decision = decide(GAME, view, level="hard", seed=0)
    assert decision.action == parse_card("5H")
    assert decision.stats["iterations"] == 0


def test_budget_is_capped() -> None:
    decision = decide(GAME, GAME.view(LEAD, 0), budget=Budget(iterations=10**9), max_iterations=40, seed=0)
    assert decision.stats["iterations"] == 40


def test_random_level_is_seeded_and_legal() -> None:
    view = GAME.view(LEAD, 0)
    picks = {decide(GAME, view, level="random", seed=s).action for s in range(20)}
    assert picks == set(GAME.legal_actions(LEAD))
    assert (
        decide(GAME, view, level="random", seed=5).action == decide(GAME, view, level="random", seed=5).action
    )


def test_seat_must_be_to_act() -> None:
    with pytest.raises(NotYourTurn):
        decide(GAME, GAME.view(LEAD, 1), level="random")
    over = position(["5S", "2H"], ["3H", "2S"])
    for action in ("5S", "2S", "2H", "3H"):
        GAME.step(over, parse_card(action))
    assert GAME.to_act(over) is None
    with pytest.raises(IllegalAction):
        decide(GAME, GAME.view(over, 0), level="random")
    with pytest.raises(ValueError):
        decide(GAME, GAME.view(LEAD, 0), level="expert")


def test_root_parallel_merge() -> None:
    view = GAME.view(LEAD, 0)
    parts = [search_root(GAME, view, Budget(iterations=800), seed) for seed in (1, 2, 3)]
    merged = merge_root_stats(parts)
    assert json.loads(json.dumps(merged)) == merged
    assert merged["iterations"] == 2400
    assert sum(a["visits"] for a in merged["actions"]) == 2400
    assert best_action(merged) == {"type": "play", "card": "5S"}
    assert GAME.parse_action(LEAD, best_action(merged)) == parse_card("5S")
    # a worker's stats equal the single search with the same seed
    single = ismcts.search(GAME, view, random.Random(1), iterations=800)
    assert [a["visits"] for a in parts[0]["actions"]] == single.visits


def test_availability_counts_cover_opponent_nodes() -> None:
    """Opponent nodes are shared across worlds: a child's availability counts the
    iterations in which its action was legal, so it is at least its visits."""
    view = GAME.view(LEAD, 0)
    sample = GAME.sampler(view)
    root = ismcts.Node(-1)
    rng = random.Random(0)
    ismcts._run(GAME, sample, root, rng, sample(rng), 500, float("inf"), 0.7, None, None, lambda: 0.0)
    seen = 0
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.children.values():
            assert child.avail >= child.visits >= 1
            seen += 1
            stack.append(child)
    assert seen > 10
    # the opponent's replies under the 5S lead differ by world: all six unseen cards appear
    replies = root.children[parse_card("5S")].children
    assert len(replies) == 6


def test_policy_breaks_ties_but_never_overrides_a_clear_best(monkeypatch: pytest.MonkeyPatch) -> None:
    from ai import policies

    equal = position(["5S", "4S"], ["3H", "2S"])  # both leads win both tricks
    for wanted in ("4S", "5S"):
        monkeypatch.setitem(policies.POLICIES, "toy", lambda g, s, seat, rng, w=wanted: parse_card(w))
        decision = decide(GAME, GAME.view(equal, 0), budget=Budget(iterations=400), seed=1)
        assert decision.action == parse_card(wanted)
    monkeypatch.setitem(policies.POLICIES, "toy", lambda g, s, seat, rng: parse_card("2H"))
    decision = decide(GAME, GAME.view(LEAD, 0), budget=Budget(iterations=2000), seed=1)
    assert decision.action == parse_card("5S")
    assert decision.stats["chosen_by"] == "search"
