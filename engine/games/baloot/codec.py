"""Baloot's JSON shape, declared for the shared codec (engine/codec.py): its verbs, its
state fields in document order (what a layout may leave out, what a seat's view shows),
the three kinds only Baloot has (``table``, ``played_by``, ``last_deal``), and ``build``,
which copies the decoded values into a state.

A state's history is the current deal's (earlier deals are in the scores and the session log;
an old state's earlier entries are dropped on loading). A trick-1 project pass (R20,
private) is a history entry with ``"project": true``. A view
keeps only the current deal's history (cards of earlier deals are back in play), drops
other seats' project passes, shows caller decks as counts, and adds ``seat`` and
``engine_dealt``. A layout may leave out most fields, and most keys of ``contract``,
``bidding``, ``projects`` and a trick: ``layout.fill_left_out`` gives them the values
the rules imply (``layout.natural_*``) and puts its left-out cards where
``layout.layout_deals_left_out_cards`` says.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Any

from engine import codec as C
from engine.checks import MAX_SAFE_INT, MAX_SCORE
from engine.games.baloot import checks, rules
from engine.games.baloot import tables as T
from engine.games.baloot.codec_kinds import Flag, Partial, Whole
from engine.games.baloot.layout import fill_left_out, settle_layout
from engine.games.baloot.options import OPTION_SPECS, Opts, compact
from engine.games.baloot.state import State, blank, history_list, set_history
from engine.protocol import JSON, Action, InvalidSetup, InvalidState

OPTION_NAMES = frozenset(spec.name for spec in OPTION_SPECS)

PACK = C.Pack("Baloot", tuple(range(T.NSLOTS)), T.CODE)
"""The 32 cards numbered by slot (tables): a mask lists them in the canonical order."""
CARD = C.Card(PACK)
MASK = C.CardMask(PACK)

# --------------------------------------------------------------------------- actions

_VERB_OF = {
    T.PASS: "pass",
    T.PASS_PROJECT: "pass",
    T.DECLARE: "declare",
    T.KAWESH: "kawesh",
    T.TRIPLE: "triple",
    T.GAHWA: "gahwa",
    **dict.fromkeys((T.BID_HOKM, T.BID_SUN, T.BID_ASHKAL), "bid"),
    **dict.fromkeys((T.DOUBLE_OPEN, T.DOUBLE_LOCKED, T.DOUBLE), "double"),
    **dict.fromkeys((T.FOUR_OPEN, T.FOUR_LOCKED, T.FOUR), "four"),
}


def verb_of(action: Action) -> str:
    """The JSON ``type`` of an internal action (see tables: plays are slots, an Ekka 32 +
    slot, a caller's deal a tuple)."""
    if type(action) is tuple:
        return "deal"
    if action < 64:  # type: ignore[operator]
        return "play"
    if T.CHOOSE <= action < T.CHOOSE + 4:  # type: ignore[operator]
        return "choose_trump"
    return _VERB_OF[action]  # type: ignore[index]


def _raise(plain: int, open_: int, locked: int) -> C.Verb:
    """R11/R12: a double or four, ``locked`` true/false in Hokm, left out in Sun."""
    verb = "double" if plain == T.DOUBLE else "four"
    return C.Verb(
        verb,
        make=lambda lock: plain if lock is None else locked if lock else open_,
        split=lambda action: (None if action == plain else action == locked,),
        optional={"locked": C.Bool()},
    )


VERBS = C.Verbs(
    [
        C.Verb(
            "bid",
            {"bid": C.Choice(("hokm", "sun", "ashkal"), (T.BID_HOKM, T.BID_SUN, T.BID_ASHKAL))},
            make=lambda bid: bid,
            split=lambda action: (action,),
        ),
        C.Verb("pass", make=lambda: T.PASS),
        C.Verb("kawesh", make=lambda: T.KAWESH),
        C.Verb(
            "choose_trump",
            {"suit": C.Choice(tuple(T.SUIT_CHARS), tuple(range(T.CHOOSE, T.CHOOSE + 4)))},
            make=lambda suit: suit,
            split=lambda action: (action,),
        ),
        _raise(T.DOUBLE, T.DOUBLE_OPEN, T.DOUBLE_LOCKED),
        C.Verb("triple", make=lambda: T.TRIPLE),
        _raise(T.FOUR, T.FOUR_OPEN, T.FOUR_LOCKED),
        C.Verb("gahwa", make=lambda: T.GAHWA),
        C.Verb("declare", make=lambda: T.DECLARE),
        C.Verb(
            "play",
            {"card": CARD},
            make=lambda card, ekka: T.EKKA + card if ekka else card,
            split=lambda action: (action & 31, True if action >= T.EKKA else None),
            optional={"ekka": C.Bool()},
        ),
        C.Verb(
            "deal",
            {"deck": C.Cards(PACK, unique=False)},  # R1 (each card once, all 32): check_action
            make=lambda deck: (T.DEAL, *deck),
            split=lambda action: (action[1:],),
            hidden={"deck": lambda count: range(T.NSLOTS)},  # a view's count: a placeholder deck
        ),
    ],
    verb_of,
)


def parse_action(data: Any, phase: int) -> Action:
    """A JSON action (BadAction naming the bad field); in the play phase a pass is the
    trick-1 project pass (R20)."""
    action = VERBS.decode(data, None)
    return T.PASS_PROJECT if action == T.PASS and phase == T.PLAY else action


def action_to_json(action: Action) -> JSON:
    return VERBS.encode(action)


# --------------------------------------------------------------------------- Baloot's own kinds


class PlayedBy(C.Kind):
    """``played_by``: {card: seat or null}; inside, (slot, seat or -1) pairs in document order."""

    normalises = True

    def decoder(self, hidden: bool = False) -> Callable[[Any, str, Any], Any]:
        card = CARD.decoder()

        def decode(raw: Any, path: str, rules: Any) -> list[tuple[int, int]]:
            if type(raw) is not dict:
                raise C.refuse(path, "must be an object")
            out = []
            for code, seat in raw.items():
                if seat is not None and (type(seat) is not int or not 0 <= seat <= 3):
                    raise C.refuse(path, "seats must be 0-3 or null")
                out.append((card(code, path, rules), -1 if seat is None else seat))
            return out

        return decode

    def encoder(self, view: bool = False) -> Callable[[Any], Any]:
        code = T.CODE
        return lambda pairs: {code[p]: (s if s >= 0 else None) for p, s in pairs}

    def schema(self, view: bool = False) -> JSON:
        return {"type": "object", "additionalProperties": {"anyOf": [C.Seat().schema(), {"type": "null"}]}}


class Award(C.Kind):
    """``last_deal``: the finished deal's award (adds per team, items {side, points, item,
    rule}) and its workings, plain JSON data kept as it is."""

    FIELDS = frozenset(
        "adds items winner gahwa multiplier declarer_team kind card_points projects baloot kaboot "
        "counted game_points totals deal_no annulled kawesh".split()
    )

    def decoder(self, hidden: bool = False) -> Callable[[Any, str, Any], Any]:
        def decode(raw: Any, path: str, rules: Any) -> dict[str, Any]:
            if type(raw) is not dict:
                raise C.refuse(path, "must be an object or null")
            for key in raw:
                if key not in self.FIELDS:
                    raise C.refuse(f"{path}.{key}", "unknown field")
            _plain_numbers(raw, path)
            adds, items = raw.get("adds"), raw.get("items")
            if (
                type(adds) is not list
                or len(adds) != 2
                or any(type(x) is not int or not 0 <= x <= 10**6 for x in adds)
            ):
                raise C.refuse(path, "adds must be two whole numbers")
            if type(items) is not list or len(items) > 20 or not all(_is_item(item) for item in items):
                raise C.refuse(path, "items must be a list of {side, points, item, rule}")
            return dict(raw)

        return decode

    def schema(self, view: bool = False) -> JSON:
        return {"type": "object", "required": ["adds", "items"]}


def _is_item(item: Any) -> bool:
    return (
        type(item) is dict
        and item.get("side") in (0, 1)
        and type(item["side"]) is int
        and type(item.get("points")) is int
        and -(10**6) <= item["points"] <= 10**6
        and type(item.get("item")) is str
        and type(item.get("rule")) is str
        and _item_options_ok(item.get("options", []))
    )


def _item_options_ok(names: Any) -> bool:
    """An item's ``options`` (the non-default options that changed it): option names."""
    return (
        type(names) is list
        and len(names) <= len(OPTION_SPECS)
        and all(type(name) is str and name in OPTION_NAMES for name in names)
    )


def _plain_numbers(value: Any, path: str, depth: int = 0) -> None:
    """The deal's workings hold whole numbers a JSON double keeps exactly, a few levels deep."""
    if type(value) in (bool, str) or value is None:
        return
    if type(value) is int:
        if not -MAX_SAFE_INT <= value <= MAX_SAFE_INT:
            raise C.refuse(path, "a number out of range")
    elif depth < 4 and type(value) in (list, dict):  # 4: an award item's options list
        for x in value.values() if type(value) is dict else value:
            _plain_numbers(x, path, depth + 1)
    else:
        raise C.refuse(path, "holds something that is not plain JSON data")


# --------------------------------------------------------------------------- state fields


def _seen_history(st: State, seat: int) -> list[tuple[int, Action]]:
    """A view's history: this deal's, without other seats' project passes (R20)."""
    project_pass = T.PASS_PROJECT
    return [(s, a) for s, a in history_list(st, True) if a != project_pass or s == seat]


def _contract(st: State) -> dict[str, Any] | None:
    if not st.kind:
        return None
    return {
        "kind": st.kind,
        "trump": st.trump,
        "ashkal": st.ashkal,
        "bidder": st.bidder,
        "taker": st.taker,
        "declarer_team": st.bidder & 1,
        "multiplier": st.mult,
        "locked": st.locked,
        "gahwa": st.gahwa,
        "last_raiser_team": st.raiser if st.raiser >= 0 else st.bidder & 1,
    }


def _seen_projects(st: State, seat: int) -> dict[str, Any]:
    """R20: only the seat to act knows whether it has decided on its project."""
    out = _PROJECTS_OF(st)
    if st.to_act != seat:
        out["declare_done"] = None
    return out


SEAT = C.Seat()
HISTORY = C.History(VERBS, Flag(VERBS.verb_of, "project", {T.PASS: T.PASS_PROJECT}))  # R20: a project pass
NO_SEAT = C.Nullable(SEAT, -1)
PLAY_ENTRY = C.Obj(seat=SEAT, card=CARD)


class Table(C.Kind):
    """``table``: the trick so far, [{seat, card}] (a layout may list bare codes); inside,
    (seat, slot) pairs (seat None for a bare code)."""

    normalises = True

    def decoder(self, hidden: bool = False) -> Callable[[Any, str, Any], Any]:
        card, entry = CARD.decoder(), PLAY_ENTRY.decoder()

        def decode(raw: Any, path: str, rules: Any) -> list[tuple[int | None, int]]:
            if type(raw) is not list or len(raw) > 3:
                raise C.refuse(path, "must be a list of at most 3 plays")
            return [
                (None, card(e, f"{path}[{i}]", rules)) if type(e) is str else entry(e, f"{path}[{i}]", rules)
                for i, e in enumerate(raw)
            ]

        return decode

    def encoder(self, view: bool = False) -> Callable[[Any], Any]:
        code = T.CODE
        return lambda plays: [{"seat": seat, "card": code[p]} for seat, p in plays]

    def schema(self, view: bool = False) -> JSON:
        return {"type": "array", "items": PLAY_ENTRY.schema(), "maxItems": 3}


CONTRACT = Partial(
    kind=C.Choice(("hokm", "sun"), (T.HOKM, T.SUN)),
    trump=C.Nullable(C.Choice(tuple(T.SUIT_CHARS)), -1),
    ashkal=C.Bool(),
    bidder=SEAT,
    taker=SEAT,
    declarer_team=C.Side(),
    multiplier=C.Int(1, 4),
    locked=C.Bool(),
    gahwa=C.Bool(),
    last_raiser_team=C.Side(),
)
BIDDING_PART = Partial(round=C.Int(1, 2), stage=C.Choice(T.STAGE_NAMES), hokm_bidder=NO_SEAT)
TRICK = Partial(leader=SEAT, cards=Whole(C.Cards(PACK, length=4)), winner=SEAT, ekka=C.Bool())
REVEALED = C.Obj(kind=C.Choice(T.SUBKIND_NAMES), top=C.Choice(tuple(T.SEQ_ORDER), tuple(range(7, -1, -1))))
"""R21: a tied top declaration shown to all: a sequence's or a four's kind and top rank."""
PROJECTS = Partial(
    declared=Whole(C.PerSeat(C.Nullable(C.Choice(tuple(T.CLASS_NAMES.values()), tuple(T.CLASS_NAMES)), 0))),
    declare_done=C.Nullable(C.Bool()),
    revealed=Whole(C.PerSeat(C.Nullable(REVEALED))),
    team=C.Nullable(C.Side(), -1),
    shown=Whole(C.PerSeat(C.Nullable(C.ListOf(MASK)))),
)
_STATE_NAME = {
    "candidate_taken": "cand_taken",
    "last_deal": "result",
    "multiplier": "mult",
    "last_raiser_team": "raiser",
    "declare_done": "decided",
    "team": "proj_team",
}
"""The JSON names (of fields and of keys of their objects) that the state keeps under
another name; every other one it keeps under its own."""


def _keys_of(part: Partial) -> Callable[[State], dict[str, Any]]:
    """The getter of an object the state keeps key by key (see ``_STATE_NAME``)."""
    keys = tuple(part.fields)
    values = attrgetter(*(_STATE_NAME.get(key, key) for key in keys))
    return lambda st: dict(zip(keys, values(st)))  # noqa: B905 - one value per key by construction


_PROJECTS_OF = _keys_of(PROJECTS)
FIELDS: list[C.Field[State]] = [
    C.Field("dealer", SEAT, default=0),
    C.Field("phase", C.Choice(T.PHASE_NAMES), default=T.BIDDING),
    C.Field("to_act", C.Nullable(SEAT), default=C.OMITTED),
    C.Field("scores", Whole(C.PerSide(C.Int(0, MAX_SCORE))), default=lambda o: [0, 0]),
    C.Field("deal_no", C.Int(1, MAX_SAFE_INT), default=1),
    # a state's history is the current deal's (docs/api.md, "State size"), so a written
    # deal_history_start is 0; an old state's earlier entries (before it) are dropped on loading
    C.Field(
        "history", HISTORY, lambda st: history_list(st, True), default=lambda o: [], view_get=_seen_history
    ),
    C.history_start("deal_history_start"),
    C.Field("rng_state", C.RngState(), default=None, show=C.STATE_ONLY),
    C.Field("hands", C.PerSeat(Whole(MASK)), default=lambda o: [0, 0, 0, 0], show=C.OWN),
    C.Field("candidate", C.Nullable(CARD, -1), default=-1),  # the turned card, kept after it is taken
    C.Field("candidate_taken", C.Bool(), lambda st: st.cand_taken, default=C.OMITTED),
    C.Field("stock", Whole(C.Cards(PACK)), default=C.OMITTED, show=C.COUNT),  # top first
    C.Field("bidding", BIDDING_PART, _keys_of(BIDDING_PART), default=lambda o: {}),
    C.Field("contract", C.Nullable(CONTRACT), _contract, default=None),
    C.Field(
        "doubling_step",
        C.Nullable(C.Choice(T.STEP_NAMES)),
        lambda st: st.dstep if st.phase == T.DOUBLING else None,
        default=C.OMITTED,
    ),
    C.Field("trick_no", C.Int(1, 9), default=1),
    C.Field("leader", NO_SEAT, default=-1),
    C.Field(
        "table",
        Table(),
        lambda st: [((st.leader + i) & 3, p) for i, p in enumerate(st.table)],
        default=lambda o: [],
    ),
    C.Field("lead_ekka", C.Bool(), default=False),
    C.Field(
        "tricks",
        C.ListOf(TRICK),
        lambda st: [{"leader": t[0], "cards": t[1], "winner": t[2], "ekka": t[3]} for t in st.tricks],
        default=lambda o: [],
    ),
    # earlier cards a layout placed without tricks, {card: seat or null}
    C.Field("played_by", PlayedBy(), lambda st: st.extra_played, default=lambda o: []),
    C.Field("tricks_won", Whole(C.PerSide(C.Int(0, 8))), default=lambda o: [0, 0]),
    C.Field("card_points", Whole(C.PerSide(C.Int(0, 162))), default=lambda o: [0, 0]),
    C.Field("projects", PROJECTS, _PROJECTS_OF, default=lambda o: {}, view_get=_seen_projects),
    C.Field("baloot", Whole(C.ListOf(SEAT, None)), default=lambda o: []),
    C.Field("kawesh", C.Nullable(C.Obj(seat=SEAT, cards=Whole(MASK))), default=None),
    C.Field("match_winner", C.Nullable(C.Side(), -1), default=-1),
    C.Field("last_deal", C.Nullable(Award()), lambda st: st.result, default=None),
    C.view_seat(),
    C.Field("engine_dealt", C.Bool(), in_state=False, view_get=lambda st, seat: st.rng_state is not None),
]


# --------------------------------------------------------------------------- building a state

_COPIED = (
    "deal_no phase to_act candidate candidate_taken trick_no leader lead_ekka tricks_won card_points "
    "kawesh match_winner last_deal"
).split()
"""The fields the state keeps as they are read."""
_PARTS = {"contract": CONTRACT, "bidding": BIDDING_PART, "projects": PROJECTS}
"""The objects the state keeps key by key (but ``declarer_team``, which is the bidder's:
``checks.check_contract`` compares it)."""
_SLOT_OF = {
    name: _STATE_NAME.get(name, name)
    for name in (*_COPIED, *(key for part in _PARTS.values() for key in part.fields))
    if name != "declarer_team"
}
"""Where the state keeps each field of ``_COPIED`` and each key of ``_PARTS``."""
_FIELD_NAMES = frozenset(f.name for f in FIELDS)
_PART_PATHS = {name: {key: f"{name}.{key}" for key in part.fields} for name, part in _PARTS.items()}
_CONTRACT_NEEDS = {
    True: ("kind", "bidder"),  # a layout
    False: ("kind", "bidder", "taker", "declarer_team", "multiplier", "locked", "gahwa", "last_raiser_team"),
}
_TRICK_NEEDS = {True: ("leader", "cards", "winner"), False: ("leader", "cards", "winner", "ekka")}


def build(values: dict[str, Any], opts: Opts, mode: str) -> State:
    """A state holding the decoded ``values`` (what they leave out is
    ``layout.fill_left_out``'s, which the codec calls next)."""
    layout = mode == C.LAYOUT
    st = blank(opts, values["dealer"], values["scores"], values["rng_state"])
    entries, start = values["history"], values["deal_history_start"]
    # earlier deals folded in: their effects are in the scores
    set_history(st, C.current_entries(entries, start, "deal_history_start"), 0)
    for name in _COPIED:
        if name in values:
            setattr(st, _SLOT_OF[name], values[name])
    if values["contract"] is not None:
        _require(values["contract"], "contract", _CONTRACT_NEEDS[layout])
    for part in _PARTS:
        for key, value in (values[part] or {}).items():
            slot = _SLOT_OF.get(key)
            if slot == "decided" and value is None:
                # null only in another seat's view (R20); checked before it reaches the
                # state, whose compiled class takes only a bool there (a TypeError, not a 422)
                raise C.refuse("projects.declare_done", "must be true or false")
            if slot is not None:
                setattr(st, slot, value)
    st.hands = list(values["hands"])
    st.stock = tuple(values.get("stock", ()))
    _copy_plays(st, values, layout)
    _copy_doubling_step(st, values, layout)
    st.shown = [None if g is None else tuple(g) for g in st.shown]
    st.baloot = tuple(values["baloot"])
    return st


def _require(part: Mapping[str, Any], path: str, keys: tuple[str, ...]) -> None:
    for key in keys:
        if key not in part:
            raise InvalidState(f"missing field {path}.{key}", field=f"{path}.{key}")


def _copy_plays(st: State, values: dict[str, Any], layout: bool) -> None:
    """``table`` (a layout may give bare codes), ``tricks`` and ``played_by`` (a layout may
    list a trick's cards there too)."""
    for i, (seat, p) in enumerate(values["table"]):
        if seat is None and not layout:
            raise C.refuse(f"table[{i}]", "must be an object {seat, card}")
        st.table.append(p)
    tricks = []
    for i, trick in enumerate(values["tricks"]):
        _require(trick, f"tricks[{i}]", _TRICK_NEEDS[layout])
        tricks.append((trick["leader"], tuple(trick["cards"]), trick["winner"], trick.get("ekka", False)))
    st.tricks = tuple(tricks)
    in_tricks = {p for trick in tricks for p in trick[1]} if layout else set()
    st.extra_played = tuple(sorted((p, seat) for p, seat in values["played_by"] if p not in in_tricks))


def _copy_doubling_step(st: State, values: dict[str, Any], layout: bool) -> None:
    """``doubling_step``: a step in the doubling phase (a layout may leave it out), else null."""
    step = values.get("doubling_step")
    if st.phase == T.DOUBLING and step is None and (not layout or "doubling_step" in values):
        raise C.refuse("doubling_step", f"must be one of {', '.join(T.STEP_NAMES)}")
    if st.phase != T.DOUBLING and step is not None:
        raise C.refuse("doubling_step", "only in the doubling phase")
    if step is not None:
        st.dstep = step


def _check(st: State, values: dict[str, Any], mode: str) -> None:
    """``checks``: every card in one place (R1), then what the rules imply (a sampler's
    template is checked as its view)."""
    checks.check_cards(st, values, mode == C.LAYOUT)
    if mode != C.TEMPLATE:
        exact = not any(seat < 0 for _, seat in st.extra_played)
        checks.check_loaded(st, values, history_list(st, True), hidden_seats=[], exact=exact)


CODEC = C.Codec(
    game="baloot",
    version=1,
    option_specs=OPTION_SPECS,
    player_counts=(4,),
    check_options=lambda options, players: None,
    rules_of=lambda options, players: compact(options),
    options_of=lambda st: st.opts.as_json,
    players_of=lambda st: 4,
    fields=FIELDS,
    verbs=VERBS,
    build=build,
    fill_left_out=fill_left_out,
    check=_check,
    written=checks.check_written_canonically,
)


# --------------------------------------------------------------------------- documents


def load_layout(layout: Mapping[str, Any], options: JSON, dealer: int, seed: int | None) -> State:
    """A layout (``new_state(layout=...)``): a partial state, ``hands`` also by seat
    number ({"0": [...]}); ``options`` the match's, parsed (``Game.layout_options``)."""
    data = dict(layout)
    hands = data.get("hands")
    if isinstance(hands, Mapping):
        data["hands"] = [hands.get(str(s), hands.get(s, [])) for s in range(4)]
    st = CODEC.load(data, C.LAYOUT, players=4, options=options, given={"dealer": dealer, "rng_state": seed})
    settle_layout(st)  # what the layout leaves to the rules: a Sun past its calls plays
    return st


# --------------------------------------------------------------------------- a new match
# (Game.new_state checks the request, then calls one of these)


def new_from_seed(players: int, options: JSON, dealer: int, seed: int) -> State:
    st = blank(compact(options), dealer, [0, 0], seed)
    rules.engine_deal(st)
    return st


def new_from_deck(deck: Any, players: int, options: JSON, dealer: int, seed: int | None) -> State:
    st = blank(compact(options), dealer, [0, 0], seed)
    rules.deal(st, rules.read_deck(deck, "deck", InvalidSetup))
    return st


def new_from_layout(
    layout: Mapping[str, Any], players: int, options: JSON, dealer: int, seed: int | None
) -> State:
    return load_layout(layout, options, dealer, seed)
