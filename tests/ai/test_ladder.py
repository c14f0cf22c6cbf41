"""The ladder: its round robin, its Elo fit (on synthetic results with known strengths),
its report, and a real run stopped part-way."""

from __future__ import annotations

import json
import math
import random
import signal
import sys
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from stopped_run import run_and_stop

from ai.arena import MatchResult, play_match, start_match
from ai.ladder import Played, Task, elo_with_intervals, fit_elo, main, measured, schedule
from engine import get_game

LEVELS = ["random", "easy", "normal", "hard"]


def test_every_pair_plays_every_deal_twice_with_the_levels_swapped() -> None:
    tasks = schedule(LEVELS, first=7, matches=6)
    assert len(tasks) == 6 * 6  # 6 pairs, 6 matches each
    for low, high in combinations(LEVELS, 2):
        mine = [t for t in tasks if (t.low, t.high) == (low, high)]
        assert sorted((t.index, t.level_a, t.level_b) for t in mine) == sorted(
            (index, a, b) for index in (7, 8, 9) for a, b in ((low, high), (high, low))
        )
    # deal by deal: a run stopped early has played every pair about as often
    assert [t.index for t in tasks[:12]] == [7] * 12
    with pytest.raises(ValueError, match="even"):
        schedule(LEVELS, first=0, matches=3)


@pytest.mark.parametrize(("game_id", "players"), [("ronda", 2), ("baloot", 4), ("trex", 4)])
def test_each_level_of_a_pair_meets_every_seat_and_first_dealer(game_id: str, players: int) -> None:
    """The arena turns A's side and the first dealer with the deal's index; the ladder plays
    each deal with either level as A, so over ``2 * sides * players`` matches each level of a
    pair holds A's place at every side and under every first dealer, and the other's B."""
    game = get_game(game_id)
    sides = len(game.score(game.new_state(players, None, 0, seed=1)).sides)
    tasks = schedule(["easy", "normal"], first=3, matches=2 * sides * players)
    for level in ("easy", "normal"):
        places = set()
        for task in (t for t in tasks if t.level_a == level):
            start = start_match(game, players, None, 9, task.index)
            places.add((start.a_side, game.view(start.state, 0)["dealer"]))
        assert places == {(side, dealer) for side in range(sides) for dealer in range(players)}


def result(score: float, pairwise: float, a_points: float, b_points: float) -> MatchResult:
    return MatchResult(score, pairwise, a_points, b_points, deals=2, decisions=10)


def test_a_match_is_measured_from_the_lower_levels_side() -> None:
    straight = Task("easy", "normal", 0, swapped=False)
    swapped = Task("easy", "normal", 0, swapped=True)
    won = result(1.0, 1.0, 8.0, 2.0)
    assert measured(straight, won, sides=2).score == 1.0
    assert measured(swapped, won, sides=2).score == 0.0  # normal was A and won
    assert measured(swapped, won, sides=2).points == (2.0, 8.0)
    # more than two sides: the pairwise share (A beat one of three B seats), not first place
    trex = result(0.0, 1 / 3, -5.0, 2.0)
    assert measured(straight, trex, sides=4).score == pytest.approx(1 / 3)
    assert measured(swapped, trex, sides=4).score == pytest.approx(2 / 3)


TRUE_ELO = {"random": -300.0, "easy": 0.0, "normal": 150.0, "hard": 250.0}


def synthetic(matches: int, seed: int) -> list[Played]:
    """Matches drawn from the Elo model with TRUE_ELO, every deal's two matches independent."""
    rng = random.Random(seed)
    played = []
    for task in schedule(LEVELS, first=0, matches=matches):
        expected = 1 / (1 + 10 ** ((TRUE_ELO[task.high] - TRUE_ELO[task.low]) / 400))
        score = 1.0 if rng.random() < expected else 0.0
        played.append(Played(task, result(score, score, 0.0, 0.0), score))
    return played


