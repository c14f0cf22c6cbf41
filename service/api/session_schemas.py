"""Schemas of jobs, sessions and the async bot-move (shape only, as in schemas.py)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from ai.bots import LEVELS
from service.api.schemas import BotMoveRequest, BudgetSchema, Players, Seat, Strict
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


class JobSchema(Strict):
    id = fields.String()
    status = fields.String(metadata={"description": "pending, running, done or failed"})
    url = fields.String()
    parts = fields.Integer(metadata={"description": "root-parallel tasks of this search"})
    parts_done = fields.Integer()
    attempts = fields.Integer(metadata={"description": "task starts (more than parts: a worker died)"})
    action = fields.Dict(metadata={"description": "the bot's action, when done"})
    stats = fields.Dict(
        metadata={"description": "search statistics when done (session job: only for the asker's own seat)"}
    )
    error = fields.String(metadata={"description": "why the job failed"})
    progress = fields.Dict(
        metadata={
            "description": "{done, total}: parts finished (a review: decisions); {iterations}: searched "
            "so far over all parts; {budget}: iterations planned (null: a time budget)"
        }
    )
    review = fields.Dict(metadata={"description": "review job, when done: per decision and per seat"})
    seat = fields.Integer(metadata={"description": "session bot-move: the seat the bot played"})
    version = fields.Integer(metadata={"description": "session bot-move: the version its move made"})
    events = fields.List(
        fields.Dict(), metadata={"description": "session bot-move: the move's events, as the asker sees them"}
    )


# ---------------------------------------------------------------- sessions


class SeatSpec(Strict):
    type = fields.String(required=True, validate=validate.OneOf(("human", "bot")))
    level = fields.String(load_default="normal", validate=validate.OneOf(LEVELS))


class SeatField(fields.Field):
    """A seat: ``"human"``, ``"bot"`` or ``{"type": "bot", "level": "easy"}``."""

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
    options = fields.Dict(keys=fields.String(), load_default=dict)
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
    seats = fields.List(fields.Dict())
    tokens = fields.List(fields.String(), metadata={"description": "one secret per seat, shown once"})
    webhook_secret = fields.String(
        metadata={"description": "with a callback_url: the HMAC-SHA256 key of its signatures, shown once"}
    )
    turn_timer = fields.Nested(TurnTimerSchema, allow_none=True)
    turn_deadline = fields.Nested(TurnDeadlineSchema, allow_none=True)


class SessionSchema(Strict):
    id = fields.String()
    game = fields.String()
    seat = fields.Integer(
        allow_none=True, metadata={"description": "the seat of the token (null: a spectator)"}
    )
    version = fields.Integer()
    to_act = fields.Integer(allow_none=True)
    finished = fields.Boolean()
    seats = fields.List(fields.Dict())
    turn_timer = fields.Nested(TurnTimerSchema, allow_none=True, metadata={"description": "null: none"})
    turn_deadline = fields.Nested(
        TurnDeadlineSchema,
        allow_none=True,
        metadata={"description": "the running turn timer: null when none runs (no timer, a bot to act)"},
    )
    view = fields.Dict(metadata={"description": "the seat's view; a spectator's: the public view"})
    legal_actions = fields.List(
        fields.Dict(),
        metadata={
            "description": "when the token's seat is to act: each {action, label}, the action as "
            "the moves endpoint takes it; else []"
        },
    )
    events = fields.List(fields.Dict())
    action = fields.Dict()
    stats = fields.Dict()


class SessionMoveRequest(Strict):
    action = fields.Dict(required=True, metadata={"example": {"type": "play", "card": "5H"}})
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


class LogSchema(Strict):
    id = fields.String()
    seat = fields.Integer(allow_none=True, metadata={"description": "null for a spectator"})
    version = fields.Integer()
    initial = fields.Dict(metadata={"description": "the seat's view before the first move"})
    entries = fields.List(
        fields.Dict(),
        metadata={
            "description": "n, seat, by (human, bot, timer), action, version, to_act, turn_deadline, events"
        },
    )


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
    state = fields.Dict(required=True, metadata={"description": "the full state before the first move"})
    actions = fields.List(
        fields.Dict(),
        required=True,
        metadata={"description": "every action from that state on, in order (each by the seat to act)"},
    )
    seat = Seat(required=True, metadata={"description": "the seat whose decisions are reviewed"})
    iterations = ReviewIterations()
    seed = fields.Integer(strict=True, load_default=0, validate=validate.Range(0, 2**53 - 1))


class ReviewSchema(Strict):
    review = fields.Dict(
        metadata={
            "description": "game, seats, iterations, seed, mistake_loss, accuracy_tolerance, "
            "summary (per seat: decisions, accuracy, mean_loss, mistakes, biggest_mistakes) and "
            "decisions (n, seat, played, best, played_value, best_value, loss, mistake)"
        }
    )
