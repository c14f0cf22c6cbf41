"""Trex's JSON shape, declared for the shared codec (engine/codec.py): its verbs, its state
fields in document order (what a layout may leave out, what a seat's view shows), the glue
that builds a state from the decoded values (what a layout leaves out is worked out by
``layout.fill_left_out``) and the layout's ``deck``/``decks`` shorthand. What a loaded
state must satisfy beyond its shape is in ``checks``."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine import codec as C
from engine.protocol import JSON, Action, BadAction, InvalidSetup, InvalidState

from . import tables as T
from .checks import check_state
from .codec_kinds import CardMap, Numbered
from .layout import fill_left_out
from .options import OPTION_SPECS, Opts, check_options
from .rules import deal_from, layout_fits, new_match
from .state import TrexState, entries, fold_past, load_history

TREX_PACK = C.Pack("Trex", tuple(range(52)), T.CODES)  # numbered suit by suit: ascending = canonical
CARD = C.Card(TREX_PACK)
MASK = C.CardMask(TREX_PACK)
CONTRACT = C.Choice(T.CONTRACT_NAMES)
DECK = C.Cards(TREX_PACK, length=52)

# ================================================================ actions


def verb_of(action: Action) -> str:
    """The JSON ``type`` of an internal action (see ``tables``)."""
    if type(action) is not int:
        return "deal"
    if action == T.PASS:
        return "pass"
    if action >= T.CHOOSE_BASE:
        return "choose"
    return "double" if action >= T.DOUBLE else "play"


def _hidden_deck(count: Any) -> tuple[int, ...]:
    """A view's caller deal (its deck shown as a count) read back: a placeholder deck."""
    if count != 52:
        raise BadAction("malformed action: deck: must be a list of 52 card codes", field="deck")
    return tuple(range(52))


