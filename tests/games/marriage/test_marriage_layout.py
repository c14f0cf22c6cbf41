"""Marriage's package has the one layout of every game (docs/engine-guide.md, issue 19): the
same file names with the same roles plus its own concepts (``melds``, ``hand_eval``),
imports only from left to right, at module level; and its declared codec's JSON Schemas
describe every recorded Marriage document."""

from __future__ import annotations

import ast
import gzip
import json
from pathlib import Path

import jsonschema

import engine.games.marriage as package
from engine import get_game

PACKAGE = Path(package.__file__).parent
ORDER = (
    "tables",
    "options",
    "state",
    "melds",
    "scoring",
    "hand_eval",
    "rules",
    "checks",
    "codec",
    "sampling",
    "game",
    "__init__",
)
"""Each module imports only modules to its left."""
CORPUS = Path(__file__).parents[2] / "data" / "corpus" / "marriage.jsonl.gz"


def package_imports(tree: ast.AST) -> list[tuple[str, ast.AST]]:
    """The package's own modules imported anywhere in ``tree`` (name, import node)."""
    prefix = "engine.games.marriage"
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names = [node.module] if node.module else [alias.name for alias in node.names]
            found += [(name, node) for name in names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(prefix):
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


def test_the_schemas_validate_every_recorded_marriage_document():
    schemas = get_game("marriage").json_schemas()
    validators = {name: jsonschema.Draft202012Validator(schema) for name, schema in schemas.items()}
    for schema in schemas.values():
        jsonschema.Draft202012Validator.check_schema(schema)
    with gzip.open(CORPUS, "rt", encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines]
    sample = records[::40]  # the validator is slow and the shapes repeat: one in forty
    assert {record["kind"] for record in sample} == {"state", "view", "public_view", "actions"}
    for record in sample:
        doc = record["doc"]
        if record["kind"] == "state":
            validators["state"].validate(doc)
            validators["options"].validate(doc["options"])
        elif record["kind"] in ("view", "public_view"):
            validators["view"].validate(doc)
        else:
            for action in doc:
                validators["action"].validate(action)
    state = next(record["doc"] for record in records if record["kind"] == "state")
    assert not validators["state"].is_valid(dict(state, hands=[["XY"]] * state["players"]))
