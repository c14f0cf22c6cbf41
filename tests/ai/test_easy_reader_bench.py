"""bench/porrazo_easy_reader.py: the reading of the Porrazo opponent's plays as easy's."""

from __future__ import annotations

from typing import Any

import pytest

from ai import arena
from ai.bots import Budget, Decision
from bench import porrazo_easy_reader as reader
from engine import get_game


@pytest.fixture(autouse=True)
def fresh_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "MEMORY", reader.Memory())
    monkeypatch.setattr(reader, "AGREEMENT", [])


def play_against_easy(decide_a: arena.Decider) -> None:
    arena.play_match(
        get_game("porrazo"),
        players=2,
        options=None,
        level_a="normal",
        level_b="easy",
        budget=Budget(iterations=40),
        seed=71,
        index=2,
        decide_a=decide_a,
    )


def test_every_play_of_easy_that_is_read_is_one_of_its_best_cards() -> None:
    play_against_easy(reader.agreement_decider)
    assert len(reader.AGREEMENT) >= 20  # about one play read a decision
    assert all(agree for agree, _ in reader.AGREEMENT)
    assert any(ties > 1 for _, ties in reader.AGREEMENT)  # and ties are counted


def test_the_reading_never_rules_out_the_opponents_true_hand() -> None:
    game = get_game("porrazo")
    odds: list[float] = []

    def checking(game_: Any, state: Any, seat: int, level: str, budget: Budget | None, seed: int) -> Decision:
        decision = reader.reading_decider(game_, state, seat, level, budget, seed)
        for seen in reader.MEMORY.seen:
            dealt = tuple(state.dealt[seen.seat])
            odds.append(reader.easy_odds(game, seen, reader.hand_when(seen, dealt), dealt))
        return decision

    play_against_easy(checking)
    assert len(odds) >= 20
    assert min(odds) > 0.0
    # and the reading rules out other hands: some of the opponent's plays were its only best
    assert max(odds) == 1.0
