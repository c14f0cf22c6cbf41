"""docs/engine-guide.md's "What game.py answers" is true: the calls it lists are the
protocol's abstract methods, what it says the base class implements once no game
overrides, and a game's class defines no call the section does not name."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

import pytest

from engine import GAME_IDS, get_game
from engine.protocol import CALLS, REFINABLE, Game

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
ONCE = names_in(paragraph("The base class `engine.protocol.Game` implements")) - {"game"}
REFINED = names_in(paragraph("**Where a game may refine the default**"))


def test_the_guide_lists_the_calls_every_game_answers_and_those_it_may_refine() -> None:
    assert TABLE == set(CALLS)
    assert REFINED == set(REFINABLE)


def test_what_the_guide_names_is_a_method_of_the_base_class() -> None:
    for name in ONCE | REFINED | TABLE:
        assert inspect.isfunction(getattr(Game, name, None)), name
    assert not (ONCE | REFINED) & TABLE


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_game_answers_every_call(game_id: str) -> None:
    game = get_game(game_id)
    unanswered = [n for n in CALLS if n not in vars(game) and getattr(type(game), n) is getattr(Game, n)]
    assert unanswered == []


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_no_game_overrides_what_the_base_class_implements_once(game_id: str) -> None:
    game = get_game(game_id)
    assert (set(vars(type(game))) | set(vars(game))) & ONCE == set()


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_game_defines_only_the_calls_the_guide_names(game_id: str) -> None:
    game = get_game(game_id)
    methods = {name for name, value in vars(type(game)).items() if inspect.isfunction(value)}
    assert methods - {"__init__"} <= TABLE | REFINED
    assert set(vars(game)) - {"answers"} <= TABLE | REFINED


def test_a_declaration_is_refused_when_it_names_no_call_or_leaves_one_unanswered() -> None:
    game = get_game("trex")
    answers = {name: getattr(game, name) for name in (*CALLS, *REFINABLE)}

    class Copy(type(game)):  # type: ignore[misc]
        def __init__(self, **given: Any) -> None:
            Game.__init__(self, **given)

    assert Copy(**answers).step is answers["step"]
    with pytest.raises(TypeError, match="'stepp' is not a call"):
        Copy(**answers, stepp=answers["step"])
    del answers["sampler"]
    with pytest.raises(TypeError, match="answers no sampler"):
        Copy(**answers)
