"""The client's stateless calls against the app in process (no sockets, no Redis): whole
matches dealt, played and scored through the client, and the game metadata."""

from __future__ import annotations

import random

import pytest

from tests.clients.conftest import MATCHES

# Not Trex: its shortest match is 8 deals (~500 moves) and a stateless state carries its
# whole history, so the calls grow with it (8 s here); test_e2e plays it whole in a session.
STATELESS_MATCHES = sorted(set(MATCHES) - {"trex"})


@pytest.mark.parametrize("game", STATELESS_MATCHES)
def test_a_whole_stateless_match_through_the_client(local, game):
    setup = MATCHES[game]
    rng = random.Random(game)
    state = local.deal(game, seed=3, **setup)
    moves = 0
    while True:
        legal = local.legal_moves(game, state=state)
        if legal.to_act is None:
            break
        seat = legal.to_act
        if seat != 0:  # the other seats: the easy bot (it decides from the seat's view)
            action = local.bot_move(game, state=state, seat=seat, level="easy", seed=moves).action
            assert action in legal.actions
        else:
            action = rng.choice(legal.actions)
        result = local.move(game, state, seat, action)
        state, moves = result.state, moves + 1
        assert result.state["history"][-1]["seat"] == seat
    score = local.score(game, state)
    assert score.finished and score.winner is not None and moves > 1
    assert any(event.get("type") == "match_over" for event in result.events)


def test_games_rules_and_answers_keep_unknown_fields(local):
    games = {info.id: info for info in local.games()}
    assert set(games) == set(MATCHES)
    ronda = local.game("ronda")
    assert ronda == games["ronda"] and ronda.players == [2, 3, 4] and "play" in ronda.verbs
    assert ronda["rules"] == ronda.rules == "/v1/games/ronda/rules"  # the fallback reads the raw JSON
    assert ronda.levels == ["random", "easy", "normal"] and games["baloot"].levels[-1] == "hard"
    assert local.rules("ronda").startswith("#")
