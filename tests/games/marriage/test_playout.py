"""Marriage's search path (engine/games/marriage/playout.py and the functions ``Marriage``
binds for the search) against the protocol's generic loop and the checked ``apply``."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import get_game
from engine.games.marriage import hand_eval, playout, rules
from engine.games.marriage.game import Marriage
from engine.games.marriage.state import MState, history_entries
from engine.protocol import Game

GAME = get_game("marriage")


def played_state(seed: int, players: int, steps: int, options: dict | None = None) -> MState:
    """A seeded match after ``steps`` uniformly random actions (seen seats, shows and
    finishes come along the way)."""
    rng = random.Random(seed)
    state = GAME.new_state(players, options, seed % players, seed=seed)
    for _ in range(steps):
        if GAME.to_act(state) is None:
            break
        GAME.step(state, rng.choice(GAME.legal_actions(state)))
    return state


def check_playout(start: MState, seed: int) -> None:
    """The compiled playout draws what the generic loop draws with the same rng, stops
    where ``is_playout_over`` says, and every action it took was legal (``apply`` checks)."""
    fused = GAME.clone(start)
    fused_rng = random.Random(seed)
    GAME.random_playout(start, fused, fused_rng)
    generic = GAME.clone(start)
    generic_rng = random.Random(seed)
    Game.random_playout(GAME, start, generic, generic_rng)
    assert GAME.to_json(fused) == GAME.to_json(generic)
    assert fused_rng.getstate() == generic_rng.getstate()
    assert GAME.outcome(start, fused) == GAME.outcome(start, generic)
    assert GAME.is_playout_over(start, fused)
    before = start.hlen
    replay = GAME.clone(start)
    for seat, action in history_entries(fused, False)[before:]:
        if GAME.to_act(replay) is None or replay.deal_no != start.deal_no:
            break  # the entries of a next deal dealt by the engine
        assert GAME.to_act(replay) == seat
        replay, _ = GAME.apply(replay, seat, action)  # checked: raises on an illegal action
    assert GAME.is_playout_over(start, replay)


@given(
    seed=st.integers(0, 10**6),
    players=st.integers(2, 5),
    steps=st.integers(0, 400),
    unseen_take_discard=st.booleans(),
    turn_limit=st.sampled_from((30, 1000)),
)
@settings(max_examples=60, deadline=None)
def test_the_playout_plays_what_the_generic_loop_plays(seed, players, steps, unseen_take_discard, turn_limit):
    options = {"unseen_take_discard": unseen_take_discard, "turn_limit": turn_limit}
    check_playout(played_state(seed, players, steps, options), seed)


def test_the_playout_from_a_sampled_world_plays_what_the_generic_loop_plays() -> None:
    for seed in range(6):
        state = played_state(seed, 2 + seed % 3, 30 + 20 * seed)
        seat = GAME.to_act(state)
        if seat is None:
            continue
        world = GAME.sampler(GAME.view(state, seat))(random.Random(seed))
        check_playout(world, seed)


def test_the_search_calls_the_compiled_functions_directly() -> None:
    assert GAME.step is rules.step
    assert GAME.legal_actions is rules.legal_actions
    assert GAME.to_act is rules.to_act
    assert GAME.clone is MState.copy
    assert GAME.is_playout_over is hand_eval.is_playout_over
    assert GAME.outcome is hand_eval.outcome
    assert GAME.random_playout is playout.random_playout


def test_a_subclass_keeps_its_overrides_of_the_bound_methods() -> None:
    class Counting(Marriage):
        def outcome(self, start: MState, end: MState) -> list[float]:
            return [0.0] * end.n

    game = Counting()
    state = played_state(1, 2, 10)
    assert game.outcome(state, state) == [0.0, 0.0]
    assert game.step is rules.step


def test_r10_an_unseen_seat_may_not_take_the_discard_when_the_option_says_so() -> None:
    state = played_state(3, 2, 0, {"unseen_take_discard": False})
    while GAME.phase(state) != "draw":
        GAME.step(state, GAME.legal_actions(state)[0])
    assert rules.take_discard_refusal(state) == 1
    assert GAME.legal_actions(state) == [rules.DRAW_STOCK]
    problem = rules.take_discard_problem(state)
    assert problem is not None and problem.rule == "R10"
    assert problem.reason == "you cannot take the discard before seeing the joker"
