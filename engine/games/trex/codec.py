"""Trex JSON: actions, the state JSON (full and view forms), and reading states, layouts
(partial states) and views back; the rule-implied checks of a loaded state are in ``checks``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.checks import rng_state_from_json, rng_state_to_json
from engine.protocol import JSON, BadAction, EngineError, InvalidSetup, InvalidState

from .checks import check_full_state
from .options import OPTION_SPECS, Opts
from .rules import deal_from
from .scoring import penalty_value
from .state import Entry, TrexState, entries, history_entries_past, kingdom_owner_of, push_past
from .tables import (
    CHOOSE,
    CHOOSE_BASE,
    CODES,
    CONTRACT_NAMES,
    CONTRACT_OF_NAME,
    DEAL,
    DEAL_OVER,
    DOUBLABLE_MASK,
    DOUBLE,
    DOUBLING,
    INDEX_OF_CODE,
    LAYOUT,
    MATCH_OVER,
    PASS,
    PHASE_NAMES,
    PHASE_OF_NAME,
    SEQ_A,
    SEQ_J,
    SEQ_RANKS,
    SEVEN_H,
    SUITS_ORDER,
    TREX,
    TRICKS,
    TWO_MASK,
    codes_of,
    deal_total,
)

ParseOptions = Callable[[Any, int], JSON]
"""The Game's option parser (``Game.parse_options``): raw options and players -> values."""

GAME_ID = "trex"
VERSION = 1
FIELDS_TOP = (
    "game",
    "version",
    "options",
    "players",
    "dealer",
    "phase",
    "to_act",
    "scores",
    "deal_no",
    "history",
    "rng_state",
)


STATE_FIELDS = FIELDS_TOP + (
    "first_owner",
    "kingdom_index",
    "kingdom_owner",
    "contracts_used",
    "contract",
    "hands",
    "doubled",
    "doubling_turn",
    "trick",
    "trick_leader",
    "tricks_played",
    "tricks_won",
    "cards_won",
    "played",
    "layout",
    "finish_order",
    "layout_turns",
    "twos_exposed",
    "exposed_twos",
    "deal_scores",
    "match_scores",
    "deal_results",
    "decks",
)
"""Every field of the full state JSON (a view drops rng_state and decks and adds seat)."""
NULLABLE = frozenset({"to_act", "rng_state", "contract", "trick_leader"})


# ================================================================ the generator state
# Written and read by engine.checks (one rule for every game: a decimal string, below 2**63).
rng_state_json = rng_state_to_json
parse_rng_state = rng_state_from_json


# ================================================================ actions
def parse_action_json(data: Any, *, view: bool = False) -> Any:
    """A JSON action -> the internal action; BadAction naming the field. With ``view``, a
    deal's deck may be a count (as views show it)."""
    if not isinstance(data, dict):
        raise BadAction("an action must be a JSON object", field="action")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise BadAction("an action needs a string field 'type'", field="action.type")
    expected = {
        "play": {"type", "card"},
        "double": {"type", "card"},
        "pass": {"type"},
        "choose": {"type", "contract"},
        "deal": {"type", "deck"},
    }.get(kind)
    if expected is None:
        raise BadAction(
            f"unknown action type {kind!r}: trex actions are choose, double, pass, play and deal",
            field="action.type",
        )
    for key in data:
        if key not in expected:
            raise BadAction(f"unexpected field {key!r} in a {kind} action", field=f"action.{key}")
    for key in expected:
        if key not in data:
            raise BadAction(f"a {kind} action needs the field {key!r}", field=f"action.{key}")
    if kind == "pass":
        return PASS
    if kind in ("play", "double"):
        card = card_index(data["card"], "action.card", BadAction)
        return card if kind == "play" else DOUBLE + card
    if kind == "choose":
        name = data["contract"]
        if not isinstance(name, str) or name not in CONTRACT_OF_NAME:
            raise BadAction(f"unknown contract: {name}", field="action.contract")
        return CHOOSE_BASE + CONTRACT_OF_NAME[name]
    deck = data["deck"]
    if view and deck == 52 and not isinstance(deck, bool):
        return (DEAL, tuple(range(52)))
    if not isinstance(deck, list) or len(deck) != 52:
        raise BadAction("a deal's deck must be a list of the 52 card codes", field="action.deck")
    cards = tuple(card_index(c, "action.deck", BadAction) for c in deck)
    if len(set(cards)) != 52:
        raise BadAction("a deal's deck must hold each card exactly once", field="action.deck")
    return (DEAL, cards)


def _action_json_slow(action: Any, hide_deck: bool = False) -> dict:
    if isinstance(action, tuple):
        return {"type": "deal", "deck": 52 if hide_deck else [CODES[c] for c in action[1]]}
    if action == PASS:
        return {"type": "pass"}
    if action >= CHOOSE_BASE:
        return {"type": "choose", "contract": CONTRACT_NAMES[action - CHOOSE_BASE]}
    if action >= DOUBLE:
        return {"type": "double", "card": CODES[action - DOUBLE]}
    return {"type": "play", "card": CODES[action]}


_ACTION_JSON: dict[Any, dict] = {
    a: _action_json_slow(a)
    for a in [*range(53), *range(DOUBLE, DOUBLE + 52), *range(CHOOSE_BASE, CHOOSE_BASE + 6)]
}
_FAST_PARSE: dict[tuple, Any] = {
    (j["type"], j.get("card", j.get("contract"))): a for a, j in _ACTION_JSON.items()
}


