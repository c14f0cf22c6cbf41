"""Marriage's JSON shape, declared for the shared codec (engine/codec.py): its verbs, its
state fields in document order (with what a seat's view shows), the glue that builds a
state from the decoded values, and the layout shorthands of the rules file's examples.
What a loaded document must satisfy beyond its shape is :mod:`.checks`'s; where a layout's
left-out cards go (§10's fill rule) and what follows from the rest is :mod:`.layout`'s."""

from __future__ import annotations

import re
from collections.abc import Mapping
from operator import attrgetter
from typing import Any

from engine import codec as C
from engine.checks import MAX_SAFE_INT
from engine.protocol import JSON, SCHEMA_VERSION, SPECTATOR, Action, InvalidSetup

from . import tables as T
from .checks import check_loaded, check_state, written_as_the_engine_writes
from .codec_kinds import AtMost, CardCounts, Widened
from .layout import FILL, cards_left_out, fill_left_out, place_left_out, tiplu_at_bottom
from .options import OPTION_SPECS, Rules
from .rules import expose_done, new_match
from .state import (
    MState,
    blank_state,
    entry,
    entry_by,
    entry_card,
    entry_unseen,
    history_entries,
    set_history,
)

# --------------------------------------------------------------------------- cards

PLAIN = C.Pack("Marriage", tuple(range(52)), T.ALL_CODES)
WITH_MEN = C.Pack("Marriage", tuple(range(T.NCODES)), T.ALL_CODES)


def men_if_played(kind: Any, **args: Any) -> Widened:
    """``kind`` of the pack, the men (``XX``) among it only when the match has them
    (option ``man_cards``)."""
    return Widened(kind(PLAIN, **args), kind(WITH_MEN, **args), attrgetter("man_cards"))


CARD, CARDS, CARD_NO_MAN = men_if_played(C.Card), men_if_played(C.Cards, unique=False), C.Card(PLAIN)
SET = men_if_played(C.Cards, length=3, unique=False)
HAND = CardCounts(CARDS, T.NCODES)  # inside, a count per card: the engine's hands


class Entry(C.Obj):
    """A discard pile entry ``{card, by, by_unseen}``; inside, the packed int of
    :func:`state.entry`. Written once per distinct entry, then copied."""

    def __init__(self) -> None:
        super().__init__(card=CARD, by=C.Nullable(C.Seat(), -1), by_unseen=C.Bool())

    def decoder(self, hidden: bool = False) -> C.Decode:
        read = super().decoder(hidden)
        return lambda raw, path, o: entry(*read(raw, path, o))

    def encoder(self, view: bool = False) -> C.Encode:
        write = super().encoder(view)
        memo: dict[int, JSON] = {}

        def encode(e: int) -> JSON:
            known = memo.get(e)
            if known is None:
                known = memo[e] = write((entry_card(e), entry_by(e), entry_unseen(e)))
            return known.copy()

        return encode


class SetOrPair(C.Kind):
    """A shown item (R12/R13/R15/R16): a set as its three cards, or a dublee as its card;
    inside, a sorted tuple or the card (which a route allows is :mod:`.checks`'s)."""

    def decoder(self, hidden: bool = False) -> C.Decode:
        read_set, read_pair = SET.decoder(), CARD_NO_MAN.decoder()
        return lambda raw, path, o: (
            tuple(sorted(read_set(raw, path, o))) if type(raw) is list else read_pair(raw, path, o)
        )

    def encoder(self, view: bool = False) -> C.Encode:
        return lambda item: [T.ALL_CODES[c] for c in item] if type(item) is tuple else T.ALL_CODES[item]

    def schema(self, view: bool = False) -> JSON:
        return {"anyOf": [SET.schema(), CARD_NO_MAN.schema()]}


# --------------------------------------------------------------------------- actions


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
    if action < T.NCODES:
        return "discard"
    if action >= T.PICK_BASE:
        return "pick_tiplu"
    if action >= T.EXPOSE_BASE:
        return "expose_tunnela"
    return {T.DRAW_STOCK: "draw_stock", T.TAKE_DISCARD: "take_discard", T.PASS: "pass"}[action]


SETS_SHOWN = AtMost(C.ListOf(SET), 8)


def _deck(deck: Any) -> tuple[Any, ...]:
    return (T.DEAL, deck if type(deck) is int else tuple(deck))


