"""The observation and information-state tensors (engine/tensors, served by
engine/openspiel.py): for every game and table size, a fixed length at every state of
seeded random deals, finite values in [-1, 1], seats relative to the viewer; a card the
seat cannot see never changes its tensor (hidden cards swapped between other hands and
the stock through the engine's JSON, and worlds the engine's sampler deals from the
seat's view); different public situations give different tensors; OpenSpiel's observer
API (``make_observation``) agrees with the state's tensors; docs/openspiel.md lists the
layouts the code builds. OpenSpiel's own ``random_sim_test`` (tests/openspiel/
test_games.py) checks the tensors' sizes and finiteness on every state it visits."""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
import pytest
from open_spiel.python.observation import make_observation

import engine.openspiel  # noqa: F401  (registers majlis_<game>)
from engine import GAME_IDS, get_game
from engine.protocol import EngineError
from engine.tensors import Tensors
from tests.openspiel.test_games import load, tables

TABLES = list(tables())
DOCS = Path(__file__).resolve().parents[2] / "docs" / "openspiel.md"

OBSERVATION = pyspiel.IIGObservationType(perfect_recall=False)
INFORMATION_STATE = pyspiel.IIGObservationType(perfect_recall=True)
PUBLIC = pyspiel.IIGObservationType(
    public_info=True, perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE
)
PRIVATE = pyspiel.IIGObservationType(
    public_info=False, perfect_recall=False, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER
)


def walk(game: Any, seed: int, limit: int) -> Iterator[Any]:
    """OpenSpiel states along a seeded random match played by the engine (its first
    ``limit`` states), each an episode started at the engine state (``state_from``): so
    every state of a deal is reached, also in Marriage, whose OpenSpiel episode stops at
    the search's horizon."""
    engine_game = game.table.game
    world = engine_game.new_state(game.num_players(), game.table.options, 0, seed=seed)
    rng = random.Random(seed)
    for _ in range(limit):
        if engine_game.to_act(world) is None:
            return
        yield game.state_from(world)
        engine_game.step(world, rng.choice(engine_game.legal_actions(world)))


def tensor_pair(state: Any, player: int) -> tuple[list[float], list[float]]:
    return state.observation_tensor(player), state.information_state_tensor(player)


@pytest.mark.parametrize("game_id, players", TABLES)
def test_tensors_have_a_fixed_length_values_in_range_and_seats_relative_to_the_viewer(
    game_id: str, players: int
) -> None:
    game = load(game_id, players)
    observer = make_observation(game, OBSERVATION)
    recall = make_observation(game, INFORMATION_STATE)
    size, info_size = game.observation_tensor_size(), game.information_state_tensor_size()
    assert game.observation_tensor_shape() == [size] and observer.tensor.shape == (size,)
    assert info_size > size and recall.tensor.shape == (info_size,)
    chance = game.new_initial_state()
    assert chance.observation_tensor(0) == [0.0] * size  # nobody has seen a card yet
    visited = 0
    for state in walk(game, seed=players, limit=60):
        visited += 1
        for player in range(players):
            obs, info = tensor_pair(state, player)
            assert len(obs) == size and len(info) == info_size
            assert all(math.isfinite(v) and -1.0 <= v <= 1.0 for v in obs + info)
            # OpenSpiel's observer API gives the same vectors, its named pieces included
            observer.set_from(state, player)
            recall.set_from(state, player)
            assert np.array_equal(observer.tensor, np.float32(obs))
            assert np.array_equal(recall.tensor, np.float32(info))
            # the information state is the observation plus the recall pieces
            for name, piece in observer.dict.items():
                assert np.array_equal(piece, recall.dict[name])
            # seats are counted from the viewer: 0 is the seat itself
            to_act = list(observer.dict["to_act"])
            assert to_act == [
                1.0 if (state.current_player() - player) % players == k else 0.0 for k in range(players)
            ]
            assert (
                observer.dict["dealer"][
                    (state.table.game.view(state.world, player)["dealer"] - player) % players
                ]
                == 1
            )
            assert sum(observer.dict["phase"]) == 1
    assert visited >= 5


