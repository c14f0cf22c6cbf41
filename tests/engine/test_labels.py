"""Action labels: every legal action of every game, in random seeded positions, gets a
non-empty label, and two different actions of one position never share a label."""

from __future__ import annotations

import json
import random

import pytest

from engine import GAME_IDS, get_game
from engine.labels import label, label_parts

POSITIONS = 60  # positions per game, along seeded random playouts


def positions(game_id: str, seed: int):
    """States met along one random playout from a seeded deal (every player count)."""
    game = get_game(game_id)
    rng = random.Random(seed)
    players = rng.choice(sorted(game.player_counts))
    state = game.new_state(players, game.parse_options({}, players), 0, seed=seed)
    while game.to_act(state) is not None:
        yield state
        actions = game.legal_actions(state)
        if not actions:
            return
        state, _ = game.apply(state, game.to_act(state), rng.choice(actions))


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_legal_action_has_its_own_non_empty_label(game_id):
    game = get_game(game_id)
    seen_types = set()
    for seed in range(3):
        for n, state in enumerate(positions(game_id, seed)):
            if n % 3:
                continue  # a sample of each playout keeps the test quick
            actions = [game.action_to_json(state, a) for a in game.legal_actions(state)]
            labels = {}
            for action in actions:
                text = label(action)
                assert text.strip() and "None" not in text, (action, text)
                labels.setdefault(text, []).append(json.dumps(action, sort_keys=True))
                seen_types.add(action["type"])
            shared = {text: found for text, found in labels.items() if len(set(found)) > 1}
            assert not shared, shared
    assert "play" in seen_types or "discard" in seen_types, seen_types


def test_a_label_is_a_verb_and_its_arguments():
    assert label_parts({"type": "play", "card": "TD", "ekka": True}) == ("play", ["10♦", "announcing ekka"])
    assert label({"type": "challenge", "target": 2}) == "challenge seat 2"
    assert label({"type": "choose_trump", "suit": "C"}) == "name trumps ♣"
    assert label({"type": "draw_stock"}) == "draw from the stock"
    assert label({"type": "play", "card": "3H", "capture": False}) == "play 3♥ without capturing"


def test_docstring_examples():
    import doctest

    import engine.labels

    result = doctest.testmod(engine.labels)
    assert result.attempted > 0 and result.failed == 0
