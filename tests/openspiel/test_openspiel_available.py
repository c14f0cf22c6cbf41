"""Says whether the OpenSpiel tests ran: a skip naming the missing extra, or a failure
under CI (CI=true), where ``make test`` installs it."""

import importlib.util
import os

import pytest


def test_the_openspiel_extra_is_installed() -> None:
    if importlib.util.find_spec("pyspiel") is not None:
        import pyspiel

        import engine.openspiel  # noqa: F401  (registers the games)

        assert pyspiel.load_game("majlis_trex").num_players() == 4
        return
    message = "pyspiel is missing: `pip install -e '.[openspiel]'`; the OpenSpiel tests were not collected"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)
