"""Baloot's JSON shape, declared for the shared codec (engine/codec.py): its verbs, its
state fields in document order (what a layout may leave out, what a seat's view shows),
the three kinds only Baloot has (``table``, ``played_by``, ``last_deal``), and ``build``,
which makes a state of the decoded values.

A trick-1 project pass (R20, private) is a history entry with ``"project": true``. A view
keeps only the current deal's history (cards of earlier deals are back in play), drops
other seats' project passes, shows caller decks as counts, and adds ``seat`` and
``engine_dealt``. A layout may leave out most fields, and most keys of ``contract``,
``bidding``, ``projects`` and a trick: they take the values the rules imply
(``checks.natural_*``), and its left-out cards go where
``rules.layout_deals_left_out_cards`` says.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine.checks import MAX_SAFE_INT, MAX_SCORE
from engine.codec import (
    COUNT,
    LAYOUT,
    OMITTED,
    OWN,
    STATE_ONLY,
    TEMPLATE,
    Bool,
    Card,
    CardMask,
    Cards,
    Choice,
    Codec,
    Field,
    FlaggedHistory,
    Int,
    Kind,
    ListOf,
    Nullable,
    Obj,
    Pack,
    Partial,
    PerSeat,
    PerSide,
    RngState,
    Seat,
    Side,
    Verb,
    Verbs,
    Whole,
    refuse,
    view_seat,
)
from engine.games.baloot import checks, rules
from engine.games.baloot.options import OPTION_SPECS, Opts, compact
from engine.games.baloot.state import State, blank, chain_length, history_list, set_history
from engine.games.baloot.tables import (
    BID_ASHKAL,
    BID_HOKM,
    BID_SUN,
    BIDDING,
    CHOOSE,
    CLASS_NAMES,
    CODE,
    DEAL,
    DEAL_OVER,
    DECLARE,
    DOUBLE,
    DOUBLE_LOCKED,
    DOUBLE_OPEN,
    DOUBLING,
    EKKA,
    FOUR,
    FOUR_LOCKED,
    FOUR_OPEN,
    GAHWA,
    HOKM,
    KAWESH,
    MAIN,
    MATCH_OVER,
    NSLOTS,
    PASS,
    PASS_PROJECT,
    PHASE_NAMES,
    PLAY,
    SEQ_ORDER,
    STAGE_NAMES,
    STEP_NAMES,
    SUBKIND_NAMES,
    SUIT_CHARS,
    SUN,
    TRIPLE,
)
from engine.protocol import JSON, Action, InvalidState

PACK = Pack("Baloot", tuple(range(NSLOTS)), CODE)
"""The 32 cards numbered by slot (tables): a mask lists them in the canonical order."""
CARD = Card(PACK)
MASK = CardMask(PACK)

# --------------------------------------------------------------------------- actions

_VERB_OF = {
    PASS: "pass",
    PASS_PROJECT: "pass",
    DECLARE: "declare",
    KAWESH: "kawesh",
    TRIPLE: "triple",
    GAHWA: "gahwa",
    **dict.fromkeys((BID_HOKM, BID_SUN, BID_ASHKAL), "bid"),
    **dict.fromkeys((DOUBLE_OPEN, DOUBLE_LOCKED, DOUBLE), "double"),
    **dict.fromkeys((FOUR_OPEN, FOUR_LOCKED, FOUR), "four"),
}


def verb_of(action: Action) -> str:
    """The JSON ``type`` of an internal action (see tables: plays are slots, an Ekka 32 +
    slot, a caller's deal a tuple)."""
    if type(action) is tuple:
        return "deal"
    if action < 64:  # type: ignore[operator]
        return "play"
    if CHOOSE <= action < CHOOSE + 4:  # type: ignore[operator]
        return "choose_trump"
    return _VERB_OF[action]  # type: ignore[index]


def _raise(plain: int, open_: int, locked: int) -> Verb:
    """R11/R12: a double or four, ``locked`` true/false in Hokm, left out in Sun."""
    verb = "double" if plain == DOUBLE else "four"
    return Verb(
        verb,
        make=lambda lock: plain if lock is None else locked if lock else open_,
        split=lambda action: (None if action == plain else action == locked,),
        optional={"locked": Bool()},
    )


VERBS = Verbs(
    [
        Verb(
            "bid",
            {"bid": Choice(("hokm", "sun", "ashkal"), (BID_HOKM, BID_SUN, BID_ASHKAL))},
            make=lambda bid: bid,
            split=lambda action: (action,),
        ),
        Verb("pass", make=lambda: PASS),
        Verb("kawesh", make=lambda: KAWESH),
        Verb(
            "choose_trump",
            {"suit": Choice(tuple(SUIT_CHARS), tuple(range(CHOOSE, CHOOSE + 4)))},
            make=lambda suit: suit,
            split=lambda action: (action,),
        ),
        _raise(DOUBLE, DOUBLE_OPEN, DOUBLE_LOCKED),
        Verb("triple", make=lambda: TRIPLE),
        _raise(FOUR, FOUR_OPEN, FOUR_LOCKED),
        Verb("gahwa", make=lambda: GAHWA),
        Verb("declare", make=lambda: DECLARE),
        Verb(
            "play",
            {"card": CARD},
            make=lambda card, ekka: EKKA + card if ekka else card,
            split=lambda action: (action & 31, True if action >= EKKA else None),
            optional={"ekka": Bool()},
        ),
        Verb(
            "deal",
            {"deck": Cards(PACK, unique=False)},  # R1 (each card once, all 32): check_action
            make=lambda deck: (DEAL, *deck),
            split=lambda action: (action[1:],),
            hidden={"deck": lambda count: range(NSLOTS)},  # a view's count: a placeholder deck
        ),
    ],
    verb_of,
)


def parse_action(data: Any, phase: int) -> Action:
    """A JSON action (BadAction naming the bad field); in the play phase a pass is the
    trick-1 project pass (R20)."""
    action = VERBS.decode(data, None)
    return PASS_PROJECT if action == PASS and phase == PLAY else action


def action_to_json(action: Action) -> JSON:
    return VERBS.encode(action)


# --------------------------------------------------------------------------- Baloot's own kinds


class PlayedBy(Kind):
    """``played_by``: {card: seat or null}; inside, (slot, seat or -1) pairs in document order."""

    normalises = True

    def decoder(self, hidden: bool = False) -> Callable[[Any, str, Any], Any]:
        card = CARD.decoder()

        def decode(raw: Any, path: str, rules: Any) -> list[tuple[int, int]]:
            if type(raw) is not dict:
                raise refuse(path, "must be an object")
            out = []
            for code, seat in raw.items():
                if seat is not None and (type(seat) is not int or not 0 <= seat <= 3):
                    raise refuse(path, "seats must be 0-3 or null")
                out.append((card(code, path, rules), -1 if seat is None else seat))
            return out

        return decode

    def encoder(self, view: bool = False) -> Callable[[Any], Any]:
        return lambda pairs: {CODE[p]: (s if s >= 0 else None) for p, s in pairs}

    def schema(self, view: bool = False) -> JSON:
        return {"type": "object", "additionalProperties": {"anyOf": [Seat().schema(), {"type": "null"}]}}


class Award(Kind):
    """``last_deal``: the finished deal's award (adds per team, items {side, points, item,
    rule}) and its workings, plain JSON data kept as it is."""

    FIELDS = frozenset(
        "adds items winner gahwa multiplier declarer_team kind card_points projects baloot kaboot "
        "counted game_points totals deal_no annulled kawesh".split()
    )

    def decoder(self, hidden: bool = False) -> Callable[[Any, str, Any], Any]:
        def decode(raw: Any, path: str, rules: Any) -> dict[str, Any]:
            if type(raw) is not dict:
                raise refuse(path, "must be an object or null")
            for key in raw:
                if key not in self.FIELDS:
                    raise refuse(f"{path}.{key}", "unknown field")
            _plain_numbers(raw, path)
            adds, items = raw.get("adds"), raw.get("items")
            if (
                type(adds) is not list
                or len(adds) != 2
                or any(type(x) is not int or not 0 <= x <= 10**6 for x in adds)
            ):
                raise refuse(path, "adds must be two whole numbers")
            if type(items) is not list or len(items) > 20 or not all(_is_item(item) for item in items):
                raise refuse(path, "items must be a list of {side, points, item, rule}")
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
    )