def hidden_places(data: dict[str, Any], view: dict[str, Any]) -> list[tuple[str, int | None]]:
    """Where the viewer cannot see, in a state's JSON: the hands its view shows as counts
    (not a challenged hand, say) and the stock."""
    places: list[tuple[str, int | None]] = [
        ("hands", s) for s, hand in enumerate(data["hands"]) if isinstance(view["hands"][s], int) and hand
    ]
    if isinstance(data.get("stock"), list) and data["stock"] and isinstance(view.get("stock"), int):
        places.append(("stock", None))
    return places


def swap_hidden(engine_game: Any, world: Any, seat: int, rng: random.Random) -> Any | None:
    """``world`` with one card of two places ``seat`` cannot see swapped (hands re-sorted
    as the engine writes them, a seat's ``dealt`` cards following its hand), loaded by the
    engine's own checks; None when there is no such swap or the engine refuses it (a swap
    that would contradict what the table has seen, e.g. a shown void)."""
    data = engine_game.to_json(world)
    places = hidden_places(data, engine_game.view(world, seat))
    if len(places) < 2:
        return None
    (key_a, seat_a), (key_b, seat_b) = rng.sample(places, 2)
    cards_a = data[key_a] if seat_a is None else data[key_a][seat_a]
    cards_b = data[key_b] if seat_b is None else data[key_b][seat_b]
    i, j = rng.randrange(len(cards_a)), rng.randrange(len(cards_b))
    a, b = cards_a[i], cards_b[j]
    if a == b:
        return None
    cards_a[i], cards_b[j] = b, a
    order = {code: k for k, code in enumerate(dict.fromkeys(engine_game.pack(world)))}
    for owner, old, new in ((seat_a, a, b), (seat_b, b, a)):
        if owner is None:
            continue
        data["hands"][owner].sort(key=order.__getitem__)
        dealt = data.get("dealt")
        if dealt is not None and isinstance(dealt[owner], list) and old in dealt[owner]:
            dealt[owner][dealt[owner].index(old)] = new
            dealt[owner].sort(key=order.__getitem__)
    try:
        return engine_game.from_json(data)
    except EngineError:
        return None


@pytest.mark.parametrize("game_id, players", TABLES)
def test_a_card_the_seat_cannot_see_never_changes_its_tensors(game_id: str, players: int) -> None:
    game = load(game_id, players)
    engine_game = game.table.game
    rng = random.Random(players)
    swaps = changed_elsewhere = 0
    for state in walk(game, seed=players + 20, limit=90):
        seat = rng.randrange(players)
        for _ in range(3):  # a swap the engine refuses (a shown void...): try another
            swapped_world = swap_hidden(engine_game, state.world, seat, rng)
            if swapped_world is not None:
                break
        else:
            continue
        swapped = game.state_from(swapped_world)
        assert engine_game.to_json(swapped.world) != engine_game.to_json(state.world)
        swaps += 1
        assert tensor_pair(swapped, seat) == tensor_pair(state, seat)
        # the swap was real: a seat that holds one of the swapped cards sees it
        changed_elsewhere += any(
            tensor_pair(swapped, other) != tensor_pair(state, other)
            for other in range(players)
            if other != seat
        )
    assert swaps >= 10
    assert changed_elsewhere >= swaps // 2


@pytest.mark.parametrize("game_id, players", TABLES)
def test_worlds_dealt_from_a_seats_view_give_it_the_same_tensors(game_id: str, players: int) -> None:
    game = load(game_id, players)
    public = make_observation(game, PUBLIC)
    rng = random.Random(players)
    differs = False
    for k, state in enumerate(walk(game, seed=players + 40, limit=60)):
        if k % 3:
            continue
        seat = k % players
        world = state.resample(seat, rng)
        assert tensor_pair(world, seat) == tensor_pair(state, seat)
        # the public tensor is the same from every seat's perspective: nobody's hand is in it
        for other in range(players):
            public.set_from(state, other)
            before = public.tensor.copy()
            public.set_from(world, other)
            assert np.array_equal(before, public.tensor)
        differs = differs or any(
            tensor_pair(world, other) != tensor_pair(state, other) for other in range(players)
        )
    assert differs  # the sampler dealt other hidden cards, which their holders see


