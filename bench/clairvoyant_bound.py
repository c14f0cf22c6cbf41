"""How far can seeing every card take a searching bot? An upper bound on a level's edge.

    .venv/bin/python bench/clairvoyant_bound.py --game porrazo --a hard --b normal --seed 8103 --jobs 2
    .venv/bin/python bench/clairvoyant_bound.py --game ronda --a normal --b normal --matches 200 --seed 8103
    .venv/bin/python bench/clairvoyant_bound.py --sees hands --game porrazo --a hard --b normal --seed 8103

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

``--sees hands``: side A sees the other hands but not the stock's order (each world is the
true state with its stock shuffled anew). No fair bot can learn the order of an unseen
stock, but a model of the opponents (what their bids, declarations and plays say of their
hands) can at best learn their hands: this bounds what any such model can add to the
level's search. Games whose stock is a plain tuple of unseen cards, Trex (no stock) and
Marriage (its stock shuffled below the tiplu and the men shown, and the tiplu drawn again
where the seat has not seen it).
"""

from __future__ import annotations

import random
import sys
from typing import Any

from ai import arena
from ai.bots import Budget, Decision, decide
from engine.games.marriage.sampling import pop_blind_tiplu
from engine.games.marriage.state import MState
from engine.games.marriage.tables import UNSEEN
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


class HandSeeingGame(SeeingGame):
    """Every world is the true state with the stock's order shuffled: the other hands
    seen, the stock's order not."""

    def __init__(self, game: Game[Any], state: Any) -> None:
        super().__init__(game, state)
        self._has_stock = hasattr(self._state, "stock")  # Trex deals every card: no stock
        plain = type(self._state.stock) is tuple if self._has_stock else True
        if not plain and game.id != "marriage":
            raise ValueError(f"{game.id}: --sees hands needs a stock that is a plain tuple of unseen cards")

    def sampler(self, view: dict[str, Any]) -> Any:
        game, state, has_stock = self._game, self._state, self._has_stock
        if game.id == "marriage":
            seat = int(view["seat"])
            return lambda rng: marriage_restocked(state, seat, rng)

        def world(rng: random.Random) -> Any:
            out = game.clone(state)
            if has_stock:
                stock = list(out.stock)
                rng.shuffle(stock)
                out.stock = tuple(stock)
            return out

        return world


def marriage_restocked(state: MState, seat: int, rng: random.Random) -> MState:
    """The true Marriage state with the stock shuffled anew, and the tiplu drawn again from
    it where ``seat`` has not seen it: what a seat would know that knew every other hand,
    not the order of the stock (no fair bot can learn that). The stock is bottom-first:
    the tiplu (once picked), then the men shown at the pick, then the unseen cards."""
    world = state.copy()
    fixed = (1 if world.tiplu >= 0 else 0) + world.men_rev
    cards = world.stock[fixed:]
    redraw_tiplu = world.tiplu >= 0 and world.route[seat] == UNSEEN
    if redraw_tiplu:
        cards.append(world.tiplu)
    rng.shuffle(cards)
    if redraw_tiplu:
        world.tiplu = pop_blind_tiplu(cards)
    world.stock = world.stock[:fixed] + cards
    if world.tiplu >= 0:
        world.stock[0] = world.tiplu
    return world


def hand_seeing_decider(
    game: Game[Any], state: Any, seat: int, level: str, budget: Budget | None, seed: int
) -> Decision:
    """Side A's move: ``level``'s own search, every world the true hands and a shuffled stock."""
    seeing: Any = HandSeeingGame(game, state)
    return decide(seeing, game.view(state, seat), level=level, budget=budget, seed=seed)


SEES = {
    "all": (seeing_decider, " seeing every card"),
    "hands": (hand_seeing_decider, " seeing the other hands"),
}


def main(argv: list[str]) -> int:
    """``--sees`` picks side A's sight; every other option is the arena's."""
    sees = "all"
    if "--sees" in argv:
        at = argv.index("--sees")
        if at + 1 >= len(argv) or argv[at + 1] not in SEES:
            print(f"--sees: one of {', '.join(SEES)}", file=sys.stderr)
            return 2
        sees = argv[at + 1]
        argv = argv[:at] + argv[at + 2 :]
    decide_a, note = SEES[sees]
    return arena.main(
        argv,
        decide_a=decide_a,
        a_note=note,
        prog="python bench/clairvoyant_bound.py [--sees all|hands]",
        description=__doc__.splitlines()[0],
    )


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
