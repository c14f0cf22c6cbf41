"""Trex's JSON shape, declared for the shared codec (engine/codec.py): its verbs, its state
fields in document order (what a layout may leave out, what a seat's view shows), three
kinds of its own (the doubled cards, this deal's played entries with their trick numbers,
the match history written with its earlier deals cached) and the glue that builds a state
from the decoded values (a layout's omitted fields worked out here), with the layout's
``deck``/``decks`` shorthand. What a loaded state must satisfy beyond its shape is in
``checks``."""

from __future__ import annotations

from typing import Any

from engine.codec import (
    LAYOUT,
    OMITTED,
    OWN,
    STATE_ONLY,
    Bool,
    Card,
    CardMask,
    Cards,
    Choice,
    Codec,
    Field,
    History,
    Int,
    Kind,
    ListOf,
    Nullable,
    Obj,
    Pack,
    PerSeat,
    PerSide,
    RngState,
    Seat,
    Verb,
    Verbs,
    refuse,
    view_seat,
)
from engine.protocol import JSON, Action, BadAction, InvalidSetup, InvalidState

from .checks import (
    check_state,
    seat_to_act,
    twos_are_exposed,
)
from .options import OPTION_SPECS, Opts
from .rules import deal_from, layout_fits, trick_winner
from .state import Entry, TrexState, entries, history_entries_past, push_past
from .tables import (
    ALL,
    CHOOSE,
    CHOOSE_BASE,
    CODES,
    CONTRACT_NAMES,
    DEAL,
    DOUBLABLE_MASK,
    DOUBLE,
    DOUBLING,
    PASS,
    PHASE_NAMES,
    SEQ_RANKS,
    SEVEN_H,
    SUITS_ORDER,
    TREX,
    TRICKS,
    TWO_MASK,
    cards_of,
)
from .tables import (
    LAYOUT as LAYOUT_PHASE,
)

TREX_PACK = Pack("Trex", tuple(range(52)), CODES)  # numbered suit by suit: ascending = canonical
CARD = Card(TREX_PACK)
MASK = CardMask(TREX_PACK)
CONTRACT = Choice(CONTRACT_NAMES)
DECK = Cards(TREX_PACK, length=52)

# ================================================================ actions


def verb_of(action: Action) -> str:
    """The JSON ``type`` of an internal action (see ``tables``)."""
    if type(action) is not int:
        return "deal"
    if action == PASS:
        return "pass"
    if action >= CHOOSE_BASE:
        return "choose"
    return "double" if action >= DOUBLE else "play"


def _hidden_deck(count: Any) -> tuple[int, ...]:
    """A view's caller deal (its deck shown as a count) read back: a placeholder deck."""
    if count != 52:
        raise BadAction("malformed action: deck: must be a list of 52 card codes", field="deck")
    return tuple(range(52))


VERBS = Verbs(
    [
        Verb(
            "choose",
            {"contract": CONTRACT},
            make=lambda c: CHOOSE_BASE + c,
            split=lambda a: (a - CHOOSE_BASE,),
        ),
        Verb("double", {"card": CARD}, make=lambda card: DOUBLE + card, split=lambda a: (a - DOUBLE,)),
        Verb("pass", make=lambda: PASS),
        Verb("play", {"card": CARD}, make=lambda card: card, split=lambda a: (a,)),
        Verb(
            "deal",
            {"deck": DECK},
            make=lambda deck: (DEAL, tuple(deck)),
            split=lambda a: (a[1],),
            hidden={"deck": _hidden_deck},
        ),
    ],
    verb_of,
)


def parse_action(data: Any, opts: Opts) -> Action:
    """A JSON action -> the internal action; BadAction naming ``action.<field>``."""
    try:
        return VERBS.decode(data, opts)
    except BadAction as err:
        field = err.field if err.field in (None, "action") else f"action.{err.field}"
        raise BadAction(err.message, field=field) from None


# ================================================================ Trex's own kinds