@pytest.mark.parametrize("game_id, players", TABLES)
def test_different_situations_give_different_tensors(game_id: str, players: int) -> None:
    game = load(game_id, players)
    seen: dict[tuple[float, ...], str] = {}
    plays = 0
    for seed in range(4):
        previous: list[tuple[str, list[float]]] | None = None
        for state in walk(game, seed=100 + seed, limit=40):
            now = [(state.information_state_string(p), state.observation_tensor(p)) for p in range(players)]
            if previous is not None:
                # whatever changed in a seat's view (the turn, a card played, a count, a
                # call) changes its observation; a hidden action (Baloot's project pass)
                # changes only its actor's view
                for p in range(players):
                    assert (now[p][0] != previous[p][0]) == (now[p][1] != previous[p][1])
            previous = now
            for p in range(players):
                key = tuple(state.information_state_tensor(p))
                # two information states of these deals never share a tensor
                assert seen.setdefault(key, now[p][0]) == now[p][0]
            # playing a card moves it out of the player's hand piece
            actor = state.current_player()
            hand_before = _piece(game, state, actor, "hand")
            for action in state.legal_actions():
                name = state.action_to_string(actor, action)
                if '"type": "play"' in name or '"type": "discard"' in name:
                    assert not np.array_equal(hand_before, _piece(game, state.child(action), actor, "hand"))
                    plays += 1
                    break
    assert plays > 0 and len(seen) > 20


def _piece(game: Any, state: Any, player: int, name: str) -> Any:
    observer = make_observation(game, OBSERVATION)
    observer.set_from(state, player)
    return observer.dict[name].copy()


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_public_and_private_observers_split_the_observation(game_id: str) -> None:
    game = load(game_id, max(get_game(game_id).player_counts))
    full, public, private = (make_observation(game, t) for t in (OBSERVATION, PUBLIC, PRIVATE))
    assert "hand" in full.dict and "hand" not in public.dict and list(private.dict)[0] == "hand"
    assert public.tensor.size + private.tensor.size == full.tensor.size
    states = list(walk(game, seed=7, limit=30))
    state = states[-1]
    for player in range(game.num_players()):
        full.set_from(state, player)
        private.set_from(state, player)
        for name in private.dict:
            assert np.array_equal(private.dict[name], full.dict[name])
        view = state.table.game.view(state.world, player)
        own = view["hands"][player] if isinstance(view["hands"][player], list) else []  # a Porrazo dealer's
        assert sorted(json.loads(private.string_from(state, player))["hand"]) == sorted(own)
        assert private.dict["hand"].sum() == pytest.approx(len(own) / state.table.tensors.table.copies)
        public_view = state.table.game.public_view(state.world)
        assert public.string_from(state, player) == json.dumps(
            public_view, sort_keys=True, separators=(",", ":")
        )
    with pytest.raises(ValueError, match="ALL_PLAYERS"):
        make_observation(
            game,
            pyspiel.IIGObservationType(
                perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS
            ),
        )


def documented_sizes() -> dict[tuple[str, int], tuple[int, int]]:
    """The layout sizes docs/openspiel.md lists: | game | players | observation | information state |."""
    sizes = {}
    for game_id, players, obs, info in re.findall(
        r"^\| `majlis_(\w+)` \| (\d) \| (\d+) \| (\d+) \|", DOCS.read_text(), re.M
    ):
        sizes[(game_id, int(players))] = (int(obs), int(info))
    return sizes


