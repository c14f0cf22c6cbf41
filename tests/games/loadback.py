"""The loaders must never refuse a state the engine itself reaches: shared checks for each
game's tampering tests (the game passes its own worked-example runner and matches)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from engine.protocol import Game, InvalidSetup


def loads_back(game: Game, state: Any) -> Any:
    """``state`` after asserting that its JSON loads back to exactly the same JSON."""
    doc = json.loads(json.dumps(game.to_json(state)))
    assert game.to_json(game.from_json(doc)) == doc
    return state


def option_sets(game: Game) -> list[dict]:
    """The defaults, then each option at each of its other values (bools both ways, every
    choice, an int's test values)."""
    sets: list[dict] = [{}]
    for spec in game.option_specs:
        values = spec.test_values or ((False, True) if spec.kind == "bool" else spec.choices)
        sets += [{spec.name: value} for value in values if value != spec.default]
    return sets


def option_id(options: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items())


def seeded_matches_load_back(game: Game, options: dict, steps: int = 300) -> None:
    """Along seeded random matches of every seat count, each state loads back from its
    JSON, and each seat's view now and then gives a sample whose view it is."""
    for players in game.player_counts:
        try:
            game.parse_options(options, players)
        except InvalidSetup:  # an option the seat count forbids
            continue
        rng = random.Random(players)
        state = game.new_state(players, options, players - 1, seed=players)
        for step in range(steps):
            loads_back(game, state)
            if step % 9 == 0:
                for seat in range(players):
                    view = game.view(state, seat)
                    assert game.view(game.sampler(view)(rng), seat) == view
            if game.to_act(state) is None:
                break
            state = game.apply(state, game.to_act(state), rng.choice(game.legal_actions(state)))[0]


def worked_example_loads_back(game: Game, run_example: Callable[[], None], monkeypatch) -> None:
    """Every state a worked example builds (from decks, layouts and seeds, and after every
    action) loads back: ``run_example`` runs with the game's new_state and apply checked."""
    apply, new_state = game.apply, game.new_state

    def checked_apply(state, seat, action):
        nxt, events = apply(state, seat, action)
        return loads_back(game, nxt), events

    monkeypatch.setattr(game, "apply", checked_apply)
    monkeypatch.setattr(game, "new_state", lambda *a, **k: loads_back(game, new_state(*a, **k)))
    run_example()
