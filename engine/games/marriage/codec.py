"""Marriage's JSON shape, declared for the shared codec (engine/codec.py): its verbs, its
state fields in document order (with what a seat's view shows), the glue that builds a
state from the decoded values, and the layout shorthands of the rules file's examples.
What a loaded document must satisfy beyond its shape is :mod:`.checks`'s."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from engine.checks import MAX_SAFE_INT
from engine.codec import (
    COUNT,
    LAYOUT,
    OMITTED,
    STATE,
    STATE_ONLY,
    Bool,
    Card,
    Cards,
    Choice,
    Codec,
    Decode,
    Encode,
    Field,
    Hidden,
    History,
    Int,
    Kind,
    ListOf,
    Nullable,
    Obj,
    OwnOrCount,
    Pack,
    PerSeat,
    RngState,
    Seat,
    Verb,
    Verbs,
    refuse,
    view_seat,
)
from engine.protocol import JSON, SCHEMA_VERSION, SPECTATOR, Action, InvalidSetup, InvalidState

from .checks import check_loaded, check_state, written_as_the_engine_writes
from .options import OPTION_SPECS, Rules
from .rules import expose_done
from .state import (
    GAP,
    MState,
    blank_state,
    entry,
    entry_by,
    entry_card,
    entry_unseen,
    history_entries,
    public_action,
)
from .tables import (
    ACT,
    ALL_CODES,
    CODE_TO_CARD,
    DEAL,
    DRAW,
    DRAW_STOCK,
    DUBLEES,
    EXPOSE_BASE,
    FINISH,
    FINISH_DUBLEES,
    NCODES,
    OVER,
    PASS,
    PHASES,
    PICK,
    PICK_BASE,
    SETS,
    SHOW,
    SHOW_DUBLEES,
    TAKE_DISCARD,
    UNSEEN,
    XX,
    pack_cards,
)

# --------------------------------------------------------------------------- cards

PLAIN = Pack("Marriage", tuple(range(52)), ALL_CODES)
WITH_MEN = Pack("Marriage", tuple(range(NCODES)), ALL_CODES)


class WithMen(Kind):
    """Cards of the pack, the men (``XX``) among them only when the match has them
    (option ``man_cards``): ``kind(pack)`` for either pack."""

    def __init__(self, kind: Any, **args: Any) -> None:
        self.plain, self.men = kind(PLAIN, **args), kind(WITH_MEN, **args)

    def decoder(self, hidden: bool = False) -> Decode:
        plain, men = self.plain.decoder(hidden), self.men.decoder(hidden)
        return lambda raw, path, o: (men if o.man_cards else plain)(raw, path, o)

    def encoder(self, view: bool = False) -> Encode:
        return self.men.encoder(view)  # type: ignore[no-any-return]

    def count(self, value: Any) -> int:
        return len(value)

    def schema(self, view: bool = False) -> JSON:
        return self.men.schema(view)  # type: ignore[no-any-return]


CARD, CARDS, CARD_NO_MAN = WithMen(Card), WithMen(Cards, unique=False), Card(PLAIN)
SET = WithMen(Cards, length=3, unique=False)


class Hand(Kind):
    """A hand: a multiset of cards written in canonical order; inside, a count list
    indexed by card (the engine's hands)."""

    def decoder(self, hidden: bool = False) -> Decode:
        read = CARDS.decoder(hidden)

        def decode(raw: Any, path: str, o: Any) -> list[int]:
            counts = [0] * NCODES
            for c in read(raw, path, o):
                counts[c] += 1
            return counts

        return decode

    def encoder(self, view: bool = False) -> Encode:
        return lambda counts: [ALL_CODES[c] for c in range(NCODES) for _ in range(counts[c])]

    def count(self, value: Any) -> int:
        return sum(value)

    def schema(self, view: bool = False) -> JSON:
        return CARDS.schema(view)


class Entry(Obj):
    """A discard pile entry ``{card, by, by_unseen}``; inside, the packed int of
    :func:`state.entry`. Written once per distinct entry, then copied."""

    def __init__(self) -> None:
        super().__init__(card=CARD, by=Nullable(Seat(), -1), by_unseen=Bool())

    def decoder(self, hidden: bool = False) -> Decode:
        read = super().decoder(hidden)
        return lambda raw, path, o: entry(*read(raw, path, o))

    def encoder(self, view: bool = False) -> Encode:
        write = super().encoder(view)
        memo: dict[int, JSON] = {}

        def encode(e: int) -> JSON:
            known = memo.get(e)
            if known is None:
                known = memo[e] = write((entry_card(e), entry_by(e), entry_unseen(e)))
            return known.copy()

        return encode


class SetOrPair(Kind):
    """A shown item (R12/R13/R15/R16): a set as its three cards, or a dublee as its card;
    inside, a sorted tuple or the card (which a route allows is :mod:`.checks`'s)."""

    def decoder(self, hidden: bool = False) -> Decode:
        read_set, read_pair = SET.decoder(), CARD_NO_MAN.decoder()
        return lambda raw, path, o: (
            tuple(sorted(read_set(raw, path, o))) if type(raw) is list else read_pair(raw, path, o)
        )

    def encoder(self, view: bool = False) -> Encode:
        return lambda item: [ALL_CODES[c] for c in item] if type(item) is tuple else ALL_CODES[item]

    def schema(self, view: bool = False) -> JSON:
        return {"anyOf": [SET.schema(), CARD_NO_MAN.schema()]}


# --------------------------------------------------------------------------- actions


class AtMost(Kind):
    """A list of ``kind`` with at most ``most`` entries: a longer one in a client's action
    is malformed (refused before any rule looks at it)."""

    def __init__(self, kind: Kind, most: int) -> None:
        self.kind, self.most = kind, most

    def decoder(self, hidden: bool = False) -> Decode:
        read, most = self.kind.decoder(hidden), self.most

        def decode(raw: Any, path: str, o: Any) -> Any:
            if type(raw) is list and len(raw) > most:
                raise refuse(path, f"must be a list of at most {most} entries")
            return read(raw, path, o)

        return decode

    def encoder(self, view: bool = False) -> Encode:
        return self.kind.encoder(view)

    def count(self, value: Any) -> int:
        return self.kind.count(value)

    def schema(self, view: bool = False) -> JSON:
        return {**self.kind.schema(view), "maxItems": self.most}


class ClientAction(tuple):  # type: ignore[type-arg]
    """A canonical action tuple that remembers the client's own set order, so reason
    texts quote a set as sent (§9). Equal to, and hashed as, the plain tuple."""

    raw: Any = None


def _with_sets(kind: str, sets: list[list[int]], *rest: int) -> tuple[Any, ...]:
    out = ClientAction((kind, tuple(sorted(tuple(sorted(s)) for s in sets)), *rest))
    out.raw = sets
    return out


def verb_of(action: Action) -> str:
    """The JSON ``type`` of an internal action (R23 canonical forms)."""
    if type(action) is not int:
        return action[0]  # type: ignore[index, no-any-return]
    if action < NCODES:
        return "discard"
    if action >= PICK_BASE:
        return "pick_tiplu"
    if action >= EXPOSE_BASE:
        return "expose_tunnela"
    return {DRAW_STOCK: "draw_stock", TAKE_DISCARD: "take_discard", PASS: "pass"}[action]


SETS_SHOWN = AtMost(ListOf(SET), 8)


def _deck(deck: Any) -> tuple[Any, ...]:
    return (DEAL, deck if type(deck) is int else tuple(deck))


VERBS = Verbs(
    [
        Verb("discard", {"card": CARD}, make=int, split=lambda a: (a,)),
        Verb("draw_stock", make=lambda: DRAW_STOCK),
        Verb("take_discard", make=lambda: TAKE_DISCARD),
        Verb("pass", make=lambda: PASS),
        Verb("expose_tunnela", {"card": CARD}, lambda c: EXPOSE_BASE + c, lambda a: (a - EXPOSE_BASE,)),
        Verb("pick_tiplu", {"index": Int(0, 999)}, lambda i: PICK_BASE + i, lambda a: (a - PICK_BASE,)),
        Verb("show", {"sets": SETS_SHOWN}, lambda sets: _with_sets(SHOW, sets), lambda a: (a[1],)),
        Verb(
            "show_dublees",
            {"pairs": AtMost(CARDS, 8)},
            lambda p: (SHOW_DUBLEES, tuple(sorted(p))),
            lambda a: (a[1],),
        ),
        Verb(
            "finish",
            {"sets": SETS_SHOWN, "discard": CARD},
            lambda sets, d: _with_sets(FINISH, sets, d),
            lambda a: (a[1], a[2]),
        ),
        Verb(
            "finish_dublees",
            {"pair": CARD, "discard": CARD},
            lambda p, d: (FINISH_DUBLEES, p, d),
            lambda a: a[1:],
        ),
        Verb("deal", {"deck": AtMost(CARDS, 200)}, _deck, lambda a: (a[1],), hidden={"deck": int}),
    ],
    verb_of,
    memo_key=lambda o: o.man_cards,  # a card XX reads only in a match with men
)

# --------------------------------------------------------------------------- state fields


def _tiplu_shown(st: MState, viewer: int) -> int:
    """§7: the tiplu as a seat's view shows it: to a seen seat, and to all at the deal's end."""
    if st.phase == OVER or viewer != SPECTATOR and st.route[viewer] != UNSEEN:
        return st.tiplu
    return -1


VIEW = "view"
"""The mode :func:`load_view` builds in: a view's known part (the shared modes are STATE,
LAYOUT and TEMPLATE)."""
SCORE = Int(-MAX_SAFE_INT, MAX_SAFE_INT)
OPTIONAL_SCORES = Nullable(PerSeat(SCORE))
ROUTE = Nullable(Choice(("sets", "dublees"), (SETS, DUBLEES)), UNSEEN)


class Turn(Obj):
    """The turn in progress. A layout (or a client's view) may leave out ``expose_done``,
    which follows from the seat to act (read as None; a full state must give it)."""

    def decoder(self, hidden: bool = False) -> Decode:
        read = super().decoder(hidden)

        def decode(raw: Any, path: str, o: Any) -> Any:
            if type(raw) is dict and "expose_done" not in raw:
                raw = {**raw, "expose_done": None}
            return read(raw, path, o)

        return decode


TURN = Turn(
    drew=Nullable(Choice(("stock", "discard"), (1, 2)), 0),
    took=Nullable(CARD, -1),
    took_while_seen=Bool(),
    expose_done=Nullable(PerSeat(Bool())),
)


def _per_seat(o: Rules) -> list[list[Any]]:
    return [[] for _ in range(o.players)]


FIELDS: list[Field[MState]] = [
    Field("dealer", Seat(), default=0),
    Field("phase", Choice(PHASES), default=DRAW),
    Field("to_act", Nullable(Seat()), lambda s: s.cur, default=OMITTED),
    Field("scores", PerSeat(SCORE), lambda s: s.totals, default=lambda o: [0] * o.players),
    Field("deal_no", Int(1, lambda o: o.deals or 10**9), default=1),
    Field(
        "history",
        History(VERBS),
        lambda s: history_entries(s, False),
        default=lambda o: [],
        view_get=lambda s, viewer: history_entries(s, True),
    ),
    Field("deal_start", Int(0, MAX_SAFE_INT), default=0),
    Field("rng_state", RngState(), default=None, show=STATE_ONLY),
    Field("caller_dealt", Bool(), lambda s: s.caller, default=OMITTED),
    Field("hands", PerSeat(Hand()), show=OwnOrCount(lambda s, viewer, seat: s.phase == OVER)),
    Field("tunnelas", PerSeat(Cards(PLAIN, unique=False)), default=_per_seat),
    Field("shown", PerSeat(ListOf(SetOrPair())), default=_per_seat),
    Field("route", PerSeat(ROUTE), default=OMITTED),
    Field("seen", PerSeat(Bool()), lambda s: [r != UNSEEN for r in s.route], default=OMITTED),
    Field("stock", CARDS, lambda s: s.stock[::-1], show=COUNT),
    Field("tiplu", Nullable(CARD_NO_MAN, -1), default=-1, view_get=_tiplu_shown),
    Field("tiplu_chosen", Bool(), lambda s: s.tiplu != -1, default=OMITTED),
    Field("men_revealed", Int(0, lambda o: o.man_cards), lambda s: s.men_rev, default=0),
    Field("discard", ListOf(Entry())),
    Field("turn", TURN, lambda s: (s.drew, s.took, s.tws, expose_done(s)), default=OMITTED),
    Field("turns_completed", Int(0, lambda o: o.turn_limit), lambda s: s.turns, default=0),
    Field("winner", Nullable(Seat(), -1), default=-1),
    Field("finish_kind", ROUTE, lambda s: s.fkind, default=UNSEEN),
    Field("maal", OPTIONAL_SCORES, default=None),
    Field("deal_delta", OPTIONAL_SCORES, lambda s: s.delta, default=None),
    Field("result_deal", Nullable(Int(1, MAX_SAFE_INT), 0), default=0),
    Field("recycled", CARDS, default=lambda o: []),
    Field("taken", PerSeat(CARDS), default=_per_seat),
    view_seat(),
]


def _work_out_layout(values: dict[str, Any], o: Rules) -> None:
    """What a layout leaves out that follows from the rest (put back into ``values`` for
    the checks): the seat to act, the routes and ``seen``, the turn, the generator."""
    values.setdefault("to_act", (values["dealer"] + 1) % o.players)
    values.setdefault("caller_dealt", values["rng_state"] is None)
    if "route" not in values:  # from what each seat has shown: sets are lists, pairs codes
        seen = values.get("seen") or [False] * o.players
        values["route"] = [
            (SETS if type(items[0]) is tuple else DUBLEES) if items else SETS if seen[s] else UNSEEN
            for s, items in enumerate(values["shown"])
        ]
    values.setdefault("seen", [r != UNSEEN for r in values["route"]])
    values.setdefault("tiplu_chosen", values["tiplu"] >= 0)
    values.setdefault("turn", (1 if values["phase"] in (ACT, PICK) else 0, -1, False, None))


def build(values: dict[str, Any], o: Rules, mode: str) -> MState:
    """A state (or, for :func:`load_view`, a view's known part) from the decoded values: a
    view's hidden hands are empty and its stock is left for the sampler."""
    if mode == LAYOUT:
        _work_out_layout(values, o)
    st = blank_state(o)
    st.dealer, st.phase, st.cur = values["dealer"], values["phase"], values["to_act"]
    st.over = st.cur is None
    st.totals, st.deal_no, st.caller = values["scores"], values["deal_no"], values["caller_dealt"]
    st.rng_state = values.get("rng_state")
    st.tunnelas, st.route = values["tunnelas"], values["route"]
    st.shown = [list(items) for items in values["shown"]]
    st.men_rev = values["men_revealed"]
    st.tiplu = values["tiplu"]
    if st.tiplu < 0 and values["tiplu_chosen"]:
        st.tiplu = -2  # chosen but hidden from the viewer
    st.discard = values["discard"]
    st.drew, st.took, st.tws, _ = values["turn"]
    st.turns, st.winner, st.fkind = values["turns_completed"], values["winner"], values["finish_kind"]
    st.maal, st.delta, st.result_deal = values["maal"], values["deal_delta"], values["result_deal"]
    st.recycled = tuple(sorted(values["recycled"]))
    st.taken = [tuple(sorted(t)) for t in values["taken"]]
    st.hands = [[0] * NCODES if isinstance(h, Hidden) else h for h in values["hands"]]
    stock = values["stock"]
    st.stock = [] if type(stock) is int else stock[::-1]
    _build_history(st, values["history"], values["deal_start"], mode == VIEW)
    return st


def _build_history(st: MState, entries: list[tuple[int, Action]], start: int, view: bool) -> None:
    """The history as a cons list, its length and this deal's public key. A view holds only
    this deal's entries, after ``start`` earlier ones (kept as a gap)."""
    if not view and start > len(entries):
        raise refuse("deal_start", f"must be a whole number from 0 to {len(entries)}")
    hist: Any = (GAP, start) if view and start else None
    first = 0 if view else start
    hkey = 0
    for i, (seat, action) in enumerate(entries):
        hist = (hist, seat, action)
        if i >= first:
            hkey = hash((hkey, seat, public_action(action)))
    st.hist, st.hkey, st.hlen, st.deal_start = hist, hkey, len(entries) + (start if view else 0), start


CODEC: Codec[MState] = Codec(
    game="marriage",
    version=SCHEMA_VERSION,
    option_specs=OPTION_SPECS,
    player_counts=(2, 3, 4, 5),
    check_options=lambda options, players: None,
    rules_of=Rules.of,
    options_of=lambda s: dict(s.opts.raw),
    players_of=lambda s: s.n,
    fields=FIELDS,
    verbs=VERBS,
    build=build,
    check=check_state,
)

# --------------------------------------------------------------------------- documents


def load(data: Any, *, canonical: bool) -> MState:
    """A full state; with ``canonical`` (a client's state) written exactly as the engine
    writes it, so that nothing in it is silently reordered or dropped."""
    st = CODEC.load(data, STATE)
    if canonical:
        written_as_the_engine_writes(CODEC.dump(st), data)
    return st


def load_view(data: Any) -> tuple[MState, int, dict[str, Any]]:
    """A seat's view read and checked: its known part as a state, the seat, and the hidden
    sizes (``hand_sizes``, ``stock_size``) the sampler fills."""
    o, seat, values = CODEC.read_view(data)
    if seat is None:
        raise refuse("seat", "must be a seat of the view's table")
    st = build(values, o, VIEW)
    hidden = {
        "hand_sizes": [h.count if isinstance(h, Hidden) else sum(h) for h in values["hands"]],
        "stock_size": values["stock"],
    }
    check_loaded(st, values, seat, hidden, values["history"], 0)
    return st, seat, hidden


def deck_from_json(deck: Any, man_cards: int) -> list[int]:
    """A caller's deck (top first) as cards: a list of the pack's codes (R2's count of
    each card is :func:`rules.check_deck`'s)."""
    if not isinstance(deck, list):
        raise InvalidSetup("deck must be a list of card codes", field="deck")
    cards = []
    for i, code in enumerate(deck):
        card = CODE_TO_CARD.get(code) if isinstance(code, str) else None
        if card is None or (card == XX and not man_cards):
            raise InvalidSetup(f"deck[{i}]: no such card in the Marriage pack: {code!r}", field="deck")
        cards.append(card)
    return cards


# --------------------------------------------------------------------------- layouts

_ENTRY = re.compile(r"^\s*(\w\w)\s*(?:\(\s*(null|\d)\s*,\s*(yes|no)\s*\))?\s*$")


def load_layout(
    layout: Any, players: int, options: JSON, dealer: int, seed: int | None, read_options: Any
) -> MState:
    """A state from a partial one (§10 conventions): a layout in the state's own shape.

    Omitted fields take their declared defaults (phase ``draw``, nobody seen, no tiplu,
    scores 0) or follow from the others in :func:`build` (``to_act`` the dealer's left,
    ``route`` from ``shown``: sets are lists, pairs are codes; or ``seen``). Shorthands the
    rules file uses: ``current`` stands for ``to_act``; the layout's ``options`` replace the
    request's; a card list may be one space-separated string; a discard entry may be
    ``"8D(1,no)"`` or a bare code; the chosen ``tiplu`` goes to the bottom of the stock
    unless the listed stock already ends with it. Every card copy not placed goes, in
    canonical order, where the ``"fill"`` marker stands in ``stock`` or ``discard``
    (default: the stock, after the listed cards and before the tiplu; with no discard
    given, the first fill card is the upcard). ``seed`` is the generator state as is."""
    if not isinstance(layout, Mapping):
        raise InvalidState("layout must be an object", field="layout")
    if seed is not None and not 0 <= seed < 2**63:
        raise InvalidSetup("seed must be from 0 to 2**63 - 1 with a layout", field="seed")
    for key in layout:
        if key not in CODEC.known and key != "current":
            raise refuse(str(key), "unknown layout field")
    doc = dict(layout)
    doc["options"] = read_options(layout["options"], players) if "options" in layout else options
    if "current" in doc:
        current = doc.pop("current")
        doc.setdefault("to_act", current)
    _place_cards(doc, players, doc["options"]["man_cards"])
    return CODEC.load(doc, LAYOUT, players=players, given={"dealer": dealer, "rng_state": seed})


def _list(value: Any, field: str, size: int | None = None) -> list[Any]:
    if type(value) is not list or size is not None and len(value) != size:
        raise refuse(field, "must be a list" if size is None else f"must be a list of {size} entries")
    return value


def _layout_cards(value: Any, field: str) -> list[Any]:
    """A card list in a layout: a list of codes or one space-separated string."""
    return value.split() if isinstance(value, str) else list(_list(value, field))


def _entry_shorthand(text: str, field: str) -> JSON:
    """A discard entry written as in §10: ``"8D(1,no)"``, ``"9C(null, no)"`` or ``"9C"``."""
    m = _ENTRY.match(text)
    if m is None:
        raise refuse(field, "write an entry as CARD or CARD(seat|null, yes|no)")
    by = None if m.group(2) in (None, "null") else int(m.group(2))
    return {"card": m.group(1), "by": by, "by_unseen": m.group(3) == "yes"}


def _place_cards(doc: JSON, n: int, men: int) -> None:
    """The layout's card shorthands written out in ``doc``, and the cards it leaves out
    placed where ``"fill"`` stands (see :func:`load_layout`)."""
    placed = [0] * NCODES

    def take(code: Any, field: str) -> None:
        card = CODE_TO_CARD.get(code) if isinstance(code, str) else None
        if card is None or card == XX and not men:
            raise refuse(field, f"no such card in the Marriage pack: {code}")
        placed[card] += 1

    hands = doc["hands"] = [
        _layout_cards(h, f"hands[{s}]") for s, h in enumerate(_list(doc.get("hands"), "hands", n))
    ]
    for s, hand in enumerate(hands):
        for i, c in enumerate(hand):
            take(c, f"hands[{s}][{i}]")
    for s, tunnelas in enumerate(_list(doc.get("tunnelas", [[]] * n), "tunnelas", n)):
        for i, c in enumerate(_list(tunnelas, f"tunnelas[{s}]")):
            for _ in range(3):
                take(c, f"tunnelas[{s}][{i}]")
    for s, shown in enumerate(_list(doc.get("shown", [[]] * n), "shown", n)):
        for i, x in enumerate(_list(shown, f"shown[{s}]")):
            for c in x if isinstance(x, list) else [x, x]:
                take(c, f"shown[{s}][{i}]")
    tiplu = doc.get("tiplu")
    stock = doc["stock"] = _layout_cards(doc.get("stock", []), "stock")
    if tiplu is not None and (not stock or stock[-1] != tiplu):
        stock.append(tiplu)
    discard = doc["discard"] = [
        _entry_shorthand(e, f"discard[{i}]") if isinstance(e, str) and e != "fill" else e
        for i, e in enumerate(_list(doc.get("discard", []), "discard"))
    ]
    for i, e in enumerate(discard):
        if isinstance(e, Mapping):
            take(e.get("card"), f"discard[{i}].card")
    for i, c in enumerate(stock):
        if c != "fill":
            take(c, f"stock[{i}]")
    fill: list[str] = []
    for c in pack_cards(men):
        if placed[c]:
            placed[c] -= 1
        else:
            fill.append(ALL_CODES[c])
    if any(placed):
        c = next(c for c, k in enumerate(placed) if k)
        raise refuse("layout", f"too many copies of {ALL_CODES[c]}")
    if "fill" in discard:
        i = discard.index("fill")
        discard[i : i + 1] = [{"card": c, "by": None, "by_unseen": False} for c in fill]
    elif "fill" in stock:
        i = stock.index("fill")
        stock[i : i + 1] = fill
    else:
        if not discard and fill:
            discard.append({"card": fill.pop(0), "by": None, "by_unseen": False})
        at = len(stock) - (1 if tiplu is not None else 0)
        stock[at:at] = fill
