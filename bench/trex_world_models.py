"""Session 48's screens of other ways for Trex's hard level to use its worlds (not kept).

    .venv/bin/python bench/trex_world_models.py --model pimc --game trex --a hard --b hard \
        --budget-iterations 5000 --matches 40 --first 120 --seed 1 --duplicate --jobs 2
    .venv/bin/python bench/trex_world_models.py --model hook ... --first 160 (the same otherwise)
    POOL=80 .venv/bin/python bench/trex_world_models.py --model pool ... --first 160
    .venv/bin/python bench/trex_world_models.py --model own-tree ... --first 200

Side A is the arena's level ``--a`` from its own view, with one change; every other option
is the arena's (``python -m ai.arena``):

* ``pimc``: perfect-information Monte Carlo. A samples ``PIMC_WORLDS`` (25) worlds from its
  view and searches each alone (the same ISMCTS, every iteration in that one world), the
  budget split evenly; the most visited action over all of them is played.
* ``hook``: worlds weighted by the opponents' card play. A samples ``POOL`` (1,000) worlds
  from its view; each is weighted by how likely the opponents' trick plays of this deal
  were, in that world, under the playout hook's trick play (``ai.playouts.trex``) played
  with probability ``P_MATCH`` (0.7: normal's choices agree with the hook's about 74 % of
  the time, session 37), the rest spread over the other legal cards; the search draws its
  worlds from the pool by weight. Trick phase only.
* ``pool``: the control for ``hook``: a pool of ``POOL`` worlds drawn uniformly, unweighted.
* ``own-tree``: A's tree holds A's own decisions only: in the trick phase, wherever another
  seat acts, in the tree as in the playout, it plays the playout hook's card from its own
  hand in the world (the tree's nodes are A's own action sequences).
"""

from __future__ import annotations

import bisect
import math
import os
import random
import sys
from typing import Any

from ai import arena, ismcts, policies
from ai.bots import LEVEL_BUDGETS, Decision, decide, level_sampler
from ai.playouts.trex import HOOK_TRICKS
from engine.games.trex.rules import trick_playable
from engine.games.trex.state import entries
from engine.games.trex.tables import PENALTY_MASK

PIMC_WORLDS = int(os.environ.get("PIMC_WORLDS", "25"))
P_MATCH = float(os.environ.get("P_MATCH", "0.7"))
POOL = int(os.environ.get("POOL", "1000"))


