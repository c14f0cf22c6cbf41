"""The shared codec: a game declares its JSON shape once; this module reads, writes,
hides and documents it (issue 19).

A game's ``codec.py`` builds one :class:`Codec` from

* **kinds** — what a JSON value is and what it becomes inside the engine: the kinds games
  share are in ``engine/codec_kinds.py`` (:class:`Int`, :class:`Seat`, :class:`Side`,
  :func:`Bool`, :func:`Text`, :class:`Choice`, :class:`Card`, :class:`Cards`,
  :class:`CardMask`, :class:`Nullable`, :class:`ListOf`, :func:`PerSeat`, :func:`PerSide`,
  :class:`Obj`, :class:`RngState`) and exported here; :class:`History` is here (its
  entries may carry a game's :class:`EntryMark`); a kind only one game uses is declared
  beside it, in ``engine/games/<game>/codec_kinds.py``;
* **fields** — :class:`Field`: a name, a kind, how the writer gets the value from the state,
  what a layout may leave out, whether it is derived, and what a seat's view shows;
* **verbs** — :class:`Verbs`: the action table (``{"type": "play", "card": "TH"}``);
  :class:`Pack`: the game's cards and their codes (its own numbering where it has one);
* three functions of the game: ``build(values, rules, mode)`` (decoded values -> state),
  ``fill_left_out(state, values, mode)`` (its ``layout.py``: what the values leave out,
  worked out) and ``check(state, values, mode)`` (its ``checks.py``: what the rules imply
  beyond the shape).

Each kind is compiled once, when the codec is made, into closures (``decode(raw, path,
rules)`` and ``encode(value)``): no document is interpreted against the declarations.
What documents repeat (history actions, hands, options) goes through the memos of
``engine/codec_cache.py``.

Every refusal is ``InvalidState(f"{path}: {problem}", field=path)`` with ``path`` like
``hands[2]`` or ``chain.packet`` (actions: ``BadAction``, see :class:`Verbs`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from operator import attrgetter
from typing import Any, Generic, TypeVar

from engine.checks import MAX_SAFE_INT
from engine.codec_cache import ReadActions, RulesMemo, written_actions
from engine.codec_kinds import (
    AtTable,
    Bool,
    Card,
    CardMask,
    Cards,
    Choice,
    Decode,
    Encode,
    Int,
    Kind,
    ListOf,
    Nullable,
    Obj,
    Pack,
    PerSeat,
    PerSide,
    Plain,
    RngState,
    Seat,
    Side,
    Text,
    bound,
    distinct_mask,
    identity,
    refuse,
)
from engine.protocol import (
    JSON,
    Action,
    BadAction,
    InvalidSetup,
    InvalidState,
    OptionSpec,
    parse_options,
    written_options,
)

__all__ = [  # what a game's codec reads from here
    # kinds games share (engine/codec_kinds.py)
    "AtTable",
    "Bool",
    "Card",
    "CardMask",
    "Cards",
    "Choice",
    "Decode",
    "Encode",
    "Int",
    "Kind",
    "ListOf",
    "Nullable",
    "Obj",
    "Pack",
    "PerSeat",
    "PerSide",
    "Plain",
    "RngState",
    "Seat",
    "Side",
    "Text",
    "bound",
    "distinct_mask",
    "identity",
    "refuse",
    # actions, histories, fields, views and the codec (this module)
    "COUNT",
    "LAYOUT",
    "OMITTED",
    "OWN",
    "PUBLIC",
    "REQUIRED",
    "STATE",
    "STATE_ONLY",
    "TEMPLATE",
    "Codec",
    "Count",
    "EntryMark",
    "Field",
    "Hidden",
    "History",
    "OwnOrCount",
    "Public",
    "Show",
    "StateOnly",
    "Verb",
    "Verbs",
    "current_entries",
    "history_start",
    "view_seat",
]

S = TypeVar("S")

STATE, LAYOUT, TEMPLATE = "state", "layout", "template"
"""Reading modes. ``STATE``: a full state, strict (every field, written as the engine
writes it). ``LAYOUT``: a partial state for ``new_state(layout=...)`` (omitted fields take
their defaults or are worked out by the game's ``fill_left_out``). ``TEMPLATE``: a full state a
sampler made from a view (hidden parts of actions may be counts; not checked for the
engine's canonical writing)."""


# --------------------------------------------------------------------------- actions


@dataclass(frozen=True)
class Verb:
    """One action ``type`` and its fields. ``make(*values)`` builds the internal action from
    the decoded field values (in order); ``split(action)`` gives them back. ``hidden``: the
    fields a view shows as a count (a caller's deal deck), each with the placeholder value
    a count reads back as (a sampler's template). ``optional``: fields an action may leave
    out, after the others: ``make`` gets None for one left out, and ``split`` gives None for
    one the JSON leaves out."""

    type: str
    fields: Mapping[str, Kind] = field(default_factory=dict)
    make: Callable[..., Action] = lambda: None
    split: Callable[[Any], tuple[Any, ...]] = lambda action: ()
    hidden: Mapping[str, Callable[[Any], Any]] = field(default_factory=dict)
    optional: Mapping[str, Kind] = field(default_factory=dict)


class Verbs:
    """A game's action table: JSON action <-> internal action, and the action schema.

    ``verb_of(action)`` names the verb of an internal action. Reading raises
    ``BadAction("malformed action: ...", field=<the bad entry>)``. ``memo_key(rules)``: what
    of the rules the reading of an action depends on (e.g. whether the pack has jokers), so
    that actions read under different rules are not memoised together (default: nothing)."""

    def __init__(
        self,
        verbs: Sequence[Verb],
        verb_of: Callable[[Action], str],
        memo_key: Callable[[Any], Any] | None = None,
    ) -> None:
        self.verbs = {verb.type: verb for verb in verbs}
        self.verb_of = verb_of
        self.read_actions = ReadActions(memo_key)
        self.types = ", ".join(self.verbs)
        self._read = {t: self._compile_read(v, False) for t, v in self.verbs.items()}
        self._read_hidden = {t: self._compile_read(v, True) for t, v in self.verbs.items()}
        self._write = {t: self._compile_write(v, False) for t, v in self.verbs.items()}
        self._write_hidden = {t: self._compile_write(v, True) for t, v in self.verbs.items()}

    @staticmethod
    def _compile_read(verb: Verb, hidden: bool) -> Callable[[JSON, Any], Action]:
        parts = [
            (name, kind.decoder(), verb.hidden.get(name) if hidden else None, False)
            for name, kind in verb.fields.items()
        ] + [(name, kind.decoder(), None, True) for name, kind in verb.optional.items()]
        make = verb.make
        verb_keys = {"type", *verb.fields, *verb.optional}

        def read(data: JSON, rules: Any) -> Action:
            if not data.keys() <= verb_keys:
                for key in data:
                    if key not in verb_keys:
                        raise BadAction(
                            f"malformed action: unexpected field {key!r} for {verb.type}", field=str(key)
                        )
            values: list[Any] = []
            for name, dec, placeholder, optional in parts:
                if name not in data:
                    if optional:
                        values.append(None)
                        continue
                    raise BadAction(f"malformed action: {verb.type} needs a {name!r} field", field=name)
                raw = data[name]
                if placeholder is not None and type(raw) is int:
                    values.append(placeholder(raw))
                    continue
                try:
                    values.append(dec(raw, name, rules))
                except InvalidState as err:
                    raise BadAction(f"malformed action: {err.message}", field=err.field or name) from None
            return make(*values)

        return read

    @staticmethod
    def _compile_write(verb: Verb, hidden: bool) -> Callable[[Action], JSON]:
        parts = [
            (name, kind.encoder(), hidden and name in verb.hidden, kind, name in verb.optional)
            for name, kind in (*verb.fields.items(), *verb.optional.items())
        ]
        split = verb.split
        kind_name = verb.type

        def write(action: Action) -> JSON:
            out: JSON = {"type": kind_name}
            for (name, enc, as_count, kind, optional), value in zip(parts, split(action), strict=True):
                if value is not None or not optional:
                    out[name] = kind.count(value) if as_count else enc(value)
            return out

        return write

    def decode(self, data: Any, rules: Any, hidden: bool = False) -> Action:
        """The internal action of a JSON action (``hidden``: a hidden field may be a count)."""
        if type(data) is not dict:
            raise BadAction("malformed action: an action is a JSON object", field="action")
        kind = data.get("type")
        read = (self._read_hidden if hidden else self._read).get(kind) if type(kind) is str else None
        if read is None:
            raise BadAction(
                f"malformed action: unknown type {kind!r} (expected one of {self.types})", field="type"
            )
        action = read(data, rules)
        self.read_actions.remember(data, action, hidden, rules)
        return action

    def encode(self, action: Action, hidden: bool = False) -> JSON:
        """The JSON form of an internal action (``hidden``: a view's, hidden fields as counts)."""
        return (self._write_hidden if hidden else self._write)[self.verb_of(action)](action)

    def written(self, hidden: bool = False) -> tuple[Callable[[Action], JSON], dict[Action, JSON]]:
        """``(write, memo)``: :meth:`encode` memoised for histories (codec_cache.written_actions)."""
        return written_actions(lambda action: self.encode(action, hidden))

    def schema(self, view: bool = False) -> JSON:
        """JSON Schema of an action: a ``oneOf`` discriminated by ``type``."""
        options = []
        for verb in self.verbs.values():
            props: JSON = {"type": {"const": verb.type}}
            for name, kind in verb.fields.items():
                props[name] = kind.schema()
                if view and name in verb.hidden:
                    props[name] = {"anyOf": [props[name], {"type": "integer", "minimum": 0}]}
            for name, kind in verb.optional.items():
                props[name] = kind.schema()
            options.append(
                {
                    "type": "object",
                    "properties": props,
                    "required": ["type", *verb.fields],
                    "additionalProperties": False,
                }
            )
        return {"oneOf": options}


class EntryMark:
    """What a history entry may carry under one more key beside its seat and action
    (Baloot's ``"project": true`` on a private pass, Trex's ``"trick": 3`` on a card
    play). A game declares its mark in its ``codec_kinds.py``; :class:`History` reads,
    writes and documents the rest of the entry."""

    key: str
    note: str = ""
    """Added to the entry's shape refusal (``must be an object {seat, action}<note>``)."""
    normalises = False
    """True when the key may be spelt out with the value that means "no mark"."""

    unmarked: Callable[[int, Action], Any] | None = None
    """The inside entry of an entry without the key; None: ``(seat, action)``."""

    def read(self, value: Any, seat: int, action: Action, where: str, rules: Any) -> Any:
        """The inside entry of an entry with ``value`` under the key (refused naming ``where``)."""
        raise NotImplementedError

    def write(self, entry: Any) -> tuple[int, Action, Any]:
        """``(seat, action, value)`` of an inside entry; value None leaves the key out."""
        raise NotImplementedError

    def schema(self) -> JSON:
        raise NotImplementedError


@dataclass(frozen=True)
class History(Kind):
    """The match's history: ``[{"seat": s, "action": {...}}]`` with the action through the
    verb table; inside, a list of ``(seat, action)`` (with a ``mark``: what the mark makes of
    each entry). A bad entry is refused naming it (``history[i]``), its seat
    (``history[i].seat``) or its action (``history[i].action``)."""

    verbs: Verbs
    mark: EntryMark | None = None

    @property
    def normalises(self) -> bool:  # type: ignore[override]
        return self.mark is not None and self.mark.normalises

    def decoder(self, hidden: bool = False) -> Decode:
        decode_action, memo, mark = self.verbs.decode, self.verbs.read_actions.memo, self.mark
        keys = {"seat", "action"} if mark is None else {"seat", "action", mark.key}
        shape = "must be an object {seat, action}" + ("" if mark is None else mark.note)
        unmarked = None if mark is None else mark.unmarked
        read = None if mark is None else mark.read
        key = "" if mark is None else mark.key

        def checked(entry: Any, where: str, rules: Any) -> Any:
            if type(entry) is not dict or not {"seat", "action"} <= entry.keys() <= keys:
                raise refuse(where, shape)
            seat = entry["seat"]
            players = rules.players
            if type(seat) is not int or not 0 <= seat < players:
                raise refuse(f"{where}.seat", f"must be a whole number from 0 to {players - 1}")
            try:
                action = decode_action(entry["action"], rules, hidden)
            except BadAction as err:
                raise refuse(f"{where}.action", err.message) from None
            if read is not None and key in entry:
                return read(entry[key], seat, action, where, rules)
            return (seat, action) if unmarked is None else unmarked(seat, action)

        def decode(raw: Any, path: str, rules: Any) -> list[Any]:
            if type(raw) is not list:
                raise refuse(path, "must be a list")
            players = rules.players
            known = memo(hidden, rules)
            out: list[Any] = []
            append = out.append
            while len(out) < len(raw):
                # The usual entry, a seat and an action met before, costs one look-up; any
                # other one (or any error) leaves the loop for the checked reading.
                try:
                    for entry in islice(raw, len(out), None):
                        seat = entry["seat"]
                        action = known[tuple(entry["action"].items())]
                        if type(seat) is not int or not 0 <= seat < players:
                            break
                        if len(entry) == 2:
                            append((seat, action) if unmarked is None else unmarked(seat, action))
                        elif read is not None and len(entry) == 3 and key in entry:
                            append(read(entry[key], seat, action, f"{path}[{len(out)}]", rules))
                        else:
                            break
                except (KeyError, TypeError, AttributeError):
                    pass
                i = len(out)
                if i < len(raw):
                    append(checked(raw[i], f"{path}[{i}]", rules))
            return out

        return decode

    def encoder(self, view: bool = False) -> Encode:
        write, memo = self.verbs.written(view)
        get = memo.get
        split = None if self.mark is None else self.mark.write
        key = "" if self.mark is None else self.mark.key  # written only by a mark

        def encode(entries: Iterable[Any]) -> list[JSON]:
            out: list[JSON] = []
            append = out.append
            for entry in entries:  # inlined: the longest part of a state by far
                if split is None:
                    seat, action = entry
                    known = get(action)
                    append({"seat": seat, "action": known.copy() if known is not None else write(action)})
                    continue
                seat, action, value = split(entry)
                known = get(action)
                one = {"seat": seat, "action": known.copy() if known is not None else write(action)}
                if value is not None:
                    one[key] = value
                append(one)
            return out

        return encode

    def schema(self, view: bool = False) -> JSON:
        props = {"seat": Seat().schema(), "action": {"$ref": "#/$defs/action"}}
        if self.mark is not None:
            props[self.mark.key] = self.mark.schema()
        entry = {
            "type": "object",
            "properties": props,
            "required": ["seat", "action"],
            "additionalProperties": False,
        }
        return {"type": "array", "items": entry}


# --------------------------------------------------------------------------- fields and views


class Show:
    """What a seat's view shows of a field (see the constants below and :class:`OwnOrCount`)."""


@dataclass(frozen=True)
class Public(Show):
    """The same as in the state."""


@dataclass(frozen=True)
class StateOnly(Show):
    """Absent from views (``rng_state``)."""


@dataclass(frozen=True)
class Count(Show):
    """Only the number of cards (``stock`` -> its length)."""


@dataclass(frozen=True)
class OwnOrCount(Show):
    """A per-seat field: entry ``t`` shown when ``shows(state, viewer, t)`` (by default: it
    is the viewer's own), else its count. The viewer of a spectator view is SPECTATOR.
    ``hides_own(state, viewer)``: when true, the viewer's own entry is a count too (cards
    its seat may not look at yet)."""

    shows: Callable[[Any, int, int], bool] | None = None
    hides_own: Callable[[Any, int], bool] | None = None


PUBLIC: Show = Public()
STATE_ONLY: Show = StateOnly()
COUNT: Show = Count()
OWN: Show = OwnOrCount()

HEADER = ("game", "version", "options", "players")
"""The fields every document starts with (the codec reads and writes them itself)."""

_NOT_GIVEN: Any = object()
REQUIRED: Any = object()
"""A field's ``default`` when a layout must give it too."""
OMITTED: Any = object()
"""A field's ``default`` when the game's ``fill_left_out`` works it out if a layout leaves it out
(the field is then absent from ``values``)."""


@dataclass(frozen=True)
class Field(Generic[S]):
    """One top-level field of the game's state JSON, in document order.

    ``get(state)`` gives the internal value the writer encodes (default: the attribute of
    the same name). ``default``: a layout's value when it is left out (a value, or a
    function of the rules), :data:`REQUIRED` or :data:`OMITTED`. ``derived``: worked out
    from the rest of the state; a document that gives it must give exactly what the state
    gives (refused otherwise). ``show``: what a seat's view shows. ``view_get(state,
    viewer)``: a view's value when it differs in content (e.g. only this deal's history).
    ``in_state=False``: a view-only field (``seat``)."""

    name: str
    kind: Kind
    get: Callable[[S], Any] | None = None
    default: Any = REQUIRED
    derived: bool = False
    show: Show = PUBLIC
    view_get: Callable[[S, int], Any] | None = None
    in_state: bool = True


def _default_of(f: Field[Any], rules: Any) -> Any:
    d = f.default
    return d(rules) if callable(d) else d


_SEAT: Kind = Seat()


def view_seat(kind: Kind = _SEAT) -> Field[Any]:
    """The view-only ``seat`` field: the viewer (null in a spectator view)."""
    return Field(
        "seat", Nullable(kind), in_state=False, view_get=lambda s, viewer: None if viewer < 0 else viewer
    )


def history_start(name: str) -> Field[Any]:
    """The history's start: how many of a document's ``history`` entries came before its
    current deal (one meaning in every game that has the field; its wire name is the
    game's: ``deal_start``, ``deal_history_start``, ``hand_start``). A state holds only its
    current deal (issue 33), so the engine writes 0; an old document's count is read, and
    :func:`current_entries` drops the entries before it."""
    return Field(name, Int(0, MAX_SAFE_INT), lambda s: 0, default=0)


def current_entries(entries: list[Any], start: int, name: str) -> list[Any]:
    """The entries of the current deal: those from the history's start on (refused, naming
    the field ``name``, when it lies beyond the history)."""
    if start > len(entries):
        raise refuse(name, f"must be a whole number from 0 to {len(entries)}")
    return entries[start:]


# --------------------------------------------------------------------------- the codec


class Codec(Generic[S]):
    """One game's JSON: state, layout and view documents, actions, and their JSON Schemas.

    Every document starts ``game``, ``version``, ``options``, ``players``; ``fields`` follow
    in document order. ``rules_of(options, players)`` makes the per-match rules object the
    kinds read bounds from (``.players``, ``.sides``); it is cached per distinct options.
    ``options_of(state)`` / ``players_of(state)`` give them back for writing.
    ``build(values, rules, mode)`` makes a state from the decoded ``values`` (name ->
    internal value), copying what they give; ``fill_left_out(state, values, mode)`` (the
    game's ``layout.py``) then works out what they leave out (:meth:`build_state`);
    ``check(state, values, mode)`` refuses what the rules forbid;
    ``written(dump, doc)``, where a game has it, refuses a full state not written exactly
    as the engine writes it beyond what the kinds' canonical forms catch."""

    def __init__(
        self,
        *,
        game: str,
        version: int,
        option_specs: Sequence[OptionSpec],
        player_counts: Sequence[int],
        check_options: Callable[[JSON, int], None],
        rules_of: Callable[[JSON, int], Any],
        options_of: Callable[[S], Mapping[str, Any]],
        players_of: Callable[[S], int],
        fields: Sequence[Field[S]],
        verbs: Verbs,
        build: Callable[[dict[str, Any], Any, str], S],
        fill_left_out: Callable[[S, dict[str, Any], str], None],
        check: Callable[[S, dict[str, Any], str], None] | None = None,
        written: Callable[[JSON, JSON], None] | None = None,
    ) -> None:
        self.game = game
        self.version = version
        self.option_specs = tuple(option_specs)
        self.player_counts = tuple(sorted(player_counts))
        self.check_options = check_options
        self.rules_of = rules_of
        self.options_of = options_of
        self.players_of = players_of
        self.fields = tuple(fields)
        self.verbs = verbs
        self.build = build
        self.fill_left_out = fill_left_out
        self.check = check
        self.written = written
        self.state_fields = tuple(f for f in self.fields if f.in_state)
        self.known = frozenset((*HEADER, *(f.name for f in self.state_fields)))
        self._read = [(f, f.kind.decoder(False), f.kind.decoder(True)) for f in self.state_fields]
        self._write = [(f.name, _getter(f), f.kind.encoder(False)) for f in self.state_fields]
        self._write_view = [_view_writer(f) for f in self.fields if not isinstance(f.show, StateOnly)]
        self._read_strict = [(f.name, f.kind.decoder(False)) for f in self.state_fields]
        self._canonical = [(f.name, f.kind.canonical()) for f in self.state_fields if f.kind.normalises]
        self._derived = [(f.name, _getter(f), f.kind.encoder(False)) for f in self.state_fields if f.derived]
        self._rules = RulesMemo(self._read_rules)
        view_fields = [f for f in self.fields if not isinstance(f.show, StateOnly)]
        self._view_names = frozenset((*HEADER, *(f.name for f in view_fields)))
        self._read_view = [(f.name, _view_decoder(f)) for f in view_fields]

    # ---- options and rules ------------------------------------------------------

    def read_options(self, raw: Any, players: int) -> JSON:
        """Options with defaults filled in; InvalidSetup for an unknown option, a bad value
        or a combination the game forbids (the same reading as ``Game.parse_options``)."""
        return parse_options(self.game, self.option_specs, raw, players, self.check_options)

    def rules(self, raw: Any, players: int) -> tuple[JSON, Any]:
        """(options, rules object) of raw options for ``players`` seats, memoised (a state's
        options come back with every request). Refusals are InvalidState."""
        return self._rules(raw, players)

    def _read_rules(self, raw: Any, players: int) -> tuple[JSON, Any]:
        try:
            options = self.read_options(raw, players)
        except InvalidSetup as err:
            raise InvalidState(err.message, field=err.field or "options") from None
        return options, self.rules_of(options, players)

    # ---- writing ---------------------------------------------------------------

    def _header(self, s: S) -> JSON:
        return {
            "game": self.game,
            "version": self.version,
            "options": written_options(self.option_specs, self.options_of(s)),
            "players": self.players_of(s),
        }

    def dump(self, s: S) -> JSON:
        """The full state as JSON."""
        out = self._header(s)
        for name, get, enc in self._write:
            out[name] = get(s) if enc is identity else enc(get(s))
        return out

    def view(self, s: S, viewer: int) -> JSON:
        """What ``viewer`` may know (SPECTATOR: what every seat may know)."""
        out = self._header(s)
        for name, get, enc, write in self._write_view:
            if write is not None:
                out[name] = write(s, viewer)
            else:
                out[name] = get(s) if enc is identity else enc(get(s))
        return out

    # ---- reading ---------------------------------------------------------------

    def load(
        self,
        doc: Any,
        mode: str = STATE,
        *,
        players: int | None = None,
        options: JSON | None = None,
        given: Mapping[str, Any] | None = None,
    ) -> S:
        """Read a state document (``mode``: STATE, LAYOUT or TEMPLATE). A layout may leave
        out ``players`` and ``options`` (the request's are used; given ones must agree) and
        any field with a default; ``given`` overrides declared defaults with internal values
        (e.g. the request's dealer)."""
        if type(doc) is not dict:
            raise InvalidState("a state is a JSON object", field="state")
        if not self.known.issuperset(doc):
            unknown = next(key for key in doc if key not in self.known)
            raise InvalidState(f"unknown field {unknown!r}", field=str(unknown))
        layout = mode == LAYOUT
        rules = self._read_header(doc, layout, players, options)
        if mode == STATE and len(doc) == len(self.known):  # every field given: the service's case
            values = {name: decode(doc[name], name, rules) for name, decode in self._read_strict}
        else:
            values = self._read_fields(doc, rules, mode, given)
        state = self.build_state(values, rules, mode)
        if self.check is not None:
            self.check(state, values, mode)
        for name, get, enc in self._derived:
            if name in doc:
                want = enc(get(state))
                if doc[name] != want:
                    raise refuse(name, f"must be {json.dumps(want)} in this state")
        if mode == STATE:
            for name, same in self._canonical:
                if not same(values[name], doc[name]):
                    raise refuse(name, "must be written as the engine writes it (cards in canonical order)")
            if self.written is not None:
                self.written(self.dump(state), doc)
        return state

    def build_state(self, values: dict[str, Any], rules: Any, mode: str) -> S:
        """A state from decoded ``values``: the game's ``build`` copies what they give, then
        its ``layout.fill_left_out`` works out what they leave out (the one place both run,
        for every mode: a full state leaves out nothing but what is derived)."""
        state = self.build(values, rules, mode)
        self.fill_left_out(state, values, mode)
        return state

    def _read_fields(
        self, doc: JSON, rules: Any, mode: str, given: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        """Each field by its kind; a missing one refused, or its default in a layout."""
        layout = mode == LAYOUT
        hidden = mode == TEMPLATE
        values: dict[str, Any] = {}
        for f, decode, decode_hidden in self._read:
            name = f.name
            raw = doc.get(name, _NOT_GIVEN)
            if raw is not _NOT_GIVEN:
                values[name] = (decode_hidden if hidden else decode)(raw, name, rules)
            elif not layout or f.default is REQUIRED:
                raise InvalidState(f"missing field {name}", field=name)
            elif given is not None and name in given:
                values[name] = given[name]
            elif f.default is not OMITTED:
                values[name] = _default_of(f, rules)
        return values

    def _read_header(self, doc: JSON, layout: bool, players: int | None, options: JSON | None) -> Any:
        game = doc.get("game", self.game if layout else _NOT_GIVEN)
        if game != self.game:
            raise (
                refuse("game", f"must be {json.dumps(self.game)}")
                if game is not _NOT_GIVEN
                else _missing("game")
            )
        version = doc.get("version", self.version if layout else _NOT_GIVEN)
        if version is _NOT_GIVEN:
            raise _missing("version")
        if type(version) is not int or version != self.version:
            raise refuse("version", f"must be {self.version}")
        n = doc.get("players", players if layout else _NOT_GIVEN)
        if n is _NOT_GIVEN:
            raise _missing("players")
        if type(n) is not int or n not in self.player_counts:
            counts = ", ".join(str(c) for c in self.player_counts)
            raise refuse("players", f"must be one of {counts}")
        if players is not None and n != players:
            raise refuse("players", f"the layout is for {n} players, the request for {players}")
        raw = doc.get("options", options if layout else _NOT_GIVEN)
        if raw is _NOT_GIVEN:
            raise _missing("options")
        parsed, rules = self.rules(raw, n)
        if options is not None and parsed != options:
            raise refuse("options", "the layout's options differ from the request's options")
        if not layout and (
            type(raw) is not dict or raw.keys() != written_options(self.option_specs, parsed).keys()
        ):
            raise refuse("options", "must list every option (as the engine writes it)")
        return rules

    def read_view(self, doc: Any) -> tuple[Any, int | None, dict[str, Any]]:
        """Read a view document by its view shape: ``(rules, viewer, values)``. A hidden
        entry (a count where the state has cards) reads as :class:`Hidden`. For samplers."""
        if type(doc) is not dict:
            raise InvalidState("a view is a JSON object", field="view")
        for key in doc:
            if key not in self._view_names:
                raise InvalidState(f"unknown field {key!r}", field=str(key))
        rules = self._read_header(doc, False, None, None)
        values: dict[str, Any] = {}
        for name, decode in self._read_view:
            if name not in doc:
                raise _missing(name)
            values[name] = decode(doc[name], name, rules)
        viewer = values.get("seat")
        return rules, viewer, values

    # ---- JSON Schema --------------------------------------------------------------

    def json_schemas(self) -> dict[str, JSON]:
        """JSON Schemas (draft 2020-12) of the state, a view, an action and the options."""
        dialect = "https://json-schema.org/draft/2020-12/schema"
        action = self.verbs.schema()
        options = self.options_schema()
        header = {
            "game": {"const": self.game},
            "version": {"const": self.version},
            "options": options,
            "players": {"enum": list(self.player_counts)},
        }

        def document(fields: Sequence[Field[S]], view: bool) -> JSON:
            props = dict(header)
            for f in fields:
                props[f.name] = _view_schema(f) if view else f.kind.schema()
            return {
                "$schema": dialect,
                "type": "object",
                "properties": props,
                "required": list(props),
                "additionalProperties": False,
                "$defs": {"action": self.verbs.schema(view)},
            }

        view_fields = [f for f in self.fields if not isinstance(f.show, StateOnly)]
        return {
            "state": document(self.state_fields, False),
            "view": document(view_fields, True),
            "action": {"$schema": dialect, **action},
            "options": {"$schema": dialect, **options},
        }

    def options_schema(self) -> JSON:
        props: JSON = {}
        for spec in self.option_specs:
            one: JSON = {"description": spec.description, "default": spec.default}
            if spec.kind == "bool":
                one["type"] = "boolean"
            elif spec.kind == "int":
                one["type"] = "integer"
                if spec.minimum is not None:
                    one["minimum"] = spec.minimum
                if spec.maximum is not None:
                    one["maximum"] = spec.maximum
            else:
                one["enum"] = list(spec.choices)
            props[spec.name] = one
        return {"type": "object", "properties": props, "additionalProperties": False}


@dataclass(frozen=True)
class Hidden:
    """A hidden entry of a view as :meth:`Codec.read_view` reads it: only its card count."""

    count: int


def _missing(name: str) -> InvalidState:
    return InvalidState(f"missing field {name}", field=name)


def _getter(f: Field[Any]) -> Callable[[Any], Any]:
    return f.get if f.get is not None else attrgetter(f.name)


def _view_writer(
    f: Field[Any],
) -> tuple[str, Callable[[Any], Any], Encode, Callable[[Any, int], Any] | None]:
    """(name, get, encode, write) of a field in a view: a public field is written like in
    the state (``write`` None), any other by ``write(state, viewer)``."""
    if f.view_get is None and isinstance(f.show, Public):
        return f.name, _getter(f), f.kind.encoder(True), None
    return f.name, _getter(f), identity, _view_write(f)


def _view_write(f: Field[Any]) -> Callable[[Any, int], Any]:
    kind = f.kind
    enc = kind.encoder(True)
    view_get = f.view_get
    get = _getter(f)
    if view_get is not None:
        return lambda s, viewer: enc(view_get(s, viewer))
    show = f.show
    if isinstance(show, Count):
        count = kind.count
        return lambda s, viewer: count(get(s))
    if isinstance(show, OwnOrCount):
        assert isinstance(kind, ListOf), f"{f.name}: OwnOrCount needs a per-seat list"
        inner = kind.kind.encoder(True)
        count = kind.kind.count
        shows = show.shows
        hides_own = show.hides_own

        def write(s: Any, viewer: int) -> list[Any]:
            values = get(s)
            own = None if hides_own is not None and hides_own(s, viewer) else viewer
            if shows is None:
                return [inner(v) if t == own else count(v) for t, v in enumerate(values)]
            return [inner(v) if t == own or shows(s, viewer, t) else count(v) for t, v in enumerate(values)]

        return write
    return lambda s, viewer: enc(get(s))


def _view_decoder(f: Field[Any]) -> Decode:
    kind = f.kind
    show = f.show
    if isinstance(show, Count):
        return Int().decoder()
    if isinstance(show, OwnOrCount) and isinstance(kind, ListOf):
        entry = kind.kind.decoder(True)
        length = kind.length
        whole = Int().decoder()

        def decode(raw: Any, path: str, rules: Any) -> list[Any]:
            size = None if length is None else bound(length, rules)
            if type(raw) is not list or size is not None and len(raw) != size:
                raise refuse(path, f"must be a list of {size} entries")
            return [
                Hidden(whole(v, f"{path}[{i}]", rules)) if type(v) is int else entry(v, f"{path}[{i}]", rules)
                for i, v in enumerate(raw)
            ]

        return decode
    return kind.decoder(True)


def _view_schema(f: Field[Any]) -> JSON:
    kind = f.kind
    show = f.show
    count = {"type": "integer", "minimum": 0}
    if isinstance(show, Count):
        return count
    if isinstance(show, OwnOrCount) and isinstance(kind, ListOf):
        return {"type": "array", "items": {"anyOf": [kind.kind.schema(True), count]}}
    return kind.schema(True)
