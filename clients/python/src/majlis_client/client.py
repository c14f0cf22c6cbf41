"""The client of the stateless API, jobs, and the door to sessions.

    from majlis_client import Client
    client = Client("http://127.0.0.1:8000")
    state = client.deal("ronda", seed=42)
    moves = client.legal_moves("ronda", state=state)

Every method answers the typed result of its endpoint (majlis_client.models) or raises
the exception of the service's error code (majlis_client.errors). Bot moves, hints and
reviews that the server runs as a job (202) are polled until they end."""

from __future__ import annotations

import json
import time
import urllib.parse
from collections.abc import Mapping
from typing import Any

from majlis_client.errors import JobFailed, WaitTimeout, error_from_response
from majlis_client.models import (
    JSON,
    Action,
    BotMove,
    CreatedSession,
    GameInfo,
    Hint,
    Job,
    LegalMoves,
    MoveResult,
    Review,
    Score,
    State,
    View,
)
from majlis_client.sessions import SessionClient
from majlis_client.transport import Response, Transport, UrllibTransport

Budget = Mapping[str, float]  # {"iterations": ..., "ms": ...}, either or both
Seat = str | Mapping[str, Any]  # "human", "bot" or {"type": "bot", "level": "easy"}

DEFAULT_URL = "http://127.0.0.1:8000"
MAX_POLL_INTERVAL = 0.5  # seconds between two looks at a job, at the slowest


