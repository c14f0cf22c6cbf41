"""The OpenSpiel tests run whenever ``pyspiel`` is importable (``make test`` installs the
extra, ``pip install -e '.[dev,openspiel]'``). Without it the modules that import it are
not collected, and test_openspiel_available.py says so as a skip (a failure under CI, like
the browser tests without a Chromium): a missing extra is never silent."""

import importlib.util
from pathlib import Path

HAS_PYSPIEL = importlib.util.find_spec("pyspiel") is not None
REPORTER = "test_openspiel_available.py"

collect_ignore = (
    [] if HAS_PYSPIEL else [p.name for p in Path(__file__).parent.glob("test_*.py") if p.name != REPORTER]
)
