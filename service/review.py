"""Match review: every decision of a seat searched again, fanned out over the workers.

The initial state and the moves (a session's log, or a caller's list) rebuild every
position. Each *decision* of a reviewed seat (a move where it had more than one legal
action) becomes one part of a job (:mod:`service.jobs`): a worker runs the bots' root
search (:func:`ai.bots.search_root`) from **that seat's view at that moment**, never the
full state, with a fixed budget and seed (``seed + n x stride`` for move ``n``), so a
review is reproducible. The job's ``progress`` is ``{done, total}`` decisions; the part
that finishes last merges them (no task waits on another).

Per decision: the action played and the search's best (its most visited root action),
the value of each (the search's mean reward of that root action, in [0, 1] for the
reviewed seat), the ``loss`` (best - played, never below 0) and ``mistake``: a *clear*
mistake is a loss of at least :data:`MISTAKE_LOSS` that is also beyond the search's
noise (two rough standard errors of the played action's mean, ``0.5 / sqrt(visits)``).
An action the search did not look at (games whose search leaves some decisions to their
policy: Trex, Marriage) has no value, no loss and no flag.

Per seat: ``accuracy``, the percentage of its decisions whose loss is at most
:data:`ACCURACY_TOLERANCE`; ``mean_loss``; the number of mistakes; and the three
decisions with the biggest losses.

What a review may show: a seat's decisions name cards of its hand (its best action may
be a card it kept), so during a match a token reviews only its own seat; all seats (or
another seat) only once the match is over, and then any card the asking seat still
cannot see is ``"hidden"``. A finished session review is kept with the session
(``session:{id}:reviews``, one entry per seat or ``all``)."""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kombu.exceptions import OperationalError

from ai.bots import Budget, best_action, search_root
from engine.protocol import EngineError, Game, IllegalAction
from service.dispatch import JSON_SAFE_INT
from service.domain_errors import QueueUnreachable, TooManyDecisions
from service.jobs import JobStore, job_store
from service.redaction import redact
from service.runtime import Runtime

MISTAKE_LOSS = 0.2
"""A loss (in the search's reward, 0 to 1) from which a decision is a clear mistake."""

ACCURACY_TOLERANCE = 0.05
"""A decision within this loss of the search's best counts as accurate."""

SEED_STRIDE = 1_000_003
MAX_DECISIONS = 2_000
"""The most decisions one review searches (one task each)."""

ALL = "all"


@dataclass(frozen=True)
class Position:
    """A decision to review: move ``n`` (1-based) by ``seat`` from ``view``, which played ``played``."""

    n: int
    seat: int
    view: dict[str, Any]
    played: Any


def replay(
    game: Game, initial: Any, moves: list[tuple[int | None, Any]], seats: set[int]
) -> tuple[list[Position], Any]:
    """The decisions of ``seats`` along ``moves`` ((seat, JSON action) pairs; seat None:
    the seat to act) from ``initial``; and the state after the last move. Raises the
    engine's error, with ``move`` in its details (1-based), for a move that does not apply."""
    state = initial
    positions = []
    for n, (seat, action_json) in enumerate(moves, start=1):
        actor = game.to_act(state) if seat is None else seat
        try:
            if actor is None:
                raise IllegalAction("match is over", rule="match_over")
            action = game.parse_action(state, action_json)
            legal = game.legal_actions(state)
            if actor in seats and len(legal) > 1 and game.to_act(state) == actor:
                positions.append(
                    Position(n, actor, game.view(state, actor), game.action_to_json(state, action))
                )
            state, _events = game.apply(state, actor, action)
        except EngineError as error:
            error.details.setdefault("move", n)
            raise
    return positions, state


# --------------------------------------------------------------------------- one decision


def _key(action: Any) -> str:
    return json.dumps(action, sort_keys=True)


def _mean(entry: dict[str, Any] | None) -> float | None:
    if not entry or not entry["visits"]:
        return None
    return entry["total"] / entry["visits"]


def is_clear_mistake(loss: float | None, played_visits: int) -> bool:
    """A loss of at least MISTAKE_LOSS, beyond two rough standard errors of the played
    action's mean (a rarely visited action's mean is noisy)."""
    if loss is None or not played_visits:
        return False
    return loss >= MISTAKE_LOSS and loss > 2 * 0.5 / math.sqrt(played_visits)


def review_position(
    game: Game, payload: dict[str, Any], config: Mapping[str, Any], should_stop: Any = None
) -> dict[str, Any]:
    """One decision searched again from its seat's view (``payload``: n, seat, view, played,
    iterations, seed) within the settings ``config`` (``BOT_MAX_MS``,
    ``REVIEW_MAX_ITERATIONS``): what was played, the best action, both values, loss, mistake."""
    stats = search_root(
        game,
        payload["view"],
        Budget(iterations=int(payload["iterations"]), ms=float(config["BOT_MAX_MS"])),
        int(payload["seed"]),
        max_iterations=int(config["REVIEW_MAX_ITERATIONS"]),
        max_ms=float(config["BOT_MAX_MS"]),
        should_stop=should_stop,
    )
    by_key = {_key(entry["action"]): entry for entry in stats["actions"]}
    best = best_action(stats)
    best_entry, played_entry = by_key[_key(best)], by_key.get(_key(payload["played"]))
    best_value, played_value = _mean(best_entry), _mean(played_entry)
    loss = None
    if best_value is not None and played_value is not None:
        loss = round(max(0.0, best_value - played_value), 6)
    played_visits = played_entry["visits"] if played_entry else 0
    return {
        "n": payload["n"],
        "seat": payload["seat"],
        "played": payload["played"],
        "best": best,
        "played_value": None if played_value is None else round(played_value, 6),
        "best_value": None if best_value is None else round(best_value, 6),
        "loss": loss,
        "mistake": is_clear_mistake(loss, played_visits),
        "played_visits": played_visits,
        "best_visits": best_entry["visits"],
        "iterations": stats["iterations"],
    }


