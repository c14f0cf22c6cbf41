"""Bots wait for the deal-end summary of a session the table page created.

When a deal ends, the page shows its itemised score until the player dismisses it. A page
holding a seat says so (``hold``: the seat starts with every deal so far acknowledged);
from then on, while a holding seat has not acknowledged the last finished deal, the
session's bot seats do not play: their turn is queued again for when the wait runs out.
The player's ``ack`` of the deal queues the bot at once. The wait is bounded
(:data:`MOST_SECONDS` after the bots first found it), so a closed tab never stalls a match.

``<session key>:page-hold`` is a hash: ``seat:<n>`` the number of deals that seat has
acknowledged, ``since:<k>`` when the bots first waited for deal ``k``'s summary. It lives
as long as the session (the same TTL). Sessions no page holds are never touched."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from service.bot_turns import postpone

MOST_SECONDS = 120.0
"""The longest the bots wait for a deal-end summary to be dismissed."""


def key(sessions: Any, session_id: str) -> str:
    return sessions.keys.session(session_id) + ":page-hold"


def deals_over(session: Any) -> int:
    """How many deals of the match have ended (the score report numbers the current deal)."""
    report = session.game.score(session.state).to_json()
    finished = session.game.to_act(session.state) is None
    return int(report["deal_no"]) - (0 if finished else 1)


def hold(sessions: Any, session: Any, seat: int) -> None:
    """``seat``'s page shows deal-end summaries: the bots wait for its acknowledgements
    from the next deal end on."""
    name = key(sessions, session.id)
    pipe = sessions.r.pipeline()
    pipe.hsetnx(name, f"seat:{seat}", deals_over(session))
    pipe.expire(name, sessions.ttl)
    pipe.execute()


def ack(sessions: Any, session: Any, seat: int, deals: int) -> None:
    """``seat`` has read the summaries of the first ``deals`` deals (never goes back)."""
    name = key(sessions, session.id)
    current = sessions.r.hget(name, f"seat:{seat}")
    if current is None or int(current) < deals:
        sessions.r.hset(name, f"seat:{seat}", deals)


def wait_left(sessions: Any, session: Any, now: float | None = None) -> float:
    """Seconds the bots should still wait for the last finished deal's summary (0: play)."""
    raw = sessions.r.hgetall(key(sessions, session.id))
    acknowledged = [int(value) for field, value in raw.items() if field.startswith("seat:")]
    if not acknowledged:
        return 0.0  # no page holds this session: one Redis read, nothing scored
    over = deals_over(session)
    if min(acknowledged) >= over:
        return 0.0
    now = time.time() if now is None else now
    since_field = f"since:{over}"
    if since_field not in raw:
        sessions.r.hsetnx(key(sessions, session.id), since_field, f"{now:.3f}")
        raw[since_field] = sessions.r.hget(key(sessions, session.id), since_field)
    return min(MOST_SECONDS, max(0.0, float(raw[since_field]) + MOST_SECONDS - now))


def defer_bot(sessions: Any, session: Any, send_again: Callable[[float], None]) -> bool:
    """Worker side, before a bot's turn: True when the bot must wait for a summary; its
    turn is then queued again by ``send_again(seconds)`` for when the wait runs out (an
    ack queues it sooner)."""
    left = wait_left(sessions, session)
    if left <= 0:
        return False
    send_again(left)
    # no sweep of lost bot turns sends it before then (service/bot_turns.py)
    grace = float(sessions.settings.get("BOT_TURN_GRACE", 5.0))
    postpone(sessions.r, sessions.keys.bot_turns(), session.id, session.version, time.time() + left + grace)
    return True
