"""Every game package has the one layout docs/engine-guide.md describes, with no import circle;
what a deal's layout (``new_state(layout=...)``) leaves out is worked out in one module of
each game, ``layout.py``, by one function the codec calls, ``fill_left_out``."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest

from engine import GAME_IDS, build_mode, get_game

ROOT = Path(__file__).parents[2]
GAMES = ROOT / "engine" / "games"
GUIDE = (ROOT / "docs" / "engine-guide.md").read_text(encoding="utf-8")

EVERY_GAME = {
    "__init__",
    "tables",
    "items",
    "options",
    "state",
    "rules",
    "scoring",
    "codec",
    "codec_kinds",
    "layout",
    "checks",
    "sampling",
    "game",
}
"""The files every game has, each with the same role (the guide's table)."""
OPTIONAL = {"playout"}
"""Only where the game has a fused fast playout."""
EXTRA_CONCEPTS = {
    "baloot": {"projects"},
    "marriage": {"melds", "hand_eval"},
}
"""A real extra concept of one game, in a file named after it."""


def modules(game_id: str) -> dict[str, ast.Module]:
    return {path.stem: ast.parse(path.read_text(encoding="utf-8")) for path in (GAMES / game_id).glob("*.py")}


def module_level_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node that runs at import time: all but the insides of functions."""
    found: list[ast.AST] = []
    pending = list(ast.iter_child_nodes(tree))
    while pending:
        node = pending.pop()
        found.append(node)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            pending.extend(ast.iter_child_nodes(node))
    return found


def own_imports(game_id: str, tree: ast.AST, *, top_level_only: bool) -> set[str]:
    """The sibling modules a module imports (``from . import x``, ``from .x import``,
    ``from engine.games.<id>.x import``, ``import engine.games.<id>.x``)."""
    package = f"engine.games.{game_id}"
    nodes = module_level_nodes(tree) if top_level_only else list(ast.walk(tree))
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module is None:
                found |= {alias.name for alias in node.names}
            elif node.level == 1 and node.module:
                found.add(node.module.split(".")[0])
            elif node.module == package:
                found |= {alias.name for alias in node.names}
            elif node.module and node.module.startswith(package + "."):
                found.add(node.module[len(package) + 1 :].split(".")[0])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(package + "."):
                    found.add(alias.name[len(package) + 1 :].split(".")[0])
    return found


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_package_has_exactly_the_files_of_the_layout(game_id: str) -> None:
    names = set(modules(game_id))
    assert EVERY_GAME <= names, f"missing: {sorted(EVERY_GAME - names)}"
    extra = names - EVERY_GAME - OPTIONAL - EXTRA_CONCEPTS.get(game_id, set())
    assert not extra, f"files outside the layout: {sorted(extra)}"


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_package_face_only_names_the_game(game_id: str) -> None:
    tree = modules(game_id)["__init__"]
    assert own_imports(game_id, tree, top_level_only=False) == {"game"}
    defined = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)]
    assert not defined, "__init__.py defines code: it belongs in the layout's files"


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_modules_import_each_other_at_module_level_only(game_id: str) -> None:
    """An import inside a function is how a circle hides: none between a game's modules."""
    for name, tree in modules(game_id).items():
        hidden = own_imports(game_id, tree, top_level_only=False) - own_imports(
            game_id, tree, top_level_only=True
        )
        assert not hidden, f"{name}.py imports {sorted(hidden)} inside a function"


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_no_import_circle_inside_the_package(game_id: str) -> None:
    trees = modules(game_id)
    graph = {
        name: own_imports(game_id, tree, top_level_only=False) & set(trees) for name, tree in trees.items()
    }
    graph["__init__"] = set()  # the face imports game.py; no module imports the face
    state: dict[str, int] = {}  # 1 = on the path, 2 = done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph[name]):
            if state.get(target) == 1:
                cycle = path[path.index(target) :] + [target] if target in path else [name, target]
                pytest.fail(f"import circle: {' -> '.join(cycle)}")
            if target not in state:
                visit(target, [*path, target])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])


def test_the_engine_guide_names_every_file_of_the_layout() -> None:
    for name in sorted(EVERY_GAME | OPTIONAL | set().union(*EXTRA_CONCEPTS.values())):
        assert f"`{name}.py`" in GUIDE, f"docs/engine-guide.md does not describe {name}.py"


LEFT_OUT_HELPER = re.compile(r"left_out|^natural_|^settle_|complete_layout|work_out_layout")
"""The names the games gave their helpers working out what a layout leaves out before they
moved to ``layout.py`` (``rules.settle_left_out``, ``rules.natural_taker``,
``rules.complete_layout``, ``codec._work_out_layout`` ...)."""


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_codec_works_out_what_a_layout_leaves_out_with_layout_fill_left_out(game_id: str) -> None:
    layout = importlib.import_module(f"engine.games.{game_id}.layout")
    codec = get_game(game_id).codec
    assert codec is not None and codec.fill_left_out is layout.fill_left_out
    assert list(inspect.signature(layout.fill_left_out).parameters)[1:] == ["values", "mode"]


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_no_other_module_defines_a_left_out_helper(game_id: str) -> None:
    """Only ``layout.py`` (and an extra concept's own words: Marriage's natural sets)."""
    skip = {"layout", *EXTRA_CONCEPTS.get(game_id, set())}
    for name, tree in modules(game_id).items():
        if name in skip:
            continue
        defined = [n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
        helpers = [d for d in defined if LEFT_OUT_HELPER.search(d)]
        assert not helpers, f"{name}.py defines {helpers}: what a layout leaves out belongs in layout.py"


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_layout_modules_stay_interpreted(game_id: str) -> None:
    """A layout is worked out once per loaded document, never in the search: not a hot
    module (engine/build_mode.py), so it is not compiled."""
    assert f"engine.games.{game_id}.layout" not in build_mode.HOT_MODULES
