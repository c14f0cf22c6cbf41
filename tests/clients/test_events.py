"""The session's event stream read over a real socket: a small SSE server in a thread
stands for the service (whose events endpoint is another branch's work)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from majlis_client import Client, Unauthorized

EVENTS = [f'id: {n}\nevent: move\ndata: {{"version": {n}}}\n\n' for n in range(1, 6)]


class Stream(BaseHTTPRequestHandler):
    asked: list[dict[str, str | None]] = []

    def do_GET(self) -> None:
        self.asked.append(
            {"auth": self.headers.get("Authorization"), "last": self.headers.get("Last-Event-ID")}
        )
        if self.headers.get("Authorization") != "Bearer seat-token":
            body = b'{"type": "/problems/unauthorized", "title": "Unauthorized", "status": 401, '
            body += b'"detail": "no", "code": "unauthorized"}'
            self.send_response(401)
            self.send_header("Content-Type", "application/problem+json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        start = int(self.headers.get("Last-Event-ID") or 0)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.wfile.write(b": hello\n\n")
        for event in EVENTS[start : start + 3]:  # three at most, then the stream drops
            self.wfile.write(event.encode())
            self.wfile.flush()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture()
def stream_server() -> Iterator[str]:
    Stream.asked = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Stream)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join(5)


def test_events_resume_from_the_last_event_id_after_the_stream_drops(stream_server):
    seat = Client(stream_server).session("s1", "seat-token")
    first = [event.json()["version"] for event in seat.events(timeout=5)]
    assert first == [1, 2, 3] and seat.last_event_id == "3"
    again = [event.json()["version"] for event in seat.events(timeout=5)]
    assert again == [4, 5]
    token = "Bearer seat-token"
    assert Stream.asked == [{"auth": token, "last": None}, {"auth": token, "last": "3"}]


def test_an_events_error_is_the_exception_of_its_code(stream_server):
    with pytest.raises(Unauthorized):
        next(Client(stream_server).session("s1", "wrong").events(timeout=5))
