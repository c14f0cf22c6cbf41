"""service/ is layered one way: HTTP (service/api/, service/page/) -> domain (sessions,
jobs, review, webhooks, timers, events, quotas, ...) -> Redis/Celery, with no import circle.

Imports are read with ``ast``, those inside functions too (an import hidden in a function
is still an arrow: it only moves the circle from import time to run time)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).parents[2]
SERVICE = ROOT / "service"

HTTP = ("service.api", "service.page")
"""The HTTP layer: blueprints, request schemas, the table page."""
ENTRY = {"service", "service.wsgi", "service.run", "service.celery_app"}
"""The processes' entry points, which put the layers together: the app factory (it
registers the blueprints and installs Celery), gunicorn's module, the launcher, and the
worker app (``celery -A service.celery_app``: it builds the Flask app and starts the
sweepers). The app factory and the worker app name each other (each process starts from
one of them); nothing below them imports either."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(path): path for path in SERVICE.rglob("*.py")}


def is_http(name: str) -> bool:
    return any(name == top or name.startswith(top + ".") for top in HTTP)


def owner(name: str) -> str | None:
    """The service module that ``name`` (a module or a name in one) belongs to."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imported(module: str, tree: ast.Module) -> set[str]:
    """The service modules ``module`` imports, anywhere in its code."""
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            # ``from service import sessions`` imports service.sessions, not the package
            subs = [f"{base}.{alias.name}" for alias in node.names]
            names = [sub for sub in subs if sub in MODULES]
            if len(names) < len(subs):
                names.append(base)
        else:
            continue
        for name in names:
            target = owner(name)
            if target is not None and target != module:
                found.add(target)
    return found


GRAPH = {
    module: imported(module, ast.parse(path.read_text(encoding="utf-8"))) for module, path in MODULES.items()
}


def test_the_graph_sees_imports_inside_functions():
    tree = ast.parse("def f():\n    from service.api.jobs import send_task\n")
    assert imported("service.sessions", tree) == {"service.api.jobs"}
    tree = ast.parse("from service import sessions, webhooks\n")
    assert imported("service.tasks", tree) == {"service.sessions", "service.webhooks"}


def test_nothing_below_http_imports_it():
    wrong = {
        (module, target)
        for module, targets in GRAPH.items()
        if not is_http(module) and module not in ENTRY
        for target in targets
        if is_http(target)
    }
    assert not wrong, f"arrows from below up into service/api or service/page: {sorted(wrong)}"


def test_no_module_below_the_entry_points_imports_them():
    wrong = {
        (module, target)
        for module, targets in GRAPH.items()
        if module not in ENTRY
        for target in targets
        if target in ENTRY
    }
    assert not wrong, f"arrows up into an entry point: {sorted(wrong)}"


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``graph``, or None."""
    done: set[str] = set()
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        if node in path:
            return path[path.index(node) :] + [node]
        if node in done:
            return None
        path.append(node)
        for target in sorted(graph.get(node, ())):
            found = visit(target)
            if found:
                return found
        path.pop()
        done.add(node)
        return None

    for node in sorted(graph):
        found = visit(node)
        if found:
            return found
    return None


def test_the_cycle_finder_finds_one():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_no_import_circle_below_the_entry_points():
    below = {module: targets - ENTRY for module, targets in GRAPH.items() if module not in ENTRY}
    assert cycle(below) is None, " -> ".join(cycle(below) or [])


DOMAIN = (
    "service.sessions",
    "service.review",
    "service.webhooks",
    "service.tasks",
    "service.jobs",
    "service.timers",
    "service.dispatch",
    "service.redaction",
    "service.deal_hold",
    "service.queues",
    "service.domain_errors",
)
"""The modules of the domain that Celery tasks run; none writes an HTTP answer."""


def test_the_domain_raises_its_own_errors_not_the_http_layers():
    """Refusals are named in service/domain_errors.py (no Flask there); service/errors.py
    alone turns them into problem documents."""
    wrong = {(module, target) for module in DOMAIN for target in GRAPH[module] if target == "service.errors"}
    assert not wrong, sorted(wrong)
    tree = ast.parse(MODULES["service.domain_errors"].read_text(encoding="utf-8"))
    assert not [
        n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) and "flask" in ast.dump(n)
    ]


def flask_app_reads(tree: ast.Module) -> list[str]:
    """The functions of ``tree`` that read ``current_app`` (``<module>``: at the top level)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(isinstance(n, ast.Name) and n.id == "current_app" for n in ast.walk(node)):
                found.append(node.name)
    top = [n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    if any(isinstance(n, ast.Name) and n.id == "current_app" for stmt in top for n in ast.walk(stmt)):
        found.append("<module>")
    return found


def test_the_domain_is_given_its_settings():
    """Sessions, reviews and webhooks take their settings as arguments (a store's
    ``settings``, a ``config`` mapping); only ``sessions.store()``, the app's store, reads
    the Flask app."""
    reads = {
        module: flask_app_reads(ast.parse(MODULES[module].read_text(encoding="utf-8")))
        for module in ("service.sessions", "service.review", "service.webhooks")
    }
    assert reads == {"service.sessions": ["store"], "service.review": [], "service.webhooks": []}
    sample = ast.parse(
        "from flask import current_app\nX = current_app\ndef f():\n    return current_app.config\n"
    )
    assert sorted(flask_app_reads(sample)) == ["<module>", "f"]
