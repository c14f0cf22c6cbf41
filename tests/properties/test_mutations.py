"""Tampered states: the generic suite every registered game must pass (issue 15, bad input).

A real state is a seeded match played some random legal moves in. A mutation changes one
thing in its JSON: an int made huge, negative, off by one, a float, a bool, a string or
null; a key dropped or added; a list entry dropped, duplicated or swapped; a card moved
from one list to another or two cards swapped; ``to_act`` set to another seat. Loading the
mutated document must either

* raise one of the engine's own errors (``EngineError``: the service answers those with a
  4xx), and nothing else (no KeyError, TypeError, RecursionError, OverflowError...), or
* give a state the engine itself could have reached, which here means all of:

  1. it re-encodes to exactly the document it came from (nothing dropped or changed),
     but for one agreed normalisation: an ``rng_state`` sent as a JSON integer below
     2**53 (accepted for compatibility) comes back as the decimal string;
  2. every integer in it survives a round trip through a double (|n| < 2**53);
  3. the cards are conserved (``cards_in_play`` equals ``pack`` as multisets);
  4. ``to_act`` is null exactly when ``score`` says the match is finished, and otherwise
     the seat to act has legal actions, each of which passes ``check``;
  5. each side's itemised deal points add up to its ``deal_points``;
  6. random legal play from it reaches the end of the deal (or of the match) without any
     exception at all, conserving the cards, and the state it ends in loads back;
  7. a document that differs from the real one only in ``to_act`` is refused: in every
     game the seat to act follows from the rest of the state.

A mutation may well give another reachable state (two cards swapped between hands before
anything is played is just another deal): that is accepted, as it should be.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import GAME_IDS, get_game
from engine.protocol import EngineError, Game
from tests.properties.test_contract import CARD_RE, options_strategy

DOUBLE_SAFE = 2**53
PLAYOUT_STEPS = 5_000
Path = tuple[Any, ...]


# --------------------------------------------------------------------------- real states


@st.composite
def real_states(draw, game_id: str) -> tuple[Game, dict]:
    """A seeded match of random players/options, played 0-150 random legal moves in."""
    game = get_game(game_id)
    players = draw(st.sampled_from(game.player_counts))
    try:
        options = game.parse_options(draw(options_strategy(game)), players)
    except EngineError:  # a combination the spec forbids: the defaults
        options = game.parse_options({}, players)
    dealer = draw(st.integers(0, players - 1))
    seed = draw(st.integers(0, 2**63 - 1))
    moves = draw(st.integers(0, 150))
    rng = random.Random(seed)
    state = game.new_state(players, options, dealer, seed=seed)
    for _ in range(moves):
        if game.to_act(state) is None:
            break
        game.step(state, rng.choice(game.legal_actions(state)))
    return game, game.to_json(state)


# --------------------------------------------------------------------------- mutations


def leaves(value: Any, path: Path = ()) -> list[Path]:
    """Every path into a JSON value (the root included)."""
    out = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            out.extend(leaves(item, (*path, key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out.extend(leaves(item, (*path, i)))
    return out


def get_at(doc: Any, path: Path) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def set_at(doc: Any, path: Path, value: Any) -> None:
    get_at(doc, path[:-1])[path[-1]] = value


def replacements(value: Any) -> list[Any]:
    """Values to put in place of ``value``: wrong types, out-of-range and near values."""
    out: list[Any] = [None, True, "x", [], {}, 10**400, -(10**400), 2**63, 2**53 + 1]
    if isinstance(value, bool):
        out += [not value, int(value)]
    elif isinstance(value, int):
        out += [value + 1, value - 1, -value - 1, value * 1000 + 7, float(value), str(value), 2**64 - 1]
    elif isinstance(value, str):
        out += [value + value, value[:-1], value.lower(), "", 0]
    elif value is None:
        out += [0, -1, 1, ""]
    return out


@st.composite
def mutations(draw, doc: dict) -> tuple[str, dict]:
    """One mutation of ``doc``: (what was done, the mutated copy)."""
    doc = copy.deepcopy(doc)
    paths = leaves(doc)[1:]
    card_paths = [p for p in paths if isinstance(get_at(doc, p), str) and CARD_RE.match(get_at(doc, p))]
    kind = draw(st.sampled_from(["replace", "replace", "drop", "add", "list", "cards", "to_act"]))
    if kind == "to_act" and "to_act" in doc:
        value = doc["to_act"]
        choices = [v for v in [None, *range(int(doc.get("players", 4)))] if v != value]
        doc["to_act"] = draw(st.sampled_from(choices))
        return f"to_act {value!r} -> {doc['to_act']!r}", doc
    if kind == "cards" and len(card_paths) >= 2:
        a, b = draw(st.lists(st.sampled_from(card_paths), min_size=2, max_size=2, unique=True))
        if draw(st.booleans()):  # swap two cards
            x, y = get_at(doc, a), get_at(doc, b)
            set_at(doc, a, y)
            set_at(doc, b, x)
            return f"swap {a} and {b}", doc
        # move: take the card out of its list and append it to the other card's list
        card = get_at(doc, a)
        source, target = get_at(doc, a[:-1]), get_at(doc, b[:-1])
        if isinstance(source, list) and isinstance(target, list):
            del source[a[-1]]
            target.append(card)
            return f"move {card} from {a[:-1]} to {b[:-1]}", doc
    path = draw(st.sampled_from(paths))
    value = get_at(doc, path)
    parent = get_at(doc, path[:-1])
    if kind == "drop" and isinstance(parent, dict):
        del parent[path[-1]]
        return f"drop {path}", doc
    if kind == "add":
        target = value if isinstance(value, dict | list) else parent
        extra = draw(st.sampled_from([0, None, "x", 2**70, [], {}]))
        if isinstance(target, dict):
            target["unexpected"] = extra
        else:
            target.append(copy.deepcopy(target[-1]) if target and draw(st.booleans()) else extra)
        return f"add to {path if target is value else path[:-1]}", doc
    if kind == "list" and isinstance(value, list) and len(value) >= 2:
        i, j = draw(st.lists(st.integers(0, len(value) - 1), min_size=2, max_size=2, unique=True))
        action = draw(st.sampled_from(["swap", "drop", "duplicate"]))
        if action == "swap":
            value[i], value[j] = value[j], value[i]
        elif action == "drop":
            del value[i]
        else:
            value.insert(j, copy.deepcopy(value[i]))
        return f"{action} entries {i},{j} of {path}", doc
    new = draw(st.sampled_from(replacements(value)))
    set_at(doc, path, new)
    return f"{path}: {value!r} -> {new!r}", doc


# --------------------------------------------------------------------------- what "reachable" means


def big_ints(value: Any, path: Path = ()) -> list[Path]:
    """Paths of integers a JavaScript client's JSON.parse would round."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in big_ints(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in big_ints(v, (*path, i))]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= DOUBLE_SAFE:
        return [path]
    return []