VERBS = C.Verbs(
    [
        C.Verb("discard", {"card": CARD}, make=int, split=lambda a: (a,)),
        C.Verb("draw_stock", make=lambda: T.DRAW_STOCK),
        C.Verb("take_discard", make=lambda: T.TAKE_DISCARD),
        C.Verb("pass", make=lambda: T.PASS),
        C.Verb("expose_tunnela", {"card": CARD}, lambda c: T.EXPOSE_BASE + c, lambda a: (a - T.EXPOSE_BASE,)),
        C.Verb(
            "pick_tiplu", {"index": C.Int(0, 999)}, lambda i: T.PICK_BASE + i, lambda a: (a - T.PICK_BASE,)
        ),
        C.Verb("show", {"sets": SETS_SHOWN}, lambda sets: _with_sets(T.SHOW, sets), lambda a: (a[1],)),
        C.Verb(
            "show_dublees",
            {"pairs": AtMost(CARDS, 8)},
            lambda p: (T.SHOW_DUBLEES, tuple(sorted(p))),
            lambda a: (a[1],),
        ),
        C.Verb(
            "finish",
            {"sets": SETS_SHOWN, "discard": CARD},
            lambda sets, d: _with_sets(T.FINISH, sets, d),
            lambda a: (a[1], a[2]),
        ),
        C.Verb(
            "finish_dublees",
            {"pair": CARD, "discard": CARD},
            lambda p, d: (T.FINISH_DUBLEES, p, d),
            lambda a: a[1:],
        ),
        C.Verb("deal", {"deck": AtMost(CARDS, 200)}, _deck, lambda a: (a[1],), hidden={"deck": int}),
    ],
    verb_of,
    memo_key=lambda o: o.man_cards,  # a card XX reads only in a match with men
)

# --------------------------------------------------------------------------- state fields


def _tiplu_shown(st: MState, viewer: int) -> int:
    """§7: the tiplu as a seat's view shows it: to a seen seat, and to all at the deal's end."""
    if st.phase == T.OVER or viewer != SPECTATOR and st.route[viewer] != T.UNSEEN:
        return st.tiplu
    return -1


VIEW = "view"
"""The mode :func:`load_view` builds in: a view's known part (the shared modes are STATE,
LAYOUT and TEMPLATE)."""
SCORE = C.Int(-MAX_SAFE_INT, MAX_SAFE_INT)
OPTIONAL_SCORES = C.Nullable(C.PerSeat(SCORE))
ROUTE = C.Nullable(C.Choice(("sets", "dublees"), (T.SETS, T.DUBLEES)), T.UNSEEN)


class Turn(C.Obj):
    """The turn in progress. A layout (or a client's view) may leave out ``expose_done``,
    which follows from the seat to act (read as None; a full state must give it)."""

    def decoder(self, hidden: bool = False) -> C.Decode:
        read = super().decoder(hidden)

        def decode(raw: Any, path: str, o: Any) -> Any:
            if type(raw) is dict and "expose_done" not in raw:
                raw = {**raw, "expose_done": None}
            return read(raw, path, o)

        return decode


TURN = Turn(
    drew=C.Nullable(C.Choice(("stock", "discard"), (1, 2)), 0),
    took=C.Nullable(CARD, -1),
    took_while_seen=C.Bool(),
    expose_done=C.Nullable(C.PerSeat(C.Bool())),
)


def _per_seat(o: Rules) -> list[list[Any]]:
    return [[] for _ in range(o.players)]


FIELDS: list[C.Field[MState]] = [
    C.Field("dealer", C.Seat(), default=0),
    C.Field("phase", C.Choice(T.PHASES), default=T.DRAW),
    C.Field("to_act", C.Nullable(C.Seat()), lambda s: s.cur, default=C.OMITTED),
    C.Field("scores", C.PerSeat(SCORE), lambda s: s.totals, default=lambda o: [0] * o.players),
    C.Field("deal_no", C.Int(1, lambda o: o.deals or 10**9), default=1),
    C.Field(
        "history",
        C.History(VERBS),
        lambda s: history_entries(s, True),  # this deal's, in a state as in a view
        default=lambda o: [],
    ),
    # a state holds the current deal's history (docs/api.md, "State size"), so a written
    # deal_start is 0; an old state's earlier entries (before it) are dropped on loading
    C.history_start("deal_start"),
    C.Field("rng_state", C.RngState(), default=None, show=C.STATE_ONLY),
    C.Field("caller_dealt", C.Bool(), lambda s: s.caller, default=C.OMITTED),
    C.Field("hands", C.PerSeat(HAND), show=C.OwnOrCount(lambda s, viewer, seat: s.phase == T.OVER)),
    C.Field("tunnelas", C.PerSeat(C.Cards(PLAIN, unique=False)), default=_per_seat),
    C.Field("shown", C.PerSeat(C.ListOf(SetOrPair())), default=_per_seat),
    C.Field("route", C.PerSeat(ROUTE), default=C.OMITTED),
    C.Field("seen", C.PerSeat(C.Bool()), lambda s: [r != T.UNSEEN for r in s.route], default=C.OMITTED),
    C.Field("stock", CARDS, lambda s: s.stock[::-1], show=C.COUNT),
    C.Field("tiplu", C.Nullable(CARD_NO_MAN, -1), default=-1, view_get=_tiplu_shown),
    C.Field("tiplu_chosen", C.Bool(), lambda s: s.tiplu != -1, default=C.OMITTED),
    C.Field("men_revealed", C.Int(0, lambda o: o.man_cards), lambda s: s.men_rev, default=0),
    C.Field("discard", C.ListOf(Entry())),
    C.Field("turn", TURN, lambda s: (s.drew, s.took, s.tws, expose_done(s)), default=C.OMITTED),
    C.Field("turns_completed", C.Int(0, lambda o: o.turn_limit), lambda s: s.turns, default=0),
    C.Field("winner", C.Nullable(C.Seat(), -1), default=-1),
    C.Field("finish_kind", ROUTE, lambda s: s.fkind, default=T.UNSEEN),
    C.Field("maal", OPTIONAL_SCORES, default=None),
    C.Field("deal_delta", OPTIONAL_SCORES, lambda s: s.delta, default=None),
    C.Field("result_deal", C.Nullable(C.Int(1, MAX_SAFE_INT), 0), default=0),
    C.Field("recycled", CARDS, default=lambda o: []),
    C.Field("taken", C.PerSeat(CARDS), default=_per_seat),
    C.view_seat(),
]


