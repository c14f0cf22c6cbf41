"""Small helpers the blueprints share: finding the game, loading states and views."""

from __future__ import annotations

import random
from typing import Any

from flask import current_app, g, has_request_context, request
from flask_smorest import Blueprint  # type: ignore[import-untyped]  # flask-smorest ships no type information

from engine import get_game
from engine.protocol import Game, InvalidState
from service import sessions as S
from service.errors import PROBLEM_JSON, ApiError
from service.jobs import JobStore
from service.jobs import job_store as jobs_of
from service.runtime import RUNTIME_EXTENSION, Runtime

ERROR_RESPONSES = {
    400: "invalid JSON (code invalid_json)",
    401: "no or unknown credentials (seat token or API key)",
    403: "the credentials do not allow this (another seat's session action)",
    404: "unknown game, session or job",
    409: "stale expected_version: another move was applied first",
    422: "invalid field, state, action or an illegal move",
    429: "over the rate limit or a fair-use quota (code rate_limited, quota_exceeded or busy; "
    "Retry-After and RateLimit-Limit / -Remaining / -Reset say when to retry)",
    503: "a dependency (Redis, the workers) is down, or the stream server is full (Retry-After)",
    507: "the service is short of storage: no new sessions or jobs for now (code storage_full, Retry-After)",
}


def _header(description: str) -> dict[str, Any]:
    return {"description": description, "schema": {"type": "integer", "minimum": 0}}


RETRY_AFTER = _header("seconds to wait before trying again")
ERROR_HEADERS: dict[int, dict[str, Any]] = {
    429: {
        "Retry-After": RETRY_AFTER,
        "RateLimit-Limit": _header("the quota (or the key's rate limit) that was reached"),
        "RateLimit-Remaining": _header("what is left of it: 0"),
        "RateLimit-Reset": _header("seconds until a unit of it should be free"),
    },
    503: {"Retry-After": RETRY_AFTER},
    507: {"Retry-After": RETRY_AFTER},
}
"""The headers of a refusal (docs/api.md, "Fair use")."""


def document_errors(blp: Blueprint, *statuses: int):
    """Decorator documenting the problem details answered with ``statuses``."""
    from service.api.schemas import ProblemSchema

    def wrap(func):
        for status in statuses:
            func = blp.alt_response(
                status,
                schema=ProblemSchema,
                description=ERROR_RESPONSES.get(status, ""),
                content_type=PROBLEM_JSON,
                headers=ERROR_HEADERS.get(status),
            )(func)
        return func

    return wrap


def load_game(game_id: str) -> Game:
    return get_game(game_id)


def load_state(game: Game, data: Any):
    state = game.from_json(data)
    return state


def state_for_view(game: Game, view: dict[str, Any], seed: int = 0):
    """A world consistent with ``view`` (hidden cards dealt at random): what a caller
    holding only a view can be answered from, for questions about its own seat."""
    if not isinstance(view.get("seat"), int) or isinstance(view.get("seat"), bool):
        raise InvalidState("a view must carry the seat it belongs to", field="view.seat")
    return game.sampler(view)(random.Random(seed))


def require_seat_in_range(game: Game, state, seat: int) -> None:
    players = game.players(state)
    if seat >= players:
        raise ApiError(
            422, "wrong_seat", f"seat {seat} is not at this table (seats 0..{players - 1})", {"field": "seat"}
        )


# --------------------------------------------------------------------------- the domain's runtime


def runtime() -> Runtime:
    """The app's Runtime (service/runtime.py): what the blueprints hand the domain."""
    return current_app.extensions[RUNTIME_EXTENSION]


def session_store() -> S.SessionStore:
    return S.SessionStore(runtime())


def job_store() -> JobStore:
    return jobs_of(runtime())


def quota_client() -> str:
    """The client a request counts against (service/quotas.py): its API key (when keys
    are on), else its address. Behind a proxy the address is the proxy's unless it is set
    to pass it on (MAJLIS_PROXY_HOPS)."""
    key = g.get("api_key_digest") if has_request_context() else None
    if key:
        return f"key:{key}"
    return f"addr:{request.remote_addr or 'unknown'}"
