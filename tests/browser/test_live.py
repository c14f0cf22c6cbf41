"""The table follows the session's event stream, in a real Chromium against the real
``python -m service.run``: the stream server (the API's port + 1) is read with ``fetch()``
and the seat token, and the page fetches the seat's view only when the stream announces
a new version, instead of polling. It recovers when the process serving its stream is
killed, and polls (saying so) when the stream cannot be opened."""

from __future__ import annotations

import json
import os
import signal
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

from tests.browser.conftest import OTHER_HOST
from tests.browser.test_table import DESKTOP, READY, play_legal, ready_snapshot

LIVE = "() => TABLE.dataset.live === 'stream' && live.lastId === String(current.version)"
MOVE_NUMBERS = "[...moves.keys()].sort((a, b) => a - b)"
LOG = "api('GET', `/v1/sessions/${SESSION}/log`, seat.token)"


class Network:
    """The page's requests, and which of them ended (finished or failed)."""

    def __init__(self, page) -> None:
        self.requests: list = []
        self.finished: list = []
        self.failed: list = []
        page.on("request", lambda request: self.requests.append(request))
        page.on("requestfinished", lambda request: self.finished.append(request))
        page.on("requestfailed", lambda request: self.failed.append(request))

    def is_open(self, request) -> bool:
        return not any(request is ended for ended in self.finished + self.failed)

    def has_failed(self, request) -> bool:
        return any(request is failed for failed in self.failed)

    def streams(self) -> list:
        return [r for r in self.requests if urlsplit(r.url).path.endswith("/events")]

    def gets(self, path: str) -> list:
        return [r for r in self.requests if r.method == "GET" and urlsplit(r.url).path == path]


def new_page(browser):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return context, page, errors


def start_a_long_match(page, base: str) -> None:
    """Ronda against one bot, to the default target: the match goes on after a deal."""
    page.goto(f"{base}/play/ronda")
    page.click("#start")
    page.click("#my-seat")
    page.wait_for_url("**/play/table/*")
    page.wait_for_function(READY, timeout=60_000)


def play_until_the_first_deal_is_scored(page) -> None:
    """My moves until the first deal ends; its summary dismissed, until my next turn."""
    while True:
        snapshot = ready_snapshot(page)
        assert not snapshot["finished"]
        if snapshot["summary"]:
            # clicked like a player; the page says at once that it is closed (it used to
            # say so only on the dialog's "close" event, a task later: the next READY
            # then saw a summary still open and clicked a closed dialog's button)
            page.click("#summary-close")
            assert page.evaluate("[summaryOpen, document.getElementById('summary').open]") == [False, False]
            continue
        if snapshot["deal_no"] > 1:
            return
        play_legal(page, snapshot)


def play_until_the_bot_answers(page) -> None:
    """My moves by clicking (one, or more while I stay to act) until the bot's answer is
    on the table and it is my turn again."""
    version = page.evaluate("current.version")
    answered = f"() => [...moves.values()].some((m) => m.by === 'bot' && m.n > {version})"
    while True:
        play_legal(page, ready_snapshot(page))
        page.wait_for_function(READY, timeout=60_000)
        if page.evaluate(answered):
            return


def test_the_table_is_driven_by_the_event_stream(browser, server):
    context, page, errors = new_page(browser)
    network = Network(page)
    start_a_long_match(page, server)
    session, token = page.evaluate("[SESSION, seat.token]")
    play_until_the_first_deal_is_scored(page)

    # the table asks for the seat's view only when the stream announced a new version:
    # at most once per bot move (the answer to each of my moves carries the view), and
    # nothing at all while nothing happens (a poll every 0.5 s would make 5 requests)
    bot_moves = page.evaluate("[...moves.values()].filter((m) => m.by === 'bot').length")
    assert bot_moves >= 10
    assert len(network.gets(f"/v1/sessions/{session}")) <= bot_moves + 1
    assert network.gets(f"/v1/sessions/{session}/log") == []  # the moves came on the stream
    before = len(network.requests)
    page.wait_for_timeout(2_500)
    assert network.requests[before:] == []

    # one request to the stream server, with the seat token, still open
    [stream] = network.streams()
    stream_port = urlsplit(server).port + 1
    assert stream.url == f"http://127.0.0.1:{stream_port}/v1/sessions/{session}/events"
    headers = stream.all_headers()
    assert headers["authorization"] == f"Bearer {token}" and headers["last-event-id"] == "0"
    assert stream.response().status == 200 and network.is_open(stream)
    assert page.get_attribute("#table", "data-live") == "stream"
    assert page.inner_text("#live") == "Live"

    # the bots' moves appeared: every move of the log, once
    log = page.evaluate(LOG)
    assert page.evaluate(MOVE_NUMBERS) == [entry["n"] for entry in log["entries"]]
    assert page.evaluate("current.version") == log["version"]
    assert page.locator("#moves li").count() > 0
    assert errors == []
    context.close()