class Doubled(Kind):
    """The doubled cards, ``{"KH": 2}`` (card -> doubler) in doubling order; inside, a tuple
    of ``(card, seat)``."""

    def decoder(self, hidden: bool = False) -> Any:
        card, seat = CARD.decoder(), Seat().decoder()

        def decode(raw: Any, path: str, rules: Any) -> tuple[tuple[int, int], ...]:
            if type(raw) is not dict:
                raise refuse(path, "must be an object card -> seat")
            return tuple(
                (card(code, path, rules), seat(d, f"{path}.{code}", rules)) for code, d in raw.items()
            )

        return decode

    def encoder(self, view: bool = False) -> Any:
        return lambda doubled: {CODES[c]: d for c, d in doubled}

    def schema(self, view: bool = False) -> JSON:
        return {
            "type": "object",
            "propertyNames": TREX_PACK.schema(),
            "additionalProperties": Seat().schema(),
        }


class Played(Kind):
    """This deal's entries, ``{"seat", "action", "trick"}`` (``trick``: the number of the trick
    a card went to, only for a trick play); inside, a list of ``(seat, action, trick_no)``."""

    def decoder(self, hidden: bool = False) -> Any:
        history, trick_no = History(VERBS).decoder(hidden), Int(0, 13).decoder()

        def decode(raw: Any, path: str, rules: Any) -> list[Entry]:
            if type(raw) is not list:
                raise refuse(path, "must be a list")
            bare = [{k: v for k, v in e.items() if k != "trick"} if type(e) is dict else e for e in raw]
            out = []
            for i, (seat, action) in enumerate(history(bare, path, rules)):
                trick = trick_no(raw[i].get("trick", 0), f"{path}[{i}].trick", rules)
                if trick and (type(action) is not int or action >= PASS):
                    raise refuse(f"{path}[{i}]", "only a trick play has a trick number")
                out.append((seat, action, trick))
            return out

        return decode

    def encoder(self, view: bool = False) -> Any:
        encode_action = VERBS.flat_encoder()

        def encode(played: list[Entry]) -> list[JSON]:
            out = []
            for seat, action, trick in played:
                entry = {"seat": seat, "action": encode_action(action)}
                if trick:
                    entry["trick"] = trick
                out.append(entry)
            return out

        return encode

    def schema(self, view: bool = False) -> JSON:
        trick = {"type": "integer", "minimum": 1, "maximum": 13}
        entry = History(VERBS).schema()["items"]
        return {"type": "array", "items": {**entry, "properties": {**entry["properties"], "trick": trick}}}


class MatchHistory(History):
    """The match's history, read as ``History`` reads it; written from the state itself, so
    that the JSON of the earlier deals, which never changes, is written once and cached on
    the state (``past_json``: clones share it, and so do the documents written, whose
    entries must not be mutated). A view's history is this deal's entries only (earlier
    deals' cards are back in hands; their results stay in ``deal_results``)."""

    def encoder(self, view: bool = False) -> Any:
        encode = super().encoder(view)

        def this_deal(s: TrexState) -> list[JSON]:
            return list(encode([e[:2] for e in entries(s.played)]))

        if view:
            return this_deal

        def whole(s: TrexState) -> list[JSON]:
            if s.past_json is None:
                s.past_json = list(encode([e[:2] for e in history_entries_past(s)]))
            return s.past_json + this_deal(s)

        return whole


# ================================================================ state fields


def _zeros(o: Opts) -> list[int]:
    return [0, 0, 0, 0]


def _none(o: Opts) -> list[Any]:
    return []


POINTS = Int(-10_000, 10_000)
TOTALS = Int(-(10**7), 10**7)
RANK = Choice(tuple(SEQ_RANKS))
RUNS = Obj(**dict.fromkeys(SUITS_ORDER, Nullable(Obj(low=RANK, high=RANK))))
"""The trex layout, ``{"S": null | {"low": "9", "high": "Q"}, ...}``: each suit's run as
``(low, high)`` sequence indices, None for an empty suit."""
RESULT = Obj(deal_no=Int(1, lambda o: o.total_deals), owner=Seat(), contract=CONTRACT, scores=PerSeat(POINTS))

