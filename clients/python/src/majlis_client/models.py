"""Typed answers of the service.

States, views, actions and events stay plain JSON (``dict``): their shape is each game's
own (docs/rules/<game>.md, "How this service names things"), and the client sends them
back as they came. Each answer keeps its whole JSON in ``raw``: a field this client does
not name yet (a newer server's) is ``answer["field"]`` or ``answer.get("field")``."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

JSON = dict[str, Any]
Action = dict[str, Any]  # {"type": "<verb>", ...}, as the moves endpoints take it
State = dict[str, Any]  # a game's full state (every hidden card: for a trusted caller)
View = dict[str, Any]  # what one seat may see

T = TypeVar("T", bound="Answer")


class Answer:
    """The fallback for fields this client does not name: the answer's JSON, ``raw``."""

    raw: JSON

    def __getitem__(self, key: str) -> Any:
        return self.raw[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.raw.get(key, default)

    @classmethod
    def from_json(cls: type[T], data: Mapping[str, Any]) -> T:
        return _build(cls, data)


def _build(cls: type[T], data: Mapping[str, Any], **converted: Any) -> T:
    """``cls`` from ``data``: each dataclass field from ``converted`` or else ``data``
    (missing ones keep their defaults); the whole of ``data`` as ``raw``."""
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name in converted:
            kwargs[f.name] = converted[f.name]
        elif f.name in data and f.name != "raw":
            kwargs[f.name] = data[f.name]
    kwargs["raw"] = dict(data)
    return cls(**kwargs)


@dataclass(frozen=True)
class GameInfo(Answer):
    id: str = ""
    title: str = ""
    players: list[int] = field(default_factory=list)  # the counts the game allows
    options: list[JSON] = field(default_factory=list)  # name, type, default, choices or range
    verbs: dict[str, str] = field(default_factory=dict)  # action type -> one line
    rules: str = ""  # the path of the rules reference
    levels: list[str] = field(default_factory=list)  # the bot levels offered, weakest first
    raw: JSON = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class LegalAction(Answer):
    """One legal action, as the moves endpoints take it, with its label when the server
    gives one ("play K♥"). Read from ``{"action": {...}, "label": ...}`` or from the
    action itself carrying a ``label``."""

    action: Action = field(default_factory=dict)
    label: str | None = None
    raw: JSON = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LegalAction:
        if isinstance(data.get("action"), dict):
            return cls(action=dict(data["action"]), label=data.get("label"), raw=dict(data))
        action = {k: v for k, v in data.items() if k != "label"}
        return cls(action=action, label=data.get("label"), raw=dict(data))


@dataclass(frozen=True)
class LegalMoves(Answer):
    to_act: int | None = None
    actions: list[Action] = field(default_factory=list)
    labels: list[str] | None = None  # labels[i] names actions[i], when the server sends them
    raw: JSON = field(default_factory=dict, repr=False)

    @property
    def labelled(self) -> list[LegalAction]:
        """The actions with their labels (None each when the server sends none)."""
        labels: list[str | None] = (
            list(self.labels) if self.labels is not None else [None] * len(self.actions)
        )
        pairs = zip(self.actions, labels, strict=True)
        return [LegalAction.from_json({"action": action, "label": label}) for action, label in pairs]


@dataclass(frozen=True)
class MoveResult(Answer):
    state: State = field(default_factory=dict)
    events: list[JSON] = field(default_factory=list)
    raw: JSON = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class Score(Answer):
    sides: list[Any] = field(default_factory=list)
    scores: list[Any] = field(default_factory=list)  # match totals
    deal_no: int = 0
    deal_points: list[Any] = field(default_factory=list)
    items: list[JSON] = field(default_factory=list)  # the deal item by item, each with its key and params
    finished: bool = False
    winner: Any = None
    raw: JSON = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class Job(Answer):
    """A job on the workers (a bot search, a review): ``pending``, ``running``, ``done``
    or ``failed`` (with ``error``)."""

    id: str = ""
    status: str = "pending"
    url: str = ""
    parts: int | None = None
    parts_done: int | None = None
    attempts: int | None = None
    progress: JSON | None = None  # {done, total}: parts finished (a review: decisions)
    action: Action | None = None
    stats: JSON | None = None
    error: str | None = None
    problem: JSON | None = None  # failed: the same as problem details (code job_failed)
    seat: int | None = None  # session bot-move: the seat the bot played
    version: int | None = None  # session bot-move: the version its move made
    events: list[JSON] | None = None
    review: JSON | None = None  # a review job, when done
    raw: JSON = field(default_factory=dict, repr=False)

    @property
    def ended(self) -> bool:
        return self.status in ("done", "failed")


@dataclass(frozen=True)
class BotMove(Answer):
    """A bot's decision; ``job`` is the job it ran as, when it did."""

    action: Action = field(default_factory=dict)
    stats: JSON | None = None
    job: Job | None = None
    raw: JSON = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class HintAction(Answer):
    action: Action = field(default_factory=dict)
    label: str | None = None
    visits: int = 0
    share: float | None = None  # of the search's visits
    value: float | None = None  # expected outcome in [0, 1] for the seat (mean reward)
    raw: JSON = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class Hint(Answer):
    """A hint: the legal actions ranked by a search (most visited first) and the easy
    policy's choice; nothing is played."""

    seat: int | None = None
    version: int | None = None  # a session hint: the version it was computed at
    actions: list[HintAction] = field(default_factory=list)
    easy: LegalAction | None = None
    iterations: int = 0
    elapsed_ms: float = 0.0
    raw: JSON = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Hint:
        easy = data.get("easy")
        return _build(
            cls,
            data,
            actions=[HintAction.from_json(a) for a in data.get("actions") or []],
            easy=LegalAction.from_json(easy) if isinstance(easy, dict) else None,
        )

    @property
    def best(self) -> Action | None:
        return self.actions[0].action if self.actions else None


@dataclass(frozen=True)
class Review(Answer):
    """A match review. ``decisions``: each with ``n``, ``seat``, ``played``, ``best``,
    ``played_value``, ``best_value``, ``loss`` and ``mistake``; ``summary``: per seat,
    ``decisions``, ``accuracy``, ``mean_loss``, ``mistakes``, ``biggest_mistakes``."""

    game: str = ""
    seats: list[int] = field(default_factory=list)
    iterations: int = 0
    summary: list[JSON] = field(default_factory=list)
    decisions: list[JSON] = field(default_factory=list)
    raw: JSON = field(default_factory=dict, repr=False)

    @property
    def mistakes(self) -> list[JSON]:
        return [d for d in self.decisions if d.get("mistake")]


@dataclass(frozen=True)
class CreatedSession(Answer):
    id: str = ""
    game: str = ""
    url: str = ""
    version: int = 0
    to_act: int | None = None
    seats: list[Any] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)  # one secret per seat, shown once
    webhook_secret: str | None = None  # when created with a callback_url
    turn_timer: JSON | None = None  # seconds, on_timeout, level (None: no timer)
    turn_deadline: JSON | None = None  # the first turn's: seat, at, seconds_left
    raw: JSON = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class SessionState(Answer):
    """A session as one token sees it. ``legal_actions`` is ``None`` when the server does
    not send them (then :meth:`SessionClient.legal_actions` asks the stateless API)."""

    id: str = ""
    game: str = ""
    seat: int | None = None  # the token's seat (None: a spectator)
    version: int = 0
    to_act: int | None = None
    finished: bool = False
    seats: list[Any] = field(default_factory=list)
    turn_timer: JSON | None = None  # seconds, on_timeout, level (None: no timer)
    turn_deadline: JSON | None = None  # the running turn's: seat, at (Unix time), seconds_left
    ended: JSON | None = None  # why the session ended (reason "abandoned"); None while it plays
    view: View = field(default_factory=dict)
    legal_actions: list[LegalAction] | None = None
    events: list[JSON] | None = None  # of the move just made
    action: Action | None = None  # bot-move: the bot's action
    stats: JSON | None = None  # bot-move on the token's own seat: the search's statistics
    raw: JSON = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SessionState:
        items = data.get("legal_actions")
        legal = None if items is None else [LegalAction.from_json(item) for item in items]
        return _build(cls, data, legal_actions=legal)

    @property
    def my_turn(self) -> bool:
        return self.seat is not None and self.to_act == self.seat


@dataclass(frozen=True)
class SessionLog(Answer):
    id: str = ""
    seat: int | None = None
    version: int = 0
    initial: View = field(default_factory=dict)  # the seat's view before the first move
    entries: list[JSON] = field(default_factory=list)  # n, seat, action, events, version
    raw: JSON = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class ServerEvent:
    """One Server-Sent Event of a session's stream."""

    data: str
    event: str = "message"
    id: str | None = None

    def json(self) -> Any:
        return json.loads(self.data)
