"""ISMCTS iterations per second, per registered game, on one core; and OpenSpiel's C++
ISMCTSBot on Hearts with the same budget, when ``open_spiel`` is importable.

    .venv/bin/python bench/ismcts_speed.py                      # every game that loads
    .venv/bin/python bench/ismcts_speed.py --games trex --iterations 2000 --runs 5
    .venv/bin/python bench/ismcts_speed.py --games ronda --profile   # cProfile the loop
    .venv/bin/python bench/ismcts_speed.py --games trex --parts      # microseconds per piece, the loop's
    .venv/bin/python bench/ismcts_speed.py --builds --runs 3     # compiled v interpreted
    .venv/bin/python bench/ismcts_speed.py --loop                # the search loop alone
    .venv/bin/python bench/ismcts_speed.py --builds --hooks --games trex ronda marriage
                                                                 # the normal level's playout hooks

What is timed: one ``ai.ismcts.search`` from a seat's view at the first real decision of a
seeded deal (for Trex: the first lead of a King of Hearts deal, with ``play_all_tricks`` on
so that every playout runs the 13 tricks, like Hearts), uniformly random playouts to the end
of the deal, uct_c 0.7, each search after an untimed full garbage collection (so that none
falls inside a timed search). Each run searches ``--positions`` seeded positions; the figure is
the median over ``--runs`` runs of iterations / seconds (wall clock; the CPU-time figure,
``time.process_time``, is less sensitive to other processes on a shared machine).

OpenSpiel side: ``hearts`` with ``pass_cards=false`` (the first decision is the first lead,
13 tricks to play), ``ISMCTSBot`` with a ``RandomRolloutEvaluator(1 rollout)``, uct_c 0.7,
``max_simulations`` = the same iterations, a fresh world sample per simulation, timed over
``bot.step(state)``. OpenSpiel is a bench-only dependency (``pip install open-spiel``).
The runs alternate between our games and OpenSpiel, and the ratio is the median of the
per-run ratios, so that both sides of a ratio meet the same load.

``--builds``: the same searches in two subprocesses per game and run, one on the compiled
hot modules and one on the interpreted ``.py`` files (``MAJLIS_PURE_PYTHON=1``), in turn;
OpenSpiel runs in a subprocess of its own too, right after Trex's compiled one in every run
(interleaved, so that both sides of the ratio meet the same conditions: timed once in this
process after all the games, it had read 47k against 58-63k sims/s here and overstated the
ratio by about 30 %). It prints each game's it/s in both builds and the median of the
per-run ratios compiled / interpreted, and Trex's compiled it/s / OpenSpiel's.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import math
import os
import pstats
import random
import statistics
import subprocess
import sys
import time
import timeit
from typing import Any

from ai import build_info, ismcts, policies
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


def search_once(
    game: Game[Any], views: list[dict[str, Any]], iterations: int, run: int, hooks: bool = False
) -> tuple[int, float, float]:
    """One run: a search from each view (with the game's playout hook when ``hooks``);
    (iterations, wall seconds, CPU seconds)."""
    total_iterations = 0
    wall = cpu = 0.0
    playout = policies.playout_policy(game) if hooks else None
    for i, view in enumerate(views):
        rng = random.Random(run * 1000 + i)
        # a full collection now, untimed: otherwise the one that the growing trees bring
        # due (8-13 ms with every game imported) lands in one build's searches or the
        # other's by the allocations of their imports, and swings a ratio by 15 %
        gc.collect()
        w0, c0 = time.perf_counter(), time.process_time()
        result = ismcts.search(game, view, rng, iterations=iterations, uct_c=0.7, playout=playout)
        wall += time.perf_counter() - w0
        cpu += time.process_time() - c0
        total_iterations += result.iterations
    return total_iterations, wall, cpu


def openspiel_positions(positions: int) -> tuple[Any, list[Any]] | None:
    """OpenSpiel's Hearts and its first-lead states, or None if ``open_spiel`` is missing."""
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
    return pyspiel, states


def openspiel_once(pyspiel: Any, states: list[Any], iterations: int, run: int) -> tuple[int, float, float]:
    """One run of OpenSpiel's C++ ISMCTSBot from each state; (simulations, wall s, CPU s)."""
    wall = cpu = 0.0
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
        w0, c0 = time.perf_counter(), time.process_time()
        bot.step(state)
        wall += time.perf_counter() - w0
        cpu += time.process_time() - c0
    return iterations * len(states), wall, cpu


def loadable_games(names: list[str]) -> list[Game[Any]]:
    games = []
    for game_id in names:
        try:
            games.append(get_game(game_id))
        except Exception as exc:  # noqa: BLE001 - a game still being written
            print(f"{game_id:10s} not loadable yet ({type(exc).__name__}: {exc})")
    return games


def print_parts(game: Game[Any], calls: int = 2000, repeats: int = 5, iterations: int = 500) -> None:
    """Microseconds of CPU time per call (the best of ``repeats`` timings of ``calls``
    calls) of the pieces of an iteration at the bench position: sampling a world from the
    view, cloning it, a clone plus a uniformly random playout to the end of the deal, and
    ``outcome``; then a whole search's iteration (the best of ``repeats`` searches of
    ``iterations``) and what it costs beyond those pieces: the loop itself (the descent's
    selection, legal actions and steps, the expansion and the backup)."""
    _, view = position(game, 0)
    sample = game.sampler(view)
    rng = random.Random(0)
    world = sample(rng)
    end = game.clone(world)
    game.random_playout(world, end, rng)

    def played_out() -> None:
        game.random_playout(world, game.clone(world), rng)

    pieces = {
        "sample": lambda: sample(rng),
        "clone": lambda: game.clone(world),
        "clone + playout": played_out,
        "outcome": lambda: game.outcome(world, end),
    }
    cost: dict[str, float] = {}
    for name, call in pieces.items():
        cost[name] = min(timeit.repeat(call, number=calls, repeat=repeats, timer=time.process_time)) / calls
        print(f"{game.id:10s} {name:16s} {cost[name] * 1e6:9.2f} us")
    per_iteration = math.inf
    for seed in range(repeats):
        c0 = time.process_time()
        done = ismcts.search(game, view, random.Random(seed), iterations=iterations).iterations
        per_iteration = min(per_iteration, (time.process_time() - c0) / max(1, done))
    pieces_cost = cost["sample"] + cost["clone + playout"] + cost["outcome"]
    print(f"{game.id:10s} {'iteration':16s} {per_iteration * 1e6:9.2f} us  ({iterations} per search)")
    loop = per_iteration - pieces_cost
    print(f"{game.id:10s} {'loop':16s} {loop * 1e6:9.2f} us  (iteration - the pieces)")


class NullState:
    __slots__ = ("depth", "path")

    def __init__(self, depth: int, path: int) -> None:
        self.depth = depth
        self.path = path


class NullGame:
    """``--loop``: the part of the Game protocol the search loop calls, each method almost
    free (8 actions everywhere, 12 plies, a reward from a hash of the path), so that an
    iteration's time is the loop's own: selection, expansion, backup and the calls."""

    ACTIONS: list[int] = list(range(8))
    REWARDS: list[list[float]] = [[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]]

    def clone(self, state: NullState) -> NullState:
        return NullState(state.depth, state.path)

    def step(self, state: NullState, action: int, events: Any = None) -> None:
        state.depth += 1
        state.path = (state.path * 31 + action) & 0xFFFF

    def legal_actions(self, state: NullState) -> list[int]:
        return self.ACTIONS

    def to_act(self, state: NullState) -> int:
        return state.depth & 1

    def is_playout_over(self, start: NullState, state: NullState) -> bool:
        return state.depth >= 12

    def random_playout(self, start: NullState, state: NullState, rng: random.Random) -> None:
        state.depth = 12

    def outcome(self, start: NullState, state: NullState) -> list[float]:
        return self.REWARDS[state.path % 3]


def print_loop(repeats: int = 15) -> None:
    """Microseconds of CPU time per iteration of the search loop alone (``NullGame``), the
    median of ``repeats`` searches, at 500 and 2,000 iterations (a deeper tree)."""
    game: Any = NullGame()
    world = NullState(0, 0)
    for iterations in (500, 2000):
        costs = []
        for seed in range(repeats):
            c0 = time.process_time()
            done = ismcts._run(
                game, lambda rng: world, ismcts.Node(-1), random.Random(seed), world,
                iterations, math.inf, 0.7, None, None, time.perf_counter,
            )  # fmt: skip
            costs.append((time.process_time() - c0) / done)
        print(
            f"loop alone ({build_info.loaded_mode()}): {statistics.median(costs) * 1e6:.2f} us per iteration"
            f" (median of {repeats} searches of {iterations} iterations)"
        )


def one_run(
    games: list[Game[Any]], iterations: int, positions: int, run: int, hooks: bool = False
) -> dict[str, Any]:
    """``--one-run``: run number ``run`` of every game in this process's build, as JSON."""
    out: dict[str, Any] = {"build": build_info.loaded_mode()}
    for game in games:
        views = [view for _, view in (position(game, seed) for seed in range(positions))]
        out[game.id] = search_once(game, views, iterations, run, hooks)
    return out


def child_run(game_id: str, args: argparse.Namespace, run: int, pure: bool) -> tuple[int, float, float]:
    """Run ``run`` of one game in a subprocess on the interpreted (``pure``) or default build."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {k: v for k, v in os.environ.items() if k != "MAJLIS_PURE_PYTHON"}
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    if pure:
        env["MAJLIS_PURE_PYTHON"] = "1"
    command = [sys.executable, os.path.abspath(__file__), "--games", game_id, "--one-run", str(run)]
    command += ["--iterations", str(args.iterations), "--positions", str(args.positions)]
    if args.hooks:
        command.append("--hooks")
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    out = json.loads(done.stdout)
    expected = "interpreted" if pure else "compiled"
    if out["build"] != expected:
        raise SystemExit(f"{game_id}: the {expected} build did not load ({out['build']}): make build")
    n, wall, cpu = out[game_id]
    return n, wall, cpu


def openspiel_child(args: argparse.Namespace, run: int) -> tuple[int, float, float]:
    """Run ``run`` of OpenSpiel's ISMCTSBot in a subprocess, as :func:`child_run` runs ours."""
    command = [sys.executable, os.path.abspath(__file__), "--one-openspiel", str(run)]
    command += ["--iterations", str(args.iterations), "--positions", str(args.positions)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    n, wall, cpu = json.loads(done.stdout)
    return n, wall, cpu


def compare_builds(games: list[Game[Any]], args: argparse.Namespace) -> int:
    """``--builds``: compiled v interpreted per game, and Trex compiled v OpenSpiel, each
    side in a subprocess of its own, OpenSpiel right after Trex's compiled run."""
    load_before = os.getloadavg()
    with_spiel = not args.no_openspiel and openspiel_positions(1) is not None
    rates: dict[str, list[float]] = {}
    for run in range(args.runs):
        for game in games:
            for build, pure in (("compiled", False), ("interpreted", True)):
                n, wall, _ = child_run(game.id, args, run, pure)
                rates.setdefault(f"{game.id} {build}", []).append(n / wall)
                if with_spiel and build == "compiled" and (game.id == "trex" or game is games[-1]):
                    if len(rates.get("openspiel", [])) <= run:  # once a run, beside Trex if timed
                        n, wall, _ = openspiel_child(args, run)
                        rates.setdefault("openspiel", []).append(n / wall)
    load_after = os.getloadavg()

    def ratio(a: str, b: str) -> float:
        return statistics.median(x / y for x, y in zip(rates[a], rates[b], strict=True))

    for game in games:
        compiled, interpreted = rates[f"{game.id} compiled"], rates[f"{game.id} interpreted"]
        print(
            f"{game.id:10s} compiled {statistics.median(compiled):9.0f} it/s"
            f"  interpreted {statistics.median(interpreted):9.0f} it/s"
            f"  compiled / interpreted {ratio(f'{game.id} compiled', f'{game.id} interpreted'):.2f}x"
            f"  (medians of {args.runs} runs, {args.iterations} per decision, wall clock"
            f"{', playout hooks' if args.hooks else ''})"
        )
    if with_spiel:
        print(f"{'openspiel':10s} {statistics.median(rates['openspiel']):9.0f} simulations/s (C++ ISMCTSBot)")
        if "trex compiled" in rates:
            print(f"ratio trex compiled / OpenSpiel Hearts: {ratio('trex compiled', 'openspiel'):.2f}x")
            print(f"ratio trex interpreted / OpenSpiel Hearts: {ratio('trex interpreted', 'openspiel'):.2f}x")
    print(f"load average {load_before[0]:.2f} at the start, {load_after[0]:.2f} at the end (1 min)")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description="ISMCTS iterations/s per game (one core)")
    parser.add_argument("--games", nargs="*", default=list(GAME_IDS))
    parser.add_argument("--iterations", type=int, default=1000, help="per decision (both sides)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--positions", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="cProfile one search per game")
    parser.add_argument("--parts", action="store_true", help="time an iteration's pieces per game")
    parser.add_argument("--loop", action="store_true", help="time the search loop alone (a near-free game)")
    parser.add_argument("--no-openspiel", action="store_true")
    parser.add_argument("--builds", action="store_true", help="compiled v interpreted build, per game")
    parser.add_argument("--hooks", action="store_true", help="play out with the games' playout hooks")
    parser.add_argument("--one-run", type=int, help=argparse.SUPPRESS)  # a --builds subprocess
    parser.add_argument("--one-openspiel", type=int, help=argparse.SUPPRESS)  # OpenSpiel's, likewise
    args = parser.parse_args()

    if args.one_openspiel is not None:
        spiel = openspiel_positions(args.positions)
        assert spiel is not None, "open_spiel is not importable"
        print(json.dumps(openspiel_once(spiel[0], spiel[1], args.iterations, args.one_openspiel)))
        return 0

    games = loadable_games(args.games)
    if args.one_run is not None:
        print(json.dumps(one_run(games, args.iterations, args.positions, args.one_run, args.hooks)))
        return 0
    if args.builds:
        return compare_builds(games, args)
    if args.loop:
        print_loop()
        return 0
    if args.parts:
        for game in games:
            print_parts(game)
        return 0
    if args.profile:
        for game in games:
            _, view = position(game, 0)
            profiler = cProfile.Profile()
            profiler.enable()
            playout = policies.playout_policy(game) if args.hooks else None
            ismcts.search(game, view, random.Random(0), iterations=args.iterations, playout=playout)
            profiler.disable()
            print(f"--- {game.id}: cProfile of one search of {args.iterations} iterations")
            pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
        return 0
    load_before = os.getloadavg()
    setups = {game.id: [position(game, seed) for seed in range(args.positions)] for game in games}
    spiel = None if args.no_openspiel else openspiel_positions(args.positions)
    # Runs are interleaved (every game, then OpenSpiel, run after run) so that the two sides
    # of a ratio share the machine's conditions; the ratio is the median of per-run ratios.
    wall: dict[str, list[float]] = {game.id: [] for game in games}
    cpu: dict[str, list[float]] = {game.id: [] for game in games}
    order = [g for g in games if g.id != "trex"] + [g for g in games if g.id == "trex"]
    for run in range(args.runs):
        for game in order:  # Trex just before OpenSpiel
            n, w, c = search_once(game, [v for _, v in setups[game.id]], args.iterations, run, args.hooks)
            wall[game.id].append(n / w)
            cpu[game.id].append(n / c)
        if spiel is not None:
            n, w, c = openspiel_once(spiel[0], spiel[1], args.iterations, run)
            wall.setdefault("openspiel", []).append(n / w)
            cpu.setdefault("openspiel", []).append(n / c)
    load_after = os.getloadavg()
    for game in games:
        state = setups[game.id][0][0]
        where = f"phase {game.phase(state)}, {len(game.legal_actions(state))} legal"
        print(
            f"{game.id:10s} {statistics.median(wall[game.id]):10.0f} iterations/s"
            f"  (CPU time: {statistics.median(cpu[game.id]):.0f}/s; {where}; {args.iterations} per decision)"
        )
    print(f"load average {load_before[0]:.2f} at the start, {load_after[0]:.2f} at the end (1 min)")
    if args.no_openspiel:
        return 0
    if spiel is None:
        print("openspiel  not installed (pip install open-spiel): no comparison")
        return 0
    print(
        f"{'openspiel':10s} {statistics.median(wall['openspiel']):10.0f} simulations/s"
        f"  (CPU time: {statistics.median(cpu['openspiel']):.0f}/s; C++ ISMCTSBot, hearts, first lead)"
    )

    def ratio(rates: dict[str, list[float]], game_id: str) -> float:
        return statistics.median(a / b for a, b in zip(rates[game_id], rates["openspiel"], strict=True))

    if "trex" in wall:
        print(
            f"ratio trex King of Hearts / OpenSpiel Hearts: {ratio(wall, 'trex'):.2f}x"
            f"  (CPU time: {ratio(cpu, 'trex'):.2f}x; median of per-run ratios)"
        )
    for game in games:
        if game.id != "trex":
            print(f"  ({game.id} / OpenSpiel Hearts: {ratio(wall, game.id):.2f}x; not the same game)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
