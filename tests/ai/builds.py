"""A child process on one build of the hot modules, for the tests that compare the compiled
and the interpreted builds (a process loads one build: engine/build_mode.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from engine import build_mode

ROOT = Path(__file__).resolve().parents[2]


def environment(pure: bool) -> dict[str, str]:
    """This process's environment for a child on the interpreted build (``pure``) or on
    whichever build loads by default, with the repository importable."""
    env = {k: v for k, v in os.environ.items() if k != build_mode.PURE_ENV}
    if pure:
        env[build_mode.PURE_ENV] = "1"
    env["PYTHONPATH"] = str(ROOT)
    return env


def run_child(pure: bool, module: str, function: str) -> Any:
    """``module.function()`` (JSON-ready, no arguments) computed in a child process."""
    code = f"import json; from {module} import {function}; print(json.dumps({function}()))"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=environment(pure),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
