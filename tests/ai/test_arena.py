"""The arena's match loop and statistics, on the toy game (budgets in iterations)."""

from __future__ import annotations

import pytest
from toy import GAME, ToyGame

from ai.arena import play_match, wilson
from ai.bots import Budget


def test_wilson_interval() -> None:
    low, high = wilson(60, 100)
    assert low == pytest.approx(0.502, abs=1e-3)
    assert high == pytest.approx(0.691, abs=1e-3)
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(10, 10)
    assert high == 1.0 and low > 0.69


def test_match_is_seeded_and_rotates_seats() -> None:
    kwargs = dict(
        players=2, options=None, level_a="normal", level_b="random", budget=Budget(iterations=200), seed=4
    )
    first = play_match(GAME, index=0, **kwargs)
    again = play_match(GAME, index=0, **kwargs)
    assert first == again
    assert first.decisions == 4 and first.deals == 1
    assert first.score in (0.0, 0.5, 1.0)


def test_search_beats_random_on_a_bigger_toy() -> None:
    """On 6-card hands from a 24-card pack, the searching bot takes clearly more tricks
    than a random bot dealt the same cards on the same seeds (paired comparison)."""
    game = ToyGame(suits=4, ranks=6, hand=6)

    def tricks(level: str) -> float:
        return (
            sum(
                play_match(
                    game,
                    players=2,
                    options=None,
                    level_a=level,
                    level_b="random",
                    budget=Budget(iterations=200),
                    seed=1,
                    index=index,
                ).a_points
                for index in range(40)
            )
            / 40
        )

    assert tricks("normal") > tricks("random") + 0.4


def test_cli_prints_the_win_rate_and_points(capsys: pytest.CaptureFixture[str]) -> None:
    from ai.arena import main

    assert main(["--game", "ronda", "--a", "easy", "--b", "random", "--matches", "3", "--seed", "2"]) == 0
    out, err = capsys.readouterr()
    assert "A win rate" in out and "95% CI" in out and "points per deal" in out
    assert "3/3 matches" in err