def test_the_fit_recovers_known_strengths() -> None:
    fit = elo_with_intervals(synthetic(2000, seed=1), LEVELS, anchor="easy", resamples=100)
    assert sorted(LEVELS, key=fit.elo.__getitem__) == LEVELS
    for level in LEVELS:
        assert fit.elo[level] == pytest.approx(TRUE_ELO[level], abs=35)
        for low, high in (fit.bootstrap[level], fit.information[level]):
            assert low <= fit.elo[level] <= high
    assert fit.elo["easy"] == 0 and fit.bootstrap["easy"] == (0, 0)
    assert [(g["low"], g["high"]) for g in fit.gaps] == list(zip(LEVELS, LEVELS[1:], strict=False))
    for gap in fit.gaps:
        assert gap["bootstrap"][0] > 0 and gap["information"][0] > 0  # every gap resolved


def test_the_fit_is_at_the_likelihood_maximum() -> None:
    """Moving any rating away from the fit lowers the likelihood (prior included)."""
    played = synthetic(40, seed=2)
    outcomes = [(p.task.low, p.task.high, p.score) for p in played]
    elo = fit_elo(outcomes, LEVELS, anchor="random").elo
    assert elo["random"] == 0

    def log_likelihood(ratings: dict[str, float]) -> float:
        with_prior = outcomes + [(x, y, 0.5) for x, y in combinations(LEVELS, 2)]
        total = 0.0
        for x, y, s in with_prior:
            p = 1 / (1 + 10 ** ((ratings[y] - ratings[x]) / 400))
            total += s * math.log(p) + (1 - s) * math.log(1 - p)
        return total

    best = log_likelihood(elo)
    for level in ("easy", "normal", "hard"):
        for delta in (-5.0, 5.0):
            assert log_likelihood({**elo, level: elo[level] + delta}) < best


def test_intervals_shrink_with_more_matches() -> None:
    def widths(matches: int) -> tuple[float, float]:
        fit = elo_with_intervals(synthetic(matches, seed=3), LEVELS, anchor="easy", resamples=200)
        boot = sum(high - low for low, high in fit.bootstrap.values())
        info = sum(high - low for low, high in fit.information.values())
        return boot, info

    few, many = widths(40), widths(640)
    # 16 times the matches: about a quarter of the width
    assert many[0] < few[0] / 2.5 and many[1] < few[1] / 2.5


def test_a_sweep_stays_finite_and_uncertain() -> None:
    """A level that lost every match: the virtual draw keeps its rating finite, and the
    information interval stays wide where the bootstrap's collapses (every resample alike)."""
    played = [Played(t, result(0.0, 0.0, 0.0, 0.0), 0.0) for t in schedule(["random", "easy"], 0, 10)]
    fit = elo_with_intervals(played, ["random", "easy"], anchor="easy", resamples=50)
    assert -1000 < fit.elo["random"] < -300
    assert fit.bootstrap["random"][0] == fit.bootstrap["random"][1]
    low, high = fit.information["random"]
    assert high - low > 400