def _plain_numbers(value: Any, path: str, depth: int = 0) -> None:
    """The deal's workings hold whole numbers a JSON double keeps exactly, a few levels deep."""
    if type(value) in (bool, str) or value is None:
        return
    if type(value) is int:
        if not -MAX_SAFE_INT <= value <= MAX_SAFE_INT:
            raise refuse(path, "a number out of range")
    elif depth < 3 and type(value) in (list, dict):
        for x in value.values() if type(value) is dict else value:
            _plain_numbers(x, path, depth + 1)
    else:
        raise refuse(path, "holds something that is not plain JSON data")


# --------------------------------------------------------------------------- state fields


def _seen_history(st: State, seat: int) -> list[tuple[int, Action]]:
    """A view's history: this deal's, without other seats' project passes (R20)."""
    return [(s, a) for s, a in history_list(st, True) if a != PASS_PROJECT or s == seat]


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


def _projects(st: State) -> dict[str, Any]:
    return {
        "declared": st.declared,
        "declare_done": st.decided,
        "revealed": st.revealed,
        "team": st.proj_team,
        "shown": st.shown,
    }


def _seen_projects(st: State, seat: int) -> dict[str, Any]:
    """R20: only the seat to act knows whether it has decided on its project."""
    out = _projects(st)
    if st.to_act != seat:
        out["declare_done"] = None
    return out


