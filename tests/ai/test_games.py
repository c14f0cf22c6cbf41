"""Every level on every registered game that loads: legal, seeded, view-only.

Games are still being written in parallel; the list is the games whose module loads.
Budgets are small iteration counts."""

from __future__ import annotations

import random

import pytest

from ai import policies
from ai.bots import LEVELS, Budget, best_action, decide, merge_root_stats, search_root
from engine import GAME_IDS, get_game


def _loadable() -> list[str]:
    ids = []
    for game_id in GAME_IDS:
        try:
            get_game(game_id)
        except Exception:  # noqa: BLE001 - not written yet
            continue
        ids.append(game_id)
    return ids


GAMES = _loadable()

TEST_ITERATIONS = {"marriage": 6}
"""Marriage iterations cost ~5-7 ms each even with the greedy playout hook (a deal of ~40 steps)."""


def budget(game_id: str, default: int) -> Budget:
    return Budget(iterations=TEST_ITERATIONS.get(game_id, default))


def _positions(game_id: str, count: int = 4, seed: int = 11) -> list:
    """Seeded decision points with a real choice, from play by the easy policy (random
    play ends some matches at once, e.g. a Ronda challenge of a genuine declaration)."""
    game = get_game(game_id)
    rng = random.Random(seed)
    out = []
    players = min(game.player_counts)
    state = game.new_state(players, None, 0, seed=seed)
    for _ in range(400):
        if game.to_act(state) is None or len(out) >= count:
            break
        actions = game.legal_actions(state)
        if len(actions) > 1 and rng.random() < 0.3:
            out.append(game.clone(state))
        game.step(state, policies.choose(game, state, game.to_act(state), rng))
    return out


@pytest.mark.parametrize("game_id", GAMES)
def test_every_level_plays_a_legal_action(game_id: str) -> None:
    game = get_game(game_id)
    positions = _positions(game_id, count=2 if game_id in TEST_ITERATIONS else 4)
    assert positions
    for state in positions:
        seat = game.to_act(state)
        view = game.view(state, seat)
        for level in LEVELS:
            decision = decide(game, view, level=level, budget=budget(game_id, 60), seed=5)
            assert game.is_legal(state, seat, decision.action), (level, decision)
            again = decide(game, view, level=level, budget=budget(game_id, 60), seed=5)
            assert again.action == decision.action


@pytest.mark.parametrize("game_id", GAMES)
def test_decision_depends_only_on_the_view(game_id: str) -> None:
    """A world re-sampled from the seat's view differs in hidden cards but has the same
    view, so the bot (which sees only the view) decides exactly the same."""
    game = get_game(game_id)
    for state in _positions(game_id, count=2, seed=3):
        seat = game.to_act(state)
        view = game.view(state, seat)
        other = game.sampler(view)(random.Random(12345))
        other_view = game.view(other, seat)
        assert other_view == view
        for level in ("easy", "normal"):
            a = decide(game, view, level=level, budget=budget(game_id, 80), seed=9)
            b = decide(game, other_view, level=level, budget=budget(game_id, 80), seed=9)
            assert a.action == b.action
            assert a.stats["actions"] == b.stats["actions"]


@pytest.mark.parametrize("game_id", GAMES)
def test_root_parallel_stats_round_trip(game_id: str) -> None:
    game = get_game(game_id)
    state = _positions(game_id, count=1, seed=8)[0]
    view = game.view(state, game.to_act(state))
    merged = merge_root_stats([search_root(game, view, budget(game_id, 40), s) for s in (1, 2)])
    action = game.parse_action(state, best_action(merged))
    assert game.is_legal(state, game.to_act(state), action)