# --------------------------------------------------------------------------- the whole review


def seat_summary(seat: int, decisions: list[dict[str, Any]]) -> dict[str, Any]:
    """Accuracy, mean loss, mistakes and the three biggest losses of ``seat``."""
    mine = [d for d in decisions if d["seat"] == seat]
    valued = [d for d in mine if d["loss"] is not None]
    accurate = sum(1 for d in valued if d["loss"] <= ACCURACY_TOLERANCE)
    biggest = sorted((d for d in valued if d["loss"] > 0), key=lambda d: (-d["loss"], d["n"]))[:3]
    return {
        "seat": seat,
        "decisions": len(mine),
        "valued": len(valued),
        "accuracy": round(100.0 * accurate / len(valued), 1) if valued else None,
        "mean_loss": round(sum(d["loss"] for d in valued) / len(valued), 6) if valued else None,
        "mistakes": sum(1 for d in mine if d["mistake"]),
        "biggest_mistakes": [{k: d[k] for k in ("n", "played", "best", "loss", "mistake")} for d in biggest],
    }


def merge(meta: dict[str, Any], decisions: list[dict[str, Any]]) -> dict[str, Any]:
    """The review from its decisions (any order) and the job's ``meta``."""
    decisions = sorted(decisions, key=lambda d: d["n"])
    return {
        "game": meta["game"],
        "session": meta.get("session"),
        "version": meta.get("version"),
        "seats": meta["seats"],
        "iterations": meta["iterations"],
        "seed": meta["seed"],
        "mistake_loss": MISTAKE_LOSS,
        "accuracy_tolerance": ACCURACY_TOLERANCE,
        "summary": [seat_summary(seat, decisions) for seat in meta["seats"]],
        "decisions": decisions,
    }


def reviews_key(runtime: Runtime, session_id: str) -> str:
    return runtime.keys.session(session_id) + ":reviews"


def keep(runtime: Runtime, meta: dict[str, Any], review: dict[str, Any]) -> None:
    """Keep a finished session review with the session (expiring with it; SESSION_TTL
    when the session has no TTL left)."""
    session_id = meta.get("session")
    if not session_id:
        return
    r = runtime.redis()
    key = reviews_key(runtime, session_id)
    ttl = r.ttl(runtime.keys.session(session_id))
    pipe = r.pipeline()
    pipe.hset(key, meta["scope"], json.dumps(review))
    pipe.expire(key, ttl if ttl and ttl > 0 else int(runtime.config["SESSION_TTL"]))
    pipe.execute()


def kept(runtime: Runtime, session_id: str, scope: str) -> dict[str, Any] | None:
    raw = runtime.redis().hget(reviews_key(runtime, session_id), scope)
    return None if raw is None else json.loads(raw)


def finish(runtime: Runtime, job_id: str, review: dict[str, Any], meta: dict[str, Any]) -> bool:
    """Keep the review with its session and complete the job; the asker's answer hides
    what the asker may not see (``meta["hidden"]``)."""
    keep(runtime, meta, review)
    return job_store(runtime).complete(job_id, {"review": redact(review, set(meta.get("hidden", [])))})


def start(runtime: Runtime, game: Game, positions: list[Position], meta: dict[str, Any]) -> dict[str, Any]:
    """Record the review job and queue one part per decision; the job reference ({id,
    status}: the HTTP layer adds its URL and answers 202).

    ``meta``: game, seats, iterations, seed, and for a session review session, version,
    scope and hidden (cards the asker may not see)."""
    if len(positions) > MAX_DECISIONS:
        raise TooManyDecisions(MAX_DECISIONS, len(positions))
    job_id = uuid.uuid4().hex
    store = job_store(runtime)
    store.create(job_id, {"review": meta}, len(positions))
    if not positions:
        finish(runtime, job_id, merge(meta, []), meta)
        return {"id": job_id, "status": "done"}
    try:
        for part, position in enumerate(positions):
            payload = {
                "game": game.id,
                "n": position.n,
                "seat": position.seat,
                "view": position.view,
                "played": position.played,
                "iterations": meta["iterations"],
                "seed": (meta["seed"] + position.n * SEED_STRIDE) % JSON_SAFE_INT,
            }
            runtime.send_task("majlis.review_part", (job_id, part, payload), task_id=f"{job_id}.{part}")
    except OperationalError as error:
        store.fail(job_id, "the job queue is unreachable")
        raise QueueUnreachable(f"the job queue (Redis) is unreachable: {error}") from error
    return {"id": job_id, "status": "pending"}


def meta_of(store: JobStore, job_id: str) -> dict[str, Any]:
    return json.loads(store.raw(job_id)["request"])["review"]