def action_json(action: Any, *, hide_deck: bool = False) -> dict:
    """The JSON form of an internal action."""
    if type(action) is int:
        return _ACTION_JSON[action].copy()
    return _action_json_slow(action, hide_deck)


def card_index(
    code: Any, field: str, error: type[InvalidState] | type[InvalidSetup] | type[BadAction] = InvalidState
) -> int:
    """The Trex index of a card code; ``error`` naming ``field`` if it is not one."""
    if isinstance(code, str):
        c = INDEX_OF_CODE.get(code)
        if c is not None:
            return c
    raise error(f"no such card in the Trex pack: {code!r}", field=field)


# ================================================================ state -> JSON
def layout_json(s: TrexState) -> dict:
    out: dict[str, Any] = {}
    for suit, letter in enumerate(SUITS_ORDER):
        m = (s.table >> (13 * suit)) & 0x1FFF
        if not m:
            out[letter] = None
        else:
            low = (m & -m).bit_length() - 1
            high = m.bit_length() - 1
            out[letter] = {"low": SEQ_RANKS[low], "high": SEQ_RANKS[high]}
    return out


def entry_json(e: tuple, *, hide_deck: bool) -> dict:
    a = e[1]
    return {
        "seat": e[0],
        "action": _ACTION_JSON[a].copy() if type(a) is int else _action_json_slow(a, hide_deck),
    }


def past_json(s: TrexState) -> list[dict]:
    """The JSON entries of earlier deals (cached on the state: ``past`` never changes in place,
    so clones share the cache; entries are shared between outputs and must not be mutated)."""
    if s.past_json is None:
        s.past_json = [entry_json(e, hide_deck=False) for e in history_entries_past(s)]
    return list(s.past_json)


def played_json(e: tuple) -> dict:
    out = {"seat": e[0], "action": action_json(e[1])}
    if e[2]:
        out["trick"] = e[2]
    return out


def state_json(s: TrexState, view_seat: int | None = None) -> dict:
    """The state JSON; with ``view_seat`` the view of that seat (hidden cards as counts)."""
    opts = s.opts
    hide = view_seat is not None
    match_scores = list(s.match_scores)
    if opts.partnership:
        scores = [match_scores[0] + match_scores[2], match_scores[1] + match_scores[3]]
    else:
        scores = match_scores[:]
    hands: list[Any] = []
    for i in range(4):
        if hide and i != view_seat:
            hands.append(s.hands[i].bit_count())
        else:
            hands.append(codes_of(s.hands[i]))
    phase = s.phase
    out: dict[str, Any] = {
        "game": GAME_ID,
        "version": VERSION,
        "options": dict(opts.raw),
        "players": 4,
        "dealer": s.dealer,
        "phase": PHASE_NAMES[phase],
        "to_act": None if s.to_act < 0 else s.to_act,
        "scores": scores,
        "deal_no": s.deal_no,
        # a view's history is the current deal's only: earlier deals' cards are back in hands
        # (their results stay in deal_results)
        "history": (
            [entry_json(e, hide_deck=True) for e in entries(s.played)]
            if hide
            else past_json(s) + [entry_json(e, hide_deck=False) for e in entries(s.played)]
        ),
    }
    if not hide:
        out["rng_state"] = rng_state_json(s.rng_state)
    out.update(
        {
            "first_owner": s.first_owner,
            "kingdom_index": s.kingdom_index,
            "kingdom_owner": s.owner,
            "contracts_used": [CONTRACT_NAMES[c] for c in s.contracts_used],
            "contract": CONTRACT_NAMES[s.contract] if s.contract >= 0 else None,
            "hands": hands,
            "doubled": {CODES[c]: d for c, d in s.doubled},
            "doubling_turn": s.doubling_turn,
            "trick": [{"seat": (s.leader + i) & 3, "card": CODES[c]} for i, c in enumerate(s.trick)],
            "trick_leader": s.leader if phase == TRICKS else None,
            "tricks_played": s.tricks_played,
            "tricks_won": list(s.tricks_won),
            "cards_won": [codes_of(m) for m in s.cards_won],
            "played": [played_json(e) for e in entries(s.played)],
            "layout": layout_json(s),
            "finish_order": list(s.finish_order),
            "layout_turns": s.layout_turns,
            "twos_exposed": s.twos_exposed,
            "exposed_twos": [codes_of(s.hands[i] & TWO_MASK) if s.twos_exposed else [] for i in range(4)],
            "deal_scores": list(s.deal_scores),
            "match_scores": match_scores,
            "deal_results": [
                {"deal_no": n, "owner": o, "contract": CONTRACT_NAMES[c], "scores": list(sc)}
                for n, o, c, sc in s.deal_results
            ],
        }
    )
    if hide:
        out["seat"] = view_seat
    else:
        out["decks"] = [[CODES[c] for c in d] for d in s.decks]
    return out


def parse_deck(deck: Any, field: str, error: type[InvalidSetup] | type[InvalidState]) -> list[int]:
    """A deck of 52 distinct codes (top first) -> card indices; ``error`` naming ``field``."""
    if not isinstance(deck, list) or len(deck) != 52:
        raise error("a deck must be a list of the 52 card codes, top first", field=field)
    cards = [card_index(c, field, error) for c in deck]
    if len(set(cards)) != 52:
        raise error("a deck must hold each card exactly once", field=field)
    return cards


