"""Screens of three changes to how Porrazo's normal level weighs its search (session 51).

    .venv/bin/python bench/porrazo_search_variants.py --variant stretch:2 --game porrazo \\
        --a normal --b normal --budget-iterations 500 --matches 400 --first 200 --seed 5000 \\
        --duplicate --jobs 2

Side A is the level ``--a``'s own search with one change; side B plays as shipped. Every
other option is the arena's (``python -m ai.arena``), so a line here compares with an arena
line on the same series. The variants:

- ``stretch:K``: every reward the search backs up is ``0.5 + K (r - 0.5)``. Porrazo's rewards
  sit near 0.5 (a hand's score difference through ``tanh(diff / 12)``), so with ``uct_c``
  0.7 the exploration term dominates; stretching by K selects exactly as ``uct_c / K``
  would (UCB1's argmax is unchanged by an affine map of the means with the exploration
  scaled alike). The policy tie-break (``bots._within_noise``) sees the stretched means.
- ``nohint:0``: the most visited root action always, never the easy policy's hint where
  the search cannot tell it from the best (``bots.decide``'s tie-break).
- ``band:K``: the hint wherever its mean is within K rough standard errors
  (``0.5 / sqrt(visits of the best)``) of the most visited action's; the shipped rule is
  ``band:1`` (which plays every match here as the arena does: checked on 6 matches).
"""

from __future__ import annotations

import math
import random
import sys
from typing import Any

from ai import arena, policies
from ai.bots import Budget, Decision, decide, level_sampler
from engine.protocol import Game

VARIANTS = ("stretch", "nohint", "band")
variant = ("band", 1.0)
"""(kind, K): set by ``main`` before the arena's workers fork, so they share it."""


class StretchedGame:
    """``game`` unchanged but for its rewards, stretched about 0.5 by K."""

    def __init__(self, game: Game[Any], k: float) -> None:
        self._game = game
        self._k = k

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def outcome(self, start: Any, end: Any) -> list[float]:
        k = self._k
        return [0.5 + k * (r - 0.5) for r in self._game.outcome(start, end)]


def _root_pick(game: Game[Any], state: Any, seat: int, level: str, seed: int, decision: Decision) -> Decision:
    """``decision`` re-decided from its root statistics by the ``nohint`` or ``band`` rule."""
    kind, k = variant
    stats = decision.stats
    if not stats.get("iterations"):
        return decision  # one legal action, or the policy's (no search ran)
    rows = stats["actions"]
    best = max(range(len(rows)), key=lambda i: (rows[i]["visits"], rows[i]["mean"] or 0.0))
    pick = best
    if kind == "band":
        # the hint as decide computes it: the policy's action in the first world sampled
        view = game.view(state, seat)
        world = level_sampler(game, view, level)(random.Random(seed))
        hint_json = game.action_to_json(world, policies.choose(game, world, seat, random.Random(seed)))
        hint = next((i for i, row in enumerate(rows) if row["action"] == hint_json), None)
        if hint is not None and rows[hint]["visits"]:
            if rows[hint]["mean"] >= rows[best]["mean"] - k * 0.5 / math.sqrt(rows[best]["visits"]):
                pick = hint
    for action in game.legal_actions(state):
        if game.action_to_json(state, action) == rows[pick]["action"]:
            return Decision(action=action, stats=stats)
    raise AssertionError("the chosen root action is not legal in the true state")


def variant_decider(
    game: Game[Any], state: Any, seat: int, level: str, budget: Budget | None, seed: int
) -> Decision:
    """Side A's move: ``level``'s search with the variant's change."""
    kind, k = variant
    played: Any = StretchedGame(game, k) if kind == "stretch" else game
    decision = decide(
        played, game.view(state, seat), level=level, budget=budget, seed=seed, max_ms=arena.OFFLINE_MAX_MS
    )
    return decision if kind == "stretch" else _root_pick(game, state, seat, level, seed, decision)


def main(argv: list[str]) -> int:
    """``--variant kind:K`` picks side A's change; every other option is the arena's."""
    global variant
    if "--variant" not in argv or argv.index("--variant") + 1 >= len(argv):
        print(f"--variant kind:K, kind one of {', '.join(VARIANTS)}", file=sys.stderr)
        return 2
    at = argv.index("--variant")
    kind, _, k = argv[at + 1].partition(":")
    if kind not in VARIANTS:
        print(f"--variant: kind one of {', '.join(VARIANTS)}", file=sys.stderr)
        return 2
    variant = (kind, float(k or 0))
    return arena.main(
        argv[:at] + argv[at + 2 :],
        decide_a=variant_decider,
        a_note=f" {argv[at + 1]}",
        prog="python bench/porrazo_search_variants.py --variant kind:K",
        description=__doc__.splitlines()[0],
    )


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
