"""Which pool plays a session's bot seat, and within which bound (issue 32: a level's
budget is its iterations and CPU cap, whatever the pool; the pool's bound only protects it)."""

from __future__ import annotations

import pytest

from ai.bots import LEVEL_BUDGETS, LEVELS, clip_budget
from service.queues import SEARCH_QUEUE, SESSIONS_QUEUE, bot_turn_bound, bot_turn_queue
from service.settings import Settings


def test_hard_plays_on_the_search_pool_and_every_lower_level_on_the_interactive_one() -> None:
    assert [bot_turn_queue(level) for level in LEVELS] == [SESSIONS_QUEUE] * 3 + [SEARCH_QUEUE]


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_the_default_bound_leaves_a_levels_own_budget_whole(level: str) -> None:
    config = Settings().as_config()
    bound = bot_turn_bound(level, config)
    budget = LEVEL_BUDGETS[level]
    assert clip_budget(budget, config["BOT_MAX_ITERATIONS"], bound) == budget
    # the wall bound is above the level's CPU cap: a host busy enough to stretch the CPU
    # time by that factor still completes the search (normal: 3x; hard: 3.3x)
    assert budget.ms is not None and bound >= 3 * budget.ms


def test_each_pool_bound_is_its_own_setting() -> None:
    config = {**Settings().as_config(), "SESSION_BOT_MS": 123.0, "BOT_MAX_MS": 4567.0}
    assert bot_turn_bound("normal", config) == 123.0
    assert bot_turn_bound("easy", config) == 123.0
    assert bot_turn_bound("hard", config) == 4567.0


def test_a_bound_stays_a_second_inside_the_tasks_soft_time_limit() -> None:
    # the soft limit's exception would land inside the compiled search: the bound ends it first
    config = {**Settings().as_config(), "SEARCH_SOFT_LIMIT": 5.0, "SEARCH_HARD_LIMIT": 8.0}
    assert bot_turn_bound("hard", config) == 4000.0  # BOT_MAX_MS 10 s, cut to the limit
    assert bot_turn_bound("normal", config) == 3000.0  # already inside it
