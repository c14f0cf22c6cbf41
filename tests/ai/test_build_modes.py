"""The compiled and the interpreted builds decide alike, and the right one loads.

For the same view, seed and iteration budget, a search in a process running the compiled
hot modules and one running the interpreted ``.py`` files (``MAJLIS_PURE_PYTHON=1``) must
give the same decision and the same root visit counts, in every game. Each build runs in
its own subprocess (a process loads one build: engine/build_mode.py).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import random
import subprocess
import sys

import pytest

from ai import build_info, ismcts
from engine import GAME_IDS, build_mode, get_game
from tests.ai.builds import ROOT, environment, run_child

SEEDS = (3, 8)
ITERATIONS = {"marriage": 12}
"""Marriage's playouts cost milliseconds each; every other game searches 300 iterations."""


def decisions() -> dict:
    """Per game and seed: the root actions (JSON), their visit counts and rewards, and the decision."""
    out: dict = {"mode": build_info.loaded_mode()}
    for game_id in GAME_IDS:
        game = get_game(game_id)
        for seed in SEEDS:
            view = _view(game, seed)
            result = ismcts.search(game, view, random.Random(seed), iterations=ITERATIONS.get(game_id, 300))
            as_json = [game.action_to_json(result.world, a) for a in result.actions]
            out[f"{game_id}/{seed}"] = {
                "actions": as_json,
                "visits": result.visits,
                "totals": result.totals,  # floats: the same arithmetic gives the same bits
                "decision": as_json[result.best_index()],
            }
    return out


def _view(game, seed: int) -> dict:
    """The view of the seat to act at a seeded decision with a real choice, after at
    least a few random steps (so the searches start inside the deal)."""
    players = min(game.player_counts)
    state = game.new_state(players, game.parse_options({}, players), 0, seed=seed)
    rng = random.Random(seed)
    for step in range(1000):
        actions = game.legal_actions(state)
        if step >= 6 and len(actions) > 1:
            break
        game.step(state, actions[int(rng.random() * len(actions))])
    seat = game.to_act(state)
    assert seat is not None
    return game.view(state, seat)


@pytest.mark.slow
def test_compiled_and_interpreted_builds_give_the_same_decisions_and_visit_counts():
    interpreted = run_child(True, "tests.ai.test_build_modes", "decisions")
    default = run_child(False, "tests.ai.test_build_modes", "decisions")
    assert interpreted.pop("mode") == "interpreted"
    # without the switch, the compiled build runs whenever one is built and fresh
    assert default.pop("mode") == build_mode.decide(environment(pure=False)).mode
    assert len(default) == len(GAME_IDS) * len(SEEDS)
    for key, searched in default.items():
        assert searched == interpreted[key], key
        assert sum(searched["visits"]) > 0, key


@pytest.mark.slow
def test_the_switch_holds_whichever_hot_module_is_imported_first():
    """With ``MAJLIS_PURE_PYTHON=1`` each hot module, imported first in a fresh process,
    loads from its ``.py`` (a compiled module beside it would otherwise shadow it)."""
    code = "import importlib, sys; print(importlib.import_module(sys.argv[1]).__file__)"
    for module in build_mode.HOT_MODULES:
        done = subprocess.run(
            [sys.executable, "-c", code, module],
            cwd=ROOT,
            env=environment(pure=True),
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == str(build_mode.source_path(module)), module


def _tree(tmp_path, *, compiled: bool = True, manifest: bool = True):
    """A project tree with one hot module, as setup.py leaves it."""
    source = tmp_path / "engine" / "cards.py"
    source.parent.mkdir()
    source.write_text("RANKS = 13\n")
    if compiled:
        (tmp_path / "engine" / f"cards{importlib.machinery.EXTENSION_SUFFIXES[0]}").write_bytes(b"")
    if manifest:
        digest = hashlib.sha256(source.read_bytes()).hexdigest()
        (tmp_path / "engine" / "_compiled.json").write_text(json.dumps({"modules": {"engine.cards": digest}}))
    return source


def test_a_fresh_complete_build_runs_compiled(tmp_path):
    _tree(tmp_path)
    assert build_mode.decide({}, tmp_path).mode == "compiled"


def test_the_switch_stale_sources_missing_extensions_and_no_build_run_interpreted(tmp_path):
    source = _tree(tmp_path)
    assert build_mode.decide({build_mode.PURE_ENV: "1"}, tmp_path).reason == "MAJLIS_PURE_PYTHON is set"
    source.write_text("RANKS = 14\n")
    assert "stale" in build_mode.decide({}, tmp_path).reason
    (tmp_path / "a").mkdir()
    _tree(tmp_path / "a", compiled=False)  # e.g. a manifest copied without the extensions
    assert "missing: engine.cards" in build_mode.decide({}, tmp_path / "a").reason
    (tmp_path / "b").mkdir()
    _tree(tmp_path / "b", manifest=False)
    assert build_mode.decide({}, tmp_path / "b").reason.startswith("no compiled build")
