"""The Trex package has the one layout of every game package (issue 19): its files, and
imports that only go one way (no circle, no import hidden in a function to dodge one)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[3] / "engine" / "games" / "trex"
ORDER = (
    "tables",
    "options",
    "state",
    "scoring",
    "rules",
    "checks",
    "codec",
    "sampling",
    "playout",
    "game",
    "__init__",
)
"""Each module may import only modules to its left."""


def package_imports(path: Path) -> list[tuple[str, bool]]:
    """The package's own modules that ``path`` imports, each with whether the import is at
    the module's top level."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = set(map(id, tree.body))
    found: list[tuple[str, bool]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module is None:
                names = [alias.name for alias in node.names]
            elif node.level == 1 and node.module is not None:
                names = [node.module.split(".")[0]]
            elif node.level == 0 and (node.module or "").startswith("engine.games.trex"):
                rest = (node.module or "").split(".")[3:]
                names = rest[:1] if rest else [alias.name for alias in node.names]
            else:
                continue
        elif isinstance(node, ast.Import):
            names = [
                alias.name.split(".")[3]
                for alias in node.names
                if alias.name.startswith("engine.games.trex.")
            ]
        else:
            continue
        found += [(name, id(node) in top) for name in names]
    return found


def test_the_package_holds_exactly_the_files_of_the_one_layout():
    assert sorted(p.stem for p in PACKAGE.glob("*.py")) == sorted(ORDER)


def test_each_module_imports_only_modules_to_its_left_at_top_level():
    for path in PACKAGE.glob("*.py"):
        module = path.stem
        assert module in ORDER, module
        for name, at_top in package_imports(path):
            assert name in ORDER, (module, name)
            assert ORDER.index(name) < ORDER.index(module), f"{module} imports {name}"
            assert at_top, f"{module} imports {name} inside a function"
