"""Opponent models in the searched worlds: Ronda's searching levels take declarations at
their word (``policies.INFERENCES``, ``bots.level_sampler``)."""

from __future__ import annotations

import random
from typing import Any

from ai import ismcts, policies
from ai.bots import Budget, level_sampler, search_root
from engine import get_game
from engine.games.ronda.rules import holding


def _declared_positions(matches: int) -> Any:
    """(state, view, opponent) at Ronda play decisions of seeded easy-v-easy matches."""
    game = get_game("ronda")
    for match in range(matches):
        state = game.new_state(2, game.parse_options({}, 2), match % 2, seed=300 + match)
        rng = random.Random(match)
        while (seat := game.to_act(state)) is not None:
            view = game.view(state, seat)
            if view["phase"] == "play":
                yield state, view, 1 - seat
            game.step(state, policies.choose(game, state, seat, rng))


def test_ronda_searches_worlds_where_declarations_are_true() -> None:
    """The rules let a seat bluff, so the game's sampler deals an opponent who declared a
    ronda a hand without one in most worlds; the searching levels (normal, hard) deal
    only hands that hold what was declared, and the true state (honest easy seats) is
    always such a world."""
    game = get_game("ronda")
    false_plain = 0
    for state, view, opponent in _declared_positions(3):
        assert holding(state.dealt[opponent])[0] == state.decl[opponent]  # easy declares honestly
        plain = game.sampler(view)
        false_plain += sum(
            holding(w.dealt[opponent])[0] != w.decl[opponent]
            for w in (plain(random.Random(k)) for k in range(10))
        )
        for level in ("normal", "hard"):
            sample = level_sampler(game, view, level)
            for k in range(10):
                world = sample(random.Random(k))
                assert game.view(world, view["seat"]) == view
                assert holding(world.dealt[opponent])[0] == world.decl[opponent]
    assert false_plain > 200


def test_ronda_ignores_declarations_no_deal_can_meet() -> None:
    """In a deal's last hand (the stock empty) the opponent's hidden cards are the only
    unseen ones: when it bluffed (random seats declare at random, a legal bluff), no deal
    meets its declaration, and the searching levels then sample as the rules do."""
    game = get_game("ronda")
    found = 0
    for match in range(200):
        state = game.new_state(2, game.parse_options({}, 2), 0, seed=900 + match)
        rng = random.Random(match)
        while (seat := game.to_act(state)) is not None and found < 3:
            view = game.view(state, seat)
            opponent = 1 - seat
            if (
                view["phase"] == "play"
                and view["stock"] == 0
                and isinstance(view["hands"][opponent], int)
                and view["hands"][opponent]
                and holding(state.dealt[opponent])[0] != state.decl[opponent]
            ):
                found += 1
                assert policies.inferred_sampler(game, view, "normal") is None
                world = level_sampler(game, view, "normal")(random.Random(0))
                assert world.hands[opponent] == state.hands[opponent]  # the only deal there is
            actions = game.legal_actions(state)
            game.step(state, actions[int(rng.random() * len(actions))])
        if found >= 3:
            break
    assert found >= 3


def test_a_root_parallel_part_searches_its_levels_worlds() -> None:
    """``search_root`` (one Celery part of a root-parallel search; a review's search)
    samples its worlds as ``decide`` does at its level: the declarations-true worlds, not
    the rules' worlds."""
    game = get_game("ronda")
    _, view, _ = next(
        (s, v, o)
        for s, v, o in _declared_positions(3)
        if len(game.legal_actions(s)) > 2 and v["declarations"][o] == "ronda"
    )

    def visits(sampler: Any) -> list[int]:
        playout = policies.playout_policy(game)
        result = ismcts.search(game, view, random.Random(5), iterations=300, playout=playout, sampler=sampler)
        return result.visits

    part = search_root(game, view, Budget(iterations=300), 5, level="hard")
    hard_worlds = visits(level_sampler(game, view, "hard"))
    assert [a["visits"] for a in part["actions"]] == hard_worlds
    assert visits(game.sampler(view)) != hard_worlds
