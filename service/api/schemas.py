"""Request and response schemas. They check shape only; legality is the engine's."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from ai.bots import LEVELS
from engine.items import item_templates
from service.api.openapi import GameDocument

Seat = lambda **kw: fields.Integer(strict=True, validate=validate.Range(0, 15), **kw)  # noqa: E731
# The engine checks the count against the game (check_players) and fills in the default.
Players = lambda: fields.Integer(  # noqa: E731
    strict=True,
    allow_none=True,
    load_default=None,
    metadata={
        "example": 2,
        "description": "player count; default: the game's only count (Baloot, Trex), else its smallest",
    },
)


class Strict(ma.Schema):
    """Base: unknown fields are an error naming the field."""

    class Meta:
        unknown = ma.RAISE


def _exactly_one(data: dict, names: tuple[str, str]) -> None:
    given = [n for n in names if data.get(n) is not None]
    if len(given) != 1:
        raise ma.ValidationError(f"give exactly one of {names[0]!r} or {names[1]!r}", field_name=names[0])


# ---------------------------------------------------------------- games


# ---------------------------------------------------------------- shared documents

State = lambda **kw: GameDocument("state", **kw)  # noqa: E731
View = lambda **kw: GameDocument("view", **kw)  # noqa: E731
ActionField = lambda **kw: GameDocument("action", **kw)  # noqa: E731


class EventSchema(ma.Schema):
    """What a move did (``{"type": "capture", "seat": 1, "cards": [...]}``): a ``type`` and
    the game's members for it. A ``points`` event carries a score item's members (``item``,
    ``key``, ``params``, ``rule``; Baloot's award a list ``items`` of score items)."""

    class Meta:
        unknown = ma.INCLUDE

    type = fields.String(required=True, metadata={"example": "play"})
    seat = fields.Integer(metadata={"description": "the seat it concerns, when one does"})


class BudgetUsedSchema(Strict):
    iterations = fields.Integer(allow_none=True)
    ms = fields.Float(allow_none=True)


class SearchedAction(Strict):
    action = ActionField()
    visits = fields.Integer()
    mean = fields.Float(allow_none=True, metadata={"description": "mean reward in [0, 1] for the seat"})


class LabelledAction(Strict):
    action = ActionField(metadata={"description": "as the moves endpoint takes it"})
    label = fields.String(metadata={"description": "a short label, in the request's language"})


class StatsSchema(ma.Schema):
    """A bot's search statistics (only for the seat it played)."""

    class Meta:
        unknown = ma.INCLUDE

    level = fields.String()
    seed = fields.Integer(allow_none=True)
    iterations = fields.Integer()
    chosen_by = fields.String(metadata={"description": "search, policy or only_move"})
    elapsed_ms = fields.Float()
    budget = fields.Nested(BudgetUsedSchema, allow_none=True)
    actions = fields.List(fields.Nested(SearchedAction), metadata={"description": "most visited first"})


class OptionSchema(Strict):
    name = fields.String()
    type = fields.String(metadata={"description": "boolean, integer or choice"})
    default = fields.Raw(metadata={"type": ["boolean", "integer", "string"]})
    description = fields.String()
    choices = fields.List(fields.Raw(metadata={"type": ["boolean", "integer", "string"]}))
    minimum = fields.Integer()
    maximum = fields.Integer()


class GameSchema(Strict):
    id = fields.String(metadata={"example": "ronda"})
    title = fields.String()
    players = fields.List(fields.Integer(), metadata={"description": "supported player counts"})
    options = fields.List(fields.Nested(OptionSchema))
    verbs = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        metadata={"description": "action types and what they do"},
    )
    rules = fields.String(metadata={"description": "path of the rules reference (text/markdown)"})
    levels = fields.List(
        fields.String(),
        metadata={
            "description": "the bot levels this game offers players, weakest first, each measured "
            "above the one below it (hard only where it beat normal); every level is accepted"
        },
    )


class GameListSchema(Strict):
    games = fields.List(fields.Nested(GameSchema))


# ---------------------------------------------------------------- play


class DealRequest(Strict):
    players = Players()
    options = GameDocument(
        "options",
        keys=fields.String(),
        load_default=dict,
        metadata={"description": "game options; omitted ones take defaults"},
    )
    dealer = Seat(load_default=0)
    seed = fields.Integer(
        strict=True,
        allow_none=True,
        load_default=None,
        validate=validate.Range(0, 2**53 - 1),
        metadata={"description": "seeds this match's generator"},
    )
    deck = fields.List(
        fields.String(),
        allow_none=True,
        load_default=None,
        metadata={
            "description": "explicit first-deal order, top first; later "
            "deals then come from the caller (a deal action)"
        },
    )
    layout = fields.Dict(
        allow_none=True, load_default=None, metadata={"description": "partial state in the game's own shape"}
    )

    @ma.validates_schema
    def _one_source(self, data: dict, **_: object) -> None:
        if data.get("deck") is not None and (data.get("seed") is not None or data.get("layout") is not None):
            raise ma.ValidationError("give a deck alone, without seed or layout", field_name="deck")


class StateRequest(Strict):
    state = State(required=True, metadata={"description": "a full state"})


class StateOrViewRequest(Strict):
    state = State(load_default=None, allow_none=True)
    view = View(load_default=None, allow_none=True)

    @ma.validates_schema
    def _one(self, data: dict, **_: object) -> None:
        _exactly_one(data, ("state", "view"))


