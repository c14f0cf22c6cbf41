"""The one ``new_state`` contract (engine/protocol.py, ``Game.new_state``), for every game:
a seed, a deck or a layout; a deck and a layout exclude each other; a seed with a deck
deals the later deals; no seed at all draws a fresh one."""

from __future__ import annotations

import pytest

from engine import GAME_IDS, get_game
from engine.protocol import Game, InvalidSetup


def smallest(game: Game) -> int:
    return min(game.player_counts)


def a_deck(game: Game, seed: int) -> list[str]:
    """A legal deck: the cards of a seeded match's pack, in the order that match shows."""
    return list(game.pack(game.new_state(smallest(game), {}, 0, seed=seed)))


@pytest.mark.parametrize("game_id", GAME_IDS)
@pytest.mark.parametrize("seed", [True, -1, 2**63, 1.5, "7"])
def test_a_seed_is_a_whole_number_below_2_63(game_id: str, seed: object) -> None:
    game = get_game(game_id)
    with pytest.raises(InvalidSetup) as err:
        game.new_state(smallest(game), {}, 0, seed=seed)  # type: ignore[arg-type]
    assert err.value.field == "seed"


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_deck_and_a_layout_exclude_each_other(game_id: str) -> None:
    game = get_game(game_id)
    with pytest.raises(InvalidSetup) as err:
        game.new_state(smallest(game), {}, 0, deck=a_deck(game, 1), layout={})
    assert err.value.field == "deck"


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_layout_is_an_object(game_id: str) -> None:
    game = get_game(game_id)
    with pytest.raises(InvalidSetup) as err:
        game.new_state(smallest(game), {}, 0, layout=["not", "an", "object"])  # type: ignore[arg-type]
    assert err.value.field == "layout"


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_one_seed_one_match_and_no_seed_a_fresh_one(game_id: str) -> None:
    game = get_game(game_id)
    n = smallest(game)
    same = [game.to_json(game.new_state(n, {}, 0, seed=2**62 + 5)) for _ in range(2)]
    assert same[0] == same[1]
    assert same[0]["rng_state"] is not None
    fresh = [game.to_json(game.new_state(n, {}, 0))["rng_state"] for _ in range(2)]
    assert None not in fresh and fresh[0] != fresh[1]  # 63 fresh bits each: never 0 by default


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_deck_alone_is_caller_dealt_and_a_seed_with_it_deals_the_later_deals(game_id: str) -> None:
    game = get_game(game_id)
    n = smallest(game)
    deck = a_deck(game, 3)
    alone = game.new_state(n, {}, 0, deck=deck)
    seeded = game.new_state(n, {}, 0, deck=deck, seed=11)
    assert game.to_json(alone)["rng_state"] is None
    assert game.to_json(seeded)["rng_state"] is not None
    # the first deal is the deck's either way (what every seat sees of it is the same)
    assert game.view(alone, 0)["hands"] == game.view(seeded, 0)["hands"]
    doc = game.to_json(seeded)
    assert game.to_json(game.from_json(doc)) == doc
