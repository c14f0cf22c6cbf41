"""A session as one token holder plays it: a seat (or a spectator) of a match the service keeps.

    created = client.create_session("ronda", seats=["human", {"type": "bot", "level": "easy"}])
    me = client.session(created.id, created.tokens[0])
    state = me.wait_for_turn()
    state = me.play(lambda s: me.legal_actions(s)[0].action)

Moves carry ``expected_version``: by default the version of the last answer this handle
saw, so a move decided on an old view is refused (409, :class:`StaleVersion`) rather
than applied to a table that changed. :meth:`SessionClient.play` decides again from the
fresh session when that happens."""

from __future__ import annotations

import dataclasses
import time
import urllib.parse
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from majlis_client.errors import StaleVersion, WaitTimeout
from majlis_client.models import (
    JSON,
    Action,
    Hint,
    Job,
    LegalAction,
    Review,
    ServerEvent,
    SessionLog,
    SessionState,
)
from majlis_client.sse import parse_events
from majlis_client.transport import stream_lines

if TYPE_CHECKING:
    from majlis_client.client import Budget, Client

MAX_TURN_POLL = 0.25  # seconds between two looks while waiting for a turn, at the slowest


class SessionClient:
    """The session ``session_id`` as the holder of ``token`` sees it and acts in it."""

    def __init__(self, client: Client, session_id: str, token: str) -> None:
        self.client = client
        self.id = session_id
        self.token = token
        self.last: SessionState | None = None  # the last session answer seen
        self.last_event_id: str | None = None  # of the event stream, to resume it

    @property
    def version(self) -> int | None:
        return self.last.version if self.last is not None else None

    def _path(self, tail: str = "") -> str:
        return f"/v1/sessions/{urllib.parse.quote(self.id, safe='')}{tail}"

    def _call(self, method: str, tail: str, body: Any = None) -> tuple[int, JSON]:
        return self.client.call(method, self._path(tail), body, token=self.token)

    def _seen(self, data: Mapping[str, Any]) -> SessionState:
        self.last = SessionState.from_json(data)
        return self.last

    # ------------------------------------------------------------ reading

    def get(self) -> SessionState:
        return self._seen(self._call("GET", "")[1])

    def log(self) -> SessionLog:
        """Every move so far, with the cards this seat could not see as ``"hidden"``."""
        return SessionLog.from_json(self._call("GET", "/log")[1])

    def legal_actions(self, state: SessionState | None = None) -> list[LegalAction]:
        """The token's seat's legal actions in ``state`` (default: the last answer seen, else
        a fresh one): the session answer's own ``legal_actions`` when the server sends them,
        else the stateless legal-moves of the seat's view. Empty when it is not to act."""
        state = state or self.last or self.get()
        if state.legal_actions is not None:
            return state.legal_actions
        if not state.my_turn:
            return []
        return self.client.legal_moves(state.game, view=state.view).labelled

    def wait_for_turn(self, timeout: float = 30.0) -> SessionState:
        """The session once the token's seat is to act, or the match is over (polled)."""
        deadline = time.monotonic() + timeout
        interval = self.client.poll_interval
        while True:
            state = self.get()
            if state.my_turn or state.finished:
                return state
            if time.monotonic() + interval > deadline:
                raise WaitTimeout(f"seat {state.seat} not to act after {timeout} s (seat {state.to_act} is)")
            time.sleep(interval)
            interval = min(interval * 1.5, MAX_TURN_POLL)

    def events(
        self, *, last_event_id: str | None = None, timeout: float | None = None
    ) -> Iterator[ServerEvent]:
        """The session's live events (Server-Sent Events), as this token may see them, from
        after ``last_event_id`` (default: the last one this handle saw). ``timeout`` bounds
        each wait for data; the iterator ends when the server closes the stream."""
        resume = last_event_id if last_event_id is not None else self.last_event_id
        extra = {"Accept": "text/event-stream"}
        if resume is not None:
            extra["Last-Event-ID"] = resume
        headers = self.client.headers(self.token, extra)
        for event in parse_events(stream_lines(self.client.url(self._path("/events")), headers, timeout)):
            if event.id is not None:
                self.last_event_id = event.id
            yield event

    # ------------------------------------------------------------ acting

    def move(
        self, action: Action, *, expected_version: int | None = None, seat: int | None = None
    ) -> SessionState:
        """Play ``action`` for the token's seat, if the session is still at ``expected_version``
        (default: the version of the last answer seen). StaleVersion (409) if it moved on."""
        if expected_version is None:
            expected_version = (self.last or self.get()).version
        body: JSON = {"action": action, "expected_version": expected_version}
        if seat is not None:
            body["seat"] = seat
        return self._seen(self._call("POST", "/moves", body)[1])

    def play(self, choose: Callable[[SessionState], Action], *, attempts: int = 3) -> SessionState:
        """Decide with ``choose`` on the session as last seen and play it; when the session
        moved on meanwhile (409), reload it and decide again, up to ``attempts`` times."""
        state = self.last or self.get()
        for _ in range(attempts - 1):
            try:
                return self.move(choose(state), expected_version=state.version)
            except StaleVersion:
                state = self.get()
        return self.move(choose(state), expected_version=state.version)

    def bot_move(
        self,
        *,
        seat: int | None = None,
        level: str | None = None,
        budget: Budget | None = None,
        seed: int | None = None,
        expected_version: int | None = None,
        async_: bool = False,
        timeout: float = 60.0,
    ) -> SessionState:
        """Let a bot play ``seat`` (default the token's own; another must be a bot seat).
        A job (202) is polled until the move is applied; the answer then is the session
        as it is after it, with the bot's ``action`` and ``events`` (``stats``: own seat)."""
        body: JSON = {}
        for name, value in (("seat", seat), ("level", level), ("budget", budget), ("seed", seed)):
            if value is not None:
                body[name] = value
        if expected_version is not None:
            body["expected_version"] = expected_version
        if async_:
            body["async"] = True
        status, data = self._call("POST", "/bot-move", body)
        if status != 202:
            return self._seen(data)
        job = self.client.wait_job(Job.from_json(data["job"]), timeout)
        return dataclasses.replace(self.get(), action=job.action, events=job.events, stats=job.stats)

    def leave(self, level: str | None = None) -> SessionState:
        """Hand the token's seat to a bot (at ``level``) until :meth:`claim`."""
        return self._seen(self._call("POST", "/leave", {"level": level} if level else {})[1])

    def claim(self) -> SessionState:
        """Take the seat back from the bot."""
        return self._seen(self._call("POST", "/claim")[1])

    def hint(
        self, *, level: str | None = None, budget: Budget | None = None, seed: int | None = None
    ) -> Hint:
        """The token's seat's legal actions ranked by a short search (it must be to act)."""
        body = {k: v for k, v in (("level", level), ("budget", budget), ("seed", seed)) if v is not None}
        return Hint.from_json(self._call("POST", "/hint", body)[1])

    def add_spectator(self) -> str:
        """A new spectator token: it sees the public view only (``client.session(id, token)``)."""
        return str(self._call("POST", "/spectators")[1]["token"])

    # ------------------------------------------------------------ review

    def start_review(
        self,
        *,
        seat: int | None = None,
        all_seats: bool = False,
        iterations: int | None = None,
        seed: int | None = None,
    ) -> Job:
        """Start a review of the token's seat's decisions (another ``seat``, or
        ``all_seats``, only once the match is over: ReviewRefused before)."""
        body: JSON = {"all_seats": all_seats}
        for name, value in (("seat", seat), ("iterations", iterations), ("seed", seed)):
            if value is not None:
                body[name] = value
        return Job.from_json(self._call("POST", "/review", body)[1]["job"])

    def review(self, *, seat: int | None = None, all_seats: bool = False) -> Review:
        """The finished review kept with the session (UnknownReview until there is one)."""
        query = {"all_seats": "true"} if all_seats else {}
        if seat is not None:
            query["seat"] = str(seat)
        tail = "/review" + (f"?{urllib.parse.urlencode(query)}" if query else "")
        return Review.from_json(self._call("GET", tail)[1]["review"])

    def run_review(
        self, *, seat: int | None = None, all_seats: bool = False, timeout: float = 300.0
    ) -> Review:
        """Start a review and wait for it: the review as its job ends."""
        job = self.client.wait_job(self.start_review(seat=seat, all_seats=all_seats), timeout)
        return Review.from_json(job.review or {})
