"""The normal level's playout hooks are compiled (``ai.playouts``, hot modules), choose
alike in both builds, and the search's one-call playout (``play_out``) plays exactly what
stepping the hook plays.

Like tests/ai/test_build_modes.py, each build runs in its own subprocess (a process loads
one build: engine/build_mode.py)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from ai import build_info, ismcts, policies
from engine import build_mode, get_game
from tests.ai.builds import environment, run_child

HOOKED = ("trex", "ronda", "porrazo", "marriage")
"""The games with a playout hook."""
SEEDS = (1, 2, 3)


def _hook(game: Any) -> policies.PlayoutHook:
    hook = policies.playout_policy(game)
    assert isinstance(hook, policies.PlayoutHook)
    return hook


def _states(game: Any, seed: int, steps: int = 1000) -> list[Any]:
    """States met along one seeded game played by the hook itself (every phase it meets)."""
    hook = _hook(game)
    players = min(game.player_counts)
    state = game.new_state(players, game.parse_options({}, players), 0, seed=seed)
    rng = random.Random(seed)
    out = []
    for _ in range(steps):
        if game.to_act(state) is None:
            break
        out.append(game.clone(state))
        game.step(state, hook.choose(state, rng))
    return out


def hook_choices() -> dict[str, Any]:
    """Per game and seed: the hook's choices (JSON) from the states of a seeded game, each
    with a fresh generator, and the outcome of a whole playout from every tenth state."""
    out: dict[str, Any] = {"mode": build_info.loaded_mode()}
    for game_id in HOOKED:
        game = get_game(game_id)
        hook = _hook(game)
        for seed in SEEDS:
            states = _states(game, seed)
            choices = [
                game.action_to_json(s, hook.choose(s, random.Random(seed * 1000 + i)))
                for i, s in enumerate(states)
            ]
            outcomes = []
            for i, start in enumerate(states[::10]):
                end = game.clone(start)
                hook.play_out(start, end, random.Random(i))
                outcomes.append(game.outcome(start, end))
            out[f"{game_id}/{seed}"] = {"choices": choices, "outcomes": outcomes}
    return out


@pytest.mark.parametrize("game_id", HOOKED)
def test_the_hook_is_a_compiled_module_of_the_hot_list(game_id: str) -> None:
    hook = _hook(get_game(game_id))
    module = f"ai.playouts.{game_id}"
    assert module in build_mode.HOT_MODULES
    assert hook.choose.__module__ == module and hook.play_out.__module__ == module


@pytest.mark.slow
def test_compiled_and_interpreted_hooks_choose_alike() -> None:
    interpreted = run_child(True, "tests.ai.test_playout_hooks", "hook_choices")
    default = run_child(False, "tests.ai.test_playout_hooks", "hook_choices")
    assert interpreted.pop("mode") == "interpreted"
    # without the switch, the compiled build runs whenever one is built and fresh
    assert default.pop("mode") == build_mode.decide(environment(pure=False)).mode
    assert len(default) == len(HOOKED) * len(SEEDS)
    for key, played in default.items():
        assert played == interpreted[key], key
        assert len(played["choices"]) > 20, key


@pytest.mark.parametrize("game_id", HOOKED)
def test_play_out_plays_what_stepping_the_hook_plays(game_id: str) -> None:
    """The one-call playout and the search's step loop over the hook (``step(state,
    hook(game, state, rng))`` until ``is_playout_over``) end in the same state's outcome
    and leave the generator in the same place; so does a whole search."""
    game = get_game(game_id)
    hook = _hook(game)
    for seed in SEEDS:
        for i, start in enumerate(_states(game, seed)[::7]):
            fused, stepped = game.clone(start), game.clone(start)
            rng_fused, rng_stepped = random.Random(i), random.Random(i)
            hook.play_out(start, fused, rng_fused)
            while not game.is_playout_over(start, stepped):
                game.step(stepped, hook(game, stepped, rng_stepped))
            assert game.outcome(start, fused) == game.outcome(start, stepped), (seed, i)
            assert rng_fused.random() == rng_stepped.random(), (seed, i)
    state = _states(game, SEEDS[0])[5]
    seat = game.to_act(state)
    view = game.view(state, seat)

    def per_step(g: Any, s: Any, rng: random.Random) -> Any:  # no play_out: the step loop
        return hook(g, s, rng)

    searched = [
        ismcts.search(game, view, random.Random(4), iterations=60, playout=playout)
        for playout in (hook, per_step)
    ]
    assert searched[0].visits == searched[1].visits
    assert searched[0].totals == searched[1].totals


def _trex_choice_on_lists(s: Any, rng: random.Random) -> Any:
    """The Trex hook's ``choose`` as it was written on the ``legal_actions`` list (before
    it ran on the bit masks): the reference its mask form must match, draws included."""
    from engine.games.trex.rules import legal_actions
    from engine.games.trex.tables import PENALTY_MASK, TRICKS

    actions = legal_actions(s)
    n = len(actions)
    if n == 1:
        return actions[0]
    if s.phase != TRICKS or rng.random() < 0.1:
        return actions[int(rng.random() * n)]
    trick, penalty = s.trick, PENALTY_MASK[s.contract]
    if not trick:
        return min(actions, key=lambda c: c % 13)
    if actions[0] // 13 == trick[0] // 13:
        if actions[0] < s.best:
            return [c for c in actions if c < s.best][-1]
        if len(trick) == 3:
            return ([c for c in actions if not penalty >> c & 1] or actions)[-1]
        return actions[0]
    return max([c for c in actions if penalty >> c & 1] or actions, key=lambda c: c % 13)


def test_trex_hook_chooses_what_its_list_form_chose() -> None:
    """Every state of seeded hooked Trex games (every phase), several generators each: the
    mask form (``HookTricks.card``) picks the list form's action and leaves the generator in the
    same place."""
    game = get_game("trex")
    hook = _hook(game)
    checked = 0
    for seed in range(1, 7):
        for i, state in enumerate(_states(game, seed)):
            for draw in range(3):
                rng_mask, rng_list = random.Random(i * 10 + draw), random.Random(i * 10 + draw)
                assert hook.choose(state, rng_mask) == _trex_choice_on_lists(state, rng_list), (seed, i)
                assert rng_mask.random() == rng_list.random(), (seed, i)
                checked += 1
    assert checked > 1000


def test_the_porrazo_hook_takes_the_biggest_capture_and_declares_what_it_holds() -> None:
    """Checked against the engine's own play of every card in the hand: the hook's value of
    a card is the table cards it takes, 3 more when it clears the table and 10
    more for a porrazo (a counter-porrazo or San Benito: 100); the hook plays a card of the
    highest value (so it captures whenever it can), never declines a capture, declares its
    true combination and claims what it can."""
    from ai.playouts import porrazo as hook
    from engine.games.porrazo.rules import holding, step
    from engine.games.porrazo.tables import DECLINE, NO_COMBO, P_CLAIM, P_DECLARE, P_PLAY, PASS

    game = get_game("porrazo")
    checked = captures = declarations = 0
    for seed in range(8):
        for state in _states(game, seed, steps=400):
            choice = hook.choose(state, random.Random(seed))
            assert choice in game.legal_actions(state)
            if state.phase == P_PLAY:
                assert choice < DECLINE
                hand = state.hands[state.to_act]
                values = {c: hook.capture_value(state, c) for c in hand}
                assert values[choice] == max(values.values())
                for card in hand:
                    events: list[Any] = []
                    step(game.clone(state), card, events)
                    if values[card] >= 100:
                        assert events[0]["type"] in ("counter_porrazo", "san_benito")
                        continue
                    if events[0]["type"] != "capture":
                        assert values[card] == 0
                        continue
                    taken = len(events[0]["cards"])
                    cleared = taken == len(state.table)
                    assert values[card] == taken + 3 * cleared + 10 * events[0]["porrazo"]
                    checked += 1
                captures += values[choice] > 0
            elif state.phase == P_DECLARE:
                declarations += 1
                held = holding(state.dealt[state.to_act])[0]
                assert (choice == PASS) == (held == NO_COMBO)
            elif state.phase == P_CLAIM:
                assert choice != PASS
    assert checked > 100 and captures > 50 and declarations > 20
