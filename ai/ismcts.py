"""Single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012) on the Game protocol.

The searching seat knows only its view. Each iteration

1. samples a world (a full state) consistent with the view, using the game's sampler;
2. descends a tree of the seat's information sets: nodes are keyed by the public action
   sequence from the root (actions are public, so an opponent's decision node is shared by
   every world that reaches it), choosing among the children that are legal *in this
   world* by UCB1 with availability counts;
3. expands one untried action, plays out to the end of the deal (uniformly at random with
   ``game.random_playout``, which a game may fuse for speed, or with a policy hook);
4. backs up ``game.outcome(world, end)``: each node adds the reward of the seat that chose
   the action leading to it, so every node's mean is from its actor's point of view.

This module imports nothing from ``engine.games``: it sees a game only through
:class:`engine.protocol.Game`, and hidden cards only through ``game.sampler(view)``.
There is no module-level randomness: every run takes a ``random.Random``. The clock is a
parameter (a time budget needs one); iteration budgets are exactly reproducible.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Final

from engine.protocol import Game

Action = Hashable
PlayoutPolicy = Callable[[Game[Any], Any, random.Random], Action]
"""``policy(game, state, rng) -> action``: one legal action of the seat to act in ``state``.
A policy may also have a ``play_out(start, state, rng)`` attribute: the whole playout in
one call, the policy's actions applied by ``game.step`` until ``game.is_playout_over``
(the same actions from the same draws as stepping the policy; e.g. ``policies.PlayoutHook``,
compiled, so that a playout makes no interpreted call per step)."""

UCT_C = 0.7
"""Exploration constant for rewards in [0, 1] (the value Cowling et al. use)."""

SPREAD_SIZE: Final = 4096
SPREAD: Final[list[float]] = [0.0] + [1.0 / math.sqrt(n) for n in range(1, SPREAD_SIZE)]
"""``1 / sqrt(visits)`` by visits: a child's factor of UCB1's exploration term. (``Final``
so that the compiled loop reads it as a static, not from the module's dict.)"""


class Node:
    """An information-set node: statistics of the action that led here, from ``actor``'s side.

    The attributes are declared with their types so that the compiled build makes this a
    native class: the loop reads and writes them as C fields (floats unboxed), not through
    a dict or boxed objects."""

    __slots__ = ("actor", "visits", "total", "avail", "children", "mean", "spread")

    actor: int
    visits: int
    total: float
    avail: int
    children: dict[Action, Node]
    mean: float
    """``total / visits``, kept by the backup for the selection."""
    spread: float
    """``1 / sqrt(visits)``, kept by the backup for the selection."""

    def __init__(self, actor: int) -> None:
        self.actor = actor
        self.visits = 0
        self.total = 0.0
        self.avail = 0
        self.children = NO_CHILDREN
        self.mean = 0.0
        self.spread = 0.0


NO_CHILDREN: Final[dict[Action, Node]] = {}
"""The children of every node not expanded yet: one shared empty dict, never written (the
expansion gives a node its own dict). Most nodes of a tree are leaves: a dict each would be
an allocation per iteration that lives as long as the tree (and the garbage collector's
generations count it)."""


@dataclass
class SearchResult:
    """Root statistics: the root's legal actions (canonical order) and, per action, the
    visit count and total reward of the searching seat."""

    seat: int
    actions: list[Action]
    visits: list[int]
    totals: list[float]
    iterations: int
    elapsed_ms: float
    world: Any
    """The first sampled world (usable with ``game.action_to_json`` for the root actions)."""

    def best_index(self) -> int:
        """Most visited root action; ties by higher mean, then canonical order."""
        best = 0
        best_key = (-1, -1.0)
        for i, n in enumerate(self.visits):
            key = (n, self.totals[i] / n if n else 0.0)
            if key > best_key:
                best, best_key = i, key
        return best


def random_playout(game: Game[Any], state: Any, rng: random.Random) -> Action:
    """The default playout policy: a uniformly random legal action."""
    actions = game.legal_actions(state)
    return actions[int(rng.random() * len(actions))]


def search(
    game: Game[Any],
    view: dict[str, Any],
    rng: random.Random,
    *,
    iterations: int | None = None,
    ms: float | None = None,
    uct_c: float = UCT_C,
    playout: PlayoutPolicy | None = None,
    should_stop: Callable[[], bool] | None = None,
    clock: Callable[[], float] = time.perf_counter,
    sampler: Callable[[random.Random], Any] | None = None,
    root_candidates: list[Action] | None = None,
) -> SearchResult:
    """Search from ``view`` (whose ``seat`` must be to act) until ``iterations`` are done,
    ``ms`` milliseconds have passed, or ``should_stop()`` says so (checked before every
    iteration), whichever comes first; at least one limit must be given. With a single
    legal action it returns at once with 0 iterations. ``root_candidates`` (actions of
    the searching seat, legal in every world of the view) limits the root to those
    actions, for games whose bots cannot afford to search every legal action. Raises
    whatever ``game.sampler`` raises for an invalid view (InvalidState)."""
    if iterations is None and ms is None:
        raise ValueError("search needs a budget: iterations and/or ms")
    start_time = clock()
    sample = sampler if sampler is not None else game.sampler(view)
    first = sample(rng)
    seat = game.to_act(first)
    if seat is None:
        raise ValueError("the match is over: nothing to search")
    root_actions = game.legal_actions(first)
    root_only = None
    if root_candidates is not None:
        root_only = set(root_candidates)
        root_actions = [a for a in root_actions if a in root_only]
        if not root_actions:
            raise ValueError("none of the root candidates is legal")
    root = Node(-1)
    done = 0
    if len(root_actions) > 1:
        done = _run(
            game,
            sample,
            root,
            rng,
            first,
            iterations if iterations is not None else 1 << 62,
            start_time + ms / 1000.0 if ms is not None else math.inf,
            uct_c,
            playout,
            should_stop,
            clock,
            root_only,
        )
    children = root.children
    visits = []
    totals = []
    for action in root_actions:
        child = children.get(action)
        visits.append(child.visits if child is not None else 0)
        totals.append(child.total if child is not None else 0.0)
    return SearchResult(
        seat=seat,
        actions=list(root_actions),
        visits=visits,
        totals=totals,
        iterations=done,
        elapsed_ms=(clock() - start_time) * 1000.0,
        world=first,
    )


def _run(
    game: Game[Any],
    sample: Callable[[random.Random], Any],
    root: Node,
    rng: random.Random,
    first_world: Any,
    max_iterations: int,
    deadline: float,
    uct_c: float,
    playout: PlayoutPolicy | None,
    should_stop: Callable[[], bool] | None,
    clock: Callable[[], float],
    root_only: set[Action] | None = None,
) -> int:
    """The search loop; returns the number of iterations done.

    This is the hot path (see bench/ismcts_speed.py): the game's methods are bound to
    locals once, and every local is typed so that the compiled build keeps ints, floats
    and nodes native. The loop allocates nothing per iteration but the node the tree keeps
    (the world, its clone and the rewards are the game's): the path and the untried
    actions live in two lists reused by every iteration, and the root's candidates are
    filtered in the selection's single pass."""
    clone = game.clone
    step = game.step
    legal_actions = game.legal_actions
    to_act = game.to_act
    is_over = game.is_playout_over
    outcome = game.outcome
    random_playout = game.random_playout
    play_out: Callable[[Any, Any, random.Random], None] | None = getattr(playout, "play_out", None)
    rand = rng.random
    timed: bool = deadline != math.inf
    spreads = SPREAD
    # UCB1's exploration term is uct_c * sqrt(log(avail)) * spread: the first factor by
    # availability count from a table (grown as the counts grow), spread kept by the backup
    explore: list[float] = [0.0, 0.0]
    path: list[Node] = []  # the nodes of this iteration's descent, root excluded
    untried: list[Action] = []  # the actions of the expanded node without a child (then cleared)
    # typed here so that the compiled build keeps them as C ints and doubles
    visits: int
    total: float
    done: int = 0
    world = first_world
    while done < max_iterations:
        if len(explore) < done + 3:  # availability counts are at most done + 1
            explore.extend(uct_c * math.sqrt(math.log(n)) for n in range(len(explore), 2 * done + 4))
        if should_stop is not None and should_stop():
            break
        if timed and clock() >= deadline:
            break
        if done:
            world = sample(rng)
        state = clone(world)
        node: Node = root
        path.clear()
        only_candidates: bool = root_only is not None  # the root's actions are filtered
        # selection and expansion
        while not is_over(world, state):
            actions: list[Action] = legal_actions(state)
            children = node.children
            best: Node | None = None
            best_a: Action = None
            best_score: float = -math.inf
            # one pass: availability, untried actions and UCB1 of the tried ones
            for a in actions:
                child = children.get(a)
                if child is None:
                    # (an action the root does not consider is never expanded: no child)
                    if not only_candidates or a in root_only:  # type: ignore[operator]  # not None
                        untried.append(a)
                else:
                    avail: int = child.avail + 1
                    child.avail = avail
                    if not untried:
                        score: float = child.mean + explore[avail] * child.spread
                        if score > best_score:
                            best, best_a, best_score = child, a, score
            if untried:
                # float(): the compiled build multiplies two C doubles (the same product)
                a = untried[int(rand() * float(len(untried)))]
                untried.clear()
                new = Node(to_act(state))  # type: ignore[arg-type]  # not None: not over
                new.avail = 1
                if children is NO_CHILDREN:  # the node's first child: a dict of its own
                    children = {}
                    node.children = children
                children[a] = new
                step(state, a)
                path.append(new)
                break
            assert best is not None
            step(state, best_a)
            path.append(best)
            node = best
            only_candidates = False
        # playout
        if playout is None:
            random_playout(world, state, rng)
        elif play_out is not None:  # the policy's own loop (see PlayoutPolicy)
            play_out(world, state, rng)
        else:
            while not is_over(world, state):
                step(state, playout(game, state, rng))
        rewards: list[float] = outcome(world, state)
        for visited in path:
            visits = visited.visits = visited.visits + 1
            total = visited.total = visited.total + rewards[visited.actor]
            visited.mean = total / visits
            visited.spread = spreads[visits] if visits < SPREAD_SIZE else 1.0 / math.sqrt(visits)
        done += 1
    return done