FIELDS: list[Field[TrexState]] = [
    Field("dealer", Seat(), default=OMITTED),
    Field("phase", Choice(PHASE_NAMES), default=OMITTED),
    Field("to_act", Nullable(Seat(), -1), derived=True, default=OMITTED),
    Field(
        "scores", PerSide(Int(-2 * 10**7, 2 * 10**7)), lambda s: side_totals(s), derived=True, default=OMITTED
    ),
    Field("deal_no", Int(1, lambda o: o.total_deals), default=1),
    Field("history", MatchHistory(VERBS), lambda s: s, default=OMITTED),
    Field("rng_state", RngState(), default=None, show=STATE_ONLY),
    Field("first_owner", Seat(), default=OMITTED),
    Field("kingdom_index", Int(0, 3), derived=True, default=OMITTED),
    Field("kingdom_owner", Seat(), lambda s: s.owner, derived=True, default=OMITTED),
    Field("contracts_used", ListOf(CONTRACT), default=OMITTED),
    Field("contract", Nullable(CONTRACT, -1), default=-1),
    Field("hands", PerSeat(MASK), show=OWN),
    Field("doubled", Doubled(), default=()),
    Field("doubling_turn", Int(0, 4), default=OMITTED),
    Field("trick", ListOf(Obj(seat=Seat(), card=CARD)), lambda s: trick_entries(s), default=_none),
    Field(
        "trick_leader", Nullable(Seat(), -1), lambda s: s.leader if s.phase == TRICKS else -1, default=OMITTED
    ),
    Field("tricks_played", Int(0, 13), default=OMITTED),
    Field("tricks_won", PerSeat(Int(0, 13)), default=OMITTED),
    Field("cards_won", PerSeat(MASK), default=OMITTED),
    Field("played", Played(), lambda s: entries(s.played), default=_none),
    Field("layout", RUNS, lambda s: runs_of(s.table), default=(None, None, None, None)),
    Field("finish_order", ListOf(Seat()), default=_none),
    Field("layout_turns", Int(0, 10_000), default=OMITTED),
    Field("twos_exposed", Bool(), derived=True, default=OMITTED),
    Field("exposed_twos", PerSeat(MASK), lambda s: exposed_twos(s), derived=True, default=OMITTED),
    Field("deal_scores", PerSeat(POINTS), default=_zeros),
    Field("match_scores", PerSeat(TOTALS), default=_zeros),
    Field("deal_results", ListOf(RESULT), default=_none),
    Field("decks", ListOf(DECK), default=_none, show=STATE_ONLY),
    view_seat(),
]


def side_totals(s: TrexState) -> list[int]:
    """``scores``: the match totals per side (per team with partnership)."""
    ms = s.match_scores
    return [ms[0] + ms[2], ms[1] + ms[3]] if s.opts.partnership else list(ms)


def trick_entries(s: TrexState) -> list[tuple[int, int]]:
    """The trick on the table as ``(seat, card)``, from its leader."""
    return [((s.leader + i) & 3, c) for i, c in enumerate(s.trick)]


def runs_of(table: int) -> tuple[tuple[int, int] | None, ...]:
    """The layout's run of each suit (lowest and highest card on it), None while empty."""
    chunks = [(table >> (13 * suit)) & 0x1FFF for suit in range(4)]
    return tuple(((m & -m).bit_length() - 1, m.bit_length() - 1) if m else None for m in chunks)


def table_of(runs: tuple[tuple[int, int] | None, ...]) -> int:
    """The cards on the layout: each suit's run from low to high."""
    return sum(
        1 << (suit * 13 + q) for suit, run in enumerate(runs) if run for q in range(run[0], run[1] + 1)
    )


def exposed_twos(s: TrexState) -> list[int]:
    """R18: the 2s of each hand once exposed (none before)."""
    return [h & TWO_MASK if s.twos_exposed else 0 for h in s.hands]


# ================================================================ decoded values -> state