# ================================================================ JSON -> state
class _Reader:
    """Field access for one incoming JSON object: strict (every field) or partial (layout)."""

    def __init__(self, data: Any, partial: bool) -> None:
        if not isinstance(data, dict):
            raise InvalidState("a state must be a JSON object", field="state")
        self.data = data
        self.partial = partial

    def has(self, name: str) -> bool:
        return name in self.data

    def raw(self, name: str, default: Any = None) -> Any:
        if name in self.data:
            return self.data[name]
        if not self.partial:
            raise InvalidState(f"missing field {name!r}", field=name)
        return default

    def int(self, name: str, lo: int, hi: int, default: Any = None, *, nullable: bool = False) -> Any:
        v = self.raw(name, default)
        return check_int(v, name, lo, hi, nullable=nullable)


def check_int(v: Any, name: str, lo: int, hi: int, *, nullable: bool = False) -> Any:
    if v is None and nullable:
        return None
    if isinstance(v, bool) or not isinstance(v, int):
        raise InvalidState(f"{name} must be a whole number", field=name)
    if not lo <= v <= hi:
        raise InvalidState(f"{name} must be between {lo} and {hi}", field=name)
    return v


def check_list(v: Any, name: str, length: int | None = None) -> list[Any]:
    if not isinstance(v, list):
        raise InvalidState(f"{name} must be a list", field=name)
    if length is not None and len(v) != length:
        raise InvalidState(f"{name} must have {length} entries", field=name)
    return v


def check_cards(v: Any, name: str, canonical: bool = False) -> int:
    """A list of codes -> mask; duplicates rejected (and, with ``canonical``, any order but
    the canonical one: a full state or view lists cards as the engine writes them)."""
    check_list(v, name)
    m = 0
    for code in v:
        b = 1 << card_index(code, name)
        if m & b:
            raise InvalidState(f"{name} lists {code} twice", field=name)
        m |= b
    if canonical and codes_of(m) != v:
        raise InvalidState(
            f"{name} must list its cards in canonical order (suits S H D C, ranks 2..A)", field=name
        )
    return m


def contract_of(v: Any, name: str, opts: Opts) -> int:
    if not isinstance(v, str) or v not in CONTRACT_OF_NAME or CONTRACT_OF_NAME[v] not in opts.contract_set:
        raise InvalidState(f"{name}: unknown contract {v!r} for these options", field=name)
    return CONTRACT_OF_NAME[v]


def parse_entries(v: Any, name: str, view: bool) -> list[Entry]:
    out: list[Entry] = []
    lookup = _FAST_PARSE
    for i, e in enumerate(check_list(v, name)):
        # fast path for the common, well-formed entry
        if type(e) is dict and len(e) == 2:
            seat = e.get("seat")
            a = e.get("action")
            if type(seat) is int and 0 <= seat <= 3 and type(a) is dict:
                n = len(a)
                x = a.get("card", a.get("contract")) if n == 2 else None
                kind = a.get("type")
                if type(kind) is str and (type(x) is str or n == 1):
                    action = lookup.get((kind, x))
                    if action is not None:
                        out.append((seat, action, 0))
                        continue
        where = f"{name}[{i}]"
        if (
            not isinstance(e, dict)
            or not {"seat", "action"} <= set(e)
            or not set(e) <= {"seat", "action", "trick"}
        ):
            raise InvalidState(f"{where} must be an object with seat and action", field=where)
        seat = check_int(e["seat"], f"{where}.seat", 0, 3)
        try:
            action = parse_action_json(e["action"], view=view)
        except BadAction as err:
            raise InvalidState(f"{where}.action: {err.message}", field=f"{where}.action") from None
        trick = check_int(e.get("trick", 0), f"{where}.trick", 0, 13)
        if trick and (isinstance(action, tuple) or action >= PASS):
            raise InvalidState(f"{where}: only a trick play has a trick number", field=where)
        out.append((seat, action, trick))
    return out


def check_fields(data: dict[str, Any], view: bool) -> None:
    """A full state (or view) has exactly its fields, and null only where allowed."""
    want = set(STATE_FIELDS) - ({"rng_state", "decks"} if view else set()) | ({"seat"} if view else set())
    for key in sorted(want - set(data)):
        raise InvalidState(f"missing field {key!r}", field=key)
    for key in sorted(set(data) - want):
        raise InvalidState(f"unknown field {key!r}", field=key)
    for key in sorted(want - NULLABLE):
        if data[key] is None:
            raise InvalidState(f"{key} may not be null", field=key)


def load_options(r: _Reader, partial: bool, parse_options: ParseOptions) -> Opts:
    """The game, version and options fields -> the parsed options."""
    if r.raw("game", GAME_ID) != GAME_ID:
        raise InvalidState("game must be 'trex'", field="game")
    version = r.raw("version", VERSION)
    if version != VERSION or isinstance(version, bool):
        raise InvalidState(f"version must be {VERSION}", field="version")
    try:
        opts = Opts(parse_options(r.raw("options", {}), 4))
    except EngineError as err:
        raise InvalidState(err.message, field=getattr(err, "field", None) or "options") from None
    if not partial:
        if not isinstance(r.data["options"], dict):
            raise InvalidState("options must be an object", field="options")
        missing = [sp.name for sp in OPTION_SPECS if sp.name not in r.data["options"]]
        if missing:
            raise InvalidState(f"options.{missing[0]} is missing", field=f"options.{missing[0]}")
    return opts


