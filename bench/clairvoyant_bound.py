"""How far can seeing every card take a searching bot? An upper bound on a level's edge.

    .venv/bin/python bench/clairvoyant_bound.py --game porrazo --a hard --b normal --seed 8103 --jobs 2
    .venv/bin/python bench/clairvoyant_bound.py --game ronda --a normal --b normal --matches 200 --seed 8103

Side A's bot is the level ``--a``'s own search (its budget, playout hook, root candidates
and tie-break), except that every world it samples is the true state: it sees the other
hands and the order of the stock. That is a cheat, and it exists only here, as a measuring
stick (the service's bots and the arena's levels see only their seat's view). Side B plays
fair at ``--b``. It is the arena (``python -m ai.arena``: the same options, matches, seeds,
seat rotation and report) with side A's moves made this way, so a line here compares with
an arena line on the same series.

Why: a fair bot at ``--a`` cannot know more than this one, and this one searches the same
way, so its win rate against ``--b`` is (up to the search's own noise) the most a fair
``--a`` could reach with this search and these playouts. When even it falls short of a
target, the target needs a different kind of bot, not more budget or tuning of this one.
"""

from __future__ import annotations

from typing import Any

from ai import arena
from ai.bots import Budget, Decision, decide
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
    """Side A's move: ``level``'s own search, every world of it the true state."""
    seeing: Any = SeeingGame(game, state)
    return decide(seeing, game.view(state, seat), level=level, budget=budget, seed=seed)


if __name__ == "__main__":
    raise SystemExit(
        arena.main(
            decide_a=seeing_decider,
            a_note=" seeing every card",
            prog="python bench/clairvoyant_bound.py",
            description=__doc__.splitlines()[0],
        )
    )
