"""The Python client against the whole system as ``make run`` starts it: a whole session
match of every game, bot seats on the real worker and a human seat driven through the
client; the stateless API with a bot job polled to completion; stale versions, leave
and claim; and the README's Python example, run as written."""

from __future__ import annotations

import random
import re
import time

import pytest
from majlis_client import (
    Client,
    Forbidden,
    IllegalMove,
    SessionState,
    StaleVersion,
    Unauthorized,
    UnknownSession,
)

from tests.clients.conftest import MATCHES, ROOT

pytestmark = pytest.mark.integration

BOT = {"type": "bot", "level": "easy"}
SECONDS_PER_MATCH = 120  # a bound, far above what a match takes (see the report of each run)


@pytest.mark.parametrize("game", sorted(MATCHES))
def test_a_whole_session_match_with_bot_seats_and_a_client_driven_seat(server, game):
    client = Client(server)
    setup = MATCHES[game]
    seats = ["human"] + [BOT] * (setup["players"] - 1)
    created = client.create_session(game, seats=seats, seed=11, **setup)
    assert len(created.tokens) == setup["players"]
    me = client.session(created.id, created.tokens[0])
    rng = random.Random(game)
    deadline = time.monotonic() + SECONDS_PER_MATCH
    own_moves = bot_moves = 0
    state = me.wait_for_turn()
    while not state.finished:
        assert time.monotonic() < deadline, f"{game}: the match is not over after {SECONDS_PER_MATCH} s"
        if own_moves % 7 == 3:  # now and then a bot plays the human's own seat, on request
            state = me.bot_move(level="random")
            assert state.action is not None
            bot_moves += 1
        else:
            state = me.play(lambda s: rng.choice(me.legal_actions(s)).action)
        own_moves += 1
        assert state.events is not None
        state = me.wait_for_turn(timeout=30)
    assert state.to_act is None and me.legal_actions(state) == []
    log = me.log()
    assert [entry["n"] for entry in log.entries] == list(range(1, state.version + 1))
    played_by = {entry["seat"] for entry in log.entries}
    assert played_by == set(range(setup["players"])), "every seat played: the bot seats on the worker"
    assert own_moves and bot_moves


def test_the_stateless_api_and_a_bot_job_polled_to_completion(server):
    client = Client(server)
    state = client.deal("ronda", players=2, seed=42)
    moves = client.legal_moves("ronda", state=state)
    assert moves.to_act == 1 and {"type": "pass"} in moves.actions
    after = client.move("ronda", state, 1, {"type": "pass"})
    assert after.state["history"] and isinstance(after.events, list)
    assert client.view("ronda", after.state, 0)["seat"] == 0
    seat = after.state["to_act"]
    inline = client.bot_move("ronda", state=after.state, seat=seat, level="easy", seed=1)
    assert inline.job is None and inline.action in client.legal_moves("ronda", state=after.state).actions
    view = client.view("ronda", after.state, seat)
    queued = client.bot_move("ronda", view=view, seat=seat, seed=1, async_=True)
    assert queued.job is not None and queued.job.status == "done"
    assert queued.action in client.legal_moves("ronda", state=after.state).actions
    assert client.score("ronda", after.state).finished is False
    with pytest.raises(IllegalMove) as refused:
        client.move("ronda", state, 1, {"type": "play", "card": state["hands"][1][0]})  # declare first
    assert refused.value.rule and refused.value.reason and refused.value.legal_actions == moves.actions


def test_a_stale_version_is_refused_and_play_decides_again(server):
    client = Client(server)
    created = client.create_session("ronda", players=2, seed=5, options={"challenges": False})
    first, second = client.seats(created)
    starting = first.get()
    mover, waiter = (first, second) if starting.my_turn else (second, first)
    before = waiter.get()
    mover.play(lambda s: mover.legal_actions(s)[0].action)
    with pytest.raises(StaleVersion) as stale:
        waiter.move({"type": "pass"}, expected_version=before.version)
    assert stale.value.version == before.version + 1

    waiter.last = before  # decided on an old answer: the first try is refused with 409
    seen: list[SessionState] = []

    def choose(state: SessionState):
        seen.append(state)
        legal = waiter.legal_actions(state)  # none in the old answer: the waiter was not to act
        return legal[0].action if legal else {"type": "pass"}

    after = waiter.play(choose)
    assert [s.version for s in seen] == [before.version, before.version + 1]
    assert seen[1].my_turn
    assert after.version == before.version + 2


def test_leave_claim_and_the_errors_of_sessions(server):
    client = Client(server)
    created = client.create_session("ronda", players=2, seed=9)
    first, second = client.seats(created)
    mover = first if first.get().my_turn else second
    left = mover.leave(level="random")
    assert left.seats[left.seat]["type"] == "bot"
    deadline = time.monotonic() + 30
    while mover.get().version == left.version:  # the worker plays the seat handed to it
        assert time.monotonic() < deadline
        time.sleep(0.05)
    claimed = mover.claim()
    assert claimed.seats[claimed.seat]["type"] == "human" and claimed.version > left.version
    with pytest.raises(Forbidden):
        mover.move({"type": "pass"}, seat=1 - claimed.seat)
    with pytest.raises(Unauthorized):
        client.session(created.id, "not-a-token").get()
    with pytest.raises(UnknownSession):
        client.session("0" * 32, created.tokens[0]).get()


def test_the_readme_python_example_runs_as_written(server, monkeypatch, capsys):
    text = (ROOT / "README.md").read_text()
    (block,) = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    monkeypatch.setenv("BASE", server)  # the example reads BASE, as the curl examples do
    exec(compile(block, "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert "('ronda', [2, 3, 4])" in printed[0]
    assert printed[-1].endswith(" moves")