def load_layout(r: _Reader, contract: int, seen: int) -> tuple[int, int]:
    """R15: the layout field -> (cards on the layout, cards that fit it now)."""
    table = 0
    layout_raw = r.raw("layout", None)
    if layout_raw is not None:
        if not isinstance(layout_raw, dict) or set(layout_raw) != set(SUITS_ORDER):
            raise InvalidState("layout must map each of S, H, D, C to null or {low, high}", field="layout")
        for suit, letter in enumerate(SUITS_ORDER):
            rng = layout_raw[letter]
            if rng is None:
                continue
            where = f"layout.{letter}"
            if not isinstance(rng, dict) or set(rng) != {"low", "high"}:
                raise InvalidState(f"{where} must be null or {{low, high}}", field=where)
            lo, hi = rng["low"], rng["high"]
            if not (
                isinstance(lo, str)
                and isinstance(hi, str)
                and len(lo) == 1
                and len(hi) == 1
                and lo in SEQ_RANKS
                and hi in SEQ_RANKS
            ):
                raise InvalidState(f"{where}: low and high are ranks 2-9 T J Q K A", field=where)
            lo_i, hi_i = SEQ_RANKS.index(lo), SEQ_RANKS.index(hi)
            if not lo_i <= SEQ_J <= hi_i:
                raise InvalidState(f"{where}: a range runs from low up to high through the jack", field=where)
            for q in range(lo_i, hi_i + 1):
                table |= 1 << (suit * 13 + q)
    if table and contract != TREX:
        raise InvalidState("only the trex contract has a layout", field="layout")
    if table & seen:
        raise InvalidState("a layout card is also in a hand or trick", field="layout")
    lay = 0
    for suit in range(4):
        m = (table >> (13 * suit)) & 0x1FFF
        if not m:
            lay |= 1 << (suit * 13 + SEQ_J)
        else:
            lo_i, hi_i = (m & -m).bit_length() - 1, m.bit_length() - 1
            if lo_i > 0:
                lay |= 1 << (suit * 13 + lo_i - 1)
            if hi_i < SEQ_A:
                lay |= 1 << (suit * 13 + hi_i + 1)
    return table, lay


