"""Opponent models in the searched worlds: Porrazo's hard level reads the opponents'
drops ("a player who can capture, captures"), Ronda's searching levels take declarations
at their word."""

from __future__ import annotations

import random
from typing import Any

from ai import policies
from ai.bots import level_sampler
from ai.policies.porrazo import _maybe_en_su_lugar, plausible_world, ranks_not_held
from engine import get_game
from engine.games.ronda.rules import holding


def _view(table: list[str], played: list[list[str]], hands: list[Any], seat: int = 0) -> dict[str, Any]:
    return {"seat": seat, "table": table, "played": played, "hands": hands}


def test_a_drop_says_the_dropper_held_none_of_the_ranks_below_it() -> None:
    # seat 1 dropped 9S onto 5D 7C, then seat 0 dropped 2H, then seat 1 dropped KC
    view = _view(["5D", "7C", "9S", "2H", "KC"], [["2H"], ["9S", "KC"]], [["3S"], 1])
    assert ranks_not_held(view) == {1: {"5", "7", "9", "2"}}


def test_captures_own_drops_and_empty_hands_say_nothing() -> None:
    # seat 1's 6H captured (it lies on a pile, not the table); seat 0's drop is its own
    assert ranks_not_held(_view(["5D", "7C"], [["7C"], ["6H"]], [["3S"], 2])) == {}
    # seat 1 has played its last card: nothing left to infer about
    assert ranks_not_held(_view(["5D", "9S"], [[], ["9S"]], [["3S"], 0])) == {}


def test_porrazo_drops_that_may_score_en_su_lugar_are_exempt() -> None:
    # a 3 dropped onto two cards may have been kept back for en su lugar (R13/R14)
    assert _maybe_en_su_lugar("3C", 2) and _maybe_en_su_lugar("4H", 0) and _maybe_en_su_lugar("AS", 0)
    assert not _maybe_en_su_lugar("3C", 3) and not _maybe_en_su_lugar("KC", 0)
    assert ranks_not_held(_view(["5D", "7C", "3C"], [[], ["3C"]], [["2S"], 2])) == {}
    assert ranks_not_held(_view(["5D", "7C", "8H", "3C"], [[], ["3C"]], [["2S"], 2])) == {1: {"5", "7", "8"}}


def _positions(game_id: str, matches: int) -> Any:
    """(state, view) at every play decision of seeded easy-v-easy matches where the game's
    inference says something."""
    game = get_game(game_id)
    for match in range(matches):
        state = game.new_state(2, game.parse_options({}, 2), match % 2, seed=300 + match)
        rng = random.Random(match)
        while (seat := game.to_act(state)) is not None:
            view = game.view(state, seat)
            if plausible_world(view) is not None:
                yield state, view
            game.step(state, policies.choose(game, state, seat, rng))


def test_the_truth_is_plausible_against_the_easy_policy() -> None:
    """The easy policy captures whenever it can: the real state always passes the test
    built from the view (so the hard level never rules out the true world against easy)."""
    seen = 0
    for state, view in _positions("porrazo", 6):
        plausible = plausible_world(view)
        assert plausible is not None and plausible(state)
        seen += 1
    assert seen > 50


def test_hard_searches_plausible_worlds_and_normal_every_world() -> None:
    game = get_game("porrazo")
    ruled_out = 0
    for _, view in _positions("porrazo", 3):
        plausible = plausible_world(view)
        assert plausible is not None
        plain = [game.sampler(view)(random.Random(seed)) for seed in range(40)]
        ruled_out += sum(not plausible(world) for world in plain)
        normal = level_sampler(game, view, "normal")
        assert [game.to_json(normal(random.Random(seed))) for seed in range(40)] == [
            game.to_json(world) for world in plain
        ]
        hard = level_sampler(game, view, "hard")
        rng = random.Random(7)
        worlds = [hard(rng) for _ in range(40)]
        # every world agrees with the view; all but a rare fallback are plausible
        assert all(game.view(world, view["seat"]) == view for world in worlds)
        assert sum(plausible(world) for world in worlds) >= 36
    assert ruled_out > 100  # the inference does rule worlds out


def test_a_root_parallel_part_at_hard_searches_the_hard_worlds() -> None:
    """``search_root`` (one Celery part of a root-parallel search) samples its worlds as
    ``decide`` does at its level: at a position where the drops rule worlds out, a part at
    hard is the search over ``level_sampler(..., "hard")``'s worlds, not normal's."""
    from ai import ismcts
    from ai.bots import Budget, search_root

    game = get_game("porrazo")
    _, view = next(
        (s, v)
        for s, v in _positions("porrazo", 3)
        if len(game.legal_actions(s)) > 2 and len(ranks_not_held(v).get(1 - v["seat"], ())) >= 3
    )
    hard = search_root(game, view, Budget(iterations=300), 5, level="hard")
    again = ismcts.search(
        game,
        view,
        random.Random(5),
        iterations=300,
        playout=policies.playout_policy(game),
        sampler=level_sampler(game, view, "hard"),
    )
    assert [a["visits"] for a in hard["actions"]] == again.visits
    normal = search_root(game, view, Budget(iterations=300), 5, level="normal")
    assert [a["visits"] for a in normal["actions"]] != again.visits


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
