"""docs/engine-guide.md's "What game.py answers" is true: the calls it lists are the
protocol's abstract methods, what it says the base class implements once no game
overrides, and a game's class defines no call the section does not name."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from engine import GAME_IDS, get_game
from engine.protocol import Game

GUIDE = (Path(__file__).parents[2] / "docs" / "engine-guide.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    start = GUIDE.index(f"## {title}\n")
    end = GUIDE.find("\n## ", start + 1)
    return GUIDE[start : end if end >= 0 else len(GUIDE)]


ANSWERS = section("What game.py answers")


def names_in(text: str) -> set[str]:
    return set(re.findall(r"`([a-z_]+)`", text))


def paragraph(starting: str) -> str:
    start = ANSWERS.index(starting)
    end = ANSWERS.find("\n\n", start)
    return ANSWERS[start:end]


TABLE = {name for row in re.findall(r"^\| [a-z ]+ \| (.+) \|$", ANSWERS, re.M) for name in names_in(row)}
ONCE = names_in(paragraph("`game.py` declares")) - {"game"}
REFINED = names_in(paragraph("**Where a game may refine the default**"))


SETUP = {"new_from_seed", "new_from_deck", "new_from_layout"}
"""Calls every game answers, not abstract only so that a test's game may have its own
``new_state`` (tests/ai/toy.py)."""


def test_the_table_lists_the_abstract_methods_and_the_setup_calls() -> None:
    assert TABLE == set(Game.__abstractmethods__) | SETUP  # type: ignore[attr-defined]


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_game_answers_every_call_of_the_table(game_id: str) -> None:
    cls = type(get_game(game_id))
    assert {name for name in TABLE if getattr(cls, name) is getattr(Game, name)} == set()


def test_what_the_guide_names_is_a_method_of_the_base_class() -> None:
    for name in ONCE | REFINED:
        assert inspect.isfunction(getattr(Game, name, None)), name
    assert not (ONCE | REFINED) & TABLE


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_no_game_overrides_what_the_base_class_implements_once(game_id: str) -> None:
    own = set(vars(type(get_game(game_id))))
    assert own & ONCE == set()


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_game_class_defines_only_the_calls_the_guide_names(game_id: str) -> None:
    cls = type(get_game(game_id))
    defined = {name for name, value in vars(cls).items() if inspect.isfunction(value)}
    assert defined - {"__init__"} <= TABLE | REFINED