SEAT = Seat()
HISTORY = FlaggedHistory(VERBS, "project", {PASS: PASS_PROJECT})  # R20: a private project pass
NO_SEAT = Nullable(SEAT, -1)
PLAY_ENTRY = Obj(seat=SEAT, card=CARD)


class Table(Kind):
    """``table``: the trick so far, [{seat, card}] (a layout may list bare codes); inside,
    (seat, slot) pairs (seat None for a bare code)."""

    normalises = True

    def decoder(self, hidden: bool = False) -> Callable[[Any, str, Any], Any]:
        card, entry = CARD.decoder(), PLAY_ENTRY.decoder()

        def decode(raw: Any, path: str, rules: Any) -> list[tuple[int | None, int]]:
            if type(raw) is not list or len(raw) > 3:
                raise refuse(path, "must be a list of at most 3 plays")
            return [
                (None, card(e, f"{path}[{i}]", rules)) if type(e) is str else entry(e, f"{path}[{i}]", rules)
                for i, e in enumerate(raw)
            ]

        return decode

    def encoder(self, view: bool = False) -> Callable[[Any], Any]:
        return lambda plays: [{"seat": seat, "card": CODE[p]} for seat, p in plays]

    def schema(self, view: bool = False) -> JSON:
        return {"type": "array", "items": PLAY_ENTRY.schema(), "maxItems": 3}


