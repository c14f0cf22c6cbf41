"""CPU seconds of one bot decision at a level's default budget, in this process (issue 35's
capacity model: "bot decisions per worker core").

    python bench/bot_cpu.py [--game ronda] [--level normal] [--positions 20] [--max-ms 10000]

At ``--positions`` seeded positions of a two-player match (a few random moves into a
deal, where the seat to act has more than one legal action), ``ai.bots.decide`` runs once
with the level's default budget (normal: 2,000 iterations, at most 1 s of CPU) and the
service's caps, ``--max-ms`` the wall-clock cap (the service's ``MAJLIS_SESSION_BOT_MS``
is 500: a loaded machine cuts searches short there; the default here, 10 s, lets the
budget decide). Printed: CPU seconds per decision (``time.process_time``: what the
decision costs a core, nearly independent of the machine's load), wall seconds, the
iterations searched, the build (compiled or interpreted) and the load average."""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai.bots import decide  # noqa: E402
from engine import get_game  # noqa: E402


def positions(game_id: str, count: int, seed: int) -> list[tuple[dict, int]]:
    """(view, seat) at ``count`` decisions with a choice, a few random moves into a deal."""
    game = get_game(game_id)
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = game.new_state(2, game.parse_options({}, 2), 0, seed=rng.randrange(2**31))
        for _ in range(rng.randrange(0, 8)):
            if game.to_act(state) is None:
                break
            state, _ = game.apply(state, game.to_act(state), rng.choice(game.legal_actions(state)))
        seat = game.to_act(state)
        if seat is not None and len(game.legal_actions(state)) > 1:
            found.append((game.view(state, seat), seat))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="ronda")
    parser.add_argument("--level", default="normal")
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--max-ms", type=float, default=10_000.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    from ai.build_info import loaded_mode

    game = get_game(args.game)
    cpu, wall, iterations = [], [], []
    for n, (view, _seat) in enumerate(positions(args.game, args.positions, args.seed)):
        started_cpu, started = time.process_time(), time.perf_counter()
        decision = decide(game, view, level=args.level, seed=n, max_ms=args.max_ms, max_iterations=200_000)
        cpu.append(time.process_time() - started_cpu)
        wall.append(time.perf_counter() - started)
        iterations.append(int(decision.stats.get("iterations") or 0))
    print(f"build: {loaded_mode()}; load {os.getloadavg()[0]:.2f}")
    median_cpu, mean_cpu = statistics.median(cpu) * 1000, statistics.mean(cpu) * 1000
    print(
        f"{args.game} {args.level}, {len(cpu)} decisions: CPU per decision median {median_cpu:.0f} ms, "
        f"mean {mean_cpu:.0f} ms, max {max(cpu) * 1000:.0f} ms; wall median "
        f"{statistics.median(wall) * 1000:.0f} ms; iterations median {statistics.median(iterations):.0f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
