"""The shared codec keeps only what games share (docs/engine-guide.md, "Declaring the JSON
shape"): every kind of engine/codec.py and engine/codec_kinds.py is used by two games or
more, and a kind only one game uses is declared in that game's ``codec_kinds.py``, which
no other game reads."""

from __future__ import annotations

import ast
import inspect
import re
import typing
from pathlib import Path

import pytest

import engine.codec as shared
from engine import GAME_IDS

GAMES = Path(__file__).parents[2] / "engine" / "games"
SHARED_MODULES = ("engine.codec", "engine.codec_kinds")


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
    if inspect.isfunction(value) and value.__module__ in SHARED_MODULES:
        made = typing.get_type_hints(value).get("return")
        return made if inspect.isclass(made) and issubclass(made, shared.Kind) else None
    return None


SHARED_KINDS = {
    value
    for value in vars(shared).values()
    if inspect.isclass(value) and issubclass(value, shared.Kind) and value is not shared.Kind
    if value.__module__ in SHARED_MODULES
}


def test_every_shared_kind_serves_two_games_or_more() -> None:
    assert {kind.__name__ for kind in SHARED_KINDS} >= {"Int", "Cards", "History", "Plain"}
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


GUIDE = (Path(__file__).parents[2] / "docs" / "engine-guide.md").read_text(encoding="utf-8")


def guide_row(first_cell: str) -> str:
    return next(line for line in GUIDE.splitlines() if line.startswith(f"| {first_cell} |"))


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_guide_lists_each_games_own_kinds(game_id: str) -> None:
    tree = ast.parse((GAMES / game_id / "codec_kinds.py").read_text(encoding="utf-8"))
    declared = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    listed = set(re.findall(r"`([A-Z][A-Za-z]*)\(", guide_row(game_id.capitalize())))
    assert listed == declared


def test_the_guide_lists_the_shared_kinds() -> None:
    table = GUIDE[GUIDE.index("| kind | JSON | inside |") :].split("\n\n")[0]
    first_cells = [row.split("|")[1] for row in table.splitlines()[2:]]
    listed = {name for cell in first_cells for name in re.findall(r"`([A-Z][A-Za-z]*)\(", cell)}
    makes = {name: kind_of(name) for name in listed}
    assert None not in makes.values(), makes
    covered = {base for kind in makes.values() if kind is not None for base in inspect.getmro(kind)}
    assert SHARED_KINDS <= covered, SHARED_KINDS - covered