def build(values: dict[str, Any], o: Opts, mode: str) -> TrexState:
    """A state from the decoded ``values``; a layout's omitted fields are worked out here."""
    s = TrexState(o)
    s.deal_no = values["deal_no"]
    s.hands = values["hands"]
    s.contract = values["contract"]
    s.contracts_used = tuple(values.get("contracts_used", [s.contract] if s.contract >= 0 else []))
    s.phase = values["phase"] if "phase" in values else layout_phase(values, s)
    build_owner(s, values)
    s.doubled = values["doubled"]
    for card, _ in s.doubled:
        s.dbl_mask |= 1 << card
    doubling_done = s.phase not in (CHOOSE, DOUBLING) and s.contract >= 0 and o.doubling
    s.doubling_turn = values.get("doubling_turn", 4 if doubling_done and DOUBLABLE_MASK[s.contract] else 0)
    build_trick(s, values)
    s.table = table_of(values["layout"])
    s.lay_mask = layout_fits(s.table)
    build_tricks_won(s, values)
    s.finish_order = values["finish_order"]
    s.layout_turns = values.get("layout_turns", s.table.bit_count())
    s.twos_exposed = twos_are_exposed(s)
    s.to_act = seat_to_act(s, values.get("to_act", s.owner) if s.phase == LAYOUT_PHASE else -1)
    s.deal_scores = values["deal_scores"]
    s.match_scores = values["match_scores"]
    s.deal_results = tuple((n, owner, c, tuple(scores)) for n, owner, c, scores in values["deal_results"])
    s.rng_state = values["rng_state"]
    s.decks = tuple(tuple(d) for d in values["decks"])
    build_history(s, values)
    return s


def layout_phase(values: dict[str, Any], s: TrexState) -> int:
    """A layout without a phase: the contract's first phase, or tricks once doubling is done."""
    contract = s.contract
    if contract < 0:
        return CHOOSE
    if contract == TREX:
        return LAYOUT_PHASE
    doubling = values.get("doubling_turn", 0) != 4 and not values["trick"] and not values.get("tricks_played")
    return DOUBLING if s.opts.doubling and DOUBLABLE_MASK[contract] and doubling else TRICKS


def build_owner(s: TrexState, values: dict[str, Any]) -> None:
    """The first kingdom's owner (a layout may give it through the kingdom owner, the 7H in
    deal 1 or the dealer) and the dealer (R4: the kingdom owner from deal 2 on)."""
    k = (s.deal_no - 1) // s.opts.deals_per_kingdom
    if "first_owner" in values:
        s.first_owner = values["first_owner"]
    elif "kingdom_owner" in values:
        s.first_owner = (values["kingdom_owner"] - k) & 3
    elif s.deal_no == 1:
        s.first_owner = next((i for i in range(4) if s.hands[i] >> SEVEN_H & 1), 0)
    elif "dealer" in values:
        s.first_owner = (values["dealer"] - k) & 3
    s.dealer = values.get("dealer", s.owner if s.deal_no > 1 else 0)


def build_trick(s: TrexState, values: dict[str, Any]) -> None:
    """The trick on the table and its leader (a layout's empty trick: led by ``trick_leader``,
    else by the seat to act)."""
    trick = values["trick"]
    s.trick = [card for _, card in trick]
    if s.phase != TRICKS:
        s.leader = s.owner
        return
    leader = trick[0][0] if trick else trick_leader_given(values, s)
    s.leader = leader if leader >= 0 else s.owner  # none given: check_trick refuses it
    if s.trick:
        s.best, s.best_seat = trick_winner(s.trick, s.leader)


def trick_leader_given(values: dict[str, Any], s: TrexState) -> int:
    """The leader of a layout's empty trick: ``trick_leader``, else the seat to act (-1: null)."""
    return values.get("trick_leader", values.get("to_act", s.owner))  # type: ignore[no-any-return]