CONTRACT = Partial(
    kind=Choice(("hokm", "sun"), (HOKM, SUN)),
    trump=Nullable(Choice(tuple(SUIT_CHARS)), -1),
    ashkal=Bool(),
    bidder=SEAT,
    taker=SEAT,
    declarer_team=Side(),
    multiplier=Int(1, 4),
    locked=Bool(),
    gahwa=Bool(),
    last_raiser_team=Side(),
)
BIDDING_PART = Partial(round=Int(1, 2), stage=Choice(STAGE_NAMES), hokm_bidder=NO_SEAT)
TRICK = Partial(leader=SEAT, cards=Whole(Cards(PACK, length=4)), winner=SEAT, ekka=Bool())
PROJECTS = Partial(
    declared=Whole(PerSeat(Nullable(Choice(tuple(CLASS_NAMES.values()), tuple(CLASS_NAMES)), 0))),
    declare_done=Nullable(Bool()),
    revealed=Whole(
        PerSeat(
            Nullable(Obj(kind=Choice(SUBKIND_NAMES), top=Choice(tuple(SEQ_ORDER), tuple(range(7, -1, -1)))))
        )
    ),
    team=Nullable(Side(), -1),
    shown=Whole(PerSeat(Nullable(ListOf(MASK)))),
)
FIELDS: list[Field[State]] = [
    Field("dealer", SEAT, default=0),
    Field("phase", Choice(PHASE_NAMES), default=BIDDING),
    Field("to_act", Nullable(SEAT), default=OMITTED),
    Field("scores", Whole(PerSide(Int(0, MAX_SCORE))), default=lambda o: [0, 0]),
    Field("deal_no", Int(1, MAX_SAFE_INT), default=1),
    Field("history", HISTORY, history_list, default=lambda o: [], view_get=_seen_history),
    Field(
        "deal_history_start",  # where the current deal begins in the history
        Int(0, MAX_SAFE_INT),
        lambda st: chain_length(st.hist_base),
        default=0,
        view_get=lambda st, seat: 0,  # a view's history is the current deal's only
    ),
    Field("rng_state", RngState(), default=None, show=STATE_ONLY),
    Field("hands", PerSeat(Whole(MASK)), default=lambda o: [0, 0, 0, 0], show=OWN),
    Field("candidate", Nullable(CARD, -1), default=-1),  # the turned card, kept after it is taken
    Field("candidate_taken", Bool(), lambda st: st.cand_taken, default=OMITTED),
    Field("stock", Whole(Cards(PACK)), default=OMITTED, show=COUNT),  # top first
    Field(
        "bidding",
        BIDDING_PART,
        lambda st: {"round": st.round, "stage": st.stage, "hokm_bidder": st.hokm_bidder},
        default=lambda o: {},
    ),
    Field("contract", Nullable(CONTRACT), _contract, default=None),
    Field(
        "doubling_step",
        Nullable(Choice(STEP_NAMES)),
        lambda st: st.dstep if st.phase == DOUBLING else None,
        default=OMITTED,
    ),
    Field("trick_no", Int(1, 9), default=1),
    Field("leader", NO_SEAT, default=-1),
    Field(
        "table",
        Table(),
        lambda st: [((st.leader + i) & 3, p) for i, p in enumerate(st.table)],
        default=lambda o: [],
    ),
    Field("lead_ekka", Bool(), default=False),
    Field(
        "tricks",
        ListOf(TRICK),
        lambda st: [{"leader": t[0], "cards": t[1], "winner": t[2], "ekka": t[3]} for t in st.tricks],
        default=lambda o: [],
    ),
    # earlier cards a layout placed without tricks, {card: seat or null}
    Field("played_by", PlayedBy(), lambda st: st.extra_played, default=lambda o: []),
    Field("tricks_won", Whole(PerSide(Int(0, 8))), default=lambda o: [0, 0]),
    Field("card_points", Whole(PerSide(Int(0, 162))), default=lambda o: [0, 0]),
    Field("projects", PROJECTS, _projects, default=lambda o: {}, view_get=_seen_projects),
    Field("baloot", Whole(ListOf(SEAT, None)), default=lambda o: []),
    Field("kawesh", Nullable(Obj(seat=SEAT, cards=Whole(MASK))), default=None),
    Field("match_winner", Nullable(Side(), -1), default=-1),
    Field("last_deal", Nullable(Award()), lambda st: st.result, default=None),
    view_seat(),
    Field("engine_dealt", Bool(), in_state=False, view_get=lambda st, seat: st.rng_state is not None),
]


# --------------------------------------------------------------------------- building a state


def _key(part: Mapping[str, Any], key: str, path: str, layout: bool, natural: Any = ...) -> Any:
    """``part[key]``; a layout may leave it out for its ``natural`` value (``...``: never)."""
    if key in part:
        return part[key]
    if layout and natural is not ...:
        return natural
    raise InvalidState(f"missing field {path}.{key}", field=f"{path}.{key}")


