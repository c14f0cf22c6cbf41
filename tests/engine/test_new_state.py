"""The one ``new_state`` contract (engine/protocol.py, ``Game.new_state``), for every game:
a seed, a deck or a layout; a deck and a layout exclude each other; a seed with a deck
deals the later deals; no seed at all draws a fresh one; a layout's options and the
request's are one set."""

from __future__ import annotations

import pytest

from engine import GAME_IDS, get_game
from engine.protocol import Game, InvalidSetup, InvalidState, OptionSpec


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


# --------------------------------------------------------------------------- a layout's options
# (Game.layout_options: the layout's options and the request's are one set; an option named
# in both must agree)


def other_value(spec: OptionSpec) -> object:
    """A value of the option other than its default."""
    if spec.kind == "bool":
        return not spec.default
    if spec.kind == "choice":
        return next(choice for choice in spec.choices if choice != spec.default)
    return spec.default + 1 if spec.maximum is None or spec.default < spec.maximum else spec.default - 1


def two_options(game: Game) -> tuple[OptionSpec, OptionSpec]:
    """Two options a state lists whose other values (together) still fit the seeded layout
    of ``a_layout`` (some change the deal, e.g. Ronda's deal style)."""
    fits = []
    for spec in game.option_specs:
        chosen = {other.name: other_value(other) for other in [*fits, spec]}
        try:
            game.new_state(smallest(game), chosen, 0, layout=a_layout(game))
        except (InvalidSetup, InvalidState):
            continue
        if spec.listed_when_default:
            fits.append(spec)
    assert len(fits) >= 2, f"{game.id}: fewer than two options fit the layout"
    return fits[0], fits[1]


def a_layout(game: Game, options: dict | None = None) -> dict:
    """A layout every game reads: a seeded match's state without its options (plus ``options``)."""
    doc = {
        k: v
        for k, v in game.to_json(game.new_state(smallest(game), {}, 0, seed=11)).items()
        if k != "options"
    }
    if options is not None:
        doc["options"] = options
    return doc


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_an_option_named_by_the_layout_or_the_request_alone_is_the_matchs(game_id: str) -> None:
    game = get_game(game_id)
    first, second = two_options(game)
    a, b = other_value(first), other_value(second)
    n = smallest(game)
    cases = [
        (a_layout(game, {first.name: a}), None),
        (a_layout(game), {first.name: a}),
        (a_layout(game, {first.name: a}), {second.name: b}),  # one each: both hold
        (a_layout(game, {first.name: a, second.name: b}), {first.name: a}),  # the same value twice
    ]
    for layout, requested in cases:
        options = game.to_json(game.new_state(n, requested, 0, layout=layout))["options"]
        assert options[first.name] == a, (layout.get("options"), requested)
    assert options[second.name] == b
    both = game.to_json(game.new_state(n, {second.name: b}, 0, layout=a_layout(game, {first.name: a})))
    assert (both["options"][first.name], both["options"][second.name]) == (a, b)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_an_option_given_two_values_is_refused_naming_it(game_id: str) -> None:
    game = get_game(game_id)
    first, _ = two_options(game)
    with pytest.raises(InvalidSetup) as err:
        game.new_state(
            smallest(game),
            {first.name: first.default},
            0,
            layout=a_layout(game, {first.name: other_value(first)}),
        )
    assert err.value.field == f"options.{first.name}"
    assert "in the request" in err.value.message and "in the layout" in err.value.message


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_layouts_options_are_read_like_any_options(game_id: str) -> None:
    game = get_game(game_id)
    with pytest.raises(InvalidSetup) as err:
        game.new_state(smallest(game), None, 0, layout=a_layout(game, {"no_such_option": 1}))
    assert err.value.field == "options.no_such_option"
    with pytest.raises(InvalidSetup) as err:
        game.new_state(smallest(game), None, 0, layout=a_layout(game, ["not", "an", "object"]))  # type: ignore[arg-type]
    assert err.value.field == "layout.options"
