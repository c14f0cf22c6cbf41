"""Build: the search's hot modules compiled with mypyc, when a C compiler is present.

``pip install -e '.[dev]'`` (what ``make`` does) compiles the modules of ``HOT_MODULES``
from their unchanged ``.py`` files into C extensions that sit beside them (and take
precedence on import). There is no second copy of any rule: the ``.py`` files are the
source, and the same files run interpreted

- on a machine without a C compiler, or where the compilation fails (the build falls back
  and says so on stderr);
- when ``MAJLIS_PURE_PYTHON=1`` is set at build time (nothing is compiled) or at run time
  (the compiled modules are ignored: see ``engine/build_mode.py``).

``python -m ai.build_info`` says which build is loaded; ``GET /readyz`` reports it too.
The build writes ``engine/_compiled.json`` (each compiled module and its source's hash), so
that an edited ``.py`` is never shadowed by a stale compiled module.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import sys
import sysconfig
import time
from pathlib import Path
from types import ModuleType

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
MANIFEST = ROOT / "engine" / "_compiled.json"


def _build_mode() -> ModuleType:
    """engine/build_mode.py (only the standard library), without importing the package."""
    spec = importlib.util.spec_from_file_location("majlis_build_mode", ROOT / "engine" / "build_mode.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


_MODE = _build_mode()
HOT_MODULES = [str(_MODE.source_path(name).relative_to(ROOT)) for name in _MODE.HOT_MODULES]
"""The files to compile; the list lives in engine/build_mode.py, which loads them."""

PURE_ENV = "MAJLIS_PURE_PYTHON"
BUILD_COMMANDS = {"build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install"}


def _say(message: str) -> None:
    print(f"majlis build: {message}", file=sys.stderr, flush=True)


def _module_name(path: str) -> str:
    return path.removesuffix(".py").replace("/", ".")


def _has_c_compiler() -> bool:
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(compiler) is not None


def _write_manifest(modules: list[str]) -> None:
    """Each compiled module with its source's sha256 (engine/build_mode.py compares them)."""
    sources = {_module_name(p): hashlib.sha256((ROOT / p).read_bytes()).hexdigest() for p in modules}
    MANIFEST.write_text(json.dumps({"modules": sources}, indent=1, sort_keys=True) + "\n")


class OptionalBuildExt(build_ext):
    """build_ext that falls back to the interpreted build when the compilation fails."""

    def run(self) -> None:
        started = time.monotonic()
        try:
            super().run()
        except Exception as error:  # noqa: BLE001 - any compiler failure: run interpreted
            _say(f"compilation failed ({error}); the hot modules run interpreted")
            MANIFEST.unlink(missing_ok=True)
            return
        _say(f"compiled {len(HOT_MODULES)} modules with mypyc in {time.monotonic() - started:.0f} s")


def _extensions() -> list:
    MANIFEST.unlink(missing_ok=True)
    if os.environ.get(PURE_ENV, "") not in ("", "0"):
        _say(f"{PURE_ENV} is set: nothing compiled, the interpreted build")
        return []
    if not _has_c_compiler():
        _say("no C compiler found: nothing compiled, the interpreted build")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _say("mypyc is not installed: nothing compiled, the interpreted build")
        return []
    os.chdir(ROOT)  # mypyc takes paths relative to the project
    try:
        extensions = mypycify(HOT_MODULES, opt_level="3", group_name="engine._hot")
    except BaseException as error:  # noqa: BLE001 - mypyc exits on a type error: run interpreted
        _say(f"mypyc could not translate the hot modules ({error!r}); the interpreted build")
        return []
    _write_manifest(HOT_MODULES)
    return extensions


def _builds() -> bool:
    """Whether this setup.py run builds code (pip also runs it only to read metadata)."""
    return bool(BUILD_COMMANDS & set(sys.argv[1:]))


setup(ext_modules=_extensions() if _builds() else [], cmdclass={"build_ext": OptionalBuildExt})