def build(values: dict[str, Any], opts: Opts, mode: str) -> State:
    """A state from the decoded ``values`` (a layout's left-out fields at the values the
    rules imply, its left-out cards where ``rules.layout_deals_left_out_cards`` says)."""
    layout = mode == LAYOUT
    st = blank(opts, values["dealer"], values["scores"], values["rng_state"])
    st.deal_no = values["deal_no"]
    st.phase = values["phase"]
    entries, start = values["history"], values["deal_history_start"]
    if start > len(entries):
        raise refuse("deal_history_start", f"must be a whole number from 0 to {len(entries)}")
    set_history(st, entries, start)
    if values["contract"] is not None:
        _build_contract(st, values["contract"], layout)
    bidding = values["bidding"]
    st.round = bidding.get("round", checks.natural_round(st))
    st.stage = bidding.get("stage", MAIN)
    st.hokm_bidder = bidding.get("hokm_bidder", -1)
    placed: list[tuple[int, str]] = []  # every card, where, in document order
    _build_cards(st, values, placed)
    _build_table(st, values, layout, placed)
    _build_tricks(st, values["tricks"], layout, placed)
    _place_the_rest(st, values, layout, placed)
    _build_turn(st, values, layout)
    _build_projects(st, values["projects"])
    st.baloot = tuple(values["baloot"])
    st.kawesh = values["kawesh"]
    st.match_winner = values["match_winner"]
    st.result = values["last_deal"]
    return st


def _build_contract(st: State, contract: Mapping[str, Any], layout: bool) -> None:
    st.kind = _key(contract, "kind", "contract", layout)
    st.trump = contract.get("trump", -1)
    st.ashkal = contract.get("ashkal", False)
    st.bidder = _key(contract, "bidder", "contract", layout)
    st.taker = _key(contract, "taker", "contract", layout, checks.natural_taker(st))
    _key(contract, "declarer_team", "contract", layout, None)  # checks.check_contract compares it
    st.mult = _key(contract, "multiplier", "contract", layout, 1)
    st.locked = _key(contract, "locked", "contract", layout, False)
    st.gahwa = _key(contract, "gahwa", "contract", layout, False)
    st.raiser = _key(contract, "last_raiser_team", "contract", layout, checks.natural_raiser(st))


def _build_cards(st: State, values: dict[str, Any], placed: list[tuple[int, str]]) -> None:
    """``hands``, ``candidate``, ``candidate_taken`` and ``stock``."""
    st.hands = list(values["hands"])
    for s, hand in enumerate(st.hands):
        placed += [(p, f"hands[{s}]") for p in rules.slots_of(hand)]
    st.candidate = values["candidate"]
    st.cand_taken = values.get("candidate_taken", checks.natural_candidate_taken(st))
    if st.candidate >= 0 and not st.cand_taken:
        placed.append((st.candidate, "candidate"))
    if "stock" in values:
        st.stock = tuple(values["stock"])
        placed += [(p, "stock") for p in st.stock]


def _build_table(st: State, values: dict[str, Any], layout: bool, placed: list[tuple[int, str]]) -> None:
    """``trick_no``, ``leader``, ``table`` (a layout may give bare codes) and ``lead_ekka``."""
    st.trick_no = values["trick_no"]
    st.leader = values["leader"]
    for i, (seat, p) in enumerate(values["table"]):
        if seat is None and not layout:
            raise refuse(f"table[{i}]", "must be an object {seat, card}")
        placed.append((p, f"table[{i}]"))
        st.table.append(p)
        st.seat_played[(st.leader + i) & 3] |= 1 << p
    st.lead_ekka = values["lead_ekka"]
    rules.set_trick_so_far(st)


def _build_tricks(
    st: State, tricks: list[Mapping[str, Any]], layout: bool, placed: list[tuple[int, str]]
) -> None:
    out = []
    for i, trick in enumerate(tricks):
        path = f"tricks[{i}]"
        leader = _key(trick, "leader", path, layout)
        cards = _key(trick, "cards", path, layout)
        winner = _key(trick, "winner", path, layout)
        ekka = _key(trick, "ekka", path, layout, False)
        for k, p in enumerate(cards):
            placed.append((p, path))
            st.seat_played[(leader + k) & 3] |= 1 << p
            st.played |= 1 << p
        out.append((leader, tuple(cards), winner, ekka))
    st.tricks = tuple(out)