VERBS = C.Verbs(
    [
        C.Verb(
            "choose",
            {"contract": CONTRACT},
            make=lambda c: T.CHOOSE_BASE + c,
            split=lambda a: (a - T.CHOOSE_BASE,),
        ),
        C.Verb("double", {"card": CARD}, make=lambda card: T.DOUBLE + card, split=lambda a: (a - T.DOUBLE,)),
        C.Verb("pass", make=lambda: T.PASS),
        C.Verb("play", {"card": CARD}, make=lambda card: card, split=lambda a: (a,)),
        C.Verb(
            "deal",
            {"deck": DECK},
            make=lambda deck: (T.DEAL, tuple(deck)),
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


# ================================================================ state fields


def is_card_play(action: Action) -> bool:
    """A card played (to a trick or the layout): only its entry may carry a trick number."""
    return type(action) is int and action < T.PASS


def _zeros(o: Opts) -> list[int]:
    return [0, 0, 0, 0]


def _none(o: Opts) -> list[Any]:
    return []


HISTORY = C.History(VERBS)
"""This deal's history, in a state as in a view: earlier deals' results stay in
``deal_results`` and their cards are back in hands (an old state's earlier deals are
checked on loading, then folded away: docs/api.md, "State size")."""
PLAYED = C.History(VERBS, Numbered("trick", 13, numbered=is_card_play, what="a trick play"))
"""This deal's entries, with the number of the trick each trick play went to."""
POINTS = C.Int(-10_000, 10_000)
TOTALS = C.Int(-(10**7), 10**7)
RANK = C.Choice(tuple(T.SEQ_RANKS))
RUNS = C.Obj(**dict.fromkeys(T.SUITS_ORDER, C.Nullable(C.Obj(low=RANK, high=RANK))))
"""The trex layout, ``{"S": null | {"low": "9", "high": "Q"}, ...}``: each suit's run as
``(low, high)`` sequence indices, None for an empty suit."""
RESULT = C.Obj(
    deal_no=C.Int(1, lambda o: o.total_deals), owner=C.Seat(), contract=CONTRACT, scores=C.PerSeat(POINTS)
)

FIELDS: list[C.Field[TrexState]] = [
    C.Field("dealer", C.Seat(), default=C.OMITTED),
    C.Field("phase", C.Choice(T.PHASE_NAMES), default=C.OMITTED),
    C.Field("to_act", C.Nullable(C.Seat(), -1), derived=True, default=C.OMITTED),
    C.Field(
        "scores",
        C.PerSide(C.Int(-2 * 10**7, 2 * 10**7)),
        lambda s: side_totals(s),
        derived=True,
        default=C.OMITTED,
    ),
    C.Field("deal_no", C.Int(1, lambda o: o.total_deals), default=1),
    C.Field("history", HISTORY, lambda s: [e[:2] for e in entries(s.played)], default=C.OMITTED),
    C.Field("rng_state", C.RngState(), default=None, show=C.STATE_ONLY),
    C.Field("first_owner", C.Seat(), default=C.OMITTED),
    C.Field("kingdom_index", C.Int(0, 3), derived=True, default=C.OMITTED),
    C.Field("kingdom_owner", C.Seat(), lambda s: s.owner, derived=True, default=C.OMITTED),
    C.Field("contracts_used", C.ListOf(CONTRACT), default=C.OMITTED),
    C.Field("contract", C.Nullable(CONTRACT, -1), default=-1),
    C.Field("hands", C.PerSeat(MASK), show=C.OWN),
    C.Field("doubled", CardMap(TREX_PACK, C.Seat(), "seat"), default=()),
    C.Field("doubling_turn", C.Int(0, 4), default=C.OMITTED),
    C.Field("trick", C.ListOf(C.Obj(seat=C.Seat(), card=CARD)), lambda s: trick_entries(s), default=_none),
    C.Field("trick_leader", C.Nullable(C.Seat(), -1), lambda s: trick_leader(s), default=C.OMITTED),
    C.Field("tricks_played", C.Int(0, 13), default=C.OMITTED),
    C.Field("tricks_won", C.PerSeat(C.Int(0, 13)), default=C.OMITTED),
    C.Field("cards_won", C.PerSeat(MASK), default=C.OMITTED),
    C.Field("played", PLAYED, lambda s: entries(s.played), default=_none),
    C.Field("layout", RUNS, lambda s: runs_of(s.table), default=(None, None, None, None)),
    C.Field("finish_order", C.ListOf(C.Seat()), default=_none),
    C.Field("layout_turns", C.Int(0, 10_000), default=C.OMITTED),
    C.Field("twos_exposed", C.Bool(), derived=True, default=C.OMITTED),
    C.Field("exposed_twos", C.PerSeat(MASK), lambda s: exposed_twos(s), derived=True, default=C.OMITTED),
    C.Field("deal_scores", C.PerSeat(POINTS), default=_zeros),
    C.Field("match_scores", C.PerSeat(TOTALS), default=_zeros),
    C.Field("deal_results", C.ListOf(RESULT), default=_none),
    C.Field("decks", C.ListOf(DECK), default=_none, show=C.STATE_ONLY),
    C.view_seat(),
]


def side_totals(s: TrexState) -> list[int]:
    """``scores``: the match totals per side (per team with partnership)."""
    ms = s.match_scores
    return [ms[0] + ms[2], ms[1] + ms[3]] if s.opts.partnership else list(ms)


def trick_entries(s: TrexState) -> list[tuple[int, int]]:
    """The trick on the table as ``(seat, card)``, from its leader."""
    return [((s.leader + i) & 3, c) for i, c in enumerate(s.trick)]


def trick_leader(s: TrexState) -> int:
    """The trick's leader while tricks are played (-1: none)."""
    return s.leader if s.phase == T.TRICKS else -1


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
    return [h & T.TWO_MASK if s.twos_exposed else 0 for h in s.hands]


# ================================================================ decoded values -> state


def build(values: dict[str, Any], o: Opts, mode: str) -> TrexState:
    """A state from the decoded ``values``: the given fields copied (what they leave out is
    ``layout.fill_left_out``'s, which the codec calls next)."""
    s = TrexState(o)
    s.deal_no = values["deal_no"]
    s.hands = values["hands"]
    s.contract = values["contract"]
    s.doubled = values["doubled"]
    for card, _ in s.doubled:
        s.dbl_mask |= 1 << card
    s.trick = [card for _, card in values["trick"]]
    s.table = table_of(values["layout"])
    s.lay_mask = layout_fits(s.table, s.opts.start_seq)
    s.finish_order = values["finish_order"]
    s.deal_scores = values["deal_scores"]
    s.match_scores = values["match_scores"]
    s.deal_results = tuple((n, owner, c, tuple(scores)) for n, owner, c, scores in values["deal_results"])
    s.rng_state = values["rng_state"]
    s.decks = tuple(tuple(d) for d in values["decks"])
    played = values["played"]
    history = values.get("history", [e[:2] for e in played])  # a layout's default: its played entries
    load_history(s, history, played)
    return s


CODEC: C.Codec[TrexState] = C.Codec(
    game="trex",
    version=1,
    option_specs=OPTION_SPECS,
    player_counts=(4,),
    check_options=check_options,
    rules_of=lambda options, players: Opts(options),
    options_of=lambda s: s.opts.raw,
    players_of=lambda s: 4,
    fields=FIELDS,
    verbs=VERBS,
    build=build,
    fill_left_out=fill_left_out,
    check=lambda s, values, mode: check_and_fold(s, values, mode),
)


def check_and_fold(s: TrexState, values: dict[str, Any], mode: str) -> None:
    """``check_state``, then an old state's earlier deals folded away (a state holds the
    current deal's entries only: docs/api.md, "State size")."""
    check_state(s, values, mode, CODEC.dump)
    fold_past(s)


# ================================================================ layouts and decks


def parse_deck(deck: Any, field: str, error: type[InvalidSetup] | type[InvalidState]) -> list[int]:
    """A deck of the 52 cards (top first) -> card indices; ``error`` naming ``field``."""
    try:
        cards: list[int] = DECK.decoder()(deck, field, None)
    except InvalidState as err:
        raise error(err.message, field=field) from None
    return cards


def state_from_layout(layout: Mapping[str, Any], options: JSON, dealer: int) -> TrexState:
    """A state from a layout (a partial state, ``new_state(layout=...)``); ``options``: the
    match's, parsed (``Game.layout_options``). A layout without hands but with ``decks``
    (or ``deck``) is dealt from its first deck, the rest kept for the later deals."""
    data = dict(layout)
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
        data["hands"] = [T.codes_of(hand) for hand in deal_from(first, d)]
    return CODEC.load(data, C.LAYOUT, players=4, options=options, given={"dealer": dealer})


# --------------------------------------------------------------------------- a new match
# (Game.new_state checks the request, then calls one of these)


def new_from_seed(players: int, options: JSON, dealer: int, seed: int) -> TrexState:
    return new_match(Opts(options), dealer, None, seed)


def new_from_deck(deck: Any, players: int, options: JSON, dealer: int, seed: int | None) -> TrexState:
    return new_match(Opts(options), dealer, parse_deck(deck, "deck", InvalidSetup), seed)


def new_from_layout(
    layout: Mapping[str, Any], players: int, options: JSON, dealer: int, seed: int | None
) -> TrexState:
    s = state_from_layout(layout, options, dealer)
    if seed is not None:
        s.rng_state = random.Random(seed).getrandbits(T.RNG_BITS)
    return s
