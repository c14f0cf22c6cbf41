"""Which build of the search's hot modules this process runs.

    python -m ai.build_info                     # e.g. "compiled: mypyc build of the hot modules"
    python -m ai.build_info --require compiled  # exit status 1 unless it is (make test uses it)
    MAJLIS_PURE_PYTHON=1 python -m ai.build_info  # interpreted: MAJLIS_PURE_PYTHON is set

The decision is taken by ``engine/build_mode.py``; this module also checks that the hot
modules really loaded that way.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from engine import build_mode


def loaded_mode() -> str:
    """``compiled`` or ``interpreted``, from the hot modules actually imported (``mixed``
    would be a bug of engine/build_mode.py)."""
    modules = build_mode.HOT_MODULES
    compiled = {not (importlib.import_module(m).__file__ or "").endswith(".py") for m in modules}
    if compiled == {True}:
        return "compiled"
    return "interpreted" if compiled == {False} else "mixed"


def describe() -> dict[str, str]:
    """The build for ``/readyz`` and the command line: mode and why."""
    return {"mode": loaded_mode(), "reason": build_mode.CURRENT.reason}


def main(argv: list[str] | None = None) -> int:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--require", choices=("compiled", "interpreted"), help="fail unless this build runs")
    args = parser.parse_args(argv)
    info = describe()
    print(f"{info['mode']}: {info['reason']}")
    if args.require is not None and info["mode"] != args.require:
        hint = " (make build, or pip install -e .)" if args.require == "compiled" else ""
        print(f"expected the {args.require} build{hint}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