def build(values: dict[str, Any], o: Rules, mode: str) -> MState:
    """A state (or, for :func:`load_view`, a view's known part) from the decoded values: a
    view's hidden hands are empty and its stock is left for the sampler. A layout may leave
    out ``to_act``, ``caller_dealt``, ``route``, ``seen``, ``tiplu_chosen`` and ``turn``:
    ``layout.fill_left_out`` works them out next (read here as placeholders)."""
    st = blank_state(o)
    st.dealer, st.phase, st.cur = values["dealer"], values["phase"], values.get("to_act")
    st.over = st.cur is None
    st.totals, st.deal_no, st.caller = values["scores"], values["deal_no"], values.get("caller_dealt", False)
    st.rng_state = values.get("rng_state")
    st.tunnelas, st.route = values["tunnelas"], values.get("route", [])
    st.shown = [list(items) for items in values["shown"]]
    st.men_rev = values["men_revealed"]
    st.tiplu = values["tiplu"]
    if st.tiplu < 0 and values.get("tiplu_chosen", False):
        st.tiplu = -2  # chosen but hidden from the viewer
    st.discard = values["discard"]
    st.drew, st.took, st.tws, _ = values.get("turn", (0, -1, False, None))
    st.turns, st.winner, st.fkind = values["turns_completed"], values["winner"], values["finish_kind"]
    st.maal, st.delta, st.result_deal = values["maal"], values["deal_delta"], values["result_deal"]
    st.recycled = tuple(sorted(values["recycled"]))
    st.taken = [tuple(sorted(t)) for t in values["taken"]]
    st.hands = [[0] * T.NCODES if isinstance(h, C.Hidden) else h for h in values["hands"]]
    stock = values["stock"]
    st.stock = [] if type(stock) is int else stock[::-1]
    entries, start = values["history"], values["deal_start"]
    if mode == VIEW:
        set_history(st, entries, start, True)  # an old view's earlier entries: a gap
    else:  # earlier deals folded in (checks read them)
        set_history(st, C.current_entries(entries, start, "deal_start"), 0, False)
    return st


CODEC: C.Codec[MState] = C.Codec(
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
    fill_left_out=fill_left_out,
    check=check_state,
    written=written_as_the_engine_writes,
)

# --------------------------------------------------------------------------- documents


