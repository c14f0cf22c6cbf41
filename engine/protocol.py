"""The one Game protocol every game implements, and the engine's error types.

The service and the bots talk to games only through :class:`Game`. A game keeps
its state in whatever compact, mutable representation is fastest for it (see
docs/engine-guide.md, "Speed": values at the boundary, speed inside); everything that leaves the
engine is plain JSON produced by :meth:`Game.to_json` / :meth:`Game.view`.

Two paths through the rules:

* the checked path for callers: ``apply(state, seat, action)`` runs
  :meth:`Game.check`, clones the state, steps it and returns the events;
* the fast path for the search: ``clone(state)`` then ``step(state, action)`` in
  place, with actions taken from ``legal_actions`` (so no check is needed).

Both paths run the same ``step`` code, so they cannot drift apart.

Actions are game-defined hashable values (usually small ints or tuples) that
describe only what the whole table sees: e.g. Marriage's "draw from the stock"
does not name the card drawn. JSON conversion: :meth:`Game.parse_action` and
:meth:`Game.action_to_json`.

Dealing: a match created with a ``seed`` (or with none of seed/deck/layout)
deals every later deal itself from the generator kept in the state
(``rng_state``). A match created from an explicit ``deck`` or ``layout``
without a ``seed`` is *caller-dealt*: when a deal ends the state waits in phase
``deal_over`` with ``to_act`` = the next dealer, for ``{"type": "deal",
"deck": [...]}``.
"""

from __future__ import annotations

import json
import random
from abc import ABC
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from engine.codec import Codec

JSON = dict[str, Any]
Action = Hashable
Event = JSON
"""An event: ``{"type": "capture" | "trick" | "points" | "deal_over" | "match_over" | ..., ...}``."""

SCHEMA_VERSION = 1

SPECTATOR = -1
"""The seat number a public view is computed for: no seat has it, so every hand is
hidden (see :meth:`Game.public_view`)."""

S = TypeVar("S")  # a game's internal state type

RNG_STATE_LIMIT = 2**63
"""Generator states are 63-bit numbers (``rng.getrandbits(63)``); so is a seed."""


def new_seed() -> int:
    """The seed of a match created with none: fresh OS entropy, never a fixed default."""
    return random.SystemRandom().getrandbits(63)


# --------------------------------------------------------------------------- errors