def build_tricks_won(s: TrexState, values: dict[str, Any]) -> None:
    """The cards and tricks won and the tricks played. A layout may give only some of them:
    without cards won, every card out of sight went in the leader's earlier tricks."""
    tricks_given = values.get("tricks_won")
    cards_won = values.get("cards_won")
    tricks_won = tricks_given
    if cards_won is not None and tricks_won is None:
        tricks_won = [m.bit_count() // 4 for m in cards_won]
    if s.contract == TREX or s.phase in (CHOOSE, DOUBLING):
        cards_won, tricks_won = [0, 0, 0, 0], [0, 0, 0, 0]  # none won: check_tricks_won
    tricks_played = values.get("tricks_played", None if tricks_given is None else sum(tricks_given))
    if cards_won is None:
        seen = s.hands[0] | s.hands[1] | s.hands[2] | s.hands[3] | s.table
        for c in s.trick:
            seen |= 1 << c
        missing = cards_of(ALL & ~seen)
        if tricks_played is None:
            tricks_played = len(missing) // 4
        if tricks_won is None:
            tricks_won = [0, 0, 0, 0]
            tricks_won[s.leader] = tricks_played
        cards_won, pos = [0, 0, 0, 0], 0
        for i in range(4):
            for c in missing[pos : pos + 4 * tricks_won[i]]:
                cards_won[i] |= 1 << c
            pos += 4 * tricks_won[i]
    assert tricks_won is not None  # given, or from the cards won, or by the shorthand
    s.tricks_won, s.cards_won = tricks_won, cards_won
    s.tricks_played = sum(tricks_won) if tricks_played is None else tricks_played
    s.taken = cards_won[0] | cards_won[1] | cards_won[2] | cards_won[3]


def build_history(s: TrexState, values: dict[str, Any]) -> None:
    """This deal's ``played`` and the earlier entries of the history (a layout's history
    defaults to its played entries)."""
    played = values["played"]
    history = values.get("history", [e[:2] for e in played])
    prefix = history[: len(history) - len(played)]
    if prefix:
        chunk: Any = None  # a cons list (previous, seat, action, trick_no)
        for seat, action in prefix:
            chunk = (chunk, seat, action, 0)
        push_past(s, chunk)
    cons: Any = None
    for e in played:
        cons = (cons, *e)
    s.played = cons


def check(s: TrexState, values: dict[str, Any], mode: str) -> None:
    """``checks.check_state``, with the leader a layout gave and the JSON writer."""
    check_state(s, values, mode, trick_leader_given(values, s), CODEC.dump)


CODEC: Codec[TrexState] = Codec(
    game="trex",
    version=1,
    option_specs=OPTION_SPECS,
    player_counts=(4,),
    check_options=lambda options, players: None,
    rules_of=lambda options, players: Opts(options),
    options_of=lambda s: s.opts.raw,
    players_of=lambda s: 4,
    fields=FIELDS,
    verbs=VERBS,
    build=build,
    check=check,
)


# ================================================================ layouts and decks


def parse_deck(deck: Any, field: str, error: type[InvalidSetup] | type[InvalidState]) -> list[int]:
    """A deck of the 52 cards (top first) -> card indices; ``error`` naming ``field``."""
    try:
        cards: list[int] = DECK.decoder()(deck, field, None)
    except InvalidState as err:
        raise error(err.message, field=field) from None
    return cards


def state_from_layout(layout: Any, options: JSON | None, dealer: int) -> TrexState:
    """A state from a layout (a partial state, ``new_state(layout=...)``); ``options``: the
    request's, parsed (a layout's own must agree). A layout without hands but with ``decks``
    (or ``deck``) is dealt from its first deck, the rest kept for the later deals."""
    if not isinstance(layout, dict):
        raise InvalidSetup("layout must be a JSON object (a partial state)", field="layout")
    data = dict(layout)
    if options is not None and "options" in data and CODEC.read_options(data["options"], 4) != options:
        raise InvalidSetup("options differ between the request and the layout", field="options")
    if "hands" not in data and ("decks" in data or "deck" in data):
        decks = data.pop("decks", None)
        if "deck" in data:
            decks = [data.pop("deck")] + list(decks or [])
        if not isinstance(decks, list) or not decks:
            raise InvalidState("decks must be a non-empty list of decks", field="decks")
        data["decks"] = decks[1:]
        first = parse_deck(decks[0], "decks[0]", InvalidState)
        d = data.get("dealer", dealer)
        if isinstance(d, bool) or not isinstance(d, int) or not 0 <= d <= 3:
            raise InvalidState("dealer must be a seat 0-3", field="dealer")
        data["hands"] = [[CODES[c] for c in cards_of(m)] for m in deal_from(first, d)]
    return CODEC.load(data, LAYOUT, players=4, options=options, given={"dealer": dealer})
