"""The public view (a spectator's): no card that any seat cannot see, and no seat's own
hand, in random seeded positions of every game."""

from __future__ import annotations

from collections import Counter

import pytest

from engine import GAME_IDS, get_game
from tests.engine.test_labels import positions


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)


def hidden_from_someone(game, state) -> set[str]:
    """Codes of which some seat sees no copy: a spectator must see none of them."""
    pack = Counter(game.pack(state))
    out = set()
    for seat in range(game.players(state)):
        hidden = Counter(game.hidden_cards(state, seat))
        out |= {code for code, n in hidden.items() if n >= pack[code]}
    return out


@pytest.mark.parametrize("game_id", GAME_IDS)
@pytest.mark.slow
def test_the_public_view_shows_no_card_a_seat_may_not_see(game_id):
    game = get_game(game_id)
    checked = 0
    for seed in range(3):
        for n, state in enumerate(positions(game_id, seed)):
            if n % 5:
                continue
            public = game.public_view(state)
            assert public["seat"] is None and "rng_state" not in public
            leaked = hidden_from_someone(game, state) & set(strings(public))
            assert not leaked, (n, sorted(leaked))
            # what every seat sees of the table is in it: the same fields as a view
            assert set(public) == set(game.view(state, 0)), set(public) ^ set(game.view(state, 0))
            checked += 1
    assert checked > 10


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_public_view_holds_no_hand(game_id):
    game = get_game(game_id)
    state = next(iter(positions(game_id, 7)))
    public = game.public_view(state)
    assert all(isinstance(h, int) for h in public["hands"]), public["hands"]
