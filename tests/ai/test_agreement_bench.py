"""bench/normal_budget.py --agreement: two bots' decisions at the same positions and seeds."""

from __future__ import annotations

import pytest

from bench.normal_budget import level_agreement, side_budget
from engine import get_game


def test_a_level_agrees_with_itself_at_the_same_seeds() -> None:
    rows = level_agreement(get_game("ronda"), 2, 3, "normal", "normal", iterations=60)
    assert len(rows) >= 4
    assert rows == [(True, 0.0)] * len(rows)


def test_where_two_bots_differ_the_second_search_values_the_gap() -> None:
    rows = level_agreement(get_game("trex"), 1, 8, "random", "normal", iterations=200)
    differ = [gap for same, gap in rows if not same]
    assert differ, "random should leave the searched choice somewhere"
    # the gap is normal's mean of its own choice less its mean of random's: on the whole what
    # random gives up (a single gap may be a little below 0: the most visited action, or the
    # policy's within the tie-break, is not always the best mean)
    gaps = [gap for gap in differ if gap is not None]
    assert gaps and all(-1.0 <= gap <= 1.0 for gap in gaps)
    assert sum(gaps) / len(gaps) > 0.0


def test_a_bot_without_a_budget_of_its_own_needs_iterations() -> None:
    assert side_budget("hard", None).iterations == 20_000
    assert side_budget("openspiel-ismcts", 500).iterations == 500
    with pytest.raises(SystemExit, match="give --iterations"):
        side_budget("openspiel-ismcts", None)


def test_one_level_at_two_seeds_or_budgets_can_differ() -> None:
    # the same level and budget agrees with itself only at the same seed: moved seeds, or a
    # side's own budget, are other searches (at 30 iterations Ronda's differ somewhere)
    ronda = get_game("ronda")
    reseeded = level_agreement(ronda, 2, 4, "normal", "normal", iterations=30, b_seed_offset=1000)
    longer = level_agreement(ronda, 2, 4, "normal", "normal", a_iterations=30, b_iterations=600)
    same = level_agreement(ronda, 2, 4, "normal", "normal", a_iterations=30, b_iterations=30)
    assert len(reseeded) == len(longer) == len(same) >= 6
    assert same == [(True, 0.0)] * len(same)
    assert not all(agree for agree, _ in reseeded)
    assert not all(agree for agree, _ in longer)
