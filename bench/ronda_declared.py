"""What a declaration taken at its word costs Ronda's normal level: listed hands against redraws.

    .venv/bin/python bench/ronda_declared.py --runs 5 --positions 4

Ronda's searching levels deal each hidden seat a hand that holds what it declared
(``ai.policies.ronda.ronda_inference``). Since session 39 the sampler deals a seat that
declared a ronda, a tringa or a double ronda from the list of the hands that hold it; before,
it redrew random hands until one did, about 200 draws a world for a tringa. This script
times both ways in one run, interleaved position by position and run by run: the normal
level's whole decision (2,000 iterations, its 1 s CPU cap) and the sampler alone (worlds a
CPU second). The redraws are the same sampler with its lists dropped (``listed``), so both
sides deal the same worlds' distribution and run the same search.

Positions: the first decision after the declarations of seeded easy-v-easy deals (two
players, ``new_state`` seeds from 7000) where the opponent declared each kind, and where no
one declared anything (the lists are not used there: the control).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from ai import policies
from ai.bots import decide
from engine import get_game
from engine.games.ronda.sampling import make_sampler

GAME = get_game("ronda")
KINDS = ("tringa", "ronda", "none")


def positions(per_kind: int) -> dict[str, list[dict[str, Any]]]:
    """Up to ``per_kind`` views by what the opponent of the seat to act declared: the first
    decision with every declaration made, of easy-v-easy deals dealt from seeds 7000 on."""
    found: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KINDS}
    seed = 7000
    while any(len(views) < per_kind for views in found.values()) and seed < 200_000:
        state = GAME.new_state(2, GAME.parse_options({}, 2), seed % 2, seed=seed)
        rng = random.Random(seed)
        seed += 1
        while (seat := GAME.to_act(state)) is not None:
            view = GAME.view(state, seat)
            declared = view["declarations"]
            if None not in declared and len(GAME.legal_actions(state)) > 1:
                kind = declared[1 - seat]
                control = kind != "none" or declared[seat] == "none"  # "none": no one declared
                if kind in found and len(found[kind]) < per_kind and control:
                    found[kind].append(view)
                break
            GAME.step(state, policies.choose(GAME, state, seat, rng))
    return found


def without_lists(sampler: Any) -> Any:
    """``sampler`` dealing every declared seat by redraws, as before session 39."""
    if sampler is not None:
        sampler.listed = [None] * len(sampler.listed)
    return sampler


class Redrawn:
    """The inference as before session 39: the same sampler, its lists dropped."""

    def __init__(self) -> None:
        self.saved = policies.INFERENCES["ronda"]

    def __enter__(self) -> None:
        levels, _ = self.saved

        def redraw(game: Any, view: dict[str, Any]) -> Any:
            return without_lists(self.saved[1](game, view))

        policies.INFERENCES["ronda"] = (levels, redraw)

    def __exit__(self, *exc: object) -> None:
        policies.INFERENCES["ronda"] = self.saved


def timed_decision(view: dict[str, Any], seed: int) -> tuple[float, int]:
    """CPU seconds of the normal level's decision, and its iterations."""
    before = time.thread_time()
    decision = decide(GAME, view, level="normal", seed=seed)
    return time.thread_time() - before, decision.stats["iterations"]


def worlds_per_cpu_second(view: dict[str, Any], redraw: bool, count: int = 300) -> float:
    sample = make_sampler(view, trust_declarations=True)
    if redraw:
        sample = without_lists(sample)
    rng = random.Random(1)
    before = time.thread_time()
    for _ in range(count):
        sample(rng)
    return count / (time.thread_time() - before)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--positions", type=int, default=4, help="positions of each kind")
    args = parser.parse_args()
    found = positions(args.positions)
    print(f"positions: {', '.join(f'{kind} {len(views)}' for kind, views in found.items())}")
    print(
        "| opponent declared | way | decision CPU s, median | slowest | iterations, fewest "
        "| worlds a CPU s, median |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for kind, views in found.items():
        cpu: dict[str, list[float]] = {"listed": [], "redrawn": []}
        fewest = {"listed": 2000, "redrawn": 2000}
        worlds: dict[str, list[float]] = {"listed": [], "redrawn": []}
        for run in range(args.runs):
            for index, view in enumerate(views):
                for way in ("listed", "redrawn") if (run + index) % 2 == 0 else ("redrawn", "listed"):
                    if way == "redrawn":
                        with Redrawn():
                            seconds, iterations = timed_decision(view, seed=run)
                    else:
                        seconds, iterations = timed_decision(view, seed=run)
                    cpu[way].append(seconds)
                    fewest[way] = min(fewest[way], iterations)
                    worlds[way].append(worlds_per_cpu_second(view, way == "redrawn"))
        for way in ("listed", "redrawn"):
            print(
                f"| {kind} | {way} | {statistics.median(cpu[way]):.3f} | {max(cpu[way]):.3f} "
                f"| {fewest[way]} | {statistics.median(worlds[way]):,.0f} |"
            )
        ratio = statistics.median(cpu["redrawn"]) / statistics.median(cpu["listed"])
        print(f"| {kind} | redrawn / listed | {ratio:.2f}x | | | |")


if __name__ == "__main__":
    main()