def test_the_docs_list_every_layout_the_code_builds() -> None:
    documented = documented_sizes()
    text = DOCS.read_text()
    for game_id, players in TABLES:
        engine_game = get_game(game_id)
        tensors = Tensors(engine_game, players, engine_game.parse_options(None, players))
        sizes = (tensors.layout(recall=False).size, tensors.layout(recall=True).size)
        assert documented[(game_id, players)] == sizes, (game_id, players)
        section = text.split(f"### {engine_game.title}", 1)[1].split("\n### ", 1)[0]
        for piece in tensors.pieces:
            assert f"`{piece.name}`" in section, (game_id, piece.name)


@pytest.mark.parametrize(
    "game_id, players, options",
    [
        ("trex", 4, {"partnership": True}),
        ("porrazo", 4, {"teams": "alternate"}),
        ("marriage", 3, {"man_cards": 3}),
        ("ronda", 2, {"deal_style": "no_table"}),
        ("baloot", 4, {"kawesh": True}),
    ],
)
def test_options_that_change_the_pack_or_the_sides_change_the_layout(
    game_id: str, players: int, options: dict[str, Any]
) -> None:
    game = load(game_id, players, **options)
    default = load(game_id, players)
    engine_game = game.table.game
    first = engine_game.new_state(players, game.table.options, 0, seed=0)
    pack = len(dict.fromkeys(engine_game.pack(first)))
    sides = [list(side) for side in engine_game.score(first).sides]
    observer = make_observation(game, OBSERVATION)
    assert observer.dict["hand"].shape == (pack,) and observer.dict["scores"].shape == (len(sides),)
    if len(sides) != default.table.tensors.table.n_sides or pack != default.table.tensors.table.n_cards:
        assert game.observation_tensor_size() != default.observation_tensor_size()
    side_pieces = {  # the pieces per side (docs/openspiel.md, Layouts)
        "trex": ["scores"],
        "porrazo": ["scores", "deal_points", "last_deal_points"],
        "baloot": ["scores", "tricks_won", "card_points"],
        "ronda": ["scores", "deal_points", "piles"],
        "marriage": [],
    }[game_id]
    checked = 0
    states = [state for seed in (3, 4, 5) for state in walk(game, seed=seed, limit=160)]
    for state in states[::4]:
        pieces = []
        for player in range(players):
            obs, info = tensor_pair(state, player)
            assert (
                len(obs) == game.observation_tensor_size()
                and len(info) == game.information_state_tensor_size()
            )
            assert all(-1.0 <= v <= 1.0 for v in info)
            observer.set_from(state, player)
            pieces.append({name: observer.dict[name].copy() for name in side_pieces})
        if len(sides) == 2:
            # side 0 is the viewer's own: partners read the side pieces alike, opponents
            # the other way round
            for name in side_pieces:
                checked += bool(pieces[0][name].any())
                for player in range(players):
                    partner = (player in sides[0]) == (0 in sides[0])
                    expected = pieces[0][name] if partner else pieces[0][name][::-1]
                    assert np.array_equal(pieces[player][name], expected), name
    assert checked > 0 or len(sides) != 2


def test_the_engine_functions_give_the_adapters_tensors() -> None:
    from engine import tensors

    game = load("baloot", 4)
    for state in walk(game, seed=5, limit=20):
        for player in range(4):
            assert np.array_equal(
                np.float32(tensors.observation(game.table.game, state.world, player)),
                np.float32(state.observation_tensor(player)),
            )
            assert np.array_equal(
                np.float32(tensors.information_state(game.table.game, state.world, player)),
                np.float32(state.information_state_tensor(player)),
            )


def test_openspiels_rl_environment_reads_the_information_state_tensor() -> None:
    from open_spiel.python import rl_environment

    env = rl_environment.Environment("majlis_ronda", players=2, seeds=50)
    rng = random.Random(1)
    step = env.reset()
    size = env.game.information_state_tensor_size()
    moves = 0
    while not step.last() and moves < 200:
        player = step.observations["current_player"]
        info = step.observations["info_state"][player]
        assert len(info) == size and any(info)  # not the empty list it used to be
        step = env.step([rng.choice(step.observations["legal_actions"][player])])
        moves += 1
    assert moves > 0
