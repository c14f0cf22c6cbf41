"""A client generated from the served OpenAPI document by a standard generator
(openapi-python-client) plays a deal against ``python -m service.run`` with no
hand-written glue: every call, body and answer goes through the generated code."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

PACKAGE = "majlis_openapi_client"
HUMAN = 0  # seat 1 is a bot seat, played by the workers


@pytest.fixture(scope="module")
def generated(server, tmp_path_factory):
    """The generated package, generated once from the running server's /openapi.json."""
    folder = tmp_path_factory.mktemp("generated")
    spec_path = folder / "openapi.json"
    with urllib.request.urlopen(server + "/openapi.json", timeout=30) as answer:
        spec_path.write_bytes(answer.read())
    config = folder / "config.json"
    config.write_text(json.dumps({"post_hooks": []}))  # no formatter run: offline and quick
    generator = Path(sys.executable).with_name("openapi-python-client")
    command = [str(generator), "generate", "--path", str(spec_path), "--meta", "none"]
    command += ["--config", str(config), "--output-path", str(folder / PACKAGE)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Warning" not in done.stdout + done.stderr, done.stdout + done.stderr
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(folder))
        for name in [name for name in sys.modules if name.split(".")[0] == PACKAGE]:
            del sys.modules[name]


def module(name: str):
    return importlib.import_module(f"{PACKAGE}.{name}")


def test_a_generated_client_plays_a_deal_with_a_bot_seat(server, generated):
    models = module("models")
    create = module("api.sessions.post_v1_sessions")
    read = module("api.sessions.get_v1_sessions_session_id")
    move = module("api.sessions.post_v1_sessions_session_id_moves")

    anonymous = generated.Client(base_url=server, timeout=30)
    seats = [models.SeatSpec(type_=models.SeatSpecType.HUMAN), models.SeatSpec(type_=models.SeatSpecType.BOT)]
    request = models.SessionCreateRequest(game="ronda", players=2, seed=11, seats=seats)
    created = create.sync(client=anonymous, body=request)
    assert isinstance(created, models.SessionCreated), created
    assert [seat.type_ for seat in created.seats] == [models.SeatSpecType.HUMAN, models.SeatSpecType.BOT]
    seat = generated.AuthenticatedClient(base_url=server, token=created.tokens[HUMAN], timeout=30)

    deadline, moves = time.monotonic() + 240, 0
    while True:
        session = read.sync(created.id, client=seat)
        assert isinstance(session, models.Session), session
        assert isinstance(session.view, models.RondaView)
        if session.view.deal_no > 1 or session.finished:
            break
        assert time.monotonic() < deadline, session.to_dict()
        if session.to_act != HUMAN or not session.legal_actions:
            time.sleep(0.1)  # the bot's turn: the workers play it
            continue
        choice = session.legal_actions[0]
        assert isinstance(choice, models.LabelledAction) and choice.label
        body = models.SessionMoveRequest(action=choice.action, expected_version=session.version)
        moved = move.sync(created.id, client=seat, body=body)
        assert isinstance(moved, models.Session), moved
        moves += 1

    assert moves >= 10  # a Ronda deal of two seats has 20 plays or more
    assert sum(session.view.scores) > 0  # the deal was scored


def test_a_refusal_reaches_the_generated_client_as_problem_details(server, generated):
    models = module("models")
    read = module("api.sessions.get_v1_sessions_session_id")
    refused = read.sync("f" * 32, client=generated.AuthenticatedClient(base_url=server, token="nope"))
    assert isinstance(refused, models.Problem)
    assert (refused.status, refused.code, refused.type_) == (
        404,
        "unknown_session",
        "/problems/unknown_session",
    )
