"""The shared codec keeps only what games share (docs/engine-guide.md, "Declaring the JSON
shape"): every kind of engine/codec.py is used by two games or more, and a kind only one
game uses is declared in that game's ``codec_kinds.py``, which no other game reads."""

from __future__ import annotations

import ast
import inspect
import typing
from pathlib import Path

import pytest

import engine.codec as shared
from engine import GAME_IDS

GAMES = Path(__file__).parents[2] / "engine" / "games"


def shared_names_used(game_id: str) -> set[str]:
    """The names of engine/codec.py a game's modules use (``C.Int``, ``from engine.codec
    import Hidden``)."""
    used: set[str] = set()
    for path in (GAMES / game_id).glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = {
            alias.asname or alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module == "engine"
            for alias in node.names
            if alias.name == "codec"
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "engine.codec":
                used |= {alias.name for alias in node.names}
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
            ):
                used.add(node.attr)
    return used


def kind_of(name: str) -> type | None:
    """The shared kind class ``name`` makes: the class itself, or what a kind constructor
    (``PerSeat``, ``Bool``) returns."""
    value = getattr(shared, name, None)
    if inspect.isclass(value):
        return value if issubclass(value, shared.Kind) else None
    if inspect.isfunction(value) and value.__module__ == shared.__name__:
        made = typing.get_type_hints(value).get("return")
        return made if inspect.isclass(made) and issubclass(made, shared.Kind) else None
    return None


SHARED_KINDS = {
    value
    for value in vars(shared).values()
    if inspect.isclass(value) and issubclass(value, shared.Kind) and value is not shared.Kind
    if value.__module__ == shared.__name__
}


def test_every_shared_kind_serves_two_games_or_more() -> None:
    games_of: dict[type, set[str]] = {kind: set() for kind in SHARED_KINDS}
    for game_id in GAME_IDS:
        for name in shared_names_used(game_id):
            kind = kind_of(name)
            if kind is not None:
                for one in inspect.getmro(kind):
                    if one in games_of:
                        games_of[one].add(game_id)
    lonely = {kind.__name__: sorted(games) for kind, games in games_of.items() if len(games) < 2}
    assert lonely == {}, "a kind one game uses (or none) belongs in that game's codec_kinds.py, or goes"


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_games_own_kinds_are_read_by_no_other_game(game_id: str) -> None:
    for other in GAME_IDS:
        if other == game_id:
            continue
        for path in (GAMES / other).glob("*.py"):
            assert f"engine.games.{game_id}.codec_kinds" not in path.read_text(encoding="utf-8"), path
