"""Porrazo's JSON shape (rules file sections 3, 6, 7), declared for the shared codec
(engine/codec.py): its verbs, its state fields in document order (with what a layout may
leave out and what a seat's view shows), and the glue that builds a state from the decoded
values. What a loaded state must satisfy beyond its shape is :mod:`.checks`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine import codec as C
from engine.cards import RANKS, BadCard, parse_card
from engine.checks import MAX_SAFE_INT, MAX_SCORE, rng_state_to_json
from engine.games.porrazo.checks import check_state
from engine.games.porrazo.codec_kinds import SeatMap
from engine.games.porrazo.layout import fill_left_out
from engine.games.porrazo.options import OPTION_SPECS, Options, check_teams
from engine.games.porrazo.rules import (
    deal,
    holding,
    own_hand_hidden,
    shuffled_deck,
    start_hand,
)
from engine.games.porrazo.state import PState, blank_state, history_from, history_list, played_of
from engine.games.porrazo.tables import (
    CLAIM,
    DEAL,
    DECLARE_RONDA,
    DECLARE_RONDINE,
    DECLINE,
    NO_COMBO,
    P_DEALING,
    PASS,
    PHASE_NAMES,
    PLAYER_COUNTS,
    RONDA,
    RONDINE,
    STAGE_NAMES,
    TENDIDO,
)
from engine.protocol import JSON, SCHEMA_VERSION, Action, InvalidSetup

PACK = C.Pack("Porrazo", tuple(range(52)))
COMBOS = ("ronda", "rondine")
"""The combinations a seat declares (R9)."""
WIN_REASONS = ("target", "san_benito")
"""How a match is won: a side reached the target (R25), or a San Benito (R17)."""
CARD = C.Card(PACK)
CARDS = C.Cards(PACK)

# --------------------------------------------------------------------------- actions

VERB_LINES: dict[str, str] = {
    "play": 'play a card from your hand ("capture": false declines a capture for en su lugar, R14)',
    "pass": "let the tendido wait, do not declare, or claim nothing more",
    "tendido": "dealer: deal the four tendido cards now (R6, R7)",
    "declare": 'announce a ronda or rondine ("combo"), never its rank (R9)',
    "claim": 'claim the undeclared ronda/rondine of "seat" (R21)',
    "deal": "caller-dealt matches: the next hand's 52-card deck, top first",
}
"""Each action ``type`` and what it does (the Game's ``verbs``)."""

_VERB_OF_CODE = {PASS: "pass", TENDIDO: "tendido", DECLARE_RONDA: "declare", DECLARE_RONDINE: "declare"}


def verb_of(action: Action) -> str:
    """The JSON ``type`` of an internal action: a card (DECLINE + card: a declined
    capture), PASS, TENDIDO, a declaration, CLAIM + seat, or a caller's ("deal", deck)."""
    if type(action) is tuple:
        return "deal"
    assert isinstance(action, int)
    if action < PASS:
        return "play"
    return _VERB_OF_CODE.get(action, "claim")


def _hidden_deck(count: Any) -> tuple[int, ...]:
    """A view's caller deal (its deck shown as a count) read back: a placeholder deck."""
    return tuple(range(52))


VERBS = C.Verbs(
    [
        C.Verb(
            "play",
            {"card": CARD},
            make=lambda card, capture: card if capture is not False else DECLINE + card,
            split=lambda action: (action, None) if action < DECLINE else (action - DECLINE, False),
            optional={"capture": C.Bool()},
        ),
        C.Verb("pass", make=lambda: PASS),
        C.Verb("tendido", make=lambda: TENDIDO),
        C.Verb(
            "declare",
            {"combo": C.Choice(COMBOS, (DECLARE_RONDA, DECLARE_RONDINE))},
            make=lambda code: code,
            split=lambda action: (action,),
        ),
        C.Verb(
            "claim",
            {"seat": C.Seat()},
            make=lambda seat: CLAIM + seat,
            split=lambda action: (action - CLAIM,),
        ),
        C.Verb(
            "deal",
            {"deck": C.Cards(PACK, unique=False)},  # 52 distinct cards: check_action, R2
            make=lambda deck: (DEAL, tuple(deck)),
            split=lambda action: (action[1],),
            hidden={"deck": _hidden_deck},
        ),
    ],
    verb_of,
)

# --------------------------------------------------------------------------- state fields


def _played(st: PState) -> list[list[int]]:
    return [played_of(st, s) for s in range(st.o.players)]


def _hand_history(st: PState, viewer: int) -> list[tuple[int, Action]]:
    """A state's and a view's history: this hand's entries only (earlier hands' cards were
    reshuffled into the unseen stock)."""
    return history_list(st.history)[st.hand_start :]


def _per_seat_empty(o: Options) -> list[list[int]]:
    return [[] for _ in range(o.players)]


HIDDEN_TO_DEALER = C.OwnOrCount(hides_own=own_hand_hidden)
ITEM = C.Obj(side=C.Side(), points=C.Int(0, MAX_SCORE), item=C.Text(), rule=C.Text())
CHAIN = C.Obj(stage=C.Choice(STAGE_NAMES), rank=C.Choice(tuple(RANKS)), seat=C.Seat())
PENDING = C.Obj(seat=C.Seat(), porrazo_points=C.Int(1, 4), limpia_points=C.Int(0, 4), cards=CARDS)

FIELDS: list[C.Field[PState]] = [
    C.Field("dealer", C.Seat(), default=0),
    C.Field("phase", C.Choice(PHASE_NAMES), default=C.OMITTED),
    C.Field("to_act", C.Nullable(C.Seat()), default=C.OMITTED),
    C.Field("scores", C.PerSide(C.Int(0, MAX_SCORE)), default=lambda o: [0] * o.sides),
    C.Field("hand_no", C.Int(1, MAX_SAFE_INT), default=1),
    C.Field("deal_no", C.Int(0, MAX_SAFE_INT), default=C.OMITTED),
    C.Field("hands", C.PerSeat(CARDS), default=_per_seat_empty, show=HIDDEN_TO_DEALER),
    C.Field("dealt", C.PerSeat(CARDS), default=C.OMITTED, show=HIDDEN_TO_DEALER),
    C.Field("played", C.PerSeat(CARDS), _played, derived=True, default=C.OMITTED),
    C.Field("stock", CARDS, default=C.OMITTED, show=C.COUNT),
    C.Field("table", CARDS, default=lambda o: []),
    C.Field("piles", C.PerSeat(CARDS), default=_per_seat_empty),
    C.Field("tendido_done", C.Bool(), default=False),
    C.Field("tendido", C.Nullable(CARDS), default=None),
    C.Field(
        "declarations",
        C.PerSeat(C.Nullable(C.Choice(COMBOS, (RONDA, RONDINE)), NO_COMBO)),
        lambda st: st.decl,
        default=C.OMITTED,
    ),
    C.Field("claims", SeatMap(C.Seat(), -1), default=lambda o: [-1] * o.players),
    C.Field("chain", C.Nullable(CHAIN), default=None),
    C.Field("pending_porrazo", C.Nullable(PENDING), lambda st: st.pending, default=None),
    C.Field("last_capturer", C.Nullable(C.Seat()), default=None),
    C.Field("winner", C.Nullable(C.Side()), default=None),
    C.Field("win_reason", C.Nullable(C.Choice(WIN_REASONS, WIN_REASONS)), default=None),
    C.Field("deal_items", C.ListOf(ITEM), lambda st: st.items, default=lambda o: []),
    C.Field("last_deal_items", C.ListOf(ITEM), lambda st: st.prev_items, default=lambda o: []),
    C.Field("decks", C.ListOf(C.Cards(PACK, length=52)), default=lambda o: [], show=C.STATE_ONLY),
    # a state holds this hand's history (docs/api.md, "State size"), so a written
    # hand_start is 0; an old state's earlier entries (before it) are dropped on loading
    C.history_start("hand_start"),
    C.Field("history", C.History(VERBS), lambda st: _hand_history(st, 0), default=lambda o: []),
    C.Field("rng_state", C.RngState(), default=None, show=C.STATE_ONLY),
    C.view_seat(),
]


def build(values: dict[str, Any], o: Options, mode: str) -> PState:
    """A state from the decoded ``values`` (what they leave out is ``layout.fill_left_out``'s,
    which the codec calls next)."""
    st = blank_state(o, values["dealer"])
    if "phase" in values:
        st.phase = values["phase"]
    st.scores = values["scores"]
    st.hand_no = values["hand_no"]
    if "deal_no" in values:
        st.deal_no = values["deal_no"]
    st.hands = values["hands"]
    if "dealt" in values:
        st.dealt = [tuple(d) for d in values["dealt"]]
        st.held = [holding(d) for d in st.dealt]
    st.table = values["table"]
    st.piles = [tuple(p) for p in values["piles"]]
    st.tendido_done = values["tendido_done"]
    st.tendido = None if values["tendido"] is None else tuple(values["tendido"])
    if "stock" in values:
        st.stock = tuple(values["stock"])
    if "declarations" in values:
        st.decl = values["declarations"]
    st.claims = values["claims"]
    st.chain = values["chain"]
    pending = values["pending_porrazo"]
    st.pending = None if pending is None else (pending[0], pending[1], pending[2], tuple(pending[3]))
    st.last_capturer = values["last_capturer"]
    st.winner = values["winner"]
    st.win_reason = values["win_reason"]
    st.items = tuple(values["deal_items"])
    st.prev_items = tuple(values["last_deal_items"])
    st.decks = tuple(tuple(deck) for deck in values["decks"])
    _build_history(st, values["history"], values["hand_start"])
    st.rng_state = values["rng_state"]
    if "to_act" in values:
        st.to_act = values["to_act"]
    st.left = sum(len(h) for h in st.hands)
    return st


def _build_history(st: PState, entries: list[tuple[int, Action]], hand_start: int) -> None:
    """This hand's history cons list and its length: the entries before ``hand_start`` (an
    old state's earlier hands) are folded away, their effects being in the scores."""
    current = C.current_entries(entries, hand_start, "hand_start")
    st.history = history_from(current)
    st.hlen = len(current)
    st.hand_start = 0


CODEC: C.Codec[PState] = C.Codec(
    game="porrazo",
    version=SCHEMA_VERSION,
    option_specs=OPTION_SPECS,
    player_counts=PLAYER_COUNTS,
    check_options=check_teams,
    rules_of=lambda options, players: Options.build(options, players),
    options_of=lambda st: st.o.raw,
    players_of=lambda st: st.o.players,
    fields=FIELDS,
    verbs=VERBS,
    build=build,
    fill_left_out=fill_left_out,
    check=lambda st, values, mode: check_state(st),
)

# --------------------------------------------------------------------------- layouts

_SEAT_KEYS = {str(seat): seat for seat in range(8)}


def load_layout(
    layout: Mapping[str, Any],
    players: int,
    options: JSON,
    dealer: int,
    seed: int | None,
) -> PState:
    """A layout (section 3): a partial state, where ``"phase": "dealing"`` means the hands
    are not dealt yet (the engine deals deal ``deal_no + 1`` next) and ``declared`` (seat
    -> combination, for the seats that declared) may stand for ``declarations``. The
    request's ``players`` and ``dealer`` where the layout gives none; ``options`` the
    match's, parsed (``Game.layout_options``); ``seed`` is the generator state as is."""
    doc = dict(layout)
    doc.setdefault("players", players)
    doc.setdefault("dealer", dealer)
    doc["options"] = options
    if seed is not None and "rng_state" not in doc:
        doc["rng_state"] = rng_state_to_json(seed)
    given: dict[str, Any] = {}
    if doc.get("phase") == "dealing":
        del doc["phase"]
        given["phase"] = P_DEALING
    if "declared" in doc:
        declared = doc.pop("declared")
        if "declarations" in doc:
            raise C.refuse("declared", "give declared or declarations, not both")
        if not isinstance(declared, dict):
            raise C.refuse("declared", 'must map seats to "ronda" or "rondine"')
        n = doc.get("players")
        if n in PLAYER_COUNTS:  # else the header refuses the players
            names: list[Any] = [None] * n
            for key, kind in declared.items():
                if _SEAT_KEYS.get(key, n) >= n:
                    raise C.refuse("declared", f"{key!r} is not a seat")
                names[int(key)] = kind
            doc["declarations"] = names
    st = CODEC.load(doc, C.LAYOUT, given=given)
    if st.phase == P_DEALING:
        deal(st, None)
    return st


def deck_from_json(deck: Any) -> tuple[int, ...]:
    """A caller's deck (codes, top first) as cards: each of the 52 cards once."""
    if not isinstance(deck, list):
        raise InvalidSetup("deck must be a list of the 52 card codes, top first", field="deck")
    try:
        cards = tuple(parse_card(c) for c in deck)
    except BadCard as err:
        raise InvalidSetup(f"deck: {err}", field="deck") from None
    if len(cards) != 52 or len(set(cards)) != 52:
        raise InvalidSetup("deck must hold each of the 52 cards exactly once", field="deck")
    return cards


# --------------------------------------------------------------------------- a new match
# (Game.new_state checks the request, then calls one of these)


def new_from_seed(players: int, options: JSON, dealer: int, seed: int) -> PState:
    st = blank_state(Options.build(options, players), dealer)
    start_hand(st, shuffled_deck(st, seed), None)
    return st


def new_from_deck(deck: Any, players: int, options: JSON, dealer: int, seed: int | None) -> PState:
    st = blank_state(Options.build(options, players), dealer)
    cards = deck_from_json(deck)
    st.rng_state = seed  # the later hands: from the seed's generator, or the caller's
    start_hand(st, cards, None)
    return st


def new_from_layout(
    layout: Mapping[str, Any], players: int, options: JSON, dealer: int, seed: int | None
) -> PState:
    return load_layout(layout, players, options, dealer, seed)