class Client:
    """One service at ``base_url``. ``api_key`` is sent as ``X-API-Key`` (when the server
    has keys on); ``timeout`` bounds each request, in seconds."""

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        api_key: str | None = None,
        timeout: float = 30.0,
        transport: Transport | None = None,
        poll_interval: float = 0.05,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.transport: Transport = transport or UrllibTransport()
        self.poll_interval = poll_interval

    # ------------------------------------------------------------ plumbing

    def url(self, path: str) -> str:
        return path if "://" in path else self.base_url + path

    def headers(self, token: str | None = None, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        headers = {"Accept": "application/json", "User-Agent": "majlis-client/0.1"}
        if self.api_key:
            headers["X-API-Key"] = self.api_key
        if token:
            headers["Authorization"] = f"Bearer {token}"
        headers.update(extra or {})
        return headers

    def send(self, method: str, path: str, body: Any = None, *, token: str | None = None) -> Response:
        """One request; an error status raises its exception (errors.ERROR_CLASSES)."""
        payload = None
        extra = {}
        if body is not None:
            payload = json.dumps(body).encode("utf-8")
            extra["Content-Type"] = "application/json"
        response = self.transport(method, self.url(path), self.headers(token, extra), payload, self.timeout)
        if response.status >= 400:
            raise error_from_response(response.status, response.body, response.headers)
        return response

    def call(self, method: str, path: str, body: Any = None, *, token: str | None = None) -> tuple[int, JSON]:
        """(status, the answer's JSON object)."""
        response = self.send(method, path, body, token=token)
        return response.status, json.loads(response.body) if response.body else {}

    # ------------------------------------------------------------ games

    def games(self) -> list[GameInfo]:
        return [GameInfo.from_json(g) for g in self.call("GET", "/v1/games")[1]["games"]]

    def game(self, game: str) -> GameInfo:
        return GameInfo.from_json(self.call("GET", f"/v1/games/{_seg(game)}")[1])

    def rules(self, game: str) -> str:
        """The game's rules reference (Markdown)."""
        return self.send("GET", f"/v1/games/{_seg(game)}/rules").body.decode("utf-8")

    # ------------------------------------------------------------ stateless play

    def deal(
        self,
        game: str,
        *,
        players: int | None = None,
        options: Mapping[str, Any] | None = None,
        dealer: int | None = None,
        seed: int | None = None,
        deck: list[str] | None = None,
        layout: Mapping[str, Any] | None = None,
    ) -> State:
        """A new state: from ``seed`` (or a seed the server draws), an explicit ``deck``
        (top first) or a ``layout`` (a partial state)."""
        body = _fields(players=players, options=options, dealer=dealer, seed=seed, deck=deck, layout=layout)
        state: State = self.call("POST", f"/v1/games/{_seg(game)}/deals", body)[1]["state"]
        return state

    def legal_moves(self, game: str, *, state: State | None = None, view: View | None = None) -> LegalMoves:
        """The seat to act's legal actions (from a view: only when its seat is to act)."""
        body = _fields(state=state, view=view)
        return LegalMoves.from_json(self.call("POST", f"/v1/games/{_seg(game)}/legal-moves", body)[1])

    def move(self, game: str, state: State, seat: int, action: Action) -> MoveResult:
        """The next state and the move's events; IllegalMove (with ``rule``, ``reason``,
        ``legal_actions``) when a rule forbids it."""
        body = {"state": state, "seat": seat, "action": action}
        return MoveResult.from_json(self.call("POST", f"/v1/games/{_seg(game)}/moves", body)[1])

    def score(self, game: str, state: State) -> Score:
        return Score.from_json(self.call("POST", f"/v1/games/{_seg(game)}/score", {"state": state})[1])

    def view(self, game: str, state: State, seat: int) -> View:
        """What ``seat`` may see of ``state``."""
        body = {"state": state, "seat": seat}
        view: View = self.call("POST", f"/v1/games/{_seg(game)}/view", body)[1]["view"]
        return view

    # ------------------------------------------------------------ bots, hints, reviews

    def bot_move(
        self,
        game: str,
        *,
        seat: int,
        state: State | None = None,
        view: View | None = None,
        level: str | None = None,
        budget: Budget | None = None,
        seed: int | None = None,
        async_: bool = False,
        timeout: float = 60.0,
    ) -> BotMove:
        """A bot's action for ``seat``; a search the server runs as a job (202: a large
        budget, ``async_``, or a busy server) is polled until done, up to ``timeout`` s."""
        body = _fields(state=state, view=view, seat=seat, level=level, budget=budget, seed=seed)
        if async_:
            body["async"] = True
        status, data = self.call("POST", f"/v1/games/{_seg(game)}/bot-move", body)
        if status == 202:
            job = self.wait_job(Job.from_json(data["job"]), timeout)
            return BotMove(action=job.action or {}, stats=job.stats, job=job, raw=job.raw)
        return BotMove.from_json(data)

    def hint(
        self,
        game: str,
        *,
        seat: int,
        state: State | None = None,
        view: View | None = None,
        level: str | None = None,
        budget: Budget | None = None,
        seed: int | None = None,
    ) -> Hint:
        """The legal actions of ``seat`` (to act) ranked by a short search, and the easy
        policy's choice; nothing is played. Busy (429) while the server's searches are taken."""
        body = _fields(state=state, view=view, seat=seat, level=level, budget=budget, seed=seed)
        return Hint.from_json(self.call("POST", f"/v1/games/{_seg(game)}/hint", body)[1])

    def review(
        self,
        game: str,
        *,
        state: State,
        actions: list[Action],
        seat: int,
        iterations: int | None = None,
        seed: int | None = None,
        timeout: float = 300.0,
    ) -> Review:
        """A review of ``seat``'s decisions in a match given as its initial ``state`` and
        every ``action`` from it on: each searched again on the workers (a job, polled)."""
        body = _fields(state=state, actions=actions, seat=seat, iterations=iterations, seed=seed)
        data = self.call("POST", f"/v1/games/{_seg(game)}/review", body)[1]
        return Review.from_json(self.wait_job(Job.from_json(data["job"]), timeout).review or {})

    # ------------------------------------------------------------ jobs

    def job(self, job: Job | str) -> Job:
        return Job.from_json(self.call("GET", _job_path(job))[1])

    def wait_job(self, job: Job | str, timeout: float = 60.0) -> Job:
        """The job once ``done``; JobFailed if it failed, WaitTimeout after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        interval = self.poll_interval
        while True:
            current = self.job(job)
            if current.status == "done":
                return current
            if current.status == "failed":
                raise JobFailed(current)
            if time.monotonic() + interval > deadline:
                raise WaitTimeout(f"job {current.id} is still {current.status} after {timeout} s")
            time.sleep(interval)
            interval = min(interval * 1.5, MAX_POLL_INTERVAL)

    # ------------------------------------------------------------ sessions

    def create_session(
        self,
        game: str,
        *,
        players: int | None = None,
        options: Mapping[str, Any] | None = None,
        dealer: int | None = None,
        seed: int | None = None,
        seats: list[Seat] | None = None,
        callback_url: str | None = None,
        turn_timer: Mapping[str, Any] | None = None,
        **extra: Any,
    ) -> CreatedSession:
        """A match kept by the service: its id and one secret token per seat (shown once).
        ``callback_url``: the server POSTs each change there, signed with the answer's
        ``webhook_secret``. ``turn_timer``: a limit on each move of a person,
        ``{"seconds": 30, "on_timeout": "move" | "seat", "level": "easy"}``: when it runs
        out a bot plays that move (or the seat, until it is claimed back)."""
        body = _fields(
            game=game,
            players=players,
            options=options,
            dealer=dealer,
            seed=seed,
            seats=seats,
            callback_url=callback_url,
            turn_timer=turn_timer,
            **extra,
        )
        return CreatedSession.from_json(self.call("POST", "/v1/sessions", body)[1])

    def session(self, session_id: str, token: str) -> SessionClient:
        """The session as the holder of ``token`` (a seat's, or a spectator's) plays it."""
        return SessionClient(self, session_id, token)

    def seats(self, created: CreatedSession) -> list[SessionClient]:
        """One handle per seat of a session just created."""
        return [self.session(created.id, token) for token in created.tokens]

    # ------------------------------------------------------------ operations

    def ready(self) -> bool:
        """Whether the service and its dependencies (Redis, a worker) are up."""
        try:
            self.send("GET", "/readyz")
        except Exception:  # noqa: BLE001 - not reachable or 503: not ready, either way
            return False
        return True


def _fields(**fields: Any) -> JSON:
    """The body: the fields given (None means: leave it to the server's default)."""
    return {name: value for name, value in fields.items() if value is not None}


def _seg(part: str) -> str:
    return urllib.parse.quote(part, safe="")


def _job_path(job: Job | str) -> str:
    if isinstance(job, Job):
        return job.url or f"/v1/jobs/{_seg(job.id)}"
    return f"/v1/jobs/{_seg(job)}"
