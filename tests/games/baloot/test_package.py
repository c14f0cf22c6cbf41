"""The Baloot package has the one layout every game package takes (issue 19): the same
file names with the same roles, and no import circle inside it."""

from __future__ import annotations

import ast
from pathlib import Path

import engine.games.baloot

PACKAGE = Path(engine.games.baloot.__file__).parent
ORDER = (
    "tables",
    "options",
    "projects",
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
"""Each module imports only modules before it."""


def package_imports(name: str) -> list[tuple[str, bool]]:
    """The package's modules that ``name`` imports, each with whether the import is at
    module level."""
    tree = ast.parse((PACKAGE / f"{name}.py").read_text(encoding="utf-8"))
    top = set(map(id, tree.body))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            module = node.module
            if module == "engine.games.baloot":
                targets = [alias.name for alias in node.names]
            elif module.startswith("engine.games.baloot."):
                targets = [module.rsplit(".", 1)[1]]
            else:
                continue
            found += [(target, id(node) in top) for target in targets]
        elif isinstance(node, ast.Import):
            assert not any(alias.name.startswith("engine.games.baloot") for alias in node.names)
    return found


def test_the_package_holds_exactly_the_one_layout_files():
    assert sorted(path.stem for path in PACKAGE.glob("*.py")) == sorted(ORDER)


def test_each_module_imports_only_the_modules_before_it_at_module_level():
    for position, name in enumerate(ORDER):
        for target, at_top in package_imports(name):
            assert at_top, f"{name} imports {target} inside a function"
            assert target in ORDER[:position], f"{name} imports {target}, which comes after it"


def test_a_module_after_a_module_it_imports_is_caught():
    """The check above can fail: ``rules`` imports ``state``, so ``state`` before ``rules``."""
    assert ("state", True) in package_imports("rules")
    assert ORDER.index("state") < ORDER.index("rules")
