"""The policy registry: the "easy" level's heuristic per game and optional cheap playout hooks.

A policy is ``choose(game, state, seat, rng) -> action`` for the seat to act. It must
look only at what ``seat`` may see: the per-game policies read ``game.view(state, seat)``
(the JSON view of the rules file's State section) and nothing else of the state, so they
behave the same on the real state and on any world sampled from the seat's view.

Games without a policy of their own use :func:`greedy_policy` (one step of look-ahead
valued by ``game.outcome``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Iterable
from typing import Any

from engine.protocol import Game

Action = Hashable
Policy = Callable[[Game[Any], Any, int, random.Random], Action]

POLICIES: dict[str, Policy] = {}
"""Game id -> its heuristic policy (the "easy" level)."""

PlayoutPolicy = Callable[[Game[Any], Any, random.Random], Action]


class PlayoutHook:
    """A game's compiled playout policy (a module of :mod:`ai.playouts`) as a
    :data:`PlayoutPolicy`: calling it chooses one action, ``choose(state, rng)``; the
    search plays a whole playout with ``play_out(start, state, rng)`` instead (the same
    actions from the same draws, stepped by the engine until ``is_playout_over``), one
    call from the compiled search loop into compiled code (``ai.ismcts``)."""

    __slots__ = ("choose", "play_out")

    def __init__(
        self,
        choose: Callable[[Any, random.Random], Action],
        play_out: Callable[[Any, Any, random.Random], None],
    ) -> None:
        self.choose = choose
        self.play_out = play_out

    def __call__(self, game: Game[Any], state: Any, rng: random.Random) -> Action:
        return self.choose(state, rng)


PLAYOUTS: dict[str, PlayoutPolicy | None] = {}
"""Game id -> a cheap playout policy for ISMCTS (None: uniformly random playouts); filled
on first use from PLAYOUT_FACTORIES."""

PLAYOUT_FACTORIES: dict[str, Callable[[], PlayoutPolicy | None]] = {}
"""Game id -> a function building its playout policy (it may import the game's internals,
so it runs lazily; a failure means random playouts)."""


Candidates = Callable[[Game[Any], Any, int], list[Action] | None]

CANDIDATES: dict[str, tuple[frozenset[str], Candidates]] = {}
"""Game id -> (the searching levels that use it, ``candidates(game, state, seat)``): the
actions a bot of those levels considers at its root, the easy choice first (reads only
the seat's view), or None for all of them. For decisions a level's budget cannot search
well (Marriage's ~22 discards; Trex's contract choice and doubles at the normal level); a
level or game without one searches every decision over all legal actions."""


def register_candidates(game_id: str, levels: Iterable[str]) -> Callable[[Candidates], Candidates]:
    """Decorator: ``fn`` names the root candidates of ``game_id``'s searching ``levels``."""

    def deco(fn: Candidates) -> Candidates:
        CANDIDATES[game_id] = (frozenset(levels), fn)
        return fn

    return deco


def search_candidates(game: Game[Any], state: Any, seat: int, level: str = "normal") -> list[Action] | None:
    """The root actions a searching bot of ``level`` considers, or None for every legal action."""
    entry = CANDIDATES.get(game.id)
    if entry is None or level not in entry[0]:
        return None
    return entry[1](game, state, seat)


def register(game_id: str) -> Callable[[Policy], Policy]:
    """Decorator: make ``fn`` the heuristic policy of ``game_id``."""

    def deco(fn: Policy) -> Policy:
        POLICIES[game_id] = fn
        return fn

    return deco


def best_of(scored: Iterable[tuple[Action, float]], rng: random.Random) -> Action | None:
    """The action of highest value, ties broken uniformly at random (one draw from
    ``rng``); None when ``scored`` is empty."""
    best: list[Action] = []
    best_value = -math.inf
    for action, value in scored:
        if value > best_value:
            best, best_value = [action], value
        elif value == best_value:
            best.append(action)
    return best[int(rng.random() * len(best))] if best else None


def greedy_policy(game: Game[Any], state: Any, seat: int, rng: random.Random) -> Action:
    """The generic heuristic: one step of look-ahead on a world sampled from the seat's
    view, valued by ``game.outcome(state, after)[seat]`` (a won match is 1, else the
    game's mapping of the score change); ties broken at random."""

    def value(action: Action) -> float:
        after = game.clone(state)
        game.step(after, action)
        return game.outcome(state, after)[seat]

    best = best_of(((a, value(a)) for a in game.legal_actions(state)), rng)
    assert best is not None  # the seat to act always has a legal action
    return best


def choose(game: Game[Any], state: Any, seat: int, rng: random.Random) -> Action:
    """The easy level's action for ``seat`` (to act in ``state``)."""
    policy = POLICIES.get(game.id, greedy_policy)
    return policy(game, state, seat, rng)


def playout_policy(game: Game[Any]) -> PlayoutPolicy | None:
    """The game's cheap playout policy, or None for uniformly random playouts."""
    if game.id not in PLAYOUTS:
        factory = PLAYOUT_FACTORIES.get(game.id)
        hook = None
        if factory is not None:
            try:
                hook = factory()
            except Exception:  # noqa: BLE001 - a game's internals changed: play at random
                hook = None
        PLAYOUTS[game.id] = hook
    return PLAYOUTS[game.id]


Sampler = Callable[[random.Random], Any]

Inference = Callable[[Game[Any], dict[str, Any]], Sampler | None]

INFERENCES: dict[str, tuple[frozenset[str], Inference]] = {}
"""Game id -> (the searching levels that use it, ``inference(game, view)``): a sampler of
the worlds of the view that agree with an opponent model, e.g. Ronda's "a player declares
what it holds" (None: the model says nothing here). The rules' own deductions are the
game's sampler's (every world is consistent with the view); an opponent model may be
wrong, so an inference never contradicts the view and gives way to the rules' worlds
when none agrees."""


def register_inference(game_id: str, levels: Iterable[str]) -> Callable[[Inference], Inference]:
    """Decorator: ``fn`` is ``game_id``'s inference, used by the searching ``levels``."""

    def deco(fn: Inference) -> Inference:
        INFERENCES[game_id] = (frozenset(levels), fn)
        return fn

    return deco


def inferred_sampler(game: Game[Any], view: dict[str, Any], level: str) -> Sampler | None:
    """The sampler of a bot of ``level`` that uses the game's inference (None: it does not,
    or the inference says nothing for this view)."""
    entry = INFERENCES.get(game.id)
    if entry is None or level not in entry[0]:
        return None
    return entry[1](game, view)