class EngineError(Exception):
    """Base of every error the engine raises on purpose. ``code`` is the API error code."""

    code = "engine_error"

    def __init__(self, message: str, *, details: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details: dict[str, Any] = dict(details or {})


class BadAction(EngineError):
    """The client sent an action the game cannot read (unknown type or card, missing field)."""

    code = "bad_action"

    def __init__(self, message: str, *, field: str = "action", **kw: Any) -> None:
        super().__init__(message, **kw)
        self.field = field


class IllegalAction(EngineError):
    """A well-formed action that a rule forbids here. ``rule`` is the rule id (e.g. ``"R19"``);
    ``reason`` is the plain-words text from the spec's Errors section."""

    code = "illegal_move"

    def __init__(self, reason: str, *, rule: str | None = None, **kw: Any) -> None:
        super().__init__(reason, **kw)
        self.reason = reason
        self.rule = rule


class NotYourTurn(IllegalAction):
    """An action by a seat other than the one to act."""

    code = "not_your_turn"


class InvalidState(EngineError):
    """An incoming state, view or layout that is not a consistent state of the game."""

    code = "invalid_state"

    def __init__(self, message: str, *, field: str | None = None, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.field = field


class InvalidSetup(EngineError):
    """A deal request whose players, options, dealer or deck are not acceptable."""

    code = "invalid_setup"

    def __init__(self, message: str, *, field: str | None = None, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.field = field


# --------------------------------------------------------------------------- metadata


@dataclass(frozen=True)
class OptionSpec:
    """One option of a game: its JSON name, kind, default and allowed values.

    ``kind`` is ``"bool"``, ``"int"`` or ``"choice"``. ``test_values`` are values the
    generic property suite draws from (ints especially: a target of 10,000 points
    makes a very long match). ``listed_when_default`` False: a state or view lists the
    option only when its value is not the default (see :func:`written_options`), so that
    documents written before the option existed still read and write byte for byte."""

    name: str
    kind: str
    default: Any
    description: str
    choices: tuple[Any, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    test_values: tuple[Any, ...] = ()
    listed_when_default: bool = True
    """False for a house rule added after states were first written: a state lists it only
    when it is not at its default, so every document written before it existed reads and
    writes back byte for byte (``written_options``)."""

    def validate(self, value: Any) -> Any:
        """The value if it is allowed, else raises InvalidSetup naming the option."""
        where = f"options.{self.name}"
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise InvalidSetup(f"{where} must be true or false", field=where)
        elif self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidSetup(f"{where} must be a whole number", field=where)
            if self.minimum is not None and value < self.minimum:
                raise InvalidSetup(f"{where} must be at least {self.minimum}", field=where)
            if self.maximum is not None and value > self.maximum:
                raise InvalidSetup(f"{where} must be at most {self.maximum}", field=where)
        elif self.kind == "choice":
            if value not in self.choices or isinstance(value, bool) != isinstance(self.choices[0], bool):
                allowed = ", ".join(repr(c) for c in self.choices)
                raise InvalidSetup(f"{where} must be one of {allowed}", field=where)
        return value

    def to_json(self) -> JSON:
        out: JSON = {
            "name": self.name,
            "type": {"bool": "boolean", "int": "integer", "choice": "choice"}[self.kind],
            "default": self.default,
            "description": self.description,
        }
        if self.choices:
            out["choices"] = list(self.choices)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out


@dataclass(frozen=True)
class ScoreReport:
    """What ``score`` answers: match totals per side, and the current (or just
    finished) deal itemised. ``items`` are ``{"side", "points", "item", "rule"}``
    plus any game-specific keys; their points add up to ``deal_points``."""

    sides: list[list[int]]
    scores: list[int]
    deal_no: int
    deal_points: list[int]
    items: list[JSON]
    finished: bool
    winner: int | None = None
    extra: JSON = field(default_factory=dict)

    def to_json(self) -> JSON:
        out: JSON = {
            "sides": self.sides,
            "scores": self.scores,
            "deal_no": self.deal_no,
            "deal_points": self.deal_points,
            "items": self.items,
            "finished": self.finished,
            "winner": self.winner,
        }
        out.update(self.extra)
        return out


def written_options(specs: Sequence[OptionSpec], options: Mapping[str, Any]) -> JSON:
    """The options as a state or view lists them: every option, except one whose spec is
    not ``listed_when_default`` while it has its default value (an option added after
    the wire corpus: a match that does not use it is written as before it existed)."""
    quiet = {spec.name: spec.default for spec in specs if not spec.listed_when_default}
    return {name: value for name, value in options.items() if name not in quiet or value != quiet[name]}


def parse_options(
    game_id: str,
    specs: Sequence[OptionSpec],
    raw: Any,
    players: int,
    check_options: Callable[[JSON, int], None],
) -> JSON:
    """Options with defaults filled in; raises InvalidSetup for an unknown option, a bad
    value or a combination ``check_options`` forbids. (Shared by :meth:`Game.parse_options`
    and the declared codec, engine/codec.py.)"""
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise InvalidSetup("options must be an object", field="options")
    known = {spec.name: spec for spec in specs}
    for name in raw:
        if name not in known:
            raise InvalidSetup(f"unknown option {name!r} for {game_id}", field=f"options.{name}")
    options = {name: spec.validate(raw.get(name, spec.default)) for name, spec in known.items()}
    check_options(options, players)
    return options


# --------------------------------------------------------------------------- the protocol


class Game(ABC, Generic[S]):
    """Base class and contract of a game. A game sets the class attributes and declares,
    in its ``__init__``, which function answers each call of :data:`CALLS` (and of
    :data:`REFINABLE` where it refines the default); the shared behaviour (``new_state``,
    option parsing, the checked ``apply``, the turn checks, the JSON documents) lives
    here once."""

    def __init__(self, **answers: Callable[..., Any]) -> None:
        """``answers``: a call's name -> the plain function that answers it, taking the
        call's arguments (``step=rules.step``, ``phase=lambda s: PHASE_NAMES[s.phase]``).
        Each becomes that call on this instance, so that no wrapper frame runs per call
        (the search makes several of them millions of times). A call the game's class
        defines itself (a method of its own, or a test's subclass counting the calls)
        keeps that definition. TypeError for a name that is no such call and for a call
        of CALLS nobody answers."""
        self.answers: dict[str, Callable[..., Any]] = dict(answers)
        for name, function in answers.items():
            if name not in CALLS and name not in REFINABLE:
                raise TypeError(f"{type(self).__name__}: {name!r} is not a call a game answers")
            if getattr(type(self), name) is getattr(Game, name):
                setattr(self, name, function)
        missing = [n for n in CALLS if n not in answers and getattr(type(self), n) is getattr(Game, n)]
        if missing:
            raise TypeError(f"{type(self).__name__} answers no {', '.join(missing)}")

    id: str
    title: str
    player_counts: tuple[int, ...]
    option_specs: tuple[OptionSpec, ...]
    verbs: Mapping[str, str]
    """Action ``type`` -> one line on what it does."""

    def answer(self, name: str) -> Callable[..., Any]:
        """The function the game declared for the call ``name`` (what ``super().step(...)``
        reaches from a subclass that overrides ``step``, e.g. a test counting the calls).
        A call of REFINABLE has no such fallback: there ``super()`` reaches the base's
        generic default, the reference the games' fused playouts are tested against."""
        answers: Mapping[str, Callable[..., Any]] = getattr(self, "answers", {})
        function = answers.get(name)
        if function is None:
            raise NotImplementedError(f"{self.id} answers no {name}")
        return function

    # ---- setup ---------------------------------------------------------------

    def parse_options(self, raw: Mapping[str, Any] | None, players: int) -> JSON:
        """Options with defaults filled in; raises InvalidSetup for an unknown option,
        a bad value or a combination the spec forbids (see ``check_options``)."""
        return parse_options(self.id, self.option_specs, raw, players, self.check_options)

    def check_options(self, options: JSON, players: int) -> None:
        """Reject combinations of options the spec forbids (InvalidSetup). Default: none."""

    def check_players(self, players: Any) -> int:
        """The player count of a new match. None (not given) means the game's only count
        where it has one (Baloot, Trex), else its smallest. Anything not in
        ``player_counts`` raises InvalidSetup naming the field and the allowed counts."""
        allowed = sorted(self.player_counts)
        if players is None:
            return allowed[0]
        if isinstance(players, bool) or not isinstance(players, int) or players not in allowed:
            counts = ", ".join(str(n) for n in allowed)
            expected = f"must be {counts}" if len(allowed) == 1 else f"must be one of {counts}"
            raise InvalidSetup(f"players {expected}", field="players", details={"allowed": allowed})
        return players

    def check_dealer(self, players: int, dealer: Any) -> int:
        """``dealer`` if it is a seat of a ``players``-seat table, else InvalidSetup."""
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < players:
            raise InvalidSetup(f"dealer must be a seat from 0 to {players - 1}", field="dealer")
        return dealer

    def new_state(
        self,
        players: int,
        options: Mapping[str, Any] | None = None,
        dealer: int = 0,
        *,
        seed: int | None = None,
        deck: list[str] | None = None,
        layout: JSON | None = None,
    ) -> S:
        """A new match, the one contract of every game (implemented here once; a game
        answers the three ``new_from_*`` calls below):

        * ``seed`` alone, or nothing: an engine-dealt match whose deals all come from the
          generator seeded with ``seed``; with no seed a fresh one is drawn from the OS
          (:func:`new_seed`: a seed of 0 is never assumed; the service passes its own);
        * ``deck`` (codes, top first): the first deal from it; a ``seed`` with it deals the
          later deals, without one the match is caller-dealt;
        * ``layout`` (a partial JSON state): the same, the state set up as it says; its
          ``options`` and the request's are one set (:meth:`layout_options`: an option
          named in both must agree).

        A deck and a layout exclude each other. ``seed`` is a whole number from 0 to
        2**63 - 1 (the generator state a state JSON carries). Raises InvalidSetup /
        InvalidState naming the field."""
        n = self.check_players(players)
        self.check_dealer(n, dealer)
        if seed is not None and (
            isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < RNG_STATE_LIMIT
        ):
            raise InvalidSetup("seed must be a whole number from 0 to 2**63 - 1", field="seed")
        if deck is not None and layout is not None:
            raise InvalidSetup("give a deck or a layout, not both", field="deck")
        if layout is not None:
            if not isinstance(layout, Mapping):
                raise InvalidSetup("layout must be a JSON object (a partial state)", field="layout")
            opts = self.layout_options(layout.get("options"), options, n)
            rest = {name: value for name, value in layout.items() if name != "options"}
            return self.new_from_layout(rest, n, opts, dealer, seed)
        opts = self.parse_options(options, n)
        if deck is not None:
            return self.new_from_deck(deck, n, opts, dealer, seed)
        return self.new_from_seed(n, opts, dealer, new_seed() if seed is None else seed)

    def layout_options(self, in_layout: Any, requested: Any, players: int) -> JSON:
        """Whose options win when a layout carries ``options`` and the request too: neither.
        They are one set of options written in two places, so an option named in both must
        have the same value in both (else InvalidSetup naming ``options.<name>``: a deal
        set up differently from what either side asked for would be a silent surprise);
        an option named in one only takes that value, one named in neither its default.
        Parsed like any options (unknown names, bad values, forbidden combinations)."""
        parts = []
        for where, raw in (("layout.options", in_layout), ("options", requested)):
            if raw is None:
                raw = {}
            if not isinstance(raw, Mapping):
                raise InvalidSetup(f"{where} must be an object", field=where)
            parts.append(raw)
        layout_part, request_part = parts
        specs = {spec.name: spec for spec in self.option_specs}
        for name in [n for n in request_part if n in layout_part and n in specs]:
            mine, theirs = specs[name].validate(request_part[name]), specs[name].validate(layout_part[name])
            if type(mine) is not type(theirs) or mine != theirs:
                said = f"{json.dumps(mine)} in the request but {json.dumps(theirs)} in the layout"
                raise InvalidSetup(
                    f"options.{name} is {said}: give it once, or the same value in both",
                    field=f"options.{name}",
                    details={"request": mine, "layout": theirs},
                )
        return self.parse_options({**layout_part, **request_part}, players)

    def new_from_seed(self, players: int, options: JSON, dealer: int, seed: int) -> S:
        """An engine-dealt match: the first deal and every later one from ``seed``'s
        generator (``options`` parsed, every argument checked)."""
        return self.answer("new_from_seed")(players, options, dealer, seed)

    def new_from_deck(self, deck: Any, players: int, options: JSON, dealer: int, seed: int | None) -> S:
        """The first deal from ``deck`` (refused with InvalidSetup, field ``deck``, unless it
        holds the game's pack exactly, top first); the later ones from ``seed``'s generator,
        or from the caller without a seed."""
        return self.answer("new_from_deck")(deck, players, options, dealer, seed)

    def new_from_layout(
        self, layout: Mapping[str, Any], players: int, options: JSON, dealer: int, seed: int | None
    ) -> S:
        """The state a layout sets up: the fields it leaves out worked out by the game's
        ``layout.fill_left_out`` (the codec calls it when it reads the layout); ``layout``
        without its ``options``, ``options`` the match's, parsed (the layout's and the
        request's together: :meth:`layout_options`); the later deals from ``seed``'s
        generator, or from the caller without one."""
        return self.answer("new_from_layout")(layout, players, options, dealer, seed)

    # ---- the turn ------------------------------------------------------------

    def to_act(self, state: S) -> int | None:
        """The seat to act, or None when the match is over."""
        return self.answer("to_act")(state)

    def players(self, state: S) -> int:
        """Number of seats at the table (games may override with a cheaper lookup)."""
        if self.codec is not None:
            return self.codec.players_of(state)
        return int(self.to_json(state)["players"])

    def phase(self, state: S) -> str:
        """The state's phase name."""
        return self.answer("phase")(state)

    def deal_no(self, state: S) -> int:
        """1-based number of the current deal in the match."""
        return self.answer("deal_no")(state)

    def legal_actions(self, state: S) -> list[Action]:
        """Every legal action of the seat to act, in the spec's canonical order.
        Empty only when the match is over or the state waits for a caller's deal."""
        return self.answer("legal_actions")(state)

    def check_action(self, state: S, action: Action) -> None:
        """Game-specific legality of ``action`` for the seat to act (the match is not
        over and the seat is right). Raises IllegalAction(reason, rule=...)."""
        return self.answer("check_action")(state, action)

    def check(self, state: S, seat: int, action: Action) -> None:
        """Raises IllegalAction / NotYourTurn if ``seat`` may not play ``action`` now."""
        to_act = self.to_act(state)
        if to_act is None:
            raise IllegalAction("match is over", rule="match_over")
        if seat != to_act:
            raise NotYourTurn(f"not your turn: seat {to_act} is to act", rule="turn")
        self.check_action(state, action)

    def is_legal(self, state: S, seat: int, action: Action) -> bool:
        try:
            self.check(state, seat, action)
        except IllegalAction:
            return False
        return True

    def clone(self, state: S) -> S:
        """An independent copy (cheap: the search clones once per iteration)."""
        return self.answer("clone")(state)

    def step(self, state: S, action: Action, events: list[Event] | None = None) -> None:
        """Apply a legal ``action`` in place. Appends events to ``events`` when given
        (the search passes None and pays nothing for them). Deals the next deal
        itself from the state's generator when a deal ends in an engine-dealt match."""
        return self.answer("step")(state, action, events)

    def apply(self, state: S, seat: int, action: Action) -> tuple[S, list[Event]]:
        """The checked path: check, then a new state and the events. ``state`` is untouched."""
        self.check(state, seat, action)
        nxt = self.clone(state)
        events: list[Event] = []
        self.step(nxt, action, events)
        return nxt, events

    # ---- actions as JSON -----------------------------------------------------

    def parse_action(self, state: S, data: Any) -> Action:
        """Read a JSON action; raises BadAction naming the bad field (unknown type,
        missing field, a card code that is not in the game's pack...)."""
        return self.answer("parse_action")(state, data)

    def action_to_json(self, state: S, action: Action) -> JSON:
        """The JSON form of ``action`` (round-trips through parse_action)."""
        return self.answer("action_to_json")(state, action)

    # ---- scores, views, JSON ---------------------------------------------------

    def score(self, state: S) -> ScoreReport:
        """Match totals and the current deal's itemised breakdown."""
        return self.answer("score")(state)

    def standings(self, state: S) -> list[float]:
        """Each side's match total oriented so that higher is better (the order in which
        the match ranks the sides). Default: ``score(state).scores``; a game whose
        winner can be the lowest total overrides it."""
        return [float(v) for v in self.score(state).scores]

    # The four documents below come from the game's declared codec (engine/codec.py) by
    # default: a game overrides one only where it adds something of its own.

    def to_json(self, state: S) -> JSON:
        """The full state as JSON (every hidden card included)."""
        return self.declared_codec().dump(state)

    def from_json(self, data: Any) -> S:
        """Validate and load a JSON state; raises InvalidState naming the problem
        (unknown phase, duplicate or missing cards, wrong hand sizes...)."""
        loaded: S = self.declared_codec().load(data)
        return loaded

    def view(self, state: S, seat: int) -> JSON:
        """What ``seat`` may know, as JSON: the state with every card the seat cannot
        see replaced by a count, the public history, no generator state. Has
        ``"seat": seat`` and the same top-level fields as a state otherwise."""
        return self.declared_codec().view(state, self.check_seat(state, seat))

    def check_seat(self, state: S, seat: Any) -> int:
        """``seat`` if it is a seat of the state's table, else InvalidState (field ``seat``)."""
        players = self.players(state)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise InvalidState(f"seat must be a seat from 0 to {players - 1}", field="seat")
        return seat

    def public_view(self, state: S) -> JSON:
        """What every seat may know (a spectator's view): the view of a seat that holds
        no hand, i.e. every hand and the stock as counts and no seat's private facts;
        ``"seat": None``."""
        return self.declared_codec().view(state, SPECTATOR)

    def sampler(self, view: JSON) -> Callable[[random.Random], S]:
        """Validate ``view`` once (InvalidState) and return a function that deals the
        hidden cards at random, consistent with everything the view shows, into a full
        state such that ``view(state, seat)`` equals ``view``."""
        return self.answer("sampler")(view)

    def sample(self, view: JSON, rng: random.Random) -> S:
        return self.sampler(view)(rng)

    def info_key(self, state: S, seat: int) -> Hashable:
        """A cheap hashable key of what ``seat`` knows in ``state`` (equal for two states
        exactly when the seat's views are equal)."""
        return self.answer("info_key")(state, seat)

    # ---- invariants the generic suite checks -----------------------------------

    def pack(self, state: S) -> list[str]:
        """Every card of the game's pack(s), as codes (a multiset for several packs)."""
        return self.answer("pack")(state)

    def cards_in_play(self, state: S) -> list[str]:
        """Every card wherever it lies now (hands, table, stock, piles, melds...):
        conservation means this multiset always equals ``pack``."""
        return self.answer("cards_in_play")(state)

    def hidden_cards(self, state: S, seat: int) -> list[str]:
        """The cards ``seat`` cannot see in ``state`` (a multiset of codes)."""
        return self.answer("hidden_cards")(state, seat)

    # ---- search support ----------------------------------------------------------

    def outcome(self, start: S, end: S) -> list[float]:
        """Reward of each seat in [0, 1] for the play from ``start`` to ``end`` (the end
        of ``start``'s deal or of the match). Winning the match is 1 and losing it 0;
        otherwise the game maps its own score change to the range (a team's seats
        share one value)."""
        return self.answer("outcome")(start, end)

    def is_playout_over(self, start: S, state: S) -> bool:
        """Where a search playout from ``start`` stops: the match is over or the deal
        of ``start`` has ended (the next one, or a wait for a caller's deck, began)."""
        return (
            self.to_act(state) is None
            or self.deal_no(state) != self.deal_no(start)
            or self.phase(state) == "deal_over"
        )

    def random_playout(self, start: S, state: S, rng: random.Random) -> None:
        """Play uniformly random legal actions on ``state`` in place until
        ``is_playout_over(start, state)``: the search's default playout.

        A game may override this with a fused loop over its own representation (it runs
        millions of times per search), provided every step still draws uniformly from
        ``legal_actions`` and the playout ends where ``is_playout_over`` says; the final
        state must give the same ``outcome`` as the generic loop would. The generic loop
        below is the reference the overrides are tested against."""
        legal_actions = self.legal_actions
        step = self.step
        is_over = self.is_playout_over
        rand = rng.random
        while not is_over(start, state):
            actions = legal_actions(state)
            step(state, actions[int(rand() * len(actions))])

    # ---- metadata ----------------------------------------------------------------

    codec: Codec[Any] | None = None
    """The game's declared JSON shape (engine/codec.py)."""

    def declared_codec(self) -> Codec[Any]:
        if self.codec is None:
            raise NotImplementedError(f"{self.id} has no declared codec")
        return self.codec

    def json_schemas(self) -> dict[str, JSON]:
        """JSON Schemas (draft 2020-12) of the game's documents, generated from its codec's
        declarations: ``{"state", "view", "action", "options"}`` (the action is a ``oneOf``
        discriminated by ``type``)."""
        return self.declared_codec().json_schemas()

    def metadata(self) -> JSON:
        return {
            "id": self.id,
            "title": self.title,
            "players": list(self.player_counts),
            "options": [spec.to_json() for spec in self.option_specs],
            "verbs": dict(self.verbs),
            "rules": f"docs/rules/{self.id}.md",  # the service answers its URL instead
        }


CALLS = (
    *("new_from_seed", "new_from_deck", "new_from_layout"),
    *("to_act", "phase", "deal_no", "legal_actions", "check_action", "clone", "step"),
    *("parse_action", "action_to_json"),
    *("score", "sampler", "info_key"),
    *("pack", "cards_in_play", "hidden_cards"),
    "outcome",
)
"""The calls every game answers (its ``game.py`` declares the function for each)."""

REFINABLE = ("check_options", "players", "check", "standings", "is_playout_over", "random_playout")
"""The calls with a default here that a game may answer its own way."""
