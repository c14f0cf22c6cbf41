"""Speed work never changes what the search decides.

``tests/data/search_golden.json`` was written by this module (``python -m
tests.ai.test_search_golden``) before the hot loops were reworked for speed (bit masks,
typed locals, apply in place). For fixed views, seeds and iteration budgets it holds the
root statistics of a plain search (uniformly random playouts) and of the normal level
(playout hooks, root candidates, tie-break). A faster build must reproduce them exactly:
the same visits, the same decision, the same mean rewards (to 1e-9), in whichever build
runs the suite. So an arena result measured at an iteration budget stays valid for the
faster code, and no speed-up comes from doing less work per iteration.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from ai import ismcts
from ai.bots import Budget, decide
from engine import GAME_IDS, get_game

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "search_golden.json"
SEEDS = (11, 12, 13)
ITERATIONS = 300
WARMUPS = (3, 20, 45)
"""Random steps before the searched position: early, mid-deal and late choices."""


def _view(game: Any, seed: int, warmup: int) -> dict[str, Any]:
    """The view of the seat to act at the first real choice after ``warmup`` random steps
    (random steps that end the match, e.g. a Ronda challenge, are drawn again)."""
    players = min(game.player_counts)
    for attempt in range(100):
        state = game.new_state(players, game.parse_options({}, players), 0, seed=seed)
        rng = random.Random(seed * 1000 + attempt)
        for step in range(2000):
            actions = game.legal_actions(state)
            if not actions or (step >= warmup and len(actions) > 1):
                break
            game.step(state, actions[int(rng.random() * len(actions))])
        seat = game.to_act(state)
        if seat is not None:
            return game.view(state, seat)
    raise AssertionError("no position")


def _rounded(values: list[float]) -> list[float]:
    return [round(v, 9) for v in values]


def searches() -> dict[str, Any]:
    """Per game, seed and kind of search: the root actions (JSON), visits and rewards."""
    out: dict[str, Any] = {}
    for game_id in GAME_IDS:
        game = get_game(game_id)
        for seed in SEEDS:
            for warmup in WARMUPS:
                view = _view(game, seed, warmup)
                plain = ismcts.search(game, view, random.Random(seed), iterations=ITERATIONS)
                actions = [game.action_to_json(plain.world, a) for a in plain.actions]
                out[f"{game_id}/{seed}/{warmup}/plain"] = {
                    "actions": actions,
                    "visits": plain.visits,
                    "totals": _rounded(plain.totals),
                }
                normal = decide(game, view, level="normal", budget=Budget(iterations=ITERATIONS), seed=seed)
                out[f"{game_id}/{seed}/{warmup}/normal"] = {
                    "action": game.action_to_json(plain.world, normal.action),
                    "iterations": normal.stats["iterations"],
                    "actions": normal.stats["actions"],
                }
    return out


@pytest.fixture(scope="module")
def now() -> dict[str, Any]:
    return searches()


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_searches_decide_as_before_the_speed_work(now, game_id):
    golden = json.loads(GOLDEN.read_text())
    keys = [k for k in golden if k.startswith(f"{game_id}/")]
    assert len(keys) == len(SEEDS) * len(WARMUPS) * 2
    for key in keys:
        assert now[key] == golden[key], key
    assert any(sum(golden[k]["visits"]) for k in keys if k.endswith("/plain"))


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m tests.ai.test_search_golden --write")
    GOLDEN.write_text(json.dumps(searches(), indent=0, sort_keys=True) + "\n")
