"""Which build of the hot modules runs: ``compiled`` (mypyc) or ``interpreted``.

``setup.py`` compiles the search's hot modules from their ``.py`` files when a C compiler
is present and lists them, with each source's sha256, in ``engine/_compiled.json``. A
compiled module shadows its ``.py`` on import, so this module, run by ``engine/__init__``
before any hot module is imported, makes the interpreted ``.py`` files load instead when

- ``MAJLIS_PURE_PYTHON=1`` is set (the switch, e.g. to develop or to compare the builds);
- any compiled module's source has changed since the build (a stale build is never run:
  rebuild with ``pip install -e .`` or ``python setup.py build_ext --inplace``).

It always loads every hot module the same way, never a mix. This module itself is never
compiled. ``python -m ai.build_info`` prints the outcome.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

HOT_MODULES = (
    "engine.cards",
    "engine.sampling",
    "ai.ismcts",
    "engine.games.trex.tables",
    "engine.games.trex.options",
    "engine.games.trex.state",
    "engine.games.trex.scoring",
    "engine.games.trex.rules",
    "engine.games.trex.playout",
    "engine.games.trex.sampling",
    "engine.games.baloot.tables",
    "engine.games.baloot.options",
    "engine.games.baloot.projects",
    "engine.games.baloot.state",
    "engine.games.baloot.scoring",
    "engine.games.baloot.rules",
    "engine.games.baloot.playout",
    "engine.games.ronda.tables",
    "engine.games.ronda.options",
    "engine.games.ronda.state",
    "engine.games.ronda.rules",
    "engine.games.ronda.scoring",
    "engine.games.ronda.playout",
    "engine.games.ronda.sampling",
    "engine.games.porrazo.tables",
    "engine.games.porrazo.options",
    "engine.games.porrazo.state",
    "engine.games.porrazo.scoring",
    "engine.games.porrazo.rules",
    "engine.games.porrazo.playout",
    "engine.games.baloot.sampling",
    "engine.games.porrazo.sampling",
    "engine.games.marriage.tables",
    "engine.games.marriage.options",
    "engine.games.marriage.state",
    "engine.games.marriage.melds",
    "engine.games.marriage.scoring",
    "engine.games.marriage.rules",
    "engine.games.marriage.hand_eval",
    "engine.games.marriage.sampling",
    "engine.games.marriage.playout",
    "ai.playouts.trex",
    "ai.playouts.ronda",
    "ai.playouts.porrazo",
    "ai.playouts.marriage",
)
"""What ``setup.py`` compiles: the search loop, the samplers, each game's state,
legal-move, apply and playout code, and the normal level's playout hooks (``ai.playouts``).
Codecs, loaders, the protocol and the service stay interpreted, and so do the games'
``layout.py`` modules (what a layout leaves out, worked out once per loaded document, never
in the search) and ``game.py`` modules (the protocol's boundary, called with loose types,
e.g. ``pack(None)``, that a compiled module refuses)."""

PURE_ENV = "MAJLIS_PURE_PYTHON"
"""Set to 1 to run the interpreted ``.py`` files even where a compiled build exists."""

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = Path(__file__).resolve().parent / "_compiled.json"


@dataclass(frozen=True)
class BuildMode:
    mode: str
    """``compiled`` or ``interpreted``."""
    reason: str
    """Why, in words."""
    modules: tuple[str, ...] = field(default=())
    """The hot modules of the compiled build (empty when none was built)."""

    @property
    def compiled(self) -> bool:
        return self.mode == "compiled"


def source_path(module: str, root: Path = ROOT) -> Path:
    """The ``.py`` file of a module of this project (a compiled module's ``__file__`` is not reliable)."""
    return root.joinpath(*module.split(".")).with_suffix(".py")


def _stale(modules: dict[str, str], root: Path) -> list[str]:
    """The compiled modules whose ``.py`` differs from the one compiled."""
    stale = []
    for module, digest in modules.items():
        path = source_path(module, root)
        if path.exists() and hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            stale.append(module)
    return stale


def _missing(modules: dict[str, str], root: Path) -> list[str]:
    """The compiled modules with no extension beside their ``.py`` (e.g. a manifest copied
    without the compiled files)."""
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    missing = []
    for module in modules:
        path = source_path(module, root)
        if not any(path.with_name(path.stem + suffix).exists() for suffix in suffixes):
            missing.append(module)
    return missing


def decide(environ: Mapping[str, str] = os.environ, root: Path = ROOT) -> BuildMode:
    """The build to load, from the environment and the manifest of the last build
    (``engine/_compiled.json`` under ``root``)."""
    try:
        manifest = (root / "engine" / MANIFEST.name).read_text()
        modules: dict[str, str] = json.loads(manifest)["modules"]
    except (OSError, ValueError, KeyError):
        return BuildMode("interpreted", "no compiled build (no C compiler, or MAJLIS_PURE_PYTHON=1 at build)")
    names = tuple(sorted(modules))
    if environ.get(PURE_ENV, "") not in ("", "0"):
        return BuildMode("interpreted", f"{PURE_ENV} is set", names)
    stale = _stale(modules, root)
    if stale:
        return BuildMode("interpreted", f"compiled build is stale (edited since: {', '.join(stale)})", names)
    missing = _missing(modules, root)
    if missing:
        return BuildMode("interpreted", f"compiled build incomplete (missing: {', '.join(missing)})", names)
    return BuildMode("compiled", "mypyc build of the hot modules", names)


class _SourceFirst(importlib.abc.MetaPathFinder):
    """Loads the listed modules from their ``.py`` files, ignoring compiled ones beside them."""

    def __init__(self, modules: tuple[str, ...]) -> None:
        self.modules = frozenset(modules)

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.modules:
            return None
        return importlib.util.spec_from_file_location(fullname, source_path(fullname))


CURRENT = decide()
"""The build this process runs (decided once, when ``engine`` is first imported)."""


def install() -> None:
    """Unless the compiled build is to run, load every hot module from its ``.py`` (a
    compiled module left over from an earlier build, with no manifest, is ignored too)."""
    if not CURRENT.compiled and not any(isinstance(f, _SourceFirst) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceFirst(HOT_MODULES))
