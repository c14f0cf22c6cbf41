"""How good the Marriage bots' discards and draws are, position by position, against a
clairvoyant judge: a lower-noise measure than the arena's win rate.

    .venv/bin/python bench/marriage_decisions.py build --seed 1 --matches 100 --out /tmp/q1.pkl
    .venv/bin/python bench/marriage_decisions.py score /tmp/q1.pkl --level normal --iterations 2000

``build`` plays seeded easy-v-easy 2-player deals (the arena's deals for ``--seed`` and the
match index) and keeps a share of the positions where a seat has a choice the searching
bots may search: a discard (every legal action a discard) or an unseen seat's draw (take
the top discard or draw from the stock). Each legal option there gets a judge value: the
option played in the *true* state (the opponent's hand and the stock order in sight),
then ``--rollouts`` playouts with the search's greedy playout hook to the end of the deal,
the same random streams for every option (common random numbers); the value is the mean
of the searching seat's reward (1 won, 0 lost, 0.5 level) and of its points.

``score`` replays every position through ``bots.decide`` at a level and budget (with the
level's root candidates, playout hook and tie-break) and prints, per kind of decision, the
mean judge value of the bot's choice, of the easy choice and of the best option in
hindsight, the mean difference bot - easy with its standard error over positions, and how
often the bot's choice is not the easy one. The judge sees what no bot may see: the
difference to the best is mostly hidden information, and a bot better than easy on
average over positions plays better discards or draws, whatever it guessed.
"""

from __future__ import annotations

import argparse
import math
import pickle
import random
import sys
import time
from typing import Any

from ai.arena import start_match
from ai.bots import Budget, decide
from ai.playouts import marriage as hook
from engine import get_game
from engine.games.marriage.hand_eval import deal_is_over
from engine.games.marriage.rules import step
from engine.protocol import Game

PLAYERS = 2


def play_to_deal_end(start: Any, state: Any, rng: random.Random) -> None:
    """The greedy hook's moves until the deal ends (no search horizon)."""
    while not deal_is_over(start, state):
        step(state, hook.choose(state, rng))


def decision_kind(game: Game[Any], state: Any, seat: int) -> str | None:
    """ "discard", "draw" (an unseen seat may take the discard or draw) or None."""
    actions = game.legal_actions(state)
    if len(actions) < 2:
        return None
    types = {game.action_to_json(state, a).get("type") for a in actions}
    if game.phase(state) == "act" and types == {"discard"}:
        return "discard"
    route = game.view(state, seat)["route"][seat]
    if game.phase(state) == "draw" and route is None and types == {"take_discard", "draw_stock"}:
        return "draw"
    return None


def judge(game: Game[Any], state: Any, seat: int, rollouts: int, stream: int) -> list[tuple[float, float]]:
    """(mean reward, mean points) of every legal action in the true state."""
    values = []
    for action in game.legal_actions(state):
        reward = points = 0.0
        for r in range(rollouts):
            end = game.clone(state)
            game.step(end, action)
            play_to_deal_end(state, end, random.Random(r * 7777 + stream))
            reward += game.outcome(state, end)[seat]
            points += end.totals[seat] - state.totals[seat]
        values.append((reward / rollouts, points / rollouts))
    return values


def build(args: argparse.Namespace) -> None:
    game = get_game("marriage")
    options = game.parse_options(None, PLAYERS)
    keep = random.Random(args.seed)
    positions: list[dict[str, Any]] = []
    started = time.perf_counter()
    for index in range(args.matches):
        match = start_match(game, PLAYERS, options, args.seed, index)
        state = match.state
        for step_no in range(100_000):
            seat = game.to_act(state)
            if seat is None:
                break
            kind = decision_kind(game, state, seat)
            share = args.share if kind == "discard" else 2 * args.share  # draws are quick
            if kind is not None and keep.random() < share:
                positions.append(
                    {
                        "state": game.to_json(state),
                        "seat": seat,
                        "kind": kind,
                        "actions": [game.action_to_json(state, a) for a in game.legal_actions(state)],
                        "values": judge(game, state, seat, args.rollouts, index),
                    }
                )
            decision = decide(game, game.view(state, seat), level="easy", seed=match.decision_seed(step_no))
            game.step(state, decision.action)
        elapsed = time.perf_counter() - started
        print(
            f"\r{index + 1}/{args.matches} matches, {len(positions)} positions, {elapsed:.0f}s",
            end="",
            file=sys.stderr,
        )
    print(file=sys.stderr)
    with open(args.out, "wb") as f:
        pickle.dump(positions, f)


def score(args: argparse.Namespace) -> None:
    game = get_game("marriage")
    with open(args.positions, "rb") as f:
        positions = pickle.load(f)
    rows: dict[str, list[tuple[float, float, float, float, bool]]] = {"discard": [], "draw": []}
    budget = Budget(iterations=args.iterations)
    for n, pos in enumerate(positions):
        state = game.from_json(pos["state"])
        view = game.view(state, pos["seat"])
        seed = n * 31 + 5
        bot = game.action_to_json(
            state, decide(game, view, level=args.level, budget=budget, seed=seed).action
        )
        easy = game.action_to_json(state, decide(game, view, level="easy", seed=seed).action)
        values = pos["values"]
        i, e = pos["actions"].index(bot), pos["actions"].index(easy)
        best = max(v[0] for v in values)
        rows[pos["kind"]].append((values[i][0], values[e][0], best, values[i][1] - values[e][1], i != e))
    print(f"{args.positions}: level {args.level}, {args.iterations} iterations")
    for kind, found in rows.items():
        if not found:
            continue
        m = len(found)
        diffs = [r[0] - r[1] for r in found]
        mean = sum(diffs) / m
        se = math.sqrt(sum((d - mean) ** 2 for d in diffs) / max(1, m - 1) / m)
        print(
            f"{kind}: {m} positions, judge value: bot {sum(r[0] for r in found) / m:.4f}, "
            f"easy {sum(r[1] for r in found) / m:.4f}, best {sum(r[2] for r in found) / m:.4f}; "
            f"bot - easy {mean:+.4f} (se {se:.4f}), points {sum(r[3] for r in found) / m:+.3f}; "
            f"not the easy choice {sum(r[4] for r in found) / m:.0%}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description="Marriage decisions against a clairvoyant judge")
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="positions from easy-v-easy deals, every option judged")
    b.add_argument("--seed", type=int, default=1, help="arena series of the deals")
    b.add_argument("--matches", type=int, default=100)
    b.add_argument("--share", type=float, default=0.2, help="share of discard positions kept (draws: twice)")
    b.add_argument("--rollouts", type=int, default=64, help="judge playouts per option")
    b.add_argument("--out", required=True)
    s = sub.add_parser("score", help="a level's choices at the positions")
    s.add_argument("positions")
    s.add_argument("--level", default="normal")
    s.add_argument("--iterations", type=int, default=2000)
    args = parser.parse_args()
    build(args) if args.command == "build" else score(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
