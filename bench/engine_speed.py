"""Random-play engine speed: legal_actions + step per second, per game, one core.

Two paths are timed for each registered game, over whole matches (new matches are
started as old ones end, so every phase of the game is in the mix):

* ``step``: ``legal_actions`` then ``step`` in place (the search's path);
* ``apply``: ``legal_actions`` then the checked ``apply`` (check + clone + events, the
  API's path).

Each figure is the median of ``--runs`` runs of ``--seconds`` each.

    python bench/engine_speed.py [--games ronda,trex] [--seconds 2] [--runs 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from engine import GAME_IDS, get_game


def steps_per_second(game, players: int, seconds: float, seed: int, checked: bool) -> float:
    rng = random.Random(seed)
    options = game.parse_options({}, players)
    state = game.new_state(players, options, 0, seed=seed)
    steps = 0
    clock = time.perf_counter
    start = clock()
    deadline = start + seconds
    while True:
        for _ in range(200):
            seat = game.to_act(state)
            if seat is None:
                state = game.new_state(players, options, 0, seed=rng.getrandbits(32))
                seat = game.to_act(state)
            action = rng.choice(game.legal_actions(state))
            if checked:
                state, _ = game.apply(state, seat, action)
            else:
                game.step(state, action)
            steps += 1
        if clock() >= deadline:
            break
    return steps / (clock() - start)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", default=",".join(GAME_IDS))
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"{'game':10} {'players':>7} {'step/s (median)':>16} {'apply/s (median)':>17}  runs")
    for game_id in args.games.split(","):
        try:
            game = get_game(game_id)
        except ImportError as error:
            print(f"{game_id:10} not available: {error}")
            continue
        for players in game.player_counts:
            fast = [steps_per_second(game, players, args.seconds, run, False) for run in range(args.runs)]
            checked = [steps_per_second(game, players, args.seconds, run, True) for run in range(args.runs)]
            print(
                f"{game_id:10} {players:>7} {statistics.median(fast):>16,.0f} "
                f"{statistics.median(checked):>17,.0f}  {args.runs}",
                flush=True,
            )


if __name__ == "__main__":
    main()
