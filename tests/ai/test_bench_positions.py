"""bench/bot_latency.py's positions: a decision of the seat to act where the normal level
searches, reachable by its recorded moves (what the session route replays)."""

from __future__ import annotations

import pytest

from ai import policies
from bench.bot_latency import build_position
from engine import GAME_IDS, get_game


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_position_is_a_searched_decision_of_the_seat_to_act(game_id: str) -> None:
    game = get_game(game_id)
    for seed in (1, 2):
        pos = build_position(game, seed)
        assert game.to_act(pos.state) == pos.seat
        view = game.view(pos.state, pos.seat)
        assert view["seat"] == view["to_act"] == pos.seat
        assert len(game.legal_actions(pos.state)) > 1
        candidates = policies.search_candidates(game, pos.state, pos.seat)
        assert candidates is None or len(candidates) > 1
        assert len(pos.moves) >= 6


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_recorded_moves_lead_to_the_position(game_id: str) -> None:
    """The session route creates a session with the seed and plays these moves as JSON."""
    game = get_game(game_id)
    pos = build_position(game, 3)
    state = game.new_state(pos.players, game.parse_options({}, pos.players), 0, seed=pos.seed)
    for seat, action in pos.moves:
        assert game.to_act(state) == seat
        game.step(state, game.parse_action(state, action))
    assert game.to_json(state) == game.to_json(pos.state)


def test_ronda_declared_bench_compares_the_two_ways_on_the_positions_it_names() -> None:
    """bench/ronda_declared.py: its positions are decisions with every declaration made
    where the opponent declared the kind they are filed under, and its redraw switch drops
    the sampler's lists only inside it (the service's sampler is left as it was)."""
    from bench import ronda_declared

    game = get_game("ronda")
    found = ronda_declared.positions(1)
    assert {kind: len(views) for kind, views in found.items()} == {"tringa": 1, "ronda": 1, "none": 1}
    for kind, (view,) in found.items():
        assert view["declarations"][1 - view["seat"]] == kind
    saved = policies.INFERENCES["ronda"]
    view = found["tringa"][0]
    with ronda_declared.Redrawn():
        redrawn = policies.inferred_sampler(game, view, "normal")
        assert redrawn is not None and redrawn.listed == [None]
    assert policies.INFERENCES["ronda"] is saved
    listed = policies.inferred_sampler(game, view, "normal")
    assert listed is not None and listed.listed[0]