def load_view(data: Any) -> tuple[MState, int, dict[str, Any]]:
    """A seat's view read and checked: its known part as a state, the seat, and the hidden
    sizes (``hand_sizes``, ``stock_size``) the sampler fills."""
    o, seat, values = CODEC.read_view(data)
    if seat is None:
        raise C.refuse("seat", "must be a seat of the view's table")
    st = CODEC.build_state(values, o, VIEW)
    hidden = {
        "hand_sizes": [h.count if isinstance(h, C.Hidden) else sum(h) for h in values["hands"]],
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
        card = T.CODE_TO_CARD.get(code) if isinstance(code, str) else None
        if card is None or (card == T.XX and not man_cards):
            raise InvalidSetup(f"deck[{i}]: no such card in the Marriage pack: {code!r}", field="deck")
        cards.append(card)
    return cards


# --------------------------------------------------------------------------- layouts

_ENTRY = re.compile(r"^\s*(\w\w)\s*(?:\(\s*(null|\d)\s*,\s*(yes|no)\s*\))?\s*$")


def load_layout(
    layout: Mapping[str, Any], players: int, options: JSON, dealer: int, seed: int | None
) -> MState:
    """A state from a partial one (§10 conventions): a layout in the state's own shape.

    Omitted fields take their declared defaults (phase ``draw``, nobody seen, no tiplu,
    scores 0) or follow from the others (``layout.fill_left_out``: ``to_act`` the dealer's left,
    ``route`` from ``shown``: sets are lists, pairs are codes; or ``seen``). Shorthands the
    rules file uses: ``current`` stands for ``to_act``; a card list may be one
    space-separated string; a discard entry may be ``"8D(1,no)"`` or a bare code; the
    chosen ``tiplu`` goes to the bottom of the stock unless the listed stock already ends
    with it. The cards it leaves out are dealt by
    :func:`layout.place_left_out` (where ``"fill"`` stands). ``seed`` is the generator state
    as is."""
    for key in layout:
        if key not in CODEC.known and key != "current":
            raise C.refuse(str(key), "unknown layout field")
    doc = dict(layout)
    doc["options"] = options  # the match's, parsed: Game.layout_options
    if "current" in doc:
        current = doc.pop("current")
        doc.setdefault("to_act", current)
    men = doc["options"]["man_cards"]
    placed = _write_out(doc, players, men)
    left_out = [T.ALL_CODES[c] for c in cards_left_out(placed, men)]
    place_left_out(doc["stock"], doc["discard"], left_out, doc.get("tiplu") is not None)
    doc["discard"] = _entries(doc["discard"])  # a left-out card placed there is a bare code
    return CODEC.load(doc, C.LAYOUT, players=players, given={"dealer": dealer, "rng_state": seed})


def _list(value: Any, field: str, size: int | None = None) -> list[Any]:
    if type(value) is not list or size is not None and len(value) != size:
        raise C.refuse(field, "must be a list" if size is None else f"must be a list of {size} entries")
    return value


def _layout_cards(value: Any, field: str) -> list[Any]:
    """A card list in a layout: a list of codes or one space-separated string."""
    return value.split() if isinstance(value, str) else list(_list(value, field))


def _entry_shorthand(text: str, field: str) -> JSON:
    """A discard entry written as in §10: ``"8D(1,no)"``, ``"9C(null, no)"`` or ``"9C"``."""
    m = _ENTRY.match(text)
    if m is None:
        raise C.refuse(field, "write an entry as CARD or CARD(seat|null, yes|no)")
    by = None if m.group(2) in (None, "null") else int(m.group(2))
    return {"card": m.group(1), "by": by, "by_unseen": m.group(3) == "yes"}


def _entries(discard: list[Any]) -> list[Any]:
    """A discard pile with its shorthand entries written out (a ``"fill"`` marker kept)."""
    return [
        _entry_shorthand(e, f"discard[{i}]") if isinstance(e, str) and e != FILL else e
        for i, e in enumerate(discard)
    ]


def _write_out(doc: JSON, n: int, men: int) -> list[int]:
    """The layout's card shorthands written out in ``doc`` (a ``"fill"`` marker kept), and
    how many of each card it places."""
    placed = [0] * T.NCODES

    def take(code: Any, field: str) -> None:
        card = T.CODE_TO_CARD.get(code) if isinstance(code, str) else None
        if card is None or card == T.XX and not men:
            raise C.refuse(field, f"no such card in the Marriage pack: {code}")
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
    stock = doc["stock"] = _layout_cards(doc.get("stock", []), "stock")
    tiplu_at_bottom(stock, doc.get("tiplu"))
    discard = doc["discard"] = _entries(_list(doc.get("discard", []), "discard"))
    for i, e in enumerate(discard):
        if isinstance(e, Mapping):
            take(e.get("card"), f"discard[{i}].card")
    for i, c in enumerate(stock):
        if c != FILL:
            take(c, f"stock[{i}]")
    return placed


# --------------------------------------------------------------------------- a new match
# (Game.new_state checks the request, then calls one of these)


def new_from_seed(players: int, options: JSON, dealer: int, seed: int) -> MState:
    return new_match(players, options, dealer, seed, None)


def new_from_deck(deck: Any, players: int, options: JSON, dealer: int, seed: int | None) -> MState:
    return new_match(players, options, dealer, seed, deck_from_json(deck, options["man_cards"]))


def new_from_layout(
    layout: Mapping[str, Any], players: int, options: JSON, dealer: int, seed: int | None
) -> MState:
    return load_layout(layout, players, options, dealer, seed)
