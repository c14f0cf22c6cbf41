"""Ronda's package has the one layout of every game (docs/engine-guide.md, issue 19): the
same file names with the same roles, and imports only from left to right, at module level."""

from __future__ import annotations

import ast
from pathlib import Path

import engine.games.ronda as package

PACKAGE = Path(package.__file__).parent
ORDER = ("tables", "options", "state", "scoring", "rules", "checks", "codec", "sampling", "game", "__init__")
"""Each module imports only modules to its left."""


def package_imports(tree: ast.AST) -> list[tuple[str, ast.AST]]:
    """The package's own modules imported anywhere in ``tree`` (name, import node)."""
    prefix = "engine.games.ronda"
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(prefix):
            if node.module == prefix:
                found += [(alias.name, node) for alias in node.names]
            else:
                found.append((node.module.removeprefix(prefix + "."), node))
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names if alias.name.startswith(prefix)]
            found += [(name.removeprefix(prefix + "."), node) for name in names]
    return found


def test_the_package_holds_exactly_the_modules_of_the_layout():
    assert sorted(path.stem for path in PACKAGE.glob("*.py")) == sorted(ORDER)


def test_every_module_imports_only_modules_to_its_left_at_module_level():
    for module in ORDER:
        tree = ast.parse((PACKAGE / f"{module}.py").read_text())
        top_level = set(map(id, tree.body))
        for name, node in package_imports(tree):
            assert name in ORDER, f"{module} imports {name}, which is not in the layout"
            assert ORDER.index(name) < ORDER.index(module), f"{module} imports {name}, to its right"
            assert id(node) in top_level, f"{module} imports {name} inside a function"


def test_the_package_face_only_names_the_game():
    tree = ast.parse((PACKAGE / "__init__.py").read_text())
    kinds = [type(node).__name__ for node in tree.body]
    assert kinds == ["Expr", "ImportFrom", "Assign"], kinds
    assert package.__all__ == ["GAME"]
