"""How far can seeing every card take a searching bot? An upper bound on a level's edge.

    .venv/bin/python bench/clairvoyant_bound.py --game porrazo --a hard --b normal --seed 8103 --jobs 2
    .venv/bin/python bench/clairvoyant_bound.py --game ronda --a normal --b normal --matches 200 --seed 8103

Side A's bot is the level ``--a``'s own search (its budget, playout hook, root candidates
and tie-break), except that every world it samples is the true state: it sees the other
hands and the order of the stock. That is a cheat, and it exists only here, as a measuring
stick (the service's bots and the arena's levels see only their seat's view). Side B plays
fair at ``--b``. The matches, seeds, seat rotation and report are the arena's
(``python -m ai.arena``), so a line here compares with an arena line on the same series.

Why: a fair bot at ``--a`` cannot know more than this one, and this one searches the same
way, so its win rate against ``--b`` is (up to the search's own noise) the most a fair
``--a`` could reach with this search and these playouts. When even it falls short of a
target, the target needs a different kind of bot, not more budget or tuning of this one.
"""

from __future__ import annotations

import argparse
import functools
import json
import time
from typing import Any

from ai.arena import Decider, MatchResult, fair_decider, play_match, play_series
from ai.bots import LEVELS, Budget, Decision, decide
from engine import get_game
from engine.protocol import Game


class SeeingGame:
    """``game`` unchanged but for its sampler: every world it samples is a copy of the
    true ``state``. Everything else is the game's own (``__getattr__``)."""

    def __init__(self, game: Game[Any], state: Any) -> None:
        self._game = game
        self._state = game.clone(state)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def sampler(self, view: dict[str, Any]) -> Any:
        game, state = self._game, self._state
        return lambda rng: game.clone(state)


def seeing_decider(
    game: Game[Any], state: Any, seat: int, level: str, budget: Budget | None, seed: int
) -> Decision:
    """Side A (its level named ``seeing-<level>``) searches the true state; side B is fair."""
    if level.startswith("seeing-"):
        seeing: Any = SeeingGame(game, state)
        view = game.view(state, seat)
        return decide(seeing, view, level=level.removeprefix("seeing-"), budget=budget, seed=seed)
    return fair_decider(game, state, seat, level, budget, seed)


def _play(
    game_id: str,
    players: int,
    options: dict[str, Any],
    level_a: str,
    level_b: str,
    budget: Budget | None,
    seed: int,
    index: int,
) -> MatchResult:
    decider: Decider = seeing_decider
    return play_match(
        get_game(game_id),
        players=players,
        options=options,
        level_a=f"seeing-{level_a}",
        level_b=level_b,
        budget=budget,
        seed=seed,
        index=index,
        decider=decider,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True)
    parser.add_argument(
        "--a", default="hard", choices=[level for level in LEVELS if level not in ("random", "easy")]
    )
    parser.add_argument("--b", default="normal", choices=LEVELS)
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument(
        "--budget-iterations", type=int, default=None, help="both sides (default: each level's)"
    )
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()

    game = get_game(args.game)
    players = args.players if args.players is not None else min(game.player_counts)
    options = game.parse_options(None, players)
    budget = Budget(iterations=args.budget_iterations) if args.budget_iterations is not None else None
    sides = len(game.score(game.new_state(players, options, 0, seed=0)).sides)
    play = functools.partial(_play, args.game, players, options, args.a, args.b, budget, args.seed)
    indices = range(args.first, args.first + args.matches)
    started = time.perf_counter()
    tally = play_series(play, indices, args.jobs, f"{args.game} seeing {args.a} v {args.b}")
    print(f"game {args.game}, players {players}, options {json.dumps(options, sort_keys=True)}")
    print(
        f"A = {args.a} seeing every card, B = {args.b}, budget "
        f"{'iterations=' + str(budget.iterations) if budget else 'level default'}, seed {args.seed}, "
        f"matches {indices.start}-{indices.stop - 1}, {time.perf_counter() - started:.1f}s"
    )
    print("\n".join(tally.report(sides)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
