"""How good the Marriage bots' discards and draws are, position by position, against a
clairvoyant judge: a lower-noise measure than the arena's win rate.

    .venv/bin/python bench/marriage_decisions.py build --seed 1 --matches 100 --out /tmp/q1.pkl
    .venv/bin/python bench/marriage_decisions.py score /tmp/q1.pkl --level normal --iterations 2000
    .venv/bin/python bench/marriage_decisions.py room --seed 1 --matches 150 --rollouts 48 --out /tmp/room.pkl

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

``room`` asks how much of that hidden information a fair bot could learn. At the same kind
of positions four judges value every option: two in the true state (one picks the best,
the other values every choice, so that no best is flattered by its own noise), one that
sees the other hand but plays each playout with the stock shuffled anew (all that a perfect
model of the opponent could know: no seat can learn the stock's order), and one whose
worlds the engine's sampler deals from the seat's view (a fair flat Monte Carlo). It
prints the value of each judge's best option against easy's choice (docs/bots.md, "Where
the room is").
"""

from __future__ import annotations

import argparse
import math
import pickle
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script: bench/ is not installed

from ai.arena import start_match  # noqa: E402
from ai.bots import Budget, decide  # noqa: E402
from ai.playouts import marriage as hook  # noqa: E402
from bench.clairvoyant_bound import marriage_restocked  # noqa: E402
from engine import get_game  # noqa: E402
from engine.games.marriage.hand_eval import deal_is_over  # noqa: E402
from engine.games.marriage.rules import step  # noqa: E402
from engine.protocol import Game  # noqa: E402

PLAYERS = 2

Worlds = Callable[[random.Random], Any]


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


def judge(
    game: Game[Any], state: Any, seat: int, rollouts: int, stream: int, worlds: Worlds | None = None
) -> list[tuple[float, float]]:
    """(mean reward, mean points) of every legal action, each played out ``rollouts`` times
    to the deal's end: in the true state, or in the worlds ``worlds`` draws (the same world
    and the same random stream for every action: common random numbers)."""
    values = []
    for action in game.legal_actions(state):
        reward = points = 0.0
        for r in range(rollouts):
            rng = random.Random(r * 7777 + stream)
            start = worlds(rng) if worlds is not None else state
            end = game.clone(start)
            game.step(end, action)
            play_to_deal_end(start, end, rng)
            reward += game.outcome(start, end)[seat]
            points += end.totals[seat] - start.totals[seat]
        values.append((reward / rollouts, points / rollouts))
    return values


def world_maker(game: Game[Any], state: Any, seat: int, sees: str) -> Worlds:
    """Worlds for a judge that sees everything (``true``), the other hands but not the
    stock's order (``hands``), or only the seat's view (``view``: the engine's sampler)."""
    if sees == "true":
        return lambda rng: state
    if sees == "hands":
        return lambda rng: marriage_restocked(state, seat, rng)
    return game.sampler(game.view(state, seat))


def decision_positions(game: Game[Any], args: argparse.Namespace) -> Iterator[tuple[int, Any, int, str, int]]:
    """(match index, state, seat, kind, the easy seat's decision seed) at a share of the
    searchable decisions of seeded easy-v-easy deals (the arena's deals for ``--seed``); the
    state is the live one: copy it to keep it."""
    options = game.parse_options(None, PLAYERS)
    keep = random.Random(args.seed)
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
                yield index, state, seat, kind, match.decision_seed(step_no)
            decision = decide(game, game.view(state, seat), level="easy", seed=match.decision_seed(step_no))
            game.step(state, decision.action)
        print(
            f"\r{index + 1}/{args.matches} matches, {time.perf_counter() - started:.0f}s",
            end="",
            file=sys.stderr,
        )
    print(file=sys.stderr)


def build(args: argparse.Namespace) -> None:
    game = get_game("marriage")
    positions: list[dict[str, Any]] = []
    for index, state, seat, kind, _ in decision_positions(game, args):
        positions.append(
            {
                "state": game.to_json(state),
                "seat": seat,
                "kind": kind,
                "actions": [game.action_to_json(state, a) for a in game.legal_actions(state)],
                "values": judge(game, state, seat, args.rollouts, index),
            }
        )
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


