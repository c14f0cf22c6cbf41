"""ISMCTS iterations per second, per registered game, on one core; and OpenSpiel's C++
ISMCTSBot on Hearts with the same budget, when ``open_spiel`` is importable.

    .venv/bin/python bench/ismcts_speed.py                      # every game that loads
    .venv/bin/python bench/ismcts_speed.py --games trex --iterations 2000 --runs 5
    .venv/bin/python bench/ismcts_speed.py --games ronda --profile   # cProfile the loop

What is timed: one ``ai.ismcts.search`` from a seat's view at the first real decision of a
seeded deal (for Trex: the first lead of a King of Hearts deal, with ``play_all_tricks`` on
so that every playout runs the 13 tricks, like Hearts), uniformly random playouts to the end
of the deal, uct_c 0.7. Each run searches ``--positions`` seeded positions; the figure is
the median over ``--runs`` runs of iterations / seconds.

OpenSpiel side: ``hearts`` with ``pass_cards=false`` (the first decision is the first lead,
13 tricks to play), ``ISMCTSBot`` with a ``RandomRolloutEvaluator(1 rollout)``, uct_c 0.7,
``max_simulations`` = the same iterations, a fresh world sample per simulation, timed over
``bot.step(state)``. OpenSpiel is a bench-only dependency (``pip install open-spiel``).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import statistics
import sys
import time
from typing import Any

from ai import ismcts
from engine import GAME_IDS, get_game
from engine.protocol import Game

BENCH_OPTIONS: dict[str, dict[str, Any]] = {
    "trex": {"play_all_tricks": True, "doubling": False},
}
"""Options that make a game's benchmark deal comparable (dropped if the game rejects them)."""

PRELUDE_CHOICES: dict[str, dict[str, Any]] = {
    "trex": {"type": "choose", "contract": "king_of_hearts"},
}
"""A JSON action to take whenever it is legal before the benchmark decision."""


def _options(game: Game[Any], players: int) -> dict[str, Any]:
    wanted = BENCH_OPTIONS.get(game.id, {})
    try:
        return game.parse_options(wanted, players)
    except Exception:  # noqa: BLE001 - the game does not know these options (yet)
        print(f"  note: {game.id} rejected bench options {wanted}; using defaults", file=sys.stderr)
        return game.parse_options({}, players)


def position(game: Game[Any], seed: int) -> tuple[Any, dict[str, Any]]:
    """The benchmark state and its view: the first decision with a real choice of a
    seeded deal, after the game's prelude (e.g. Trex's contract choice)."""
    players = max(game.player_counts) if game.id == "trex" else min(game.player_counts)
    state = game.new_state(players, _options(game, players), 0, seed=seed)
    rng = random.Random(seed)
    prelude = PRELUDE_CHOICES.get(game.id)
    for _ in range(1000):
        actions = game.legal_actions(state)
        as_json = [game.action_to_json(state, a) for a in actions]
        if prelude is not None and prelude in as_json:
            game.step(state, actions[as_json.index(prelude)])
            continue
        kinds = {a.get("type") for a in as_json}
        if len(actions) > 1 and kinds not in ({"choose"}, {"double", "pass"}):
            break
        game.step(state, actions[int(rng.random() * len(actions))])
    seat = game.to_act(state)
    assert seat is not None
    return state, game.view(state, seat)


def bench_game(game: Game[Any], iterations: int, runs: int, positions: int) -> tuple[float, str]:
    """Median iterations/s over ``runs`` runs of ``positions`` searches each."""
    setups = [position(game, seed) for seed in range(positions)]
    rates = []
    for run in range(runs):
        total_iterations = 0
        elapsed = 0.0
        for i, (_, view) in enumerate(setups):
            rng = random.Random(run * 1000 + i)
            started = time.perf_counter()
            result = ismcts.search(game, view, rng, iterations=iterations, uct_c=0.7)
            elapsed += time.perf_counter() - started
            total_iterations += result.iterations
        rates.append(total_iterations / elapsed)
    state = setups[0][0]
    return statistics.median(rates), f"phase {game.phase(state)}, {len(game.legal_actions(state))} legal"


def bench_openspiel_hearts(iterations: int, runs: int, positions: int) -> float | None:
    """Median simulations/s of OpenSpiel's C++ ISMCTSBot on Hearts, or None if not installed."""
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game("hearts", {"pass_cards": False})
    states = []
    for seed in range(positions):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
        states.append(state)
    rates = []
    for run in range(runs):
        elapsed = 0.0
        for i, state in enumerate(states):
            bot = pyspiel.ISMCTSBot(
                run * 1000 + i,
                pyspiel.RandomRolloutEvaluator(1, run * 1000 + i),
                0.7,
                iterations,
                -1,
                pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
                False,
                False,
            )
            started = time.perf_counter()
            bot.step(state)
            elapsed += time.perf_counter() - started
        rates.append(iterations * len(states) / elapsed)
    return statistics.median(rates)


def loadable_games(names: list[str]) -> list[Game[Any]]:
    games = []
    for game_id in names:
        try:
            games.append(get_game(game_id))
        except Exception as exc:  # noqa: BLE001 - a game still being written
            print(f"{game_id:10s} not loadable yet ({type(exc).__name__}: {exc})")
    return games


def main() -> int:
    parser = argparse.ArgumentParser(description="ISMCTS iterations/s per game (one core)")
    parser.add_argument("--games", nargs="*", default=list(GAME_IDS))
    parser.add_argument("--iterations", type=int, default=1000, help="per decision (both sides)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--positions", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="cProfile one search per game")
    parser.add_argument("--no-openspiel", action="store_true")
    args = parser.parse_args()

    ours: dict[str, float] = {}
    for game in loadable_games(args.games):
        if args.profile:
            _, view = position(game, 0)
            profiler = cProfile.Profile()
            profiler.enable()
            ismcts.search(game, view, random.Random(0), iterations=args.iterations)
            profiler.disable()
            print(f"--- {game.id}: cProfile of one search of {args.iterations} iterations")
            pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
            continue
        rate, where = bench_game(game, args.iterations, args.runs, args.positions)
        ours[game.id] = rate
        print(f"{game.id:10s} {rate:10.0f} iterations/s  ({where}; {args.iterations} per decision)")
    if args.profile or args.no_openspiel:
        return 0
    theirs = bench_openspiel_hearts(args.iterations, args.runs, args.positions)
    if theirs is None:
        print("openspiel  not installed (pip install open-spiel): no comparison")
        return 0
    print(f"{'openspiel':10s} {theirs:10.0f} simulations/s  (C++ ISMCTSBot, hearts, first lead)")
    if "trex" in ours:
        print(f"ratio trex King of Hearts / OpenSpiel Hearts: {ours['trex'] / theirs:.2f}x")
    for game_id, rate in ours.items():
        if game_id != "trex":
            print(f"  ({game_id} / OpenSpiel Hearts: {rate / theirs:.2f}x; not the same game)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
