"""Write the wire corpus: what every game's codec writes today, kept to prove it never changes.

Run from the repository root (only when a change to the wire is intended and named):

    python -m tests.data.corpus.make_corpus

For every game it plays seeded random matches (every player count, every option's test
values, engine-dealt and caller-dealt) and records, at sampled steps, one JSON line per
document: the full state, each seat's view, the spectator's view and the legal actions
as JSON. ``tests/engine/test_wire_corpus.py`` reads the states back, writes them again
and compares byte for byte. Lines are written with ``json.dumps(doc)`` defaults (key
order kept), so a changed key order is a changed byte.
"""

from __future__ import annotations

import gzip
import io
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine import GAME_IDS, get_game
from engine.protocol import Game

HERE = Path(__file__).parent
STEPS_PER_MATCH = 300
"""Stop a match after this many moves: the corpus wants variety, not whole long matches."""
RECORD_EVERY = 17
"""Record one step in this many (and always the first and the last)."""


def option_sets(game: Game[Any], players: int) -> list[dict[str, Any]]:
    """The defaults, then each option's other test values one at a time."""
    sets: list[dict[str, Any]] = [{}]
    for spec in game.option_specs:
        values = list(spec.test_values or ())
        if not values and spec.kind == "bool":
            values = [False, True]
        if not values and spec.kind == "choice":
            values = list(spec.choices)
        for value in values:
            if value != spec.default:
                sets.append({spec.name: value})
    usable = []
    for raw in sets:
        try:
            usable.append(game.parse_options(raw, players))
        except Exception:  # noqa: BLE001 - a combination the game forbids
            continue
    return usable


def caller_deal(game: Game[Any], state: Any, rng: random.Random) -> Any:
    deck = list(game.pack(state))
    rng.shuffle(deck)
    return game.parse_action(state, {"type": "deal", "deck": deck})


def play(game: Game[Any], state: Any, rng: random.Random) -> Iterator[Any]:
    """The states of one match (capped), the first included."""
    yield state
    for _ in range(STEPS_PER_MATCH):
        seat = game.to_act(state)
        if seat is None:
            return
        actions = game.legal_actions(state)
        action = rng.choice(actions) if actions else caller_deal(game, state, rng)
        state, _ = game.apply(state, seat, action)
        yield state


def records(game: Game[Any], state: Any) -> Iterator[dict[str, Any]]:
    doc = game.to_json(state)
    yield {"kind": "state", "doc": doc}
    for seat in range(game.players(state)):
        yield {"kind": "view", "seat": seat, "doc": game.view(state, seat)}
    yield {"kind": "public_view", "doc": game.public_view(state)}
    actions = [game.action_to_json(state, a) for a in game.legal_actions(state)]
    yield {"kind": "actions", "doc": actions}


def matches(game: Game[Any]) -> Iterator[tuple[str, Any]]:
    seed = 1000
    for players in game.player_counts:
        for options in option_sets(game, players):
            seed += 1
            yield f"seed {seed}", game.new_state(players, options, seed % players, seed=seed)
        deck = list(game.pack(game.new_state(players, {}, 0, seed=1)))
        random.Random(seed).shuffle(deck)
        yield f"deck {seed}", game.new_state(players, {}, 0, deck=deck)


def write_game(game_id: str) -> int:
    game = get_game(game_id)
    lines = 0
    # mtime=0: the same documents give the same bytes, so a rerun shows no diff.
    raw = gzip.GzipFile(HERE / f"{game_id}.jsonl.gz", "wb", compresslevel=9, mtime=0)
    with raw, io.TextIOWrapper(raw, encoding="utf-8") as out:
        for name, start in matches(game):
            rng = random.Random(name)
            states = list(play(game, start, rng))
            for i, state in enumerate(states):
                if i % RECORD_EVERY and i != len(states) - 1:
                    continue
                for record in records(game, state):
                    out.write(json.dumps({"match": name, "step": i, **record}) + "\n")
                    lines += 1
    return lines


def main() -> None:
    for game_id in GAME_IDS:
        print(game_id, write_game(game_id), "documents")


if __name__ == "__main__":
    main()