# Room: how much of what the judge sees could a fair bot learn? Each position's options are
# valued by four judges with their own random streams: "true" twice (one picks the best
# option, the other, "eval", values every choice, so the best in hindsight is not flattered
# by its own noise), "hands" (the other hands, not the stock's order) and "view" (worlds
# from the seat's view: a fair flat Monte Carlo over every option).
ROOM_JUDGES = {"true": 1_000_003, "eval": 2_000_003, "hands": 3_000_003, "view": 4_000_003}
CHOOSERS = ("view", "hands", "true")


def room(args: argparse.Namespace) -> None:
    game = get_game("marriage")
    positions: list[dict[str, Any]] = []
    for index, state, seat, kind, seed in decision_positions(game, args):
        easy = decide(game, game.view(state, seat), level="easy", seed=seed).action
        judged = {}
        for name, stream in ROOM_JUDGES.items():
            worlds = world_maker(game, state, seat, "true" if name == "eval" else name)
            judged[name] = judge(game, state, seat, args.rollouts, index * 7 + stream, worlds)
        positions.append({"kind": kind, "easy": game.legal_actions(state).index(easy), **judged})
    with open(args.out, "wb") as f:
        pickle.dump(positions, f)
    room_report(positions)


def room_report(positions: list[dict[str, Any]]) -> None:
    """Per kind of decision: the "eval" judge's value (reward and points) of easy's choice and
    of each judge's best option, with the difference to easy and its standard error."""
    for kind in ("discard", "draw"):
        found = [p for p in positions if p["kind"] == kind]
        if not found:
            continue
        print(f"{kind}: {len(found)} positions; eval judge's value (reward, points) of each choice")
        easy_reward = [p["eval"][p["easy"]][0] for p in found]
        easy_points = [p["eval"][p["easy"]][1] for p in found]
        print(f"  easy: {statistics.mean(easy_reward):.4f}, {statistics.mean(easy_points):+.3f} points")
        for chooser in CHOOSERS:
            picks = [best_option(p[chooser], p["easy"]) for p in found]
            rewards = [p["eval"][i][0] - e for p, i, e in zip(found, picks, easy_reward, strict=True)]
            points = [p["eval"][i][1] - e for p, i, e in zip(found, picks, easy_points, strict=True)]
            moved = sum(i != p["easy"] for p, i in zip(found, picks, strict=True)) / len(found)
            print(
                f"  best by {chooser}: reward {statistics.mean(rewards):+.4f} (se {stderr(rewards):.4f}), "
                f"points {statistics.mean(points):+.3f} (se {stderr(points):.3f}) over easy; "
                f"not easy's {moved:.0%}"
            )


def best_option(values: list[tuple[float, float]], default: int) -> int:
    """The option of the highest mean reward, then points; on a tie the easy choice."""
    return max(range(len(values)), key=lambda i: (values[i][0], values[i][1], i == default))


def stderr(xs: list[float]) -> float:
    """The standard error of the mean of ``xs`` (0 for a single value)."""
    return statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0


def add_deal_arguments(parser: argparse.ArgumentParser, matches: int, share: float, rollouts: int) -> None:
    """The options of the commands that play deals and judge their positions."""
    parser.add_argument("--seed", type=int, default=1, help="arena series of the deals")
    parser.add_argument("--matches", type=int, default=matches)
    parser.add_argument("--share", type=float, default=share, help="share of discards kept (draws: twice)")
    parser.add_argument("--rollouts", type=int, default=rollouts, help="playouts per option (and judge)")
    parser.add_argument("--out", required=True)


def main() -> int:
    parser = argparse.ArgumentParser(description="Marriage decisions against a clairvoyant judge")
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="positions from easy-v-easy deals, every option judged")
    add_deal_arguments(b, matches=100, share=0.2, rollouts=64)
    s = sub.add_parser("score", help="a level's choices at the positions")
    s.add_argument("positions")
    s.add_argument("--level", default="normal")
    s.add_argument("--iterations", type=int, default=2000)
    r = sub.add_parser("room", help="the best option by judges that see everything, the hands, the view")
    add_deal_arguments(r, matches=60, share=0.1, rollouts=32)
    args = parser.parse_args()
    {"build": build, "score": score, "room": room}[args.command](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
