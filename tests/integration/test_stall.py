"""Nothing a client sends can stall the API: the whole system as ``make run`` starts it
(``python -m service.run``: an embedded Redis, a Celery worker, gunicorn with
deploy/gunicorn.conf.py), driven over real sockets.

The server gets its own embedded Redis (the broker queues are not prefixed, so the
session worker of conftest.py must not take its tasks). Its only change from
``make run``: the workers stop a search after 3 s (soft limit), so that the maximal
searches these tests start do not keep both cores busy long after the test."""

from __future__ import annotations

import http.client
import json
import socket
import statistics
import threading
import time

import pytest

from engine import get_game
from tests.problems import PROBLEM_JSON, error_code, problem
from tests.service_run import running_service

pytestmark = pytest.mark.integration

GAME = "ronda"


class Server:
    def __init__(self, port: int) -> None:
        self.port = port

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
        """(status, headers, parsed JSON or raw text, seconds) over a fresh connection."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        start = time.perf_counter()
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            raw = response.read()
        finally:
            conn.close()
        elapsed = time.perf_counter() - start
        try:
            data = json.loads(raw)
        except ValueError:
            data = raw.decode("latin-1")
        return response.status, dict(response.getheaders()), data, elapsed

    def post(self, path: str, body: object):
        return self.request("POST", path, json.dumps(body).encode(), {"Content-Type": "application/json"})


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    settings = dict(MAJLIS_SEARCH_SOFT_LIMIT="3", MAJLIS_SEARCH_HARD_LIMIT="6")
    with running_service(tmp_path_factory.mktemp("stall"), **settings) as port:
        yield Server(port)


def fresh_state():
    game = get_game(GAME)
    state = game.new_state(4, game.parse_options({}, 4), 3, seed=7)
    return game, state


# The biggest searches a client can ask for: no ms (bounded only by the server's
# BOT_MAX_MS, 10 s), or the maxima themselves. All of them run on the workers.
MAXIMAL_BUDGETS = [
    {},
    {"iterations": 49_999},
    {"iterations": 200_000, "ms": 10_000},
    {"ms": 10_000},
]
# The longest search allowed inline (ASYNC_MS, 3 s by default).
LONGEST_INLINE = {"ms": 3_000}
INLINE_PER_SERVER = 2  # INLINE_SEARCHES (1) in each of the 2 web processes (2 cores)


def legal_moves_during_bot_moves(server, budgets: list[dict]) -> tuple[list, list[float]]:
    """Send one hard bot-move per budget at once, and meanwhile seven legal-moves
    calls: (the bot-move answers, the legal-moves call times in seconds)."""
    game, state = fresh_state()
    seat = game.to_act(state)
    state_json = game.to_json(state)
    answers: list = [None] * len(budgets)

    def ask(i: int) -> None:
        body = {"state": state_json, "seat": seat, "level": "hard", "budget": budgets[i], "seed": i}
        answers[i] = server.post(f"/v1/games/{GAME}/bot-move", body)

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(budgets))]
    for thread in threads:
        thread.start()
    time.sleep(0.5)  # the bot-moves are in (or answered)
    timings = []
    for _ in range(7):
        status, _h, body, elapsed = server.post(f"/v1/games/{GAME}/legal-moves", {"state": state_json})
        assert status == 200 and body["to_act"] == seat, body
        timings.append(elapsed)
        time.sleep(0.1)
    for thread in threads:
        thread.join(timeout=60)
    print("legal-moves during the bot-moves, ms:", [round(t * 1000, 1) for t in timings])
    return answers, timings


def test_eight_maximal_bot_moves_run_on_the_workers(server):
    """Issue 15: eight bot-moves with maximal budgets at once used to search inline for
    10 s each, holding the web threads: a legal-moves call waited 9.75 s, not 3 ms."""
    answers, timings = legal_moves_during_bot_moves(server, MAXIMAL_BUDGETS * 2)
    # none waits for a search (the slowest may meet another test's load: `make test` runs
    # two test processes at once, and one such call took 131 ms)
    assert statistics.median(timings) < 0.100 and max(timings) < 0.500, timings
    assert [answer[0] for answer in answers] == [202] * 8, answers
    # the searches were running on the workers meanwhile: the CPU was busy
    # (a loaded machine's worker may take a few seconds to pick the first one up)
    deadline = time.monotonic() + 30
    while True:
        jobs = [server.request("GET", answer[2]["job"]["url"])[2] for answer in answers]
        if any(job["status"] in ("running", "done") for job in jobs) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert any(job["status"] in ("running", "done") for job in jobs), jobs


def test_eight_longest_inline_bot_moves_leave_threads_free(server):
    """Eight bot-moves at the longest inline budget: each web process searches only
    INLINE_SEARCHES of them inline (at most ASYNC_MS each), the others become jobs."""
    answers, timings = legal_moves_during_bot_moves(server, [LONGEST_INLINE] * 8)
    # Each web process shares its CPU (GIL) with its search, and the workers search the
    # others: calls are slower than beside jobs alone, but none waits for a search to end
    # (with every web thread searching, one waited 2.6 s). The bounds leave room for the
    # other test process and a busy host: a rehearsal beside an arena run measured a
    # median of 112 ms, its calls 27-218 ms.
    assert statistics.median(timings) < 0.250 and max(timings) < 1.0, timings
    inline = [answer for answer in answers if answer[0] == 200]
    assert 1 <= len(inline) <= INLINE_PER_SERVER, answers
    assert all(answer[2]["stats"]["budget"]["ms"] <= 3_000 for answer in inline), inline
    assert all(answer[0] == 202 for answer in answers if answer[0] != 200), answers


# ---------------------------------------------------------------- the route of a search
# (the app in-process, with conftest's real Redis and worker; ASYNC_ITERATIONS 1,000 and
# ASYNC_MS 1 s there)

SHORT = {"iterations": 200, "ms": 500}


def bot_move(client, budget: dict | None, level: str = "normal"):
    game, state = fresh_state()
    body = {"state": game.to_json(state), "seat": game.to_act(state), "level": level, "seed": 1}
    if budget is not None:
        body["budget"] = budget
    return client.post(f"/v1/games/{GAME}/bot-move", json=body)


@pytest.mark.parametrize("budget", [{}, {"iterations": 49_999}, {"iterations": 50}, {"ms": 1_001}])
def test_a_budget_that_may_run_longer_than_async_ms_is_a_job(client, budget):
    """Without ms a search is bounded by BOT_MAX_MS (10 s), not by ASYNC_MS."""
    answer = bot_move(client, budget)
    assert answer.status_code == 202, answer.get_json()


@pytest.mark.parametrize("budget", [SHORT, {"ms": 1_000}, {"iterations": 1_000, "ms": 300}])
def test_a_short_budget_is_answered_inline(client, budget):
    answer = bot_move(client, budget)
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["stats"]["budget"]["ms"] <= 1_000


def test_a_search_beyond_the_inline_slots_is_a_job(app, client):
    """With this process's INLINE_SEARCHES slots busy, a short search goes to the workers."""
    from service.api.bots import inline_slots

    with app.app_context():
        slots = inline_slots()
    for _ in range(app.config["INLINE_SEARCHES"]):
        assert slots.acquire(blocking=False)
    try:
        assert bot_move(client, SHORT).status_code == 202
        assert bot_move(client, None, level="easy").status_code == 200  # no search: no slot
    finally:
        for _ in range(app.config["INLINE_SEARCHES"]):
            slots.release()
    assert bot_move(client, SHORT).status_code == 200


