"""Porrazo's JSON (rules file sections 3, 6, 7): actions and the verb table, the state
written and read strictly, explicit layouts, views.

This module reads and writes the shape; what a loaded state must satisfy beyond its shape
is checked in :mod:`engine.games.porrazo.checks`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any

from engine.cards import CODES, RANKS, BadCard, parse_card
from engine.checks import MAX_SAFE_INT, MAX_SCORE, rng_state_from_json, rng_state_to_json
from engine.games.porrazo.checks import check_state
from engine.games.porrazo.options import Options
from engine.games.porrazo.rules import holding, natural_to_act, own_hand_hidden
from engine.games.porrazo.scoring import items_json
from engine.games.porrazo.state import Item, PState, blank_state, history_list, played_of, push_history
from engine.games.porrazo.tables import (
    CLAIM,
    COMBO_NAMES,
    DEAL,
    DECLARE_RONDA,
    DECLARE_RONDINE,
    DECLINE,
    HAND_CARDS,
    P_DEALING,
    P_PLAY,
    PASS,
    PHASE_NAMES,
    PHASE_OF_NAME,
    PLAYER_COUNTS,
    STAGE_NAMES,
    TENDIDO,
)
from engine.protocol import JSON, SCHEMA_VERSION, BadAction, EngineError, InvalidState

OptionsParser = Callable[[Any, int], JSON]
"""The game's option parser (``Game.parse_options``): raw options and players -> options."""

# --------------------------------------------------------------------------- actions

VERBS: dict[str, str] = {
    "play": 'play a card from your hand ("capture": false declines a capture for en su lugar, R14)',
    "pass": "let the tendido wait, do not declare, or claim nothing more",
    "tendido": "dealer: deal the four tendido cards now (R6, R7)",
    "declare": 'announce a ronda or rondine ("combo"), never its rank (R9)',
    "claim": 'claim the undeclared ronda/rondine of "seat" (R21)',
    "deal": "caller-dealt matches: the next hand's 52-card deck, top first",
}

_FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # verb: (required fields, optional fields)
    "play": (frozenset({"card"}), frozenset({"capture"})),
    "pass": (frozenset(), frozenset()),
    "tendido": (frozenset(), frozenset()),
    "declare": (frozenset({"combo"}), frozenset()),
    "claim": (frozenset({"seat"}), frozenset()),
    "deal": (frozenset({"deck"}), frozenset()),
}


def card_of(value: Any, field: str) -> int:
    """A card code -> card int, or BadAction naming the field."""
    try:
        return parse_card(value)
    except BadCard:
        shown = value if isinstance(value, str) else repr(value)
        raise BadAction(f"{shown} is not a card code", field=field) from None


def parse_action(data: Any, players: int) -> Hashable:
    """Read a JSON action into its internal form; BadAction names the bad field."""
    if not isinstance(data, dict):
        raise BadAction('an action must be a JSON object with a "type"')
    verb = data.get("type")
    if not isinstance(verb, str) or verb not in _FIELDS:
        raise BadAction(f"unknown action type {verb!r}; Porrazo's are {', '.join(_FIELDS)}", field="type")
    required, optional = _FIELDS[verb]
    for name in data:
        if name != "type" and name not in required and name not in optional:
            raise BadAction(f"unexpected field {name!r} in a {verb} action", field=name)
    for name in required:
        if name not in data:
            raise BadAction(f"a {verb} action needs the field {name!r}", field=name)
    if verb == "play":
        card = card_of(data["card"], "card")
        capture = data.get("capture", True)
        if not isinstance(capture, bool):
            raise BadAction('"capture" must be true or false', field="capture")
        return card if capture else DECLINE + card
    if verb == "pass":
        return PASS
    if verb == "tendido":
        return TENDIDO
    if verb == "declare":
        combo = data["combo"]
        if combo == "ronda":
            return DECLARE_RONDA
        if combo == "rondine":
            return DECLARE_RONDINE
        raise BadAction('"combo" must be "ronda" or "rondine"', field="combo")
    if verb == "claim":
        seat = data["seat"]
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise BadAction(f'"seat" must be a seat number 0..{players - 1}', field="seat")
        return CLAIM + seat
    deck = data["deck"]
    if not isinstance(deck, list):
        raise BadAction('"deck" must be a list of 52 card codes, top first', field="deck")
    return (DEAL, tuple(card_of(code, "deck") for code in deck))