def load_state(
    data: Any,
    parse_options: ParseOptions,
    *,
    partial: bool,
    view: bool,
    options_override: Opts | None = None,
    defaults: dict[str, Any] | None = None,
) -> tuple[TrexState, list[int], int | None]:
    """Validate a full state (``partial`` False), a layout (``partial``) or a view (``view``)
    and build the internal state. Returns ``(state, hand_counts, view_seat)``; for a view the
    hidden hands hold only the cards the view pins to them (doubled cards, exposed 2s)."""

    r = _Reader(data, partial)
    if not partial:
        check_fields(r.data, view)
    if defaults:
        for key, v in defaults.items():
            if key not in r.data:
                r.data = {**r.data, key: v}
    opts = options_override if options_override is not None else load_options(r, partial, parse_options)
    if r.raw("players", 4) != 4 or isinstance(r.raw("players", 4), bool):
        raise InvalidState("Trex needs exactly 4 players", field="players")
    view_seat = None
    if view:
        view_seat = check_int(r.data.get("seat"), "seat", 0, 3)
    elif "seat" in r.data:
        raise InvalidState("a state has no field 'seat' (that is a view)", field="seat")
    s = TrexState(opts)
    s.deal_no = r.int("deal_no", 1, opts.total_deals, 1)
    phase_name = r.raw("phase", None)
    # ---- hands
    hands_raw = check_list(r.raw("hands"), "hands", 4) if not partial or r.has("hands") else None
    counts = [0, 0, 0, 0]
    hands = [0, 0, 0, 0]
    seen = 0
    if hands_raw is not None:
        for i, h in enumerate(hands_raw):
            if view and i != view_seat:
                counts[i] = check_int(h, f"hands[{i}]", 0, 13)
                continue
            m = check_cards(h, f"hands[{i}]", not partial)
            if m.bit_count() > 13:
                raise InvalidState(f"hands[{i}] holds more than 13 cards", field=f"hands[{i}]")
            if m & seen:
                raise InvalidState(f"hands[{i}]: a card is in two places", field=f"hands[{i}]")
            seen |= m
            hands[i] = m
            counts[i] = m.bit_count()
    # ---- contract and phase
    contract_raw = r.raw("contract", None)
    contract = -1 if contract_raw is None else contract_of(contract_raw, "contract", opts)
    used_raw = r.raw("contracts_used", [contract_raw] if contract_raw is not None else [])
    used = tuple(
        contract_of(c, f"contracts_used[{i}]", opts)
        for i, c in enumerate(check_list(used_raw, "contracts_used"))
    )
    if len(set(used)) != len(used):
        raise InvalidState("contracts_used lists a contract twice", field="contracts_used")
    if contract >= 0 and (not used or used[-1] != contract):
        raise InvalidState("contracts_used must end with the current contract", field="contracts_used")
    position = (s.deal_no - 1) % opts.deals_per_kingdom
    if len(used) != position + (1 if contract >= 0 else 0):
        raise InvalidState(
            f"contracts_used must list {position + (contract >= 0)} contracts at deal {s.deal_no} "
            f"(deal {position + 1} of its kingdom)",
            field="contracts_used",
        )
    if phase_name is None:
        if contract < 0:
            phase_name = "choose_contract"
        elif contract == TREX:
            phase_name = "layout"
        elif (
            opts.doubling
            and DOUBLABLE_MASK[contract]
            and r.raw("doubling_turn", 0) != 4
            and not r.raw("trick", [])
            and not r.raw("tricks_played", 0)
        ):
            phase_name = "doubling"
        else:
            phase_name = "tricks"
    if not isinstance(phase_name, str) or phase_name not in PHASE_OF_NAME:
        raise InvalidState(f"unknown phase {phase_name!r}", field="phase")
    phase = PHASE_OF_NAME[phase_name]
    s.phase = phase
    if (phase == CHOOSE) != (contract < 0):
        raise InvalidState("contract must be null exactly in phase choose_contract", field="contract")
    if phase == DOUBLING and not (opts.doubling and DOUBLABLE_MASK[contract]):
        raise InvalidState(f"no doubling phase in {CONTRACT_NAMES[contract]}", field="phase")
    if phase in (DOUBLING, TRICKS) and contract == TREX or phase == LAYOUT and contract != TREX:
        raise InvalidState(f"phase {phase_name} does not fit contract {contract_raw}", field="phase")
    if phase == MATCH_OVER and s.deal_no != opts.total_deals:
        raise InvalidState("match_over only after the last deal", field="phase")
    s.contract = contract
    s.contracts_used = used
    # ---- owner, dealer
    k = (s.deal_no - 1) // opts.deals_per_kingdom
    if r.has("first_owner"):
        first_owner = r.int("first_owner", 0, 3)
    elif r.has("kingdom_owner"):
        first_owner = (r.int("kingdom_owner", 0, 3) - k) & 3
    elif s.deal_no == 1:
        first_owner = next((i for i in range(4) if hands[i] >> SEVEN_H & 1), 0)
    elif r.has("dealer"):
        first_owner = (r.int("dealer", 0, 3) - k) & 3
    else:
        first_owner = 0
    s.first_owner = first_owner
    owner = s.owner
    if r.has("kingdom_index") and r.int("kingdom_index", 0, 3) != k:
        raise InvalidState(f"kingdom_index must be {k} at deal {s.deal_no}", field="kingdom_index")
    if r.has("kingdom_owner") and r.int("kingdom_owner", 0, 3) != owner:
        raise InvalidState(f"kingdom_owner must be {owner} (R5)", field="kingdom_owner")
    s.dealer = r.int("dealer", 0, 3, owner if s.deal_no > 1 else 0)
    if s.deal_no > 1 and s.dealer != owner:
        raise InvalidState(f"dealer must be the kingdom owner {owner} from deal 2 on (R4)", field="dealer")
    # ---- doubled
    doubled_raw = r.raw("doubled", {})
    if not isinstance(doubled_raw, dict):
        raise InvalidState("doubled must be an object card -> seat", field="doubled")
    doubled = []
    dmask = 0
    for code, d in doubled_raw.items():
        c = card_index(code, "doubled")
        d = check_int(d, f"doubled.{code}", 0, 3)
        if contract < 0 or not DOUBLABLE_MASK[contract] >> c & 1 or not opts.doubling:
            raise InvalidState(f"{code} cannot be doubled here", field="doubled")
        doubled.append((c, d))
        dmask |= 1 << c
    s.doubled = tuple(doubled)
    s.dbl_mask = dmask
    s.doubling_turn = r.int(
        "doubling_turn",
        0,
        4,
        4
        if phase not in (CHOOSE, DOUBLING) and contract >= 0 and opts.doubling and DOUBLABLE_MASK[contract]
        else 0,
    )
    if phase == DOUBLING and s.doubling_turn == 4 or phase == CHOOSE and (s.doubling_turn or doubled):
        raise InvalidState("doubling_turn does not fit the phase", field="doubling_turn")
    if phase == DOUBLING:
        had_turn = {(owner + i) & 3 for i in range(s.doubling_turn + 1)}
        for _, d in doubled:
            if d not in had_turn:
                raise InvalidState(f"seat {d} has not had its doubling turn yet (R7)", field="doubled")
    # ---- trick play
    trick_raw = check_list(r.raw("trick", []), "trick")
    if len(trick_raw) > 3 or trick_raw and phase != TRICKS:
        raise InvalidState("trick holds 0 to 3 cards, only in phase tricks", field="trick")
    trick = []
    trick_seats = []
    for i, t in enumerate(trick_raw):
        if not isinstance(t, dict) or set(t) != {"seat", "card"}:
            raise InvalidState(f"trick[{i}] must be an object with seat and card", field=f"trick[{i}]")
        trick_seats.append(check_int(t["seat"], f"trick[{i}].seat", 0, 3))
        trick.append(card_index(t["card"], f"trick[{i}].card"))
    tricks_won_raw = r.raw("tricks_won", None)
    if tricks_won_raw is not None:
        tricks_won = [
            check_int(v, f"tricks_won[{i}]", 0, 13)
            for i, v in enumerate(check_list(tricks_won_raw, "tricks_won", 4))
        ]
    else:
        tricks_won = None
    tp_default = sum(tricks_won) if tricks_won is not None else None
    # leader
    if phase == TRICKS:
        if trick_seats:
            leader = trick_seats[0]
        else:
            leader = r.int("trick_leader", 0, 3, r.raw("to_act", owner), nullable=False)
        for i, st in enumerate(trick_seats):
            if st != (leader + i) & 3:
                raise InvalidState("trick seats must follow each other from the leader", field="trick")
        if r.has("trick_leader") and r.data["trick_leader"] != leader:
            raise InvalidState(
                "trick_leader must be the seat of the trick's first card", field="trick_leader"
            )
    else:
        leader = owner
        if r.data.get("trick_leader") is not None:
            raise InvalidState("trick_leader is null outside phase tricks", field="trick_leader")
    s.leader = leader
    s.trick = trick
    tmask = 0
    for c in trick:
        if (seen | tmask) >> c & 1:
            raise InvalidState(f"{CODES[c]} is in two places", field="trick")
        tmask |= 1 << c
    if trick:
        best = trick[0]
        best_seat = leader
        for i, c in enumerate(trick):
            if c // 13 == trick[0] // 13 and c > best:
                best, best_seat = c, (leader + i) & 3
        s.best, s.best_seat = best, best_seat
    seen |= tmask
    # ---- layout
    table, s.lay_mask = load_layout(r, contract, seen)
    seen |= table
    s.table = table
    # ---- cards won
    cw_raw = r.raw("cards_won", None)
    if cw_raw is not None:
        cards_won = [
            check_cards(v, f"cards_won[{i}]", not partial)
            for i, v in enumerate(check_list(cw_raw, "cards_won", 4))
        ]
        for i, m in enumerate(cards_won):
            if m & seen:
                raise InvalidState(f"cards_won[{i}]: a card is in two places", field=f"cards_won[{i}]")
            seen |= m
        if tricks_won is None:
            tricks_won = [m.bit_count() // 4 for m in cards_won]
    else:
        cards_won = None
    if contract == TREX or phase in (CHOOSE, DOUBLING):
        if cards_won is not None and any(cards_won) or tricks_won is not None and any(tricks_won):
            raise InvalidState("no tricks are won in this phase or contract", field="tricks_won")
        cards_won = [0, 0, 0, 0]
        tricks_won = [0, 0, 0, 0]
    tricks_played = r.int("tricks_played", 0, 13, tp_default, nullable=partial)
    hidden_total = sum(counts[i] for i in range(4) if view and i != view_seat)
    if cards_won is None:
        # layout shorthand: every card not in a hand or the trick went in earlier tricks
        missing = [c for c in range(52) if not seen >> c & 1]
        n_missing = len(missing) - hidden_total
        if hands_raw is None:
            raise InvalidState("hands are required", field="hands")
        if tricks_played is None:
            tricks_played = n_missing // 4
        if tricks_won is None:
            tricks_won = [0, 0, 0, 0]
            tricks_won[leader] = tricks_played
        cards_won = [0, 0, 0, 0]
        pos = 0
        for i in range(4):
            for c in missing[pos : pos + 4 * tricks_won[i]]:
                cards_won[i] |= 1 << c
            pos += 4 * tricks_won[i]
        for m in cards_won:
            seen |= m
    if tricks_won is None:  # not reached: set from cards_won or by the shorthand above
        raise InvalidState("tricks_won is required", field="tricks_won")
    if tricks_played is None:
        tricks_played = sum(tricks_won)
    if sum(tricks_won) != tricks_played:
        raise InvalidState("tricks_played must be the sum of tricks_won", field="tricks_played")
    for i in range(4):
        if cards_won[i].bit_count() != 4 * tricks_won[i]:
            raise InvalidState(f"cards_won[{i}] must hold 4 cards per trick won", field=f"cards_won[{i}]")
    s.tricks_won = tricks_won
    s.cards_won = cards_won
    s.tricks_played = tricks_played
    taken = cards_won[0] | cards_won[1] | cards_won[2] | cards_won[3]
    s.taken = taken
    # ---- conservation and hand sizes
    if hands_raw is None:
        raise InvalidState("hands are required", field="hands")
    if seen.bit_count() + hidden_total != 52:
        raise InvalidState(
            f"every card must be exactly once in hands, trick, cards_won or layout "
            f"({seen.bit_count() + hidden_total} of 52 found)",
            field="hands",
        )
    if phase in (CHOOSE, DOUBLING) and any(n != 13 for n in counts):
        raise InvalidState("each hand holds 13 cards before play", field="hands")
    if contract != TREX and phase in (TRICKS, DEAL_OVER, MATCH_OVER):
        for i in range(4):
            want = 13 - tricks_played - (1 if i in trick_seats else 0)
            if counts[i] != want:
                raise InvalidState(
                    f"hands[{i}] must hold {want} cards after {tricks_played} tricks",
                    field=f"hands[{i}]",
                )
    # ---- doubled cards: in the doubler's hand or already played
    for c, d in s.doubled:
        b = 1 << c
        if view and d != view_seat and not seen & b:
            hands[d] |= b  # pinned: a doubled card stays with its doubler until played
            seen |= b
            continue
        if seen & b and not (hands[d] | tmask | taken) & b:
            raise InvalidState(f"doubled {CODES[c]} is not in its doubler's hand", field="doubled")
        if not seen & b:
            raise InvalidState(f"doubled {CODES[c]} is nowhere", field="doubled")
    # ---- Trex layout fields
    fo_raw = check_list(r.raw("finish_order", []), "finish_order")
    fo = [check_int(v, f"finish_order[{i}]", 0, 3) for i, v in enumerate(fo_raw)]
    if len(set(fo)) != len(fo):
        raise InvalidState("finish_order lists a seat twice", field="finish_order")
    if fo and contract != TREX:
        raise InvalidState("finish_order is only for the trex contract", field="finish_order")
    s.finish_order = fo
    s.layout_turns = r.int("layout_turns", 0, 10_000, table.bit_count())
    if s.layout_turns < table.bit_count():
        raise InvalidState("layout_turns is less than the cards on the layout", field="layout_turns")
    if contract == TREX and phase == LAYOUT:
        if len(fo) > 2:
            raise InvalidState("the deal ends when three seats are out (R17)", field="finish_order")
        for i in range(4):
            if (counts[i] == 0) != (i in fo):
                raise InvalidState(
                    "finish_order must list exactly the seats without cards", field="finish_order"
                )
    if contract == TREX and phase in (DEAL_OVER, MATCH_OVER) and len(fo) != 4:
        raise InvalidState("a finished trex deal has all four seats in finish_order", field="finish_order")
    exposed = opts.partnership and contract == TREX and s.layout_turns >= 4
    if r.has("twos_exposed") and r.data["twos_exposed"] is not exposed:
        raise InvalidState(f"twos_exposed must be {str(exposed).lower()} (R18)", field="twos_exposed")
    s.twos_exposed = exposed
    et_raw = r.raw("exposed_twos", None)
    if et_raw is not None:
        et = [
            check_cards(v, f"exposed_twos[{i}]", not partial)
            for i, v in enumerate(check_list(et_raw, "exposed_twos", 4))
        ]
        for i in range(4):
            if et[i] & ~TWO_MASK or et[i] and not exposed:
                raise InvalidState("exposed_twos lists only exposed 2s (R18)", field="exposed_twos")
            if view and i != view_seat:
                if et[i] & seen:
                    raise InvalidState("an exposed 2 is also elsewhere", field="exposed_twos")
                hands[i] |= et[i]
                seen |= et[i]
            elif et[i] != (hands[i] & TWO_MASK if exposed else 0):
                raise InvalidState(f"exposed_twos[{i}] must list the 2s of hands[{i}]", field="exposed_twos")
    elif exposed and view:
        raise InvalidState("exposed_twos is required once the 2s are exposed", field="exposed_twos")
    if view:
        for i in range(4):
            if i != view_seat and hands[i].bit_count() > counts[i]:
                raise InvalidState(
                    f"hands[{i}] holds fewer cards than are known to be there", field=f"hands[{i}]"
                )
    s.hands = hands
    # ---- to_act
    if phase == CHOOSE:
        want = owner
    elif phase == DOUBLING:
        want = (owner + s.doubling_turn) & 3
    elif phase == TRICKS:
        want = (leader + len(trick)) & 3
    elif phase == LAYOUT:
        want = check_int(r.raw("to_act", owner), "to_act", 0, 3)
        if counts[want] == 0:
            raise InvalidState("to_act has gone out", field="to_act")
    elif phase == DEAL_OVER:
        want = kingdom_owner_of(first_owner, s.deal_no + 1, opts) if s.deal_no < opts.total_deals else -1
        if want < 0:
            raise InvalidState("deal_over cannot follow the last deal", field="phase")
    else:
        want = -1
    got = r.raw("to_act", None if want < 0 else want)
    if got != (None if want < 0 else want) or isinstance(got, bool):
        raise InvalidState(f"to_act must be {None if want < 0 else want} in this position", field="to_act")
    s.to_act = want
    # ---- deal 1: R3 (the owner holds 7H until it is played)
    if s.deal_no == 1 and hands_raw is not None and not view:
        holder = next((i for i in range(4) if hands[i] >> SEVEN_H & 1), None)
        if holder is not None and holder != first_owner:
            raise InvalidState("in deal 1 the first owner is the holder of 7H (R3)", field="first_owner")
    if view and s.deal_no == 1 and not seen >> SEVEN_H & 1 and view_seat != first_owner:
        hands[first_owner] |= 1 << SEVEN_H
        seen |= 1 << SEVEN_H
        if hands[first_owner].bit_count() > counts[first_owner]:
            raise InvalidState("the first owner must still hold 7H (R3)", field="first_owner")
    elif view and s.deal_no == 1 and not seen >> SEVEN_H & 1:
        raise InvalidState("the first owner must hold 7H in deal 1 (R3)", field="first_owner")
    # ---- scores
    s.deal_scores = [
        check_int(v, f"deal_scores[{i}]", -10_000, 10_000)
        for i, v in enumerate(check_list(r.raw("deal_scores", [0, 0, 0, 0]), "deal_scores", 4))
    ]
    s.match_scores = [
        check_int(v, f"match_scores[{i}]", -(10**7), 10**7)
        for i, v in enumerate(check_list(r.raw("match_scores", [0, 0, 0, 0]), "match_scores", 4))
    ]
    if r.has("scores"):
        ms = s.match_scores
        want_scores = [ms[0] + ms[2], ms[1] + ms[3]] if opts.partnership else ms
        if r.data["scores"] != want_scores:
            raise InvalidState("scores must be the match totals per side", field="scores")
    total = sum(s.deal_scores)
    if contract == TREX:
        want_total = deal_total(TREX, opts.swap) if phase != LAYOUT else 0
    elif contract >= 0:
        want_total = -penalty_value(s, taken)
    else:
        want_total = 0
    want_total *= opts.sign
    if total != want_total:
        raise InvalidState(
            f"deal_scores must sum to {want_total} for the cards taken (S9)", field="deal_scores"
        )
    dr = []
    for i, e in enumerate(check_list(r.raw("deal_results", []), "deal_results")):
        where = f"deal_results[{i}]"
        if not isinstance(e, dict) or set(e) != {"deal_no", "owner", "contract", "scores"}:
            raise InvalidState(f"{where} must have deal_no, owner, contract, scores", field=where)
        sc = check_list(e["scores"], f"{where}.scores", 4)
        dr.append(
            (
                check_int(e["deal_no"], f"{where}.deal_no", 1, opts.total_deals),
                check_int(e["owner"], f"{where}.owner", 0, 3),
                contract_of(e["contract"], f"{where}.contract", opts),
                tuple(check_int(v, f"{where}.scores", -10_000, 10_000) for v in sc),
            )
        )
    s.deal_results = tuple(dr)
    load_history(r, s, view)
    if not partial and not view:
        check_full_state(s, state_json)
    return s, counts, view_seat


def load_history(r: _Reader, s: TrexState, view: bool) -> None:
    """The generator, the decks still to deal, this deal's ``played`` and the match history."""
    rs = r.raw("rng_state", None) if not view else None
    if view and "rng_state" in r.data:
        raise InvalidState("a view has no rng_state", field="rng_state")
    s.rng_state = None if rs is None else parse_rng_state(rs)
    decks = []
    for i, d in enumerate(check_list(r.raw("decks", []) if not view else [], "decks")):
        cards = tuple(card_index(c, f"decks[{i}]") for c in check_list(d, f"decks[{i}]", 52))
        if len(set(cards)) != 52:
            raise InvalidState(f"decks[{i}] must hold each card once", field=f"decks[{i}]")
        decks.append(cards)
    s.decks = tuple(decks)
    played = parse_entries(r.raw("played", []), "played", view)
    hist = parse_entries(
        r.raw("history", [{"seat": e[0], "action": action_json(e[1])} for e in played]),
        "history",
        view,
    )
    if view and len(hist) != len(played):
        raise InvalidState("a view's history is the current deal's played entries", field="history")
    if len(played) > len(hist) or [e[:2] for e in hist[len(hist) - len(played) :]] != [e[:2] for e in played]:
        raise InvalidState("history must end with this deal's played entries", field="history")
    prefix = hist[: len(hist) - len(played)]
    if prefix:
        chunk: Any = None  # a cons list (previous, seat, action, trick_no)
        for e in prefix:
            chunk = (chunk, e[0], e[1], 0)
        push_past(s, chunk)
    cons: Any = None
    for e in played:
        cons = (cons, *e)
    s.played = cons


def state_from_layout(layout: Any, options: Any, dealer: int, parse_options: ParseOptions) -> TrexState:
    """A state from a layout (a partial state, ``new_state(layout=...)``): the request's
    ``options`` must agree with the layout's own; a layout without hands but with ``decks``
    (or ``deck``) is dealt from its first deck, the rest kept for the later deals."""
    if not isinstance(layout, dict):
        raise InvalidSetup("layout must be a JSON object (a partial state)", field="layout")
    data = dict(layout)
    if options is not None:
        parsed = parse_options(options, 4)
        if "options" in data and parse_options(data["options"], 4) != parsed:
            raise InvalidSetup("options differ between the request and the layout", field="options")
        data["options"] = parsed
    deals_left = None
    if "hands" not in data and ("decks" in data or "deck" in data):
        # shorthand: deal the layout's deal from its first deck
        decks = data.pop("decks", None)
        if "deck" in data:
            decks = [data.pop("deck")] + list(decks or [])
        if not isinstance(decks, list) or not decks:
            raise InvalidState("decks must be a non-empty list of decks", field="decks")
        deals_left = decks
        data["decks"] = decks[1:]
    data.setdefault("dealer", dealer)
    if deals_left is not None:
        first = parse_deck(deals_left[0], "decks[0]", InvalidState)
        tmp = Opts(parse_options(data.get("options"), 4))
        deal_no = data.get("deal_no", 1)
        if not isinstance(deal_no, int) or isinstance(deal_no, bool) or not 1 <= deal_no <= tmp.total_deals:
            raise InvalidState("deal_no is out of range", field="deal_no")
        d = data["dealer"]
        if isinstance(d, bool) or not isinstance(d, int) or not 0 <= d <= 3:
            raise InvalidState("dealer must be a seat 0-3", field="dealer")
        data["hands"] = [codes_of(m) for m in deal_from(first, d)]
    return load_state(data, parse_options, partial=True, view=False)[0]