# ---------------------------------------------------------------- every answer is JSON
# (gunicorn answers some requests itself, before the app)


def raw_request(server, data: bytes) -> tuple[int, str, dict]:
    """Send raw bytes; (status, content type, JSON body) of the answer."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(data)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers.get("Content-Type", ""), json.loads(body)


HOST = b"Host: test\r\nConnection: close\r\n"


@pytest.mark.parametrize(
    "data, status, code",
    [
        (b"GET /v1/games/" + b"x" * 5_000 + b" HTTP/1.1\r\n" + HOST + b"\r\n", 414, "uri_too_long"),
        (b"GET /v1/games HTTP/1.1\r\n" + HOST + b"X-Big: " + b"x" * 9_000 + b"\r\n\r\n", 431, None),
        (b"NOT HTTP\r\n\r\n", 400, "malformed_request"),
        (b"GET /v1/games HTTP/1.1\r\n" + HOST + b"No colon\r\n\r\n", 400, "malformed_request"),
        (b"GET /v1/nowhere HTTP/1.1\r\n" + HOST + b"\r\n", 404, "not_found"),
        (b"DELETE /v1/games HTTP/1.1\r\n" + HOST + b"\r\n", 405, "method_not_allowed"),
        (
            b"POST /v1/games/ronda/deals HTTP/1.1\r\n"
            + HOST
            + b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            400,
            "malformed_request",
        ),
    ],
    ids=[
        "long-path",
        "long-header",
        "bad-request-line",
        "bad-header",
        "unknown-path",
        "bad-method",
        "bad-chunk",
    ],
)
def test_every_error_is_problem_details_even_gunicorns(server, data, status, code):
    """A long path got gunicorn's HTML 414; a bad chunked body the app's 500."""
    got, content_type, body = raw_request(server, data)
    assert (got, content_type) == (status, PROBLEM_JSON), body
    assert problem(body, status)["code"] == (code or "request_header_fields_too_large")


def test_an_id_naming_another_key_is_unknown(server):
    """``GET /v1/sessions/<id>:log`` read the session's log list as the session (503
    WRONGTYPE): an id that the service never issued is a 404."""
    status, _h, created, _t = server.post("/v1/sessions", {"game": GAME, "players": 2, "seed": 1})
    assert status == 201, created
    seat = created["to_act"]
    auth = {"Authorization": f"Bearer {created['tokens'][seat]}"}
    view = server.request("GET", f"/v1/sessions/{created['id']}", headers=auth)[2]["view"]
    action = server.post(f"/v1/games/{GAME}/legal-moves", {"view": view})[2]["actions"][0]
    body = json.dumps({"action": action, "expected_version": 0}).encode()
    headers = dict(auth, **{"Content-Type": "application/json"})
    moved = server.request("POST", f"/v1/sessions/{created['id']}/moves", body, headers)
    assert moved[0] == 200, moved  # the session's log list exists now
    assert server.request("GET", f"/v1/sessions/{created['id']}/log", headers=auth)[0] == 200
    status, _h, body, _t = server.request("GET", f"/v1/sessions/{created['id']}:log", headers=auth)
    assert status == 404 and error_code(body) == "unknown_session", body
    status, _h, body, _t = server.request("GET", f"/v1/jobs/{created['id']}:parts")
    assert status == 404 and error_code(body) == "unknown_job", body
