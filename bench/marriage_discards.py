"""How many Marriage deals the choice of discard can win against easy: with the seat's view
only, and with the hidden cards in sight (a ceiling no legal bot reaches).

    .venv/bin/python bench/marriage_discards.py --deals 200 --worlds 20 --jobs 2
    .venv/bin/python bench/marriage_discards.py --deals 200 --clairvoyant --rollout easy --jobs 2

Seat A plays the easy policy everywhere except at the decisions the normal bot searches
(a discard with more than one root candidate: the easy choice and the policy's next two,
or every legal discard with ``--all-discards``). There it plays each candidate out in the
same worlds with the same random stream (common random numbers, so that the candidates
differ only by the discard) and plays the one that wins most, ties to the easy choice:

* by default the worlds are ``--worlds`` samples of A's view (``game.sampler``), as the
  search sees them, so ``--worlds 20`` with three candidates is the normal level's 60
  playouts;
* with ``--clairvoyant`` the one world is the true state: the opponent's hand and the
  order of the stock. That is cheating, and the point: it tells how much the discards
  can decide a deal when nothing is hidden.

``--rollout greedy`` plays out with the search's playout hook, ``--rollout easy`` with the
easy policy at every seat (the opponent's actual policy). Seat B plays easy throughout.
Deals, dealers, A's seat and B's random streams are the arena's for the same seed and
index (``python -m ai.arena --game marriage --a normal --b easy``), so the runs compare
deal for deal. Prints A's win rate with a 95 % Wilson interval and points per deal.
"""

from __future__ import annotations

import argparse
import functools
import multiprocessing
import random
import sys
from typing import Any

from ai import policies
from ai.arena import start_match, wilson
from ai.bots import decide
from engine import get_game
from engine.protocol import Game

PLAYERS = 2


def rollout_policy(game: Game[Any], kind: str) -> policies.PlayoutPolicy:
    """The playout: the search's hook, or the easy policy of whoever is to act."""
    if kind == "easy":
        return lambda g, state, rng: policies.choose(g, state, g.to_act(state), rng)
    hook = policies.playout_policy(game)
    assert hook is not None, "Marriage has a playout hook"
    return hook


def choose_discard(
    game: Game[Any],
    state: Any,
    seat: int,
    candidates: list[Any],
    *,
    worlds: int,
    clairvoyant: bool,
    rollout: policies.PlayoutPolicy,
    rng: random.Random,
) -> Any:
    """The candidate that wins most playouts (ties: the earliest, the easy choice first)."""
    sample = game.sampler(game.view(state, seat))
    wins = [0.0] * len(candidates)
    for _ in range(1 if clairvoyant else worlds):
        world = state if clairvoyant else sample(rng)
        stream = rng.random()
        for i, action in enumerate(candidates):
            end = game.clone(world)
            game.step(end, action)
            playout_rng = random.Random(stream)
            while not game.is_playout_over(world, end):
                game.step(end, rollout(game, end, playout_rng))
            wins[i] += game.outcome(world, end)[seat]
    return candidates[max(range(len(candidates)), key=lambda i: (wins[i], -i))]


def play_deal(args: argparse.Namespace, index: int) -> tuple[float, float, float]:
    """(A's result, A's points, B's points) of deal ``index``, seeded as the arena's."""
    game = get_game("marriage")
    options = game.parse_options(None, PLAYERS)
    start = start_match(game, PLAYERS, options, args.seed, index)
    state, a_seat = start.state, start.a_side  # two players: a side is a seat
    rollout = rollout_policy(game, args.rollout)
    rng = random.Random(start.seed)
    for step_no in range(100_000):
        seat = game.to_act(state)
        if seat is None:
            break
        action = decide(game, game.view(state, seat), level="easy", seed=start.decision_seed(step_no)).action
        if seat == a_seat:
            candidates = policies.search_candidates(game, state, seat) or [action]
            if len(candidates) > 1 and args.all_discards:
                candidates = [candidates[0]] + [a for a in game.legal_actions(state) if a != candidates[0]]
            if len(candidates) > 1:
                action = choose_discard(
                    game,
                    state,
                    seat,
                    candidates,
                    worlds=args.worlds,
                    clairvoyant=args.clairvoyant,
                    rollout=rollout,
                    rng=rng,
                )
        game.step(state, action)
    report = game.score(state)
    result = 0.5 if report.winner is None else float(report.winner == a_seat)
    return result, report.scores[a_seat], report.scores[1 - a_seat]


def main() -> int:
    parser = argparse.ArgumentParser(description="What the choice of discard wins in Marriage")
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--worlds", type=int, default=20, help="sampled worlds per decision")
    parser.add_argument("--clairvoyant", action="store_true", help="play out the true state once")
    parser.add_argument("--rollout", choices=("greedy", "easy"), default="greedy")
    parser.add_argument("--all-discards", action="store_true", help="every discard, not the top three")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    results: list[tuple[float, float, float]] = []
    with multiprocessing.Pool(args.jobs) as pool:
        for result in pool.imap(functools.partial(play_deal, args), range(args.deals)):
            results.append(result)
            wins = sum(r[0] for r in results)
            progress = f"\r{len(results)}/{args.deals} deals, A {wins / len(results):.1%}"
            print(progress, end="", file=sys.stderr)
    print(file=sys.stderr)
    wins = sum(r[0] for r in results)
    low, high = wilson(wins, len(results))
    where = "the true state" if args.clairvoyant else f"{args.worlds} sampled worlds"
    print(
        f"A: {'every discard' if args.all_discards else 'top three discards'}, {where}, "
        f"{args.rollout} rollouts; B: easy; seed {args.seed}"
    )
    print(f"deals {len(results)}, A win rate {wins / len(results):.3f}  95% CI [{low:.3f}, {high:.3f}]")
    a_points = sum(r[1] for r in results) / len(results)
    b_points = sum(r[2] for r in results) / len(results)
    print(f"points per deal: A {a_points:.2f}, B {b_points:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