def action_to_json(action: Any) -> JSON:
    """The JSON form of an internal action (round-trips through parse_action)."""
    if isinstance(action, tuple):
        return {"type": "deal", "deck": [CODES[c] for c in action[1]]}
    if action < DECLINE:
        return {"type": "play", "card": CODES[action]}
    if action < PASS:
        return {"type": "play", "card": CODES[action - DECLINE], "capture": False}
    if action == PASS:
        return {"type": "pass"}
    if action == TENDIDO:
        return {"type": "tendido"}
    if action == DECLARE_RONDA:
        return {"type": "declare", "combo": "ronda"}
    if action == DECLARE_RONDINE:
        return {"type": "declare", "combo": "rondine"}
    return {"type": "claim", "seat": action - CLAIM}


def public_action_json(action: Any) -> JSON:
    """The JSON a view shows of an action: a caller's deck becomes its card count."""
    if isinstance(action, tuple):
        return {"type": "deal", "deck": len(action[1])}
    return action_to_json(action)


# --------------------------------------------------------------------------- states

GAME_ID = "porrazo"

STATE_FIELDS: tuple[str, ...] = (
    "game",
    "version",
    "options",
    "players",
    "dealer",
    "phase",
    "to_act",
    "scores",
    "hand_no",
    "deal_no",
    "hands",
    "dealt",
    "played",
    "stock",
    "table",
    "piles",
    "tendido_done",
    "tendido",
    "declarations",
    "claims",
    "chain",
    "pending_porrazo",
    "last_capturer",
    "winner",
    "win_reason",
    "deal_items",
    "last_deal_items",
    "decks",
    "hand_start",
    "history",
    "rng_state",
)
LAYOUT_EXTRA: frozenset[str] = frozenset({"declared"})
SEAT_KEYS: tuple[str, ...] = tuple(str(s) for s in range(8))
"""Seats as JSON object keys ("declared", "claims")."""


def codes(cards: Any) -> list[str]:
    return [CODES[c] for c in cards]


def to_json(st: PState) -> JSON:
    """The full state as JSON (rules file section 3)."""
    n = st.o.players
    return {
        "game": GAME_ID,
        "version": SCHEMA_VERSION,
        "options": dict(st.o.raw),
        "players": n,
        "dealer": st.dealer,
        "phase": PHASE_NAMES[st.phase],
        "to_act": st.to_act,
        "scores": list(st.scores),
        "hand_no": st.hand_no,
        "deal_no": st.deal_no,
        "hands": [codes(h) for h in st.hands],
        "dealt": [codes(d) for d in st.dealt],
        "played": [codes(played_of(st, s)) for s in range(n)],
        "stock": codes(st.stock),
        "table": codes(st.table),
        "piles": [codes(p) for p in st.piles],
        "tendido_done": st.tendido_done,
        "tendido": None if st.tendido is None else codes(st.tendido),
        "declarations": [COMBO_NAMES[k] for k in st.decl],
        "claims": {str(h): c for h, c in enumerate(st.claims) if c >= 0},
        "chain": None
        if st.chain is None
        else {"stage": STAGE_NAMES[st.chain[0]], "rank": RANKS[st.chain[1]], "seat": st.chain[2]},
        "pending_porrazo": None
        if st.pending is None
        else {
            "seat": st.pending[0],
            "porrazo_points": st.pending[1],
            "limpia_points": st.pending[2],
            "cards": codes(st.pending[3]),
        },
        "last_capturer": st.last_capturer,
        "winner": st.winner,
        "win_reason": st.win_reason,
        "deal_items": items_json(st.items),
        "last_deal_items": items_json(st.prev_items),
        "decks": [codes(d) for d in st.decks],
        "hand_start": st.hand_start,
        "history": [{"seat": seat, "action": action_to_json(a)} for seat, a in history_list(st.history)],
        "rng_state": rng_state_to_json(st.rng_state),
    }


