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
worker app (``celery -A service.celery_app``: it builds its runtime from the settings, with
no Flask app, and starts the sweepers). The app factory uses the worker app's
``make_celery``; nothing below them imports either."""


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


WEB = {
    "service.errors",
    "service.cors",
    "service.ops",
    "service.metrics",
    "service.ratelimit",
    "service.i18n",
    "service.logs",
}
"""The Flask side beside the blueprints: the app's extensions and hooks that the app factory
installs (problem documents, CORS, /readyz and /metrics, API keys, the language of
answers, request logs). HTTP too: they may import Flask; the domain imports none of them."""

DOMAIN = sorted(set(MODULES) - ENTRY - WEB - {m for m in MODULES if is_http(m)})
"""Everything else: the domain (what Celery tasks run) and what it stands on (Redis,
queues, settings). None imports Flask or writes an HTTP answer."""

NAMED_IN_THE_ISSUE = (
    "service.sessions",
    "service.jobs",
    "service.review",
    "service.webhooks",
    "service.timers",
    "service.events",
    "service.tasks",
    "service.quotas",
    "service.dispatch",
    "service.queues",
    "service.redis_conn",
    "service.runtime",
    "service.domain_errors",
    "service.redaction",
    "service.deal_hold",
)


def test_the_modules_issue_36_names_are_in_the_domain():
    assert set(NAMED_IN_THE_ISSUE) <= set(DOMAIN)
    assert not WEB - set(MODULES), "a WEB module was renamed: update the list"


def third_party_imports(tree: ast.Module) -> set[str]:
    """The top-level packages ``tree`` imports, anywhere in its code."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name.partition(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.partition(".")[0])
    return found


def names_used(tree: ast.Module) -> set[str]:
    """Every name and attribute ``tree`` mentions, imported names included."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.alias):
            found |= {node.name.rpartition(".")[2], node.asname or ""}
    return found - {""}


TREES = {module: ast.parse(path.read_text(encoding="utf-8")) for module, path in MODULES.items()}


def test_the_readers_see_flask_and_names():
    tree = ast.parse("def f():\n    from flask import current_app as app\n    return errors.ApiError\n")
    assert third_party_imports(tree) == {"flask"}
    assert {"current_app", "app", "ApiError"} <= names_used(tree)


def test_no_domain_module_imports_flask_or_reads_the_flask_app():
    """Settings are passed in (service/runtime.py), never looked up through
    ``flask.current_app``: a Celery task plays a bot with no app context."""
    wrong = {
        module: sorted(
            (third_party_imports(TREES[module]) & {"flask", "flask_smorest", "werkzeug"})
            | (names_used(TREES[module]) & {"current_app", "has_request_context", "has_app_context"})
        )
        for module in DOMAIN
    }
    assert {module: found for module, found in wrong.items() if found} == {}


def test_no_domain_module_imports_the_http_side():
    wrong = {
        (module, target)
        for module in DOMAIN
        for target in GRAPH[module]
        if is_http(target) or target in WEB or target in ENTRY
    }
    assert not wrong, f"arrows from the domain up into HTTP: {sorted(wrong)}"


def test_the_domain_raises_its_own_errors_not_http_errors():
    """Refusals are named in service/domain_errors.py (``DomainError``: a code, a message,
    details); service/errors.py alone gives them an HTTP status and headers and writes the
    problem document. No domain module names ``ApiError`` (the HTTP layer's error)."""
    wrong = [module for module in DOMAIN if "ApiError" in names_used(TREES[module])]
    assert wrong == []
