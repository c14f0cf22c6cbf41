"""The examples in the shared engine modules' docstrings are tests too.

They run on the ``.py`` files whichever build is loaded: a module compiled by mypyc keeps
no function docstrings, so its examples are read from its source."""

import doctest
import importlib.util
import sys

import pytest

import engine
import engine.cards
import engine.checks
import engine.codec_kinds
import engine.games.trex.tables
import engine.sampling
from engine import build_mode


def _from_source(module):
    """``module`` as its ``.py`` file defines it (a fresh copy when ``module`` is compiled)."""
    if module.__file__.endswith(".py"):
        return module
    spec = importlib.util.spec_from_file_location(module.__name__, build_mode.source_path(module.__name__))
    copy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(copy)
    return copy


@pytest.mark.parametrize(
    "module",
    [engine, engine.cards, engine.checks, engine.codec_kinds, engine.sampling, engine.games.trex.tables],
    ids=lambda m: m.__name__,
)
def test_docstring_examples(module, monkeypatch):
    source = _from_source(module)
    monkeypatch.setitem(sys.modules, module.__name__, source)  # doctest finds functions by their module
    result = doctest.testmod(source)
    assert result.attempted > 0 and result.failed == 0
