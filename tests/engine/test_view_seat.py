"""Every game's view refuses a seat that is not at the table, in the same words."""

from __future__ import annotations

import pytest

from engine import GAME_IDS, get_game
from engine.protocol import InvalidState


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_view_of_a_seat_not_at_the_table_is_refused(game_id: str) -> None:
    game = get_game(game_id)
    players = game.player_counts[0]
    state = game.new_state(players, {}, 0, seed=7)
    for seat in (-1, players, True, "0", None):
        with pytest.raises(InvalidState) as refused:
            game.view(state, seat)  # type: ignore[arg-type]
        assert refused.value.field == "seat"
        assert str(refused.value) == f"seat must be a seat from 0 to {players - 1}"
    assert game.view(state, players - 1)["seat"] == players - 1
