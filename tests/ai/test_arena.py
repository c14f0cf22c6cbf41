"""The arena's match loop and statistics, on the toy game (budgets in iterations), and its
seating on the real games."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from stopped_run import run_and_stop
from toy import GAME, ToyGame

from ai.arena import (
    MatchResult,
    MatchStart,
    Tally,
    fair_decider,
    mean_interval,
    pairwise_share,
    play_match,
    play_series,
    start_match,
    wilson,
)
from ai.bots import Budget
from engine import get_game
from engine.protocol import Game


def test_wilson_interval() -> None:
    low, high = wilson(60, 100)
    assert low == pytest.approx(0.502, abs=1e-3)
    assert high == pytest.approx(0.691, abs=1e-3)
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(10, 10)
    assert high == 1.0 and low > 0.69


def test_pairwise_share_counts_the_sides_beaten_and_halves_ties() -> None:
    assert pairwise_share([10, 30, 20, 30], 1) == pytest.approx(2.5 / 3)
    assert pairwise_share([10, 30, 20, 30], 0) == 0.0
    assert pairwise_share([5, 3], 0) == 1.0 and pairwise_share([3, 3], 1) == 0.5


def test_mean_interval_of_per_match_shares() -> None:
    mean, low, high = mean_interval([1.0, 0.0] * 50)
    assert mean == 0.5 and low == pytest.approx(0.402, abs=1e-3) and high == pytest.approx(0.598, abs=1e-3)
    assert mean_interval([2 / 3] * 10) == pytest.approx((2 / 3, 2 / 3, 2 / 3))


def test_match_is_seeded_and_rotates_seats() -> None:
    kwargs = dict(
        players=2, options=None, level_a="normal", level_b="random", budget=Budget(iterations=200), seed=4
    )
    first = play_match(GAME, index=0, **kwargs)
    again = play_match(GAME, index=0, **kwargs)
    assert first == again
    assert first.decisions == 4 and first.deals == 1
    assert first.score in (0.0, 0.5, 1.0)


@pytest.mark.parametrize(("game_id", "players"), [("ronda", 2), ("marriage", 3), ("baloot", 4), ("trex", 4)])
def test_side_a_meets_every_first_dealer(game_id: str, players: int) -> None:
    """Any ``sides * players`` consecutive matches of a series give A's side each first
    dealer once, so A does not always sit in the same place at the table (a two-player A
    deals first in half the matches, a Baloot A's team in half)."""
    game = get_game(game_id)
    sides = len(game.score(game.new_state(players, None, 0, seed=1)).sides)
    first = 5  # any start: a run may begin anywhere in a series (--first)
    starts = [start_match(game, players, None, 9, index) for index in range(first, first + sides * players)]
    pairs = {(start.a_side, view_dealer(game, start)) for start in starts}
    assert pairs == {(side, dealer) for side in range(sides) for dealer in range(players)}
    a_deals = [view_dealer(game, s) in game.score(s.state).sides[s.a_side] for s in starts]
    assert sum(a_deals) * players == len(starts) * len(game.score(starts[0].state).sides[0])


def view_dealer(game: Game[Any], start: MatchStart) -> int:
    """The first dealer of a match, as every seat's view shows it."""
    dealer = game.view(start.state, 0)["dealer"]
    assert isinstance(dealer, int)
    return dealer


def test_side_a_decider_is_handed_the_true_state_and_the_seat_to_act() -> None:
    """``play_match``'s ``decide_a`` (for measuring sticks such as
    bench/clairvoyant_bound.py) makes side A's moves from the live state, the seat to act
    and A's level; B's bot sees its view. The default gives the same match as handing
    A's bot its view."""
    kwargs = dict(
        players=2, options=None, level_a="normal", level_b="random", budget=Budget(iterations=50), seed=4
    )
    calls: list[tuple[int, str]] = []

    def recording(game, state, seat, level, budget, seed):  # type: ignore[no-untyped-def]
        assert game.to_act(state) == seat
        calls.append((seat, level))
        return fair_decider(game, state, seat, level, budget, seed)

    recorded = play_match(GAME, index=1, decide_a=recording, **kwargs)
    assert recorded == play_match(GAME, index=1, **kwargs)
    # A's side is 1 in match 1 (sides rotate): only its seat's moves go through decide_a
    assert calls and all(call == (1, "normal") for call in calls)
    assert len(calls) < recorded.decisions


def test_tally_sums_the_matches_and_reports_the_rates() -> None:
    tally = Tally()
    for score in (1.0, 0.0, 0.5, 1.0):
        tally.add(MatchResult(score, score, 2.0, 1.0, 1, 10, (100, 0), (2, 0), (4, 6), (1, 0), (0.5, 0.03)))
    assert tally.matches == 4 and tally.wins == 2.5 and tally.deals == 4 and tally.decisions == 40
    lines = tally.report(sides=2)
    assert lines[0].startswith("A win rate 0.625")
    assert "points per deal: A 2.00, B 1.00" in lines
    assert (
        lines[-2]
        == "iterations per search: A 50 (8 searches), B 0 (0 searches); cut short by a cap: A 4, B 0"
    )
    assert lines[-1] == "CPU seconds per decision: A 0.1250, B 0.0050"
    assert any(line.startswith("A pairwise rate 0.625") for line in tally.report(sides=4))


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
    assert "1/3 matches" in err and "min left" in err  # the pace says how long the rest takes


def test_cli_plays_a_range_of_the_series(capsys: pytest.CaptureFixture[str]) -> None:
    from ai.arena import main

    base = ["--game", "ronda", "--a", "easy", "--b", "random", "--seed", "2"]
    assert main(base + ["--matches", "2", "--first", "3"]) == 0
    out, _ = capsys.readouterr()
    assert "seed 2, matches 3-4" in out
    assert main(base + ["--matches", "5"]) == 0
    whole, _ = capsys.readouterr()
    assert "seed 2, matches 0-4" in whole


def test_cli_prints_the_pairwise_rate_for_more_than_two_sides(capsys: pytest.CaptureFixture[str]) -> None:
    from ai.arena import main

    args = ["--game", "marriage", "--players", "3", "--a", "easy", "--b", "random"]
    args += ["--matches", "2", "--seed", "2"]
    assert main(args) == 0
    out, _ = capsys.readouterr()
    assert "first place, chance 0.333" in out and "A pairwise rate" in out


def test_an_interrupted_series_keeps_the_matches_it_finished() -> None:
    """Ctrl-C in a long run: the tally holds the matches finished before it, in order, and
    the process's SIGTERM handler is given back afterwards."""
    before = signal.getsignal(signal.SIGTERM)

    def play(index: int) -> MatchResult:
        if index == 12:
            raise KeyboardInterrupt
        return MatchResult(1.0 if index % 2 else 0.0, 0.5, 3.0, 1.0, 2, 10)

    tally = play_series(play, range(10, 20), jobs=1, label="toy")
    assert tally.stopped and tally.matches == 2 and tally.wins == 1.0 and tally.deals == 4
    whole = play_series(play, range(0, 5), jobs=1, label="toy")
    assert not whole.stopped and whole.matches == 5
    assert signal.getsignal(signal.SIGTERM) == before


def test_cli_reports_what_it_played_when_interrupted(capsys: pytest.CaptureFixture[str]) -> None:
    """The second match is interrupted: the report covers the first, says it stopped, and
    the exit status is 130."""
    from ai.arena import INTERRUPTED, main

    first_state: list[Any] = []

    def interrupting(game, state, seat, level, budget, seed):  # type: ignore[no-untyped-def]
        if not first_state:
            first_state.append(state)  # kept alive: a later match's state is another object
        elif state is not first_state[0]:
            raise KeyboardInterrupt
        return fair_decider(game, state, seat, level, budget, seed)

    args = ["--game", "ronda", "--a", "easy", "--b", "random"]
    args += ["--matches", "4", "--seed", "2", "--first", "6"]
    assert main(args, decide_a=interrupting) == INTERRUPTED
    out, err = capsys.readouterr()
    assert "matches 6-9, stopped: 6-6 played" in out
    assert "matches 1, deals" in out and "A win rate" in out and "points per deal" in out
    assert "(stopped)" in err


@pytest.mark.parametrize(
    ("stop", "jobs"), [(signal.SIGINT, "2"), (signal.SIGTERM, "2"), (signal.SIGTERM, "1")]
)
def test_a_signalled_run_reports_and_exits_130(tmp_path: Path, stop: signal.Signals, jobs: str) -> None:
    """The real thing: Ctrl-C's signal or ``kill``'s to an arena process, with worker
    processes or without."""
    command = [sys.executable, "-m", "ai.arena", "--game", "ronda", "--a", "easy", "--b", "random"]
    command += ["--matches", "2000", "--seed", "3", "--jobs", jobs]
    status, out, said = run_and_stop(command, tmp_path, stop, "matches, A")
    assert status == 130
    assert "stopped: 0-" in out and "A win rate" in out
    assert "Traceback" not in said


ROOT = Path(__file__).resolve().parents[2]
STOP_AS_FORKED = """
import signal
from ai import arena

signal.signal(signal.SIGTERM, arena._stop)  # the parent's handler during a run
for _ in range(300):
    pool, mask = arena._start_workers(2)
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    pool.terminate()  # SIGTERM to workers just forked, most before their first line of Python
    pool.join()
print("every pool stopped")
"""


def test_a_pool_stopped_as_its_workers_are_forked_ends_them_quietly() -> None:
    """300 worker pools, each terminated as soon as it is made, as a run stopped at once
    terminates its pool: every one ends, and no worker prints a traceback. Forked with the
    parent's handler and the signals unblocked, a worker that the SIGTERM reached before its
    first line of Python lost it (the whole script then hung, within 300 pools in a probe:
    the stopped run of `test_a_signalled_run_reports_and_exits_130` hung so in the suite), or
    raised KeyboardInterrupt from the inherited handler (2 or 3 tracebacks in two of five
    runs of 100 pools)."""
    done = subprocess.run(
        [sys.executable, "-c", STOP_AS_FORKED], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 0 and "every pool stopped" in done.stdout, done.stderr[-2000:]
    assert "Traceback" not in done.stderr, done.stderr[-2000:]


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_in_the_middle_of_a_search_waits_for_the_match_and_reports(
    tmp_path: Path, stop: signal.Signals
) -> None:
    """A signal that lands inside the (compiled) search of a one-process run: the run
    ends after the match being played, with its report, where an exception raised by the
    handler aborted a compiled run (``fatal: out of memory``, exit 134: 4 of 4 Marriage
    runs stopped 4-7 s in, before the fix). Marriage's normal level searches most of the
    time, so the signal lands in the search."""
    command = [sys.executable, "-m", "ai.arena", "--game", "marriage", "--a", "normal", "--b", "easy"]
    command += ["--matches", "200", "--seed", "3", "--jobs", "1"]
    # half a second into the next match's searches
    status, out, said = run_and_stop(command, tmp_path, stop, "matches, A", pause=0.5)
    assert status == 130, said[-500:]
    assert "stopping after the match being played" in said and "fatal" not in said
    assert "stopped: 0-" in out and "A win rate" in out


def test_cli_says_when_a_stop_came_before_any_match_ended(capsys: pytest.CaptureFixture[str]) -> None:
    from ai.arena import INTERRUPTED, main

    def interrupt_at_once(game, state, seat, level, budget, seed):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    args = ["--game", "ronda", "--a", "easy", "--b", "random", "--matches", "3", "--seed", "2"]
    assert main(args, decide_a=interrupt_at_once) == INTERRUPTED
    out, _ = capsys.readouterr()
    assert "matches 0-2, stopped: none played" in out and "A win rate" not in out


@pytest.mark.parametrize(("game_id", "players"), [("porrazo", 2), ("baloot", 4), ("trex", 4)])
def test_duplicate_matches_deal_a_group_alike(game_id: str, players: int) -> None:
    """With ``duplicate`` each group of ``sides`` matches starts from the same deal and the
    same first dealer, A holding each side's cards once (its side turning within the
    group); the next group deals anew. Without it every match deals its own cards."""
    game = get_game(game_id)
    options = game.parse_options(None, players)
    sides = len(game.score(game.new_state(players, options, 0, seed=1)).sides)
    indices = range(sides, 2 * sides)
    group = [start_match(game, players, options, 9, index, duplicate=True) for index in indices]
    assert len({str(game.to_json(s.state)) for s in group}) == 1
    assert sorted(s.a_side for s in group) == list(range(sides))
    next_group = start_match(game, players, options, 9, 2 * sides, duplicate=True)
    assert game.to_json(next_group.state) != game.to_json(group[0].state)
    plain = [start_match(game, players, options, 9, index) for index in indices]
    assert len({str(game.to_json(s.state)) for s in plain}) == sides
    # a group deals its first match's cards
    assert game.to_json(plain[0].state) == game.to_json(group[0].state)


def test_duplicate_interval_counts_groups() -> None:
    from ai.arena import duplicate_interval

    groups, mean, low, high = duplicate_interval([1.0, 0.0] * 20 + [1.0, 1.0] * 20, 2)
    assert (groups, mean) == (40, 0.75)
    assert 0.5 < low < mean < high < 1.0  # the 20 split groups are the spread, not 80 coin flips
    assert duplicate_interval([1.0, 0.0, 1.0], 2)[0] == 1  # an unfinished group is not counted


def test_cli_duplicate_reports_the_groups(capsys: pytest.CaptureFixture[str]) -> None:
    from ai.arena import main

    base = ["--game", "ronda", "--a", "easy", "--b", "random", "--seed", "2", "--duplicate"]
    assert main(base + ["--matches", "4"]) == 0
    out, _ = capsys.readouterr()
    assert "seed 2, duplicate, matches 0-3" in out
    assert "A duplicate win rate" in out and "over 2 groups of 2 matches" in out
    with pytest.raises(SystemExit):
        main(base + ["--matches", "3"])
    assert "groups of 2 matches" in capsys.readouterr().err


def test_the_arenas_docstring_examples() -> None:
    """The examples in ai/arena.py's docstrings (the intervals) are tests too."""
    import doctest

    import ai.arena

    result = doctest.testmod(ai.arena)
    assert result.attempted >= 5 and result.failed == 0


def test_the_report_gives_the_points_margin_over_matches_and_over_groups() -> None:
    tally = Tally()
    for margin in [4.0, -2.0, 6.0, 0.0]:
        tally.add(
            MatchResult(
                score=float(margin > 0), pairwise=0.0, a_points=margin, b_points=0.0, deals=1, decisions=1
            )
        )
    lines = "\n".join(tally.report(2, duplicate=True))
    assert "A - B points per deal +2.00" in lines
    assert "(over matches)" in lines and "(over groups)" in lines
    assert "A duplicate win rate 0.500" in lines


def test_with_more_than_two_sides_the_report_gives_the_pairwise_rate_over_groups() -> None:
    # Trex's measure is the pairwise rate; dealt alike, a group's mean is one observation
    tally = Tally()
    for pairwise in [1.0, 2 / 3, 1 / 3, 0.0] + [1.0, 1.0, 2 / 3, 1 / 3]:
        tally.add(MatchResult(score=0.0, pairwise=pairwise, a_points=0.0, b_points=0.0, deals=1, decisions=1))
    lines = "\n".join(tally.report(4, duplicate=True))
    assert "A duplicate pairwise rate 0.625" in lines and "over 2 groups of 4 matches" in lines
    assert "duplicate pairwise" not in "\n".join(tally.report(4))
    assert "duplicate pairwise" not in "\n".join(tally.report(2, duplicate=True))