def test_the_ladder_plays_the_arenas_matches(capsys: pytest.CaptureFixture[str]) -> None:
    """A tiny real run (random and easy are fast): the report's pair row is what the arena's
    own matches give for the same deals, each played with either level as A."""
    args = ["--game", "ronda", "--levels", "random,easy", "--matches", "4", "--seed", "2"]
    assert main([*args, "--json", "--bootstrap", "50"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert doc["played"] == doc["scheduled"] == 4 and not doc["stopped"]
    assert "4/4 matches" in err
    (row,) = doc["pairs"]
    assert (row["level"], row["opponent"], row["matches"]) == ("easy", "random", 4)
    game = get_game("ronda")
    easy_score = 0.0
    for index in (0, 1):
        for a, b in (("random", "easy"), ("easy", "random")):
            match = play_match(
                game, players=2, options=None, level_a=a, level_b=b, budget=None, seed=2, index=index
            )
            easy_score += match.score if a == "easy" else 1 - match.score
    assert row["win_rate"] == easy_score / 4
    assert set(doc["elo"]["levels"]) == {"random", "easy"} and doc["elo"]["levels"]["easy"]["elo"] == 0
    for level in ("random", "easy"):
        per = doc["per_level"][level]
        assert per["matches"] == 4 and per["decisions"] > 0 and per["cpu_seconds_per_decision"] > 0


def test_the_text_report_has_the_three_tables(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--game", "porrazo", "--levels", "random,easy,normal", "--matches", "2", "--seed", "4"]
    assert main([*args, "--budget-iterations", "10", "--bootstrap", "20"]) == 0
    out, _ = capsys.readouterr()
    assert "| level | Elo |" in out and "| normal - easy |" in out and "| normal v easy | 2 |" in out
    assert "easy = 0" in out and "match win rate" in out


def test_trex_is_measured_pairwise(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--game", "trex", "--levels", "random,easy", "--matches", "2", "--seed", "4", "--json"]
    assert main([*args, "--bootstrap", "20"]) == 0
    doc = json.loads(capsys.readouterr()[0])
    assert doc["measure"] == "pairwise rate (1 seat v 3)"


def test_bad_arguments_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    for bad in (["--levels", "easy,expert"], ["--levels", "easy"], ["--matches", "3"]):
        with pytest.raises(SystemExit) as stop:
            main(["--game", "ronda", *bad])
        assert stop.value.code == 2
    assert "unknown level expert" in capsys.readouterr()[1]


@pytest.mark.parametrize(("stop", "jobs"), [(signal.SIGINT, "2"), (signal.SIGTERM, "1")])
def test_a_stopped_ladder_reports_what_finished(tmp_path: Path, stop: signal.Signals, jobs: str) -> None:
    """Ctrl-C's or ``kill``'s signal to a real ladder process: the report of the matches
    finished before it, exit status 130."""
    command = [sys.executable, "-m", "ai.ladder", "--game", "ronda", "--levels", "random,easy"]
    command += ["--matches", "2000", "--seed", "3", "--jobs", jobs, "--json", "--bootstrap", "20"]
    status, out, said = run_and_stop(command, tmp_path, stop, "matches (deal")
    assert status == 130
    doc: dict[str, Any] = json.loads(out)
    assert doc["stopped"] and 1 <= doc["played"] < doc["scheduled"] == 2000
    assert doc["pairs"][0]["matches"] == doc["played"] and doc["elo"] is not None
    assert "(stopped)" in said and "Traceback" not in said


def test_a_recorded_ladder_goes_on_where_the_last_run_stopped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--record``: a round robin played in two runs (4 matches a pair, then 8) reports
    what one run of 8 does, the second run playing only the matches the record lacks."""
    base = ["--game", "ronda", "--levels", "random,easy", "--seed", "2", "--json", "--bootstrap", "20"]
    record = tmp_path / "ladder.jsonl"

    def timeless(doc: dict[str, Any]) -> list[Any]:  # the report less its CPU times
        rows = [*doc["pairs"], *doc["per_level"].values()]
        return [{k: v for k, v in row.items() if "cpu" not in k} for row in rows] + [doc["elo"]]

    assert main([*base, "--matches", "8"]) == 0
    whole = json.loads(capsys.readouterr()[0])
    assert main([*base, "--matches", "4", "--record", str(record)]) == 0
    capsys.readouterr()
    assert len(record.read_text().splitlines()) == 4
    assert main([*base, "--matches", "8", "--record", str(record)]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    keys = [tuple(json.loads(line)["match"]) for line in record.read_text().splitlines()]
    assert keys == [task.key for task in schedule(["random", "easy"], 0, 8)]
    assert doc["from_record"] == 4 and doc["played"] == 8 and "5/8 matches" in err
    assert "4/8 matches" not in err  # the first four were not played again
    assert timeless(doc) == timeless(whole)

    with pytest.raises(SystemExit):  # another round robin: other levels
        main([*base[:3], "easy,normal", *base[4:], "--matches", "8", "--record", str(record)])
    assert "a match of another series (differs in levels)" in capsys.readouterr()[1]