class MoveRequest(Strict):
    state = State(required=True)
    seat = Seat(required=True)
    action = ActionField(required=True, metadata={"example": {"type": "play", "card": "5H"}})


class ViewRequest(Strict):
    state = State(required=True)
    seat = Seat(required=True)


class BudgetSchema(Strict):
    iterations = fields.Integer(strict=True, validate=validate.Range(1, 10**9), load_default=None)
    ms = fields.Float(validate=validate.Range(1, 10**7), load_default=None)


class BotMoveRequest(StateOrViewRequest):
    seat = Seat(
        load_default=None,
        allow_none=True,
        metadata={"description": "the seat the bot plays; default: the seat to act (a view: its seat)"},
    )
    level = fields.String(load_default="normal", validate=validate.OneOf(LEVELS))
    budget = fields.Nested(BudgetSchema, load_default=None, allow_none=True)
    seed = fields.Integer(
        strict=True, load_default=None, allow_none=True, validate=validate.Range(0, 2**53 - 1)
    )


class StateResponse(Strict):
    state = State()


class LegalMovesResponse(Strict):
    to_act = fields.Integer(allow_none=True)
    actions = fields.List(ActionField())
    labels = fields.List(fields.String(), metadata={"description": "a short label per action, in order"})


class MoveResponse(Strict):
    state = State()
    events = fields.List(fields.Nested(EventSchema))


class ViewResponse(Strict):
    view = View()


RONDA_WORDS = item_templates("ronda").words
PORRAZO_WORDS = item_templates("porrazo").words


class ScoreItemParamsSchema(Strict):
    """A score item's parameters, by name (each game uses some of them; docs/api.md, Score
    items): a seat, a card, a game's word, or a whole number."""

    seat = fields.Integer(metadata={"description": "a seat number, from 0"})
    card = fields.String(metadata={"description": "a card code (Marriage's man: XX)", "example": "KH"})
    n = fields.Integer(metadata={"description": "how many"})
    count = fields.Integer(metadata={"description": "how many cards"})
    deal = fields.Integer(metadata={"description": "a deal's number"})
    declared = fields.String(
        metadata={"description": "Ronda: the declaration made", "enum": list(RONDA_WORDS["declared"])}
    )
    held = fields.String(
        metadata={"description": "Ronda: what the hand held", "enum": list(RONDA_WORDS["held"])}
    )
    combo = fields.String(
        metadata={"description": "Porrazo: the combination", "enum": list(PORRAZO_WORDS["combo"])}
    )


class ScoreItemSchema(ma.Schema):
    """One item of a deal's scoring: its points to a side, and the game's members for it."""

    class Meta:
        unknown = ma.INCLUDE

    side = fields.Integer(allow_none=True)
    points = fields.Integer()
    item = fields.String(metadata={"description": "what scored, in English words"})
    key = fields.String(
        metadata={
            "description": "the item's kind, stable across versions and languages: the key of the game's "
            "template that writes `item` (docs/api.md, Score items)",
            "example": "false_declaration",
        }
    )
    params = fields.Nested(
        ScoreItemParamsSchema,
        metadata={
            "description": "the template's parameters, which `item` shows filled in",
            "example": {"seat": 1, "declared": "tringa", "held": "none"},
        },
    )
    rule = fields.String(metadata={"description": "the rule id it comes from"})
    options = fields.List(
        fields.String(),
        metadata={
            "description": "the non-default options (house rules) that produced or changed the item; "
            "absent when none did (docs/api.md, Score items)"
        },
    )


class ScoreResponse(Strict):
    sides = fields.List(fields.List(fields.Integer()))
    scores = fields.List(fields.Integer(), metadata={"description": "match totals per side"})
    deal_no = fields.Integer()
    deal_points = fields.List(fields.Integer())
    items = fields.List(
        fields.Nested(ScoreItemSchema), metadata={"description": "the deal's scoring, item by item"}
    )
    finished = fields.Boolean()
    winner = fields.Integer(allow_none=True)


class BotMoveResponse(Strict):
    action = ActionField()
    stats = fields.Nested(StatsSchema)


class ProblemSchema(ma.Schema):
    """Every error: RFC 9457 problem details (``application/problem+json``). The error's
    details are further members beside ``code`` (see each code in docs/api.md)."""

    class Meta:
        unknown = ma.INCLUDE

    type = fields.String(
        metadata={"description": "the problem type, /problems/<code> (GET it for what the code means)"}
    )
    title = fields.String(metadata={"description": "the code in words (English)"})
    status = fields.Integer(metadata={"description": "the HTTP status"})
    detail = fields.String(metadata={"description": "the message, in the request's language"})
    instance = fields.String(metadata={"description": "urn:majlis:request:<X-Request-ID> of the request"})
    code = fields.String(metadata={"example": "illegal_move"})
    rule = fields.String(metadata={"description": "illegal_move: the rule id of docs/rules/<game>.md"})
    reason = fields.String(metadata={"description": "illegal_move: why, from the rules reference"})
    legal_actions = fields.List(ActionField(), metadata={"description": "illegal_move: what the seat may do"})
    to_act = fields.Integer(allow_none=True)
    field = fields.String(metadata={"description": "the field at fault"})
    fields_ = fields.Dict(
        data_key="fields",
        keys=fields.String(),
        values=fields.String(),
        metadata={"description": "invalid_request: each field of the wrong shape -> what is wrong"},
    )
    allowed = fields.List(fields.Raw(), metadata={"description": "invalid_setup: the values allowed"})
    version = fields.Integer(metadata={"description": "stale_version: the session's current version"})
