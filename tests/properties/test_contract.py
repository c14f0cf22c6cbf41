"""The generic suite every registered game must pass (OpenSpiel's RandomSimTest idea).

For random seeds, player counts and options it plays random legal moves to the end
of the match and checks at every step (or a sampled subset of steps, for the
expensive checks) that:
- the seat to act always has a legal action, and every legal action passes ``check``;
- cards are conserved (``cards_in_play`` == ``pack`` as multisets);
- JSON round-trips exactly, for states and actions;
- a view never contains a card its seat cannot see, nor the generator state;
- ``view(sample(view)) == view``, and a sampled world keeps the seat's own cards;
- ``apply`` never mutates its input;
- the same seed gives the same match.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import GAME_IDS, get_game
from engine.protocol import Game

CARD_RE = re.compile(r"^[A2-9TJQK][SHDC]$")
MAX_STEPS = 50_000


def options_strategy(game: Game) -> st.SearchStrategy[dict]:
    fields = {}
    for spec in game.option_specs:
        if spec.test_values:
            values = list(spec.test_values)
        elif spec.kind == "bool":
            values = [False, True]
        elif spec.kind == "choice":
            values = list(spec.choices)
        else:
            values = [spec.default]
        fields[spec.name] = st.sampled_from(values)
    return st.fixed_dictionaries(fields)


@st.composite
def new_matches(draw, game_id: str):
    game = get_game(game_id)
    players = draw(st.sampled_from(game.player_counts))
    options = draw(options_strategy(game))
    try:
        options = game.parse_options(options, players)
    except Exception:  # noqa: BLE001 - a forbidden combination: use the defaults
        options = game.parse_options({}, players)
    dealer = draw(st.integers(0, players - 1))
    seed = draw(st.integers(0, 2**32 - 1))
    return game, players, options, dealer, seed


def json_leaves(value, keys=None):
    """Every string leaf of a JSON value (and every key, into ``keys``)."""
    if isinstance(value, dict):
        for k, v in value.items():
            if keys is not None:
                keys.add(k)
            yield from json_leaves(v, keys)
    elif isinstance(value, list):
        for v in value:
            yield from json_leaves(v, keys)
    elif isinstance(value, str):
        yield value


def assert_view_hides(game: Game, state, seat: int) -> dict:
    view = game.view(state, seat)
    json.dumps(view)  # plain JSON
    keys: set[str] = set()
    list(json_leaves(view, keys))  # every key of the view, for the generator check below
    # ``last_deal`` is the public record of a deal already over (Baloot: a kawesh hand is
    # shown to all, R10): its cards were shuffled into this deal, so their codes being
    # hidden now says nothing about where they lie.
    current = {k: v for k, v in view.items() if k != "last_deal"} if isinstance(view, dict) else view
    shown = {leaf for leaf in json_leaves(current) if CARD_RE.match(leaf)}
    pack = Counter(game.pack(state))
    hidden = Counter(game.hidden_cards(state, seat))
    wholly_hidden = {code for code, n in hidden.items() if n >= pack[code]}
    leaked = shown & wholly_hidden
    assert not leaked, f"seat {seat}'s view shows hidden cards {sorted(leaked)}"
    assert "rng_state" not in keys and "seed" not in keys, "a view must not carry the generator"
    return view


def check_sampling(game: Game, view: dict, seat: int, rng: random.Random) -> None:
    sample = game.sampler(view)
    for _ in range(2):
        world = sample(rng)
        assert game.view(world, seat) == view
        assert Counter(game.cards_in_play(world)) == Counter(game.pack(world))


def play_random_match(game, players, options, dealer, seed, *, deep_every: int):
    rng = random.Random(seed)
    state = game.new_state(players, options, dealer, seed=seed)
    pack = Counter(game.pack(state))
    steps = 0
    while game.to_act(state) is not None:
        assert steps < MAX_STEPS, f"no end of match after {MAX_STEPS} steps"
        seat = game.to_act(state)
        actions = game.legal_actions(state)
        assert actions, f"seat {seat} to act in phase {game.phase(state)} has no legal action"
        assert len(set(actions)) == len(actions), "legal actions must be distinct"
        if steps % deep_every == 0:
            for action in actions:
                game.check(state, seat, action)
                assert game.parse_action(state, game.action_to_json(state, action)) == action
            dumped = game.to_json(state)
            assert json.loads(json.dumps(dumped)) == dumped
            assert game.to_json(game.from_json(json.loads(json.dumps(dumped)))) == dumped
            for s in range(players):
                view = assert_view_hides(game, state, s)
                check_sampling(game, view, s, rng)
            before = game.to_json(state)
            action = rng.choice(actions)
            state, events = game.apply(state, seat, action)
            assert game.to_json(game.from_json(before)) == before
            assert all(isinstance(e, dict) and "type" in e for e in events)
        else:
            action = rng.choice(actions)
            game.step(state, action)
        assert Counter(game.cards_in_play(state)) == pack, "cards are not conserved"
        steps += 1
    report = game.score(state)
    assert report.finished, "the match ended but score() does not say so"
    assert report.winner is None or 0 <= report.winner < len(report.sides)
    return game.to_json(state)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_random_play_reaches_end_of_match(game_id):
    # whole matches are long (Trex: 20 deals): fewer examples than the profile's default,
    # deep checks (JSON round trips of the whole history, views, sampling) on a sample of steps
    @settings(max_examples=max(8, settings.default.max_examples * 3 // 5))
    @given(new_matches(game_id), st.integers(5, 60))
    def run(match, deep_every):
        game, players, options, dealer, seed = match
        play_random_match(game, players, options, dealer, seed, deep_every=deep_every)

    run()


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_same_seed_same_match(game_id):
    game = get_game(game_id)
    for players in game.player_counts:
        options = game.parse_options({}, players)
        first = play_random_match(game, players, options, 0, 1234 + players, deep_every=10**9)
        again = play_random_match(game, players, options, 0, 1234 + players, deep_every=10**9)
        assert first == again


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_metadata_is_json(game_id):
    game = get_game(game_id)
    meta = game.metadata()
    assert meta["id"] == game_id
    json.dumps(meta)
    for players in game.player_counts:
        game.parse_options({}, players)