def _place_the_rest(st: State, values: dict[str, Any], layout: bool, placed: list[tuple[int, str]]) -> None:
    """``played_by``; then every card must be somewhere once (R1), a layout's left-out
    cards in the stock or played (``rules.layout_deals_left_out_cards``)."""
    in_tricks = {p for p, where in placed if where.startswith("tricks")}
    extra: dict[int, int] = {}
    for p, seat in values["played_by"]:
        if layout and p in in_tricks:
            continue
        extra[p] = seat
        placed.append((p, "played_by"))
    checks.check_each_card_once(placed)
    seen = {p for p, _ in placed}
    missing = [p for p in range(NSLOTS) if p not in seen]
    if not layout or not missing:
        checks.check_nothing_missing(missing)
    elif not rules.layout_deals_left_out_cards(st, "stock" in values):
        extra.update(dict.fromkeys(missing, -1))
    elif "stock" in values:
        raise refuse("stock", f"card {CODE[missing[0]]} is nowhere")
    else:
        st.stock = tuple(missing)
    for p, seat in extra.items():
        st.played |= 1 << p
        if seat >= 0:
            st.seat_played[seat] |= 1 << p
    st.extra_played = tuple(sorted(extra.items()))


def _build_turn(st: State, values: dict[str, Any], layout: bool) -> None:
    """``to_act``, ``doubling_step`` (in the doubling phase only), ``tricks_won``, ``card_points``."""
    st.to_act = values["to_act"] if "to_act" in values else checks.natural_to_act(st, history_list(st, True))
    step = values.get("doubling_step")
    if st.phase == DOUBLING:
        if step is None and (not layout or "doubling_step" in values):
            raise refuse("doubling_step", f"must be one of {', '.join(STEP_NAMES)}")
        st.dstep = checks.natural_step(st) if step is None else step
    elif step is not None:
        raise refuse("doubling_step", "only in the doubling phase")
    st.tricks_won = values["tricks_won"]
    st.card_points = values["card_points"]


def _build_projects(st: State, projects: Mapping[str, Any]) -> None:
    """``projects``, and each seat's project set from its cards once play has begun (R19)."""
    if st.phase == PLAY or (st.phase in (DEAL_OVER, MATCH_OVER) and st.kind and st.cand_taken):
        rules.set_project_sets(st)
    st.declared = list(projects.get("declared", st.declared))
    done = projects.get("declare_done", False)
    if done is None:
        raise refuse("projects.declare_done", "must be true or false")
    st.decided = done
    st.revealed = list(projects.get("revealed", st.revealed))
    st.proj_team = projects.get("team", -1)
    st.shown = [None if g is None else tuple(g) for g in projects.get("shown", st.shown)]


def _check(st: State, values: dict[str, Any], mode: str) -> None:
    """``checks``: what the rules imply (a sampler's template is checked as its view)."""
    if mode != TEMPLATE:
        exact = not any(seat < 0 for _, seat in st.extra_played)
        checks.check_loaded(st, values, history_list(st, True), hidden_seats=[], exact=exact)


CODEC = Codec(
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
    check=_check,
)


# --------------------------------------------------------------------------- documents


def to_json(st: State) -> JSON:
    """The full state as JSON (every hidden card included)."""
    return CODEC.dump(st)


def view(st: State, seat: int) -> JSON:
    """What ``seat`` may know (section 7; SPECTATOR: what every seat may know)."""
    return CODEC.view(st, seat)


def _load(doc: Any, mode: str, **given: Any) -> State:
    """``CODEC.load``, a document the glue cannot read refused as malformed."""
    try:
        return CODEC.load(doc, mode, **given)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, RecursionError) as err:
        raise InvalidState(f"malformed state: {type(err).__name__}: {err}", field=None) from None


def load_state(data: Any) -> State:
    """A full state, strict: also written exactly as the engine writes it."""
    st = _load(data, "state")
    checks.check_written_canonically(to_json(st), data)
    return st


def load_layout(layout: Mapping[str, Any], options: Any, dealer: int, seed: int | None) -> State:
    """A layout (``new_state(layout=...)``): a partial state, ``hands`` also by seat
    number ({"0": [...]}); the request's options unless it has its own."""
    data = dict(layout)
    hands = data.get("hands")
    if isinstance(hands, Mapping):
        data["hands"] = [hands.get(str(s), hands.get(s, [])) for s in range(4)]
    if options is not None:
        data.setdefault("options", dict(options))
    return _load(data, LAYOUT, players=4, given={"dealer": dealer, "rng_state": seed})
