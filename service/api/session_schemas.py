"""Schemas of jobs, sessions and the async bot-move (shape only, as in schemas.py)."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from ai.bots import LEVELS
from service.api.openapi import COMPONENTS, GameDocument
from service.api.schemas import (
    ActionField,
    BotMoveRequest,
    BudgetSchema,
    EventSchema,
    LabelledAction,
    Players,
    ProblemSchema,
    Seat,
    StatsSchema,
    Strict,
    View,
)
from service.timers import MIN_SECONDS, ON_TIMEOUT

# ---------------------------------------------------------------- jobs


class AsyncBotMoveRequest(BotMoveRequest):
    async_ = fields.Boolean(
        data_key="async", load_default=False, metadata={"description": "run as a job and answer 202 at once"}
    )


class JobRef(Strict):
    id = fields.String()
    status = fields.String(metadata={"description": "pending, running, done or failed"})
    url = fields.String(metadata={"description": "GET it for the job's status and result"})


class JobAccepted(Strict):
    job = fields.Nested(JobRef)


class ProgressSchema(Strict):
    done = fields.Integer(metadata={"description": "parts finished (a review: decisions)"})
    total = fields.Integer()
    iterations = fields.Integer(metadata={"description": "searched so far over all parts"})
    budget = fields.Integer(
        allow_none=True, metadata={"description": "iterations planned (null: a time budget)"}
    )


class JobSchema(Strict):
    id = fields.String()
    status = fields.String(
        metadata={
            "description": "pending, running, done or failed; queued: its worker was lost, to run again"
        }
    )
    requeued = fields.Boolean(metadata={"description": "true once the job lost a worker, queued again"})
    requeued_at = fields.Float(metadata={"description": "queued: when the job was seen to lose its worker"})
    url = fields.String()
    parts = fields.Integer(metadata={"description": "root-parallel tasks of this search"})
    parts_done = fields.Integer()
    attempts = fields.Integer(metadata={"description": "task starts (more than parts: a worker died)"})
    action = ActionField(metadata={"description": "the bot's action, when done"})
    stats = fields.Nested(
        StatsSchema,
        metadata={"description": "search statistics when done (session job: only for the asker's own seat)"},
    )
    error = fields.String(metadata={"description": "why the job failed"})
    problem = fields.Nested(ProblemSchema, metadata={"description": "a failed job: why, as problem details"})
    progress = fields.Nested(ProgressSchema)
    review = fields.Nested(
        lambda: ReviewBody(), metadata={"description": "review job, when done: per decision and per seat"}
    )
    seat = fields.Integer(metadata={"description": "session bot-move: the seat the bot played"})
    version = fields.Integer(metadata={"description": "session bot-move: the version its move made"})
    events = fields.List(
        fields.Nested(EventSchema),
        metadata={"description": "session bot-move: the move's events, as the asker sees them"},
    )


# ---------------------------------------------------------------- sessions


class SeatSpec(Strict):
    """A seat: played by a person (``human``) or by the workers (``bot``, at ``level``)."""

    type = fields.String(required=True, validate=validate.OneOf(("human", "bot")))
    level = fields.String(load_default="normal", validate=validate.OneOf(LEVELS))


class SeatField(fields.Field):
    """A seat: ``"human"``, ``"bot"`` or ``{"type": "bot", "level": "easy"}``."""

    SHAPE = {"anyOf": [{"type": "string", "enum": ["human", "bot"]}, {"$ref": COMPONENTS + "SeatSpec"}]}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(metadata=self.SHAPE, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, str):
            value = {"type": value}
        if not isinstance(value, dict):
            raise ma.ValidationError('a seat is "human", "bot" or {"type": ..., "level": ...}')
        return SeatSpec().load(value)


class TurnTimerSchema(Strict):
    seconds = fields.Integer(
        strict=True,
        required=True,
        validate=validate.Range(min=MIN_SECONDS),
        metadata={"description": "each move of a person, at most (the server's MAJLIS_TURN_SECONDS_MAX)"},
    )
    on_timeout = fields.String(
        load_default="move",
        validate=validate.OneOf(ON_TIMEOUT),
        metadata={
            "description": "when the time runs out, a bot plays that one move (move), or takes the "
            "seat until its person claims it back (seat)"
        },
    )
    level = fields.String(
        load_default="normal", validate=validate.OneOf(LEVELS), metadata={"description": "that bot's level"}
    )


class TurnDeadlineSchema(Strict):
    seat = fields.Integer(metadata={"description": "the person to act"})
    at = fields.Float(metadata={"description": "Unix time (seconds) when the timer plays for it"})
    seconds_left = fields.Float(metadata={"description": "from now, by the server's clock"})


class SessionCreateRequest(Strict):
    game = fields.String(required=True, metadata={"example": "ronda"})
    players = Players()
    options = GameDocument("options", keys=fields.String(), load_default=dict)
    dealer = Seat(load_default=0)
    seed = fields.Integer(
        strict=True, allow_none=True, load_default=None, validate=validate.Range(0, 2**53 - 1)
    )
    seats = fields.List(
        SeatField(),
        load_default=None,
        allow_none=True,
        metadata={"description": "one per seat: human (default) or bot with a level"},
    )
    callback_url = fields.String(
        load_default=None,
        allow_none=True,
        metadata={
            "description": "webhook: each applied move is POSTed here, signed with the webhook_secret",
            "example": "https://app.example/majlis-hook",
        },
    )
    turn_timer = fields.Nested(
        TurnTimerSchema,
        load_default=None,
        allow_none=True,
        metadata={"description": "a time limit on each move of a person (default: none)"},
    )


class SessionCreated(Strict):
    id = fields.String()
    game = fields.String()
    url = fields.String()
    version = fields.Integer()
    to_act = fields.Integer(allow_none=True)
    seats = fields.List(fields.Nested(SeatSpec))
    tokens = fields.List(fields.String(), metadata={"description": "one secret per seat, shown once"})
    webhook_secret = fields.String(
        metadata={"description": "with a callback_url: the HMAC-SHA256 key of its signatures, shown once"}
    )
    turn_timer = fields.Nested(TurnTimerSchema, allow_none=True)
    turn_deadline = fields.Nested(TurnDeadlineSchema, allow_none=True)


class SessionEndedSchema(Strict):
    reason = fields.String(
        metadata={"description": "abandoned: every human seat was silent longer than the server allows"}
    )
    message = fields.String()
    at = fields.Float(metadata={"description": "when it ended (Unix time, seconds)"})


class SessionSchema(Strict):
    id = fields.String()
    game = fields.String()
    seat = fields.Integer(
        allow_none=True, metadata={"description": "the seat of the token (null: a spectator)"}
    )
    version = fields.Integer()
    to_act = fields.Integer(allow_none=True)
    finished = fields.Boolean()
    seats = fields.List(fields.Nested(SeatSpec))
    turn_timer = fields.Nested(TurnTimerSchema, allow_none=True, metadata={"description": "null: none"})
    turn_deadline = fields.Nested(
        TurnDeadlineSchema,
        allow_none=True,
        metadata={"description": "the running turn timer: null when none runs (no timer, a bot to act)"},
    )
    ended = fields.Nested(
        SessionEndedSchema,
        allow_none=True,
        metadata={"description": "null while the session plays; else why it ended (it takes no more moves)"},
    )
    view = View(metadata={"description": "the seat's view; a spectator's: the public view"})
    legal_actions = fields.List(
        fields.Nested(LabelledAction),
        metadata={
            "description": "when the token's seat is to act: each {action, label}, the action as "
            "the moves endpoint takes it; else []"
        },
    )
    events = fields.List(fields.Nested(EventSchema))
    action = ActionField()
    stats = fields.Nested(StatsSchema)


class SessionMoveRequest(Strict):
    action = ActionField(required=True, metadata={"example": {"type": "play", "card": "5H"}})
    expected_version = fields.Integer(strict=True, required=True)
    seat = Seat(
        load_default=None, allow_none=True, metadata={"description": "optional: must be the token's own seat"}
    )


class SessionBotMoveRequest(Strict):
    seat = Seat(
        load_default=None,
        allow_none=True,
        metadata={"description": "default: the token's seat; another seat must be a bot seat"},
    )
    level = fields.String(load_default="normal", validate=validate.OneOf(LEVELS))
    budget = fields.Nested(BudgetSchema, load_default=None, allow_none=True)
    seed = fields.Integer(
        strict=True, load_default=None, allow_none=True, validate=validate.Range(0, 2**53 - 1)
    )
    expected_version = fields.Integer(strict=True, load_default=None, allow_none=True)
    async_ = fields.Boolean(
        data_key="async", load_default=False, metadata={"description": "run as a job and answer 202 at once"}
    )


class SpectatorCreated(Strict):
    id = fields.String()
    token = fields.String(metadata={"description": "the spectator's secret, shown once"})
    url = fields.String()


class SeatLeaveRequest(Strict):
    level = fields.String(load_default="normal", validate=validate.OneOf(LEVELS))


class LogEntrySchema(ma.Schema):
    """One applied move as the reader may see it."""

    class Meta:
        unknown = ma.INCLUDE

    n = fields.Integer(metadata={"description": "its number, from 1"})
    seat = fields.Integer()
    by = fields.String(metadata={"description": "who played it: human, bot, or timer (a turn timer ran out)"})
    action = ActionField()
    version = fields.Integer()
    to_act = fields.Integer(allow_none=True)
    turn_deadline = fields.Nested(
        TurnDeadlineSchema,
        allow_none=True,
        metadata={"description": "the next turn's deadline: null when none runs"},
    )
    events = fields.List(fields.Nested(EventSchema))


class LogSchema(Strict):
    id = fields.String()
    seat = fields.Integer(allow_none=True, metadata={"description": "null for a spectator"})
    version = fields.Integer()
    initial = View(metadata={"description": "the seat's view before the first move"})
    entries = fields.List(fields.Nested(LogEntrySchema))


# ---------------------------------------------------------------- match review


class ReviewIterations(fields.Integer):
    """Search iterations per reviewed decision (capped by the server's MAJLIS_REVIEW_MAX_ITERATIONS)."""

    def __init__(self) -> None:
        super().__init__(
            strict=True,
            load_default=None,
            allow_none=True,
            validate=validate.Range(1, 10**9),
            metadata={"description": "search iterations per decision (default: the server's)"},
        )


class SessionReviewRequest(Strict):
    seat = Seat(
        load_default=None,
        allow_none=True,
        metadata={
            "description": "the seat to review (default: the token's); another seat only after the match"
        },
    )
    all_seats = fields.Boolean(
        load_default=False, metadata={"description": "review every seat (only after the match ends)"}
    )
    iterations = ReviewIterations()
    seed = fields.Integer(strict=True, load_default=0, validate=validate.Range(0, 2**53 - 1))


class SessionReviewQuery(Strict):
    seat = fields.Integer(  # a query string: "0" is a number here
        load_default=None,
        allow_none=True,
        validate=validate.Range(0, 15),
        metadata={"description": "default: the token's seat"},
    )
    all_seats = fields.Boolean(load_default=False, metadata={"description": "the review of every seat"})


class GameReviewRequest(Strict):
    state = GameDocument(
        "state", required=True, metadata={"description": "the full state before the first move"}
    )
    actions = fields.List(
        ActionField(),
        required=True,
        metadata={"description": "every action from that state on, in order (each by the seat to act)"},
    )
    seat = Seat(required=True, metadata={"description": "the seat whose decisions are reviewed"})
    iterations = ReviewIterations()
    seed = fields.Integer(strict=True, load_default=0, validate=validate.Range(0, 2**53 - 1))


class ReviewedDecision(Strict):
    n = fields.Integer(metadata={"description": "the move's number in the log, from 1"})
    seat = fields.Integer()
    played = ActionField()
    best = ActionField(metadata={"description": "the search's choice"})
    played_value = fields.Float(allow_none=True)
    best_value = fields.Float(allow_none=True)
    loss = fields.Float(allow_none=True, metadata={"description": "best_value - played_value, at least 0"})
    mistake = fields.Boolean(metadata={"description": "a clear mistake"})
    played_visits = fields.Integer()
    best_visits = fields.Integer()
    iterations = fields.Integer()


class BiggestMistake(Strict):
    n = fields.Integer()
    played = ActionField()
    best = ActionField()
    loss = fields.Float(allow_none=True)
    mistake = fields.Boolean()


class SeatSummary(Strict):
    seat = fields.Integer()
    decisions = fields.Integer()
    valued = fields.Integer(metadata={"description": "decisions with a value for both actions"})
    accuracy = fields.Float(allow_none=True, metadata={"description": "percent of valued decisions"})
    mean_loss = fields.Float(allow_none=True)
    mistakes = fields.Integer()
    biggest_mistakes = fields.List(fields.Nested(BiggestMistake))


class ReviewBody(Strict):
    game = fields.String()
    session = fields.String(allow_none=True)
    version = fields.Integer(allow_none=True)
    seats = fields.List(fields.Integer(), metadata={"description": "the seats reviewed"})
    iterations = fields.Integer()
    seed = fields.Integer()
    mistake_loss = fields.Float()
    accuracy_tolerance = fields.Float()
    summary = fields.List(fields.Nested(SeatSummary), metadata={"description": "per seat reviewed"})
    decisions = fields.List(fields.Nested(ReviewedDecision))


class ReviewSchema(Strict):
    review = fields.Nested(ReviewBody)
