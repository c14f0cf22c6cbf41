"""The arena's record (``--record``): a series played in several runs, each continuing where
the last stopped, reports what one uninterrupted run of the range reports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ai.arena import INTERRUPTED, code_fingerprint, fair_decider, main

SERIES = ["--game", "ronda", "--a", "easy", "--b", "random", "--seed", "2"]


def report_of(out: str) -> list[str]:
    """The lines of a report that depend only on the matches (no timing, no run's range)."""
    lines = out.splitlines()
    return [line for line in lines if line.startswith(("A win", "A -", "points per deal", "iterations"))]


def indices_in(record: Path) -> list[int]:
    return [json.loads(line)["match"] for line in record.read_text().splitlines()]


def test_a_series_in_two_runs_reports_what_one_run_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "series.jsonl"
    assert main(SERIES + ["--matches", "4"]) == 0
    whole = report_of(capsys.readouterr().out)

    assert main(SERIES + ["--matches", "2", "--record", str(record)]) == 0
    capsys.readouterr()
    assert indices_in(record) == [0, 1]
    assert main(SERIES + ["--matches", "4", "--record", str(record)]) == 0
    out, err = capsys.readouterr()
    assert indices_in(record) == [0, 1, 2, 3]  # the second run played only matches 2 and 3
    assert "matches 0-3 (2 of them from the record" in out
    assert "4/4 matches" in err and "3/4 matches" in err and "2/4 matches" not in err
    assert report_of(out) == whole


def test_a_whole_record_plays_nothing_and_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "series.jsonl"
    assert main(SERIES + ["--matches", "2", "--record", str(record)]) == 0
    first = report_of(capsys.readouterr().out)

    def never(*args: Any) -> Any:
        raise AssertionError("a match the record holds was played again")

    assert main(SERIES + ["--matches", "2", "--record", str(record)], decide_a=never) == 0
    assert report_of(capsys.readouterr().out) == first
    assert indices_in(record) == [0, 1]


def interrupting_in_the_second_match():  # type: ignore[no-untyped-def]
    """A's decider that plays its first match fairly and stops the run (as Ctrl-C would)
    in the second."""
    first_state: list[Any] = []

    def interrupting(game, state, seat, level, budget, seed):  # type: ignore[no-untyped-def]
        if not first_state:
            first_state.append(state)
        elif state is not first_state[0]:
            raise KeyboardInterrupt
        return fair_decider(game, state, seat, level, budget, seed)

    return interrupting


def test_a_stopped_run_keeps_what_it_finished_and_the_next_run_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Interrupted in its second match, a run has recorded its first; the same command then
    plays the other three."""
    record = tmp_path / "series.jsonl"
    args = SERIES + ["--matches", "4", "--record", str(record)]
    assert main(args, decide_a=interrupting_in_the_second_match()) == INTERRUPTED
    assert "stopped: 0-0 played" in capsys.readouterr().out
    assert indices_in(record) == [0]
    assert main(args) == 0
    assert "matches 0-3 (1 of them from the record" in capsys.readouterr().out
    assert indices_in(record) == [0, 1, 2, 3]


def test_a_last_line_cut_short_is_dropped_and_its_match_played_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "series.jsonl"
    assert main(SERIES + ["--matches", "2", "--record", str(record)]) == 0
    whole = report_of(capsys.readouterr().out)
    text = record.read_text()
    record.write_text(text[: len(text) - 40])  # the process killed while writing match 1
    assert main(SERIES + ["--matches", "2", "--record", str(record)]) == 0
    assert report_of(capsys.readouterr().out) == whole
    assert indices_in(record) == [0, 1]


@pytest.mark.parametrize(
    ("changed", "differs"),
    [(["--seed", "3"], "seed"), (["--b", "easy"], "b"), (["--budget-iterations", "20"], "budget")],
)
def test_a_record_of_another_series_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], changed: list[str], differs: str
) -> None:
    record = tmp_path / "series.jsonl"
    assert main(SERIES + ["--matches", "1", "--record", str(record)]) == 0
    capsys.readouterr()
    other = SERIES + changed + ["--matches", "2", "--record", str(record)]  # argparse: the last wins
    with pytest.raises(SystemExit):
        main(other)
    err = capsys.readouterr().err
    assert f"a match of another series (differs in {differs})" in err
    assert indices_in(record) == [0]  # nothing was played or written


def test_a_record_with_a_gap_in_the_range_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "series.jsonl"
    assert main(SERIES + ["--matches", "1", "--first", "1", "--record", str(record)]) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(SERIES + ["--matches", "2", "--record", str(record)])  # 0 missing, 1 held
    assert "after a gap (match 0 missing)" in capsys.readouterr().err


@pytest.mark.parametrize(
    "junk",
    [
        "not json\n",
        '{"match": 0}\n',
        '{"series": 3, "match": 0, "result": {}}\n',
        '{"series": {}, "match": {}, "result": {}}\n',
    ],
)
def test_a_file_that_is_not_a_record_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], junk: str
) -> None:
    record = tmp_path / "series.jsonl"
    record.write_text(junk)
    with pytest.raises(SystemExit):
        main(SERIES + ["--matches", "1", "--record", str(record)])
    assert "series.jsonl:1: not a match of a record" in capsys.readouterr().err
    assert record.read_text() == junk


def test_the_code_fingerprint_follows_the_rules_and_bots_source(tmp_path: Path) -> None:
    for folder in ("engine", "ai", "service"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "rules.py").write_text("X = 1\n")
    before = code_fingerprint(tmp_path)
    (tmp_path / "service" / "rules.py").write_text("X = 2\n")
    assert code_fingerprint(tmp_path) == before  # the service does not play
    (tmp_path / "engine" / "rules.py").write_text("X = 2\n")
    changed = code_fingerprint(tmp_path)
    assert changed != before
    (tmp_path / "ai" / "rules.py").write_text("X = 2\n")
    assert code_fingerprint(tmp_path) != changed


def test_a_blind_run_shows_no_score_until_its_range_is_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A declared series played in parts (``--blind``): a part that stops short shows no
    score, in its progress lines or its report; the run that completes the range reports
    what one run of it does."""
    assert main(SERIES + ["--matches", "4"]) == 0
    whole = report_of(capsys.readouterr().out)

    args = SERIES + ["--matches", "4", "--record", str(tmp_path / "series.jsonl"), "--blind"]
    assert main(args, decide_a=interrupting_in_the_second_match()) == INTERRUPTED
    out, err = capsys.readouterr()
    assert "1/4 matches, " in err and "%" not in err
    assert report_of(out) == [] and "no score before the whole range is played (1 of 4)" in out
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert "4/4 matches, " in err and "%" not in err
    assert report_of(out) == whole