def assert_consistent(game: Game, state: Any) -> None:
    """Checks 3-5 of the module docstring on a loaded state."""
    assert Counter(game.cards_in_play(state)) == Counter(game.pack(state)), "cards are not conserved"
    report = game.score(state)
    seat = game.to_act(state)
    assert (seat is None) == report.finished, f"to_act {seat} but finished={report.finished}"
    if seat is not None and game.phase(state) != "deal_over":
        actions = game.legal_actions(state)
        assert actions, f"seat {seat} has no legal action in phase {game.phase(state)}"
        for action in actions:
            game.check(state, seat, action)
    for side in range(len(report.sides)):
        items = sum(item["points"] for item in report.items if item["side"] == side)
        if report.items:
            assert items == report.deal_points[side], f"side {side}: items {items} != deal points"


def assert_reachable(game: Game, doc: dict, state: Any, seed: int) -> None:
    """Checks 1-6 of the module docstring."""
    expected = dict(doc)
    if isinstance(doc.get("rng_state"), int):
        expected["rng_state"] = str(doc["rng_state"])
    assert game.to_json(state) == expected, "the state does not re-encode to the document it came from"
    assert not big_ints(doc), f"integers a double would round: {big_ints(doc)}"
    assert_consistent(game, state)
    rng = random.Random(seed)
    start, now = state, game.clone(state)
    for _ in range(PLAYOUT_STEPS):
        if game.is_playout_over(start, now):
            break
        game.step(now, rng.choice(game.legal_actions(now)))
        assert Counter(game.cards_in_play(now)) == Counter(game.pack(now)), "cards are not conserved"
    end = game.to_json(now)
    assert game.to_json(game.from_json(json.loads(json.dumps(end)))) == end


def load_or_refuse(game: Game, doc: dict) -> Any:
    """The loaded state, or None when the engine refused the document with its own error."""
    try:
        return game.from_json(json.loads(json.dumps(doc)))
    except EngineError:  # anything else propagates: the service would answer it with a 500
        return None


# --------------------------------------------------------------------------- the tests


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_real_states_emit_only_double_safe_integers(game_id):
    @settings(max_examples=15)
    @given(real_states(game_id))
    def run(real):
        game, doc = real
        assert not big_ints(doc), f"integers a double would round: {big_ints(doc)}"
        assert game.to_json(game.from_json(doc)) == doc

    run()


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_mutated_state_is_refused_or_reachable(game_id):
    @settings(max_examples=settings.default.max_examples * 8, deadline=None)
    @given(real_states(game_id), st.data(), st.integers(0, 2**32))
    def run(real, data, seed):
        game, doc = real
        what, mutated = data.draw(mutations(doc), label="mutation")
        if mutated == doc:
            return
        state = load_or_refuse(game, mutated)
        if state is None:
            return
        assert not what.startswith("to_act"), f"{what}: a changed seat to act was accepted"
        try:
            assert_reachable(game, mutated, state, seed)
        except Exception as err:  # noqa: BLE001 - say which mutation was let through
            raise AssertionError(f"{what} was accepted: {type(err).__name__}: {err}") from err

    run()