def pimc_decider(game: Any, state: Any, seat: int, level: str, budget: Any, seed: int) -> Decision:
    """A's move: one single-world search per sampled world, root visits added."""
    view = game.view(state, seat)
    if len(game.legal_actions(state)) == 1:
        return decide(game, view, level=level, budget=budget, seed=seed)
    chosen = budget if budget is not None else LEVEL_BUDGETS[level]
    rng = random.Random(seed)
    sample = level_sampler(game, view, level)
    candidates = policies.search_candidates(game, sample(random.Random(seed)), seat, level)
    if candidates is not None and len(candidates) == 1:
        return decide(game, view, level=level, budget=budget, seed=seed)
    per_world = max(1, chosen.iterations // PIMC_WORLDS)
    visits: dict[Any, int] = {}
    totals: dict[Any, float] = {}
    done = 0
    playout = policies.playout_policy(game)
    for _ in range(PIMC_WORLDS):
        world = sample(rng)
        result = ismcts.search(
            game,
            view,
            rng,
            iterations=per_world,
            playout=playout,
            sampler=lambda r, w=world: game.clone(w),
            root_candidates=candidates,
        )
        done += result.iterations
        for a, n, t in zip(result.actions, result.visits, result.totals, strict=True):
            visits[a] = visits.get(a, 0) + n
            totals[a] = totals.get(a, 0.0) + t
    best = max(visits, key=lambda a: (visits[a], totals[a] / visits[a] if visits[a] else 0.0))
    return Decision(action=best, stats={"iterations": done, "cut_short": False})


def one() -> float:
    """A draw that never takes the hook's random branch: its own card."""
    return 1.0


def opponent_plays(world: Any, me: int) -> list[tuple[int, int, list[int], int, int, int, int]]:
    """(seat, card, the trick before it, led suit, best card, cards in the trick, the cards
    that seat played from this play on) of the opponents' trick plays of this deal."""
    plays = [(seat, a, no) for seat, a, no in entries(world.played) if no and not isinstance(a, tuple)]
    out = []
    later = [0, 0, 0, 0]
    for i in range(len(plays) - 1, -1, -1):
        seat, card, no = plays[i]
        later[seat] |= 1 << card
        if seat == me:
            continue
        prior = [c for _, c, n in plays[:i] if n == no]
        led = prior[0] // 13 if prior else -1
        best = max((c for c in prior if c // 13 == led), default=-1)
        out.append((seat, card, prior, led, best, len(prior), later[seat]))
    return out


def pool_sampler(game: Any, view: dict[str, Any], base: Any, weigh: bool) -> Any:
    """A sampler drawing from a pool of ``POOL`` worlds of ``base`` (built at its first
    call), by their hook likelihood when ``weigh``."""
    pool: list[Any] = []
    cumulative: list[float] = []

    def build(rng: random.Random) -> None:
        pool.extend(base(rng) for _ in range(POOL))
        log_weights = [0.0] * POOL
        plays = opponent_plays(pool[0], view["seat"])
        if weigh and plays:
            probe = game.clone(pool[0])
            penalty = PENALTY_MASK[probe.contract]
            log_match = math.log(P_MATCH)
            for seat, card, prior, led, best, in_trick, later in plays:
                probe.trick = prior
                for k, world in enumerate(pool):
                    legal = trick_playable(probe, world.hands[seat] | later)
                    n = bin(legal).count("1")
                    if n > 1:
                        hook = HOOK_TRICKS.card(legal, led, best, in_trick, penalty, one)
                        log_weights[k] += log_match if hook == card else math.log((1 - P_MATCH) / (n - 1))
        top = max(log_weights)
        acc = 0.0
        for x in log_weights:
            acc += math.exp(x - top)
            cumulative.append(acc)

    def sample(rng: random.Random) -> Any:
        if not pool:
            build(rng)
        i = bisect.bisect_left(cumulative, rng.random() * cumulative[-1])
        return game.clone(pool[min(i, POOL - 1)])

    return sample


class PooledGame:
    """``game`` but for its sampler, which draws from a pool in the trick phase."""

    def __init__(self, game: Any, weigh: bool) -> None:
        self._game = game
        self._weigh = weigh

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def sampler(self, view: dict[str, Any]) -> Any:
        base = self._game.sampler(view)
        return base if view.get("phase") != "tricks" else pool_sampler(self._game, view, base, self._weigh)


def pooled_decider(weigh: bool) -> Any:
    def decider(game: Any, state: Any, seat: int, level: str, budget: Any, seed: int) -> Decision:
        return decide(PooledGame(game, weigh), game.view(state, seat), level=level, budget=budget, seed=seed)

    return decider


class OwnTreeGame:
    """``game`` whose ``step`` then plays the other seats by the hook, in the trick phase,
    until ``seat`` acts again or the deal of ``start`` is over."""

    def __init__(self, game: Any, seat: int, start: Any, rng: random.Random) -> None:
        self._game = game
        self._seat = seat
        self._start = start
        self._rng = rng
        self._hook = policies.playout_policy(game)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def step(self, state: Any, action: Any) -> None:
        game, hook = self._game, self._hook
        game.step(state, action)
        while True:
            actor = game.to_act(state)
            if actor is None or actor == self._seat or not game.legal_actions(state):
                return
            if game.phase(state) != "tricks" or game.is_playout_over(self._start, state):
                return
            game.step(state, hook(game, state, self._rng))


def own_tree_decider(game: Any, state: Any, seat: int, level: str, budget: Any, seed: int) -> Decision:
    """A's move: in the trick phase a search whose tree holds A's decisions only."""
    view = game.view(state, seat)
    if game.phase(state) != "tricks":
        return decide(game, view, level=level, budget=budget, seed=seed)
    own = OwnTreeGame(game, seat, game.clone(state), random.Random(seed + 7919))
    return decide(own, view, level=level, budget=budget, seed=seed)


MODELS = {
    "pimc": (pimc_decider, f" as PIMC over {PIMC_WORLDS} worlds"),
    "hook": (pooled_decider(True), f" weighing worlds by the hook (p {P_MATCH}, pool {POOL})"),
    "pool": (pooled_decider(False), f" on a uniform pool of {POOL} worlds"),
    "own-tree": (own_tree_decider, " with the hook as its tree's opponents"),
}

if __name__ == "__main__":
    argv = sys.argv[1:]
    at = argv.index("--model")
    decider, note = MODELS[argv[at + 1]]
    del argv[at : at + 2]
    description = __doc__.splitlines()[0]
    raise SystemExit(
        arena.main(argv, decide_a=decider, a_note=note, prog="trex_world_models", description=description)
    )