def test_the_table_recovers_when_its_stream_is_cut(browser, server):
    """SIGKILL the process that serves the page's stream (gunicorn starts another): the
    page reconnects with Last-Event-ID and misses nothing, not even a move made meanwhile."""
    context, page, errors = new_page(browser)
    network = Network(page)
    start_a_long_match(page, server)
    view = f"/v1/sessions/{page.evaluate('SESSION')}"
    page.wait_for_function(READY, timeout=60_000)
    page.wait_for_function(LIVE, timeout=30_000)
    version = page.evaluate("current.version")

    os.kill(serving_process(urlsplit(server).port + 1), signal.SIGKILL)
    page.wait_for_function("TABLE.dataset.live !== 'stream'", timeout=30_000)
    play_until_the_bot_answers(page)  # while the stream is down, or on its return
    page.wait_for_function(LIVE, timeout=60_000)

    first, *again = network.streams()
    assert again and not network.is_open(first)
    assert {r.all_headers()["last-event-id"] for r in again} == {str(version)}
    assert network.is_open(again[-1])
    log = page.evaluate(LOG)
    assert page.evaluate(MOVE_NUMBERS) == [entry["n"] for entry in log["entries"]]
    assert page.evaluate("current.version") == log["version"] >= version + 2

    # the stream drives the table again: my move, then the bot's, with no polling
    gets, streams = len(network.gets(view)), len(network.streams())
    play_until_the_bot_answers(page)
    bot_moves = page.evaluate(
        f"[...moves.values()].filter((m) => m.by === 'bot' && m.n > {log['version']}).length"
    )
    assert len(network.gets(view)) <= gets + bot_moves  # one per bot move, at most: no polling
    assert len(network.streams()) == streams and page.get_attribute("#table", "data-live") == "stream"
    assert errors == []
    context.close()


def test_the_table_polls_when_its_stream_cannot_be_opened(browser, server):
    """A page reached by an origin that the stream server's CORS does not allow (a host
    name other than loopback's, under the embedded default; in production, any origin not
    in MAJLIS_CORS_ORIGINS) cannot read the stream: the table says so and polls."""
    context, page, errors = new_page(browser)
    network = Network(page)
    start_a_long_match(page, server.replace("127.0.0.1", OTHER_HOST))
    page.wait_for_function("TABLE.dataset.live === 'polling'", timeout=30_000)
    assert page.inner_text("#live").startswith("Live updates unavailable")
    for _ in range(2):  # the bot's answers arrive by polling
        play_until_the_bot_answers(page)
    assert network.streams() and all(network.has_failed(r) for r in network.streams())
    assert page.get_attribute("#table", "data-live") == "polling"
    assert errors == []
    context.close()


def serving_process(port: int) -> int:
    """The process, among this test's descendants, that holds an open connection on local
    ``port``: the stream server's worker that serves the page its stream."""
    sockets = established_sockets(port)
    for pid in descendants(os.getpid()):
        try:
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                target = os.readlink(fd)
                if target.startswith("socket:[") and target[8:-1] in sockets:
                    return pid
        except OSError:  # gone meanwhile
            continue
    raise AssertionError(f"no process of this test serves a connection on port {port}")


def established_sockets(port: int) -> set[str]:
    """Inodes of the open TCP connections whose local port is ``port`` (/proc/net/tcp)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local_port = int(fields[1].rsplit(":", 1)[1], 16)
            if local_port == port and fields[3] == "01":  # 01: ESTABLISHED
                inodes.add(fields[9])
    return inodes


def descendants(root: int) -> list[int]:
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            after_name = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(after_name[1])
    found, frontier = [], [root]
    while frontier:
        children = [pid for pid, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


PARSE = """(chunks) => {
  const got = [];
  const parser = new EventParser({ event: (e) => got.push(e), retry: (ms) => got.push({ retry: ms }) });
  chunks.forEach((chunk) => parser.feed(chunk));
  return got;
}"""


def test_the_event_parser_reads_a_stream_cut_anywhere(browser, server):
    """stream.js's parser, fed the way a network delivers: lines cut across chunks, CRLF,
    comments, several data lines, an id that later events keep."""
    context, page, errors = new_page(browser)
    body, headers = b'{"game": "ronda", "players": 2}', {"Content-Type": "application/json"}
    request = urllib.request.Request(f"{server}/v1/sessions", data=body, headers=headers)
    created = json.load(urllib.request.urlopen(request))
    page.goto(f"{server}/play/table/{created['id']}")  # loads stream.js; no token here: a form
    chunks = [
        "retry: 1000\n\n: keep-alive\n\nid: 3\nevent: mo",
        've\ndata: {"version":',
        " 3}\r\n\r",
        "\ndata:a\ndata: b\n\n",
    ]
    assert page.evaluate(PARSE, chunks) == [
        {"retry": 1000},
        {"type": "move", "id": "3", "data": '{"version": 3}'},
        {"type": "message", "id": "3", "data": "a\nb"},
    ]
    assert errors == []
    context.close()
