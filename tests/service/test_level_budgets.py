"""A level's budget (iterations, with a cap in CPU time) keeps its clock on its way to the
workers: in a session's bot order and in a root-parallel job's parts."""

from __future__ import annotations

from ai.bots import LEVEL_BUDGETS, Budget
from service.sessions import BotOrder
from service.tasks import part_budget


def test_a_bot_order_keeps_the_levels_cpu_cap() -> None:
    order = BotOrder(seat=1, version=3, level="normal", budget=LEVEL_BUDGETS["normal"], seed=9)
    again = BotOrder.from_json(order.to_json())
    assert again.budget == LEVEL_BUDGETS["normal"] and again.budget is not None and again.budget.cpu


def test_an_order_stored_before_the_cpu_flag_reads_as_wall_time() -> None:
    stored = {
        "seat": 1,
        "version": 3,
        "level": "normal",
        "budget": {"iterations": 2000, "ms": 200.0},
        "seed": 9,
    }
    assert BotOrder.from_json(stored).budget == Budget(iterations=2000, ms=200.0, cpu=False)


def test_job_parts_share_the_iterations_and_keep_the_clock() -> None:
    payload = {"budget": LEVEL_BUDGETS["hard"].to_json(), "parts": 2}
    assert part_budget(payload) == Budget(iterations=10_000, ms=3_000.0, cpu=True)
    assert part_budget({"budget": {"iterations": 5, "ms": 7.0}, "parts": 1}) == Budget(5, 7.0, cpu=False)