def view(st: PState, seat: int) -> JSON:
    """Section 7: what ``seat`` may know."""
    out = to_json(st)
    hidden_self = own_hand_hidden(st, seat)
    out["hands"] = [len(h) if (s != seat or hidden_self) else out["hands"][s] for s, h in enumerate(st.hands)]
    out["dealt"] = [len(d) if (s != seat or hidden_self) else out["dealt"][s] for s, d in enumerate(st.dealt)]
    out["stock"] = len(st.stock)
    del out["decks"]
    del out["rng_state"]
    # Only this hand's history: earlier hands' cards were reshuffled into the unseen stock.
    out["history"] = [
        {"seat": s, "action": public_action_json(a)} for s, a in history_list(st.history)[st.hand_start :]
    ]
    out["hand_start"] = 0
    out["seat"] = seat
    return out


# --------------------------------------------------------------------------- reading


def _fail(field: str, message: str) -> InvalidState:
    return InvalidState(f"{field}: {message}", field=field)


def _int(value: Any, field: str, lo: int | None = None, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(field, "must be a whole number")
    if lo is not None and value < lo:
        raise _fail(field, f"must be at least {lo}")
    if hi is not None and value > hi:
        raise _fail(field, f"must be at most {hi}")
    return value


def _seat(value: Any, field: str, n: int, nullable: bool = False) -> int | None:
    if value is None and nullable:
        return None
    return _int(value, field, 0, n - 1)


def _card(value: Any, field: str) -> int:
    try:
        return parse_card(value)
    except BadCard:
        raise _fail(field, f"{value!r} is not a card code") from None


def _cards(value: Any, field: str, max_len: int = 52) -> list[int]:
    if not isinstance(value, list):
        raise _fail(field, "must be a list of card codes")
    if len(value) > max_len:
        raise _fail(field, f"holds {len(value)} cards, at most {max_len} allowed")
    return [_card(v, f"{field}[{i}]") for i, v in enumerate(value)]


def _per_seat(value: Any, field: str, n: int) -> list[Any]:
    if not isinstance(value, list) or len(value) != n:
        raise _fail(field, f"must be a list with one entry per seat ({n})")
    return value


def _bool(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(field, "must be true or false")
    return value


def _items(value: Any, field: str, sides: int) -> tuple[Item, ...]:
    if not isinstance(value, list) or len(value) > 200:
        raise _fail(field, "must be a list of scoring items")
    out = []
    for i, item in enumerate(value):
        where = f"{field}[{i}]"
        if not isinstance(item, dict) or set(item) != {"side", "points", "item", "rule"}:
            raise _fail(where, "must be an object with side, points, item and rule")
        if not isinstance(item["item"], str) or not isinstance(item["rule"], str):
            raise _fail(where, "item and rule must be strings")
        out.append(
            (
                _int(item["side"], where + ".side", 0, sides - 1),
                _int(item["points"], where + ".points", 0, MAX_SCORE),
                item["item"],
                item["rule"],
            )
        )
    return tuple(out)


def read_options(raw: Any, players: int, parse_options: OptionsParser) -> Options:
    """Options of a state: validated like a deal request's, as InvalidState."""
    try:
        return Options.build(parse_options(raw, players), players)
    except EngineError as err:
        raise InvalidState(err.message, field=getattr(err, "field", None) or "options") from None


def load(
    d: Any,
    parse_options: OptionsParser,
    *,
    mode: str = "state",
    base_options: Any = None,
    canonical: bool = False,
) -> PState:
    """Validate a state (mode "state"), or an explicit layout (mode "layout": fields may be
    omitted and take their natural values) and build the internal state. With ``canonical``
    (a client's full state) the state must be written exactly as the engine writes it."""
    if not isinstance(d, Mapping):
        raise InvalidState("a state must be a JSON object", field="state")
    layout = mode == "layout"
    allowed = set(STATE_FIELDS) | (LAYOUT_EXTRA if layout else set())
    for key in d:
        if key not in allowed:
            raise _fail(str(key), "unknown field")

    def need(key: str, default: Any = ...) -> Any:
        if key in d:
            return d[key]
        if layout and default is not ...:
            return default
        raise _fail(key, "missing field")

    if need("game", GAME_ID) != GAME_ID:
        raise _fail("game", f"this is a {GAME_ID} engine")
    if need("version", SCHEMA_VERSION) != SCHEMA_VERSION:
        raise _fail("version", f"unsupported version, expected {SCHEMA_VERSION}")
    players = need("players")
    if isinstance(players, bool) or players not in PLAYER_COUNTS:
        raise _fail("players", "porrazo is played by 2, 3, 4, 5, 6 or 8 players")
    n = players
    o = read_options(need("options", base_options), n, parse_options)
    st = blank_state(o, _seat(need("dealer", 0), "dealer", n) or 0)
    phase_name = need("phase", None)
    if phase_name is None and layout:
        hands_raw = d.get("hands")
        empty = hands_raw is None or (isinstance(hands_raw, list) and all(h == [] for h in hands_raw))
        phase_name = "dealing" if empty else "play"
    if layout and phase_name == "dealing":
        phase = P_DEALING
    elif isinstance(phase_name, str) and phase_name in PHASE_OF_NAME:
        phase = PHASE_OF_NAME[phase_name]
    else:
        raise _fail("phase", f"unknown phase {phase_name!r}")
    st.phase = phase
    st.scores = [
        _int(v, f"scores[{i}]", 0, MAX_SCORE)
        for i, v in enumerate(_per_seat(need("scores", [0] * o.sides), "scores", o.sides))
    ]
    st.hand_no = _int(need("hand_no", 1), "hand_no", 1, MAX_SAFE_INT)
    st.deal_no = _int(need("deal_no", 0 if phase == P_DEALING else 1), "deal_no", 0, MAX_SAFE_INT)
    st.hands = [
        _cards(h, f"hands[{s}]", HAND_CARDS)
        for s, h in enumerate(_per_seat(need("hands", [[]] * n), "hands", n))
    ]
    dealt_raw = need("dealt", None)
    if dealt_raw is None:  # layouts: the hands are the deal's full hands
        dealt_raw = [[CODES[c] for c in h] for h in st.hands] if phase != P_DEALING else [[]] * n
    st.dealt = [
        tuple(_cards(h, f"dealt[{s}]", HAND_CARDS)) for s, h in enumerate(_per_seat(dealt_raw, "dealt", n))
    ]
    st.held = [holding(t) for t in st.dealt]
    st.table = _cards(need("table", []), "table")
    st.piles = [
        tuple(_cards(p, f"piles[{s}]")) for s, p in enumerate(_per_seat(need("piles", [[]] * n), "piles", n))
    ]
    st.tendido_done = _bool(need("tendido_done", False), "tendido_done")
    tendido = need("tendido", None)
    st.tendido = None if tendido is None else tuple(_cards(tendido, "tendido"))
    if "stock" in d or not layout:
        st.stock = tuple(_cards(need("stock"), "stock"))
    else:  # a layout's omitted stock: every card not placed elsewhere, in canonical order
        placed = set(st.table).union(*st.hands, *st.piles)
        st.stock = tuple(c for c in range(52) if c not in placed)
    st.last_capturer = _seat(need("last_capturer", None), "last_capturer", n, nullable=True)

    # declarations: a list per seat, or a layout's "declared" map seat -> kind
    if layout and "declared" in d:
        if "declarations" in d:
            raise _fail("declared", "give declared or declarations, not both")
        declared = d["declared"]
        if not isinstance(declared, dict):
            raise _fail("declared", 'must map seats to "ronda" or "rondine"')
        decl_raw: list[Any] = [None] * n
        for key, kind in declared.items():
            if key not in SEAT_KEYS[:n]:
                raise _fail("declared", f"{key!r} is not a seat")
            decl_raw[int(key)] = kind
    else:
        default_decl = [COMBO_NAMES[h[0]] for h in st.held] if (o.auto and phase == P_PLAY) else [None] * n
        decl_raw = _per_seat(need("declarations", default_decl), "declarations", n)
    for s, kind in enumerate(decl_raw):
        if kind not in COMBO_NAMES:
            raise _fail(f"declarations[{s}]", 'must be null, "ronda" or "rondine"')
        st.decl[s] = COMBO_NAMES.index(kind)

    claims = need("claims", {})
    if not isinstance(claims, dict):
        raise _fail("claims", "must map holder seats to claiming seats")
    for key, claimer in claims.items():
        if key not in SEAT_KEYS[:n]:
            raise _fail("claims", f"{key!r} is not a seat")
        st.claims[int(key)] = _int(claimer, f"claims.{key}", 0, n - 1)

    chain = need("chain", None)
    if chain is not None:
        if not isinstance(chain, dict) or set(chain) != {"stage", "rank", "seat"}:
            raise _fail("chain", "must be null or {stage, rank, seat}")
        if chain["stage"] not in STAGE_NAMES:
            raise _fail("chain.stage", "must be discard, porrazo or counter")
        if not isinstance(chain["rank"], str) or len(chain["rank"]) != 1 or chain["rank"] not in RANKS:
            raise _fail("chain.rank", "must be a rank A 2-9 T J Q K")
        st.chain = (
            STAGE_NAMES.index(chain["stage"]),
            RANKS.index(chain["rank"]),
            _seat(chain["seat"], "chain.seat", n) or 0,
        )
    pend = need("pending_porrazo", None)
    if pend is not None:
        if not isinstance(pend, dict) or set(pend) != {
            "seat",
            "porrazo_points",
            "limpia_points",
            "cards",
        }:
            raise _fail("pending_porrazo", "must be null or {seat, porrazo_points, limpia_points, cards}")
        pseat = _seat(pend["seat"], "pending_porrazo.seat", n) or 0
        st.pending = (
            pseat,
            _int(pend["porrazo_points"], "pending_porrazo.porrazo_points", 1, 4),
            _int(pend["limpia_points"], "pending_porrazo.limpia_points", 0, 4),
            tuple(_cards(pend["cards"], "pending_porrazo.cards")),
        )
    st.winner = _seat(need("winner", None), "winner", o.sides, nullable=True)
    reason = need("win_reason", None)
    if reason not in (None, "target", "san_benito"):
        raise _fail("win_reason", 'must be null, "target" or "san_benito"')
    st.win_reason = reason
    st.items = _items(need("deal_items", []), "deal_items", o.sides)
    st.prev_items = _items(need("last_deal_items", []), "last_deal_items", o.sides)
    decks = need("decks", [])
    if not isinstance(decks, list) or len(decks) > 1000:
        raise _fail("decks", "must be a list of 52-card decks")
    st.decks = tuple(tuple(_cards(dk, f"decks[{i}]")) for i, dk in enumerate(decks))
    rng_state = need("rng_state", None)
    st.rng_state = None if rng_state is None else rng_state_from_json(rng_state)
    history = need("history", [])
    if not isinstance(history, list):
        raise _fail("history", "must be a list of {seat, action}")
    hand_start = _int(need("hand_start", 0), "hand_start", 0, len(history))
    for i, entry in enumerate(history):
        if i == hand_start:
            st.pub = 0
        if not isinstance(entry, dict) or set(entry) != {"seat", "action"}:
            raise _fail(f"history[{i}]", "must be {seat, action}")
        seat = _seat(entry["seat"], f"history[{i}].seat", n) or 0
        try:
            action = parse_action(entry["action"], n)
        except EngineError as err:
            raise _fail(f"history[{i}].action", err.message) from None
        push_history(st, seat, action)
    if hand_start == len(history):
        st.pub = 0
    st.hand_start = hand_start
    to_act_default: Any = None
    if layout and "to_act" not in d:
        to_act_default = natural_to_act(st)
    to_act = need("to_act", to_act_default)
    st.to_act = _seat(to_act, "to_act", n, nullable=True)
    check_state(st)
    if "played" in d and d["played"] != [codes(played_of(st, s)) for s in range(n)]:
        raise _fail("played", "must list each seat's dealt cards that are no longer in hand (sorted)")
    st.left = sum(len(h) for h in st.hands)
    if canonical:
        _check_canonical(st, d)
    return st


def _check_canonical(st: PState, d: Mapping[str, Any]) -> None:
    """A full state is written exactly as the engine writes it: every field and option
    present, nothing left for the loader to fill in or re-order (a state the engine wrote
    never needs it, so a difference means the document was changed). One older form is
    still read: ``rng_state`` as a JSON integer below 2**53."""
    for key, value in to_json(st).items():
        got = d[key] if key in d else ...
        if got != value and not (key == "rng_state" and type(got) is int):
            raise _fail(key, "must be written as the engine writes it")
