"""The examples in the shared engine modules' docstrings are tests too."""

import doctest

import pytest

import engine
import engine.cards
import engine.games.trex.tables
import engine.sampling


@pytest.mark.parametrize(
    "module", [engine, engine.cards, engine.sampling, engine.games.trex.tables], ids=lambda m: m.__name__
)
def test_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
