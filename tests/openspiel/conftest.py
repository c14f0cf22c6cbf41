"""The OpenSpiel tests run whenever ``pyspiel`` is importable (CI installs the extra,
``pip install -e '.[dev,openspiel]'``); without it there is nothing here to collect."""

import importlib.util

collect_ignore_glob = [] if importlib.util.find_spec("pyspiel") else ["test_*.py"]
