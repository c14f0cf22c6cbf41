"""The client's stateless calls against the app in process (no sockets, no Redis): a whole
match of every game dealt, played and scored through the client, and the game metadata."""

from __future__ import annotations

import random

import pytest

from tests.clients.conftest import MATCHES


@pytest.mark.parametrize("game", sorted(MATCHES))
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
        if moves % 9 == 4:  # now and then a bot decides, from the seat's view
            view = local.view(game, state, seat)
            action = local.bot_move(game, view=view, seat=seat, level="random").action
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
    assert local.rules("ronda").startswith("#")
