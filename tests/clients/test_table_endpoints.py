"""The Python client against the table surface of a real ``python -m service.run``:
labelled legal actions, hints, spectators, the event stream, webhooks signed with the
session's secret, and match reviews (session and stateless)."""

from __future__ import annotations

import hashlib
import hmac
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from majlis_client import Client, InvalidCallback, ReviewRefused, UnknownReview

pytestmark = pytest.mark.integration

got: list = []


class Hook(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        got.append((dict(self.headers), body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass  # keep the test output clean


def test_new_endpoints(server):
    hook = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    client = Client(server)
    with pytest.raises(InvalidCallback):
        client.create_session("ronda", callback_url="ftp://x")
    created = client.create_session(
        "ronda",
        seed=3,
        options={"target_score": 3},
        seats=["human", {"type": "bot", "level": "easy"}],
        callback_url=f"http://127.0.0.1:{hook.server_address[1]}/hook",
    )
    assert created.webhook_secret
    me = client.session(created.id, created.tokens[0])
    state = me.wait_for_turn()
    assert state.legal_actions and all(a.label for a in state.legal_actions)
    hint = me.hint(budget={"iterations": 200})
    assert hint.actions and hint.easy is not None and hint.best in [a.action for a in state.legal_actions]
    stateless_hint = client.hint(
        "ronda", seat=1, state=client.deal("ronda", players=2, seed=1), budget={"iterations": 100}
    )
    assert stateless_hint.actions[0].label
    lm = client.legal_moves("ronda", state=client.deal("ronda", players=2, seed=1))
    assert all(a.label for a in lm.labelled)
    token = me.add_spectator()
    watcher = client.session(created.id, token)
    seen = watcher.get()
    assert seen.seat is None and seen.legal_actions == []
    with pytest.raises(ReviewRefused):
        me.start_review(all_seats=True)
    with pytest.raises(UnknownReview):
        me.review()
    me.play(lambda s: me.legal_actions(s)[0].action)
    events = []
    for ev in me.events(last_event_id="0", timeout=5):
        events.append(ev)
        if len(events) >= 2:
            break
    assert events[0].id == "1"
    state = me.wait_for_turn()
    while not state.finished:
        me.play(lambda s: me.legal_actions(s)[0].action)
        state = me.wait_for_turn()
    review = me.run_review(all_seats=True, timeout=120)
    assert review.decisions and review.summary
    assert me.review(all_seats=True).decisions == review.decisions
    log = me.log()
    deadline = time.monotonic() + 30  # the workers deliver the webhooks
    while not got and time.monotonic() < deadline:
        time.sleep(0.2)
    assert got, "webhook delivered"
    headers, body = got[0]
    sig = {k.lower(): v for k, v in headers.items()}["majlis-signature"]
    assert sig == "sha256=" + hmac.new(created.webhook_secret.encode(), body, hashlib.sha256).hexdigest()
    hook.shutdown()
    assert len(log.entries) == log.version


def test_stateless_review(server):
    client = Client(server)
    start = client.deal("ronda", players=2, seed=4, options={"target_score": 3})
    state, actions = start, []
    while True:
        legal = client.legal_moves("ronda", state=state)
        if legal.to_act is None or len(actions) >= 8:
            break
        actions.append(legal.actions[0])
        state = client.move("ronda", state, legal.to_act, legal.actions[0]).state
    review = client.review("ronda", state=start, actions=actions, seat=0, iterations=100, timeout=60)
    assert review.decisions and review.game == "ronda"
