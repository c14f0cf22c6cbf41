"""Trex JSON: actions, the state JSON (full and view forms), and reading states, layouts
(partial states) and views back; the rule-implied checks of a loaded state are in ``checks``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.checks import rng_state_from_json, rng_state_to_json
from engine.protocol import JSON, BadAction, EngineError, InvalidSetup, InvalidState

from .checks import (
    check_canonical,
    check_cards_conserved,
    check_cards_won_apart,
    check_contracts_used,
    check_deal_scores,
    check_dealer,
    check_doublable,
    check_doubled_card,
    check_doubling_turn,
    check_exposed_twos,
    check_finish_order,
    check_first_owner_holds_7h,
    check_first_owner_keeps_7h,
    check_full_state,
    check_hand,
    check_history_ends_with_played,
    check_kingdom,
    check_known_cards_fit,
    check_layout,
    check_layout_range,
    check_layout_turns,
    check_no_trick_leader,
    check_no_tricks_won,
    check_phase,
    check_scores,
    check_seats_out,
    check_to_act,
    check_trick_cards,
    check_trick_seats,
    check_trick_size,
    check_tricks_won,
    check_twos_exposed,
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
    CONTRACT_OF_NAME,
    DEAL,
    DOUBLABLE_MASK,
    DOUBLE,
    DOUBLING,
    INDEX_OF_CODE,
    LAYOUT,
    PASS,
    PHASE_NAMES,
    PHASE_OF_NAME,
    SEQ_RANKS,
    SEVEN_H,
    SUITS_ORDER,
    TREX,
    TRICKS,
    TWO_MASK,
    cards_of,
    codes_of,
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

    def given(self, name: str, lo: int, hi: int) -> Any:
        """The whole number ``name`` if the document gives it, else None."""
        return self.int(name, lo, hi) if name in self.data else None

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


def read_cards(v: Any, name: str, canonical: bool = False) -> int:
    """A list of codes -> mask; duplicates rejected (with ``canonical``, as ``check_canonical``)."""
    check_list(v, name)
    m = 0
    for code in v:
        b = 1 << card_index(code, name)
        if m & b:
            raise InvalidState(f"{name} lists {code} twice", field=name)
        m |= b
    if canonical:
        check_canonical(v, m, name)
    return m


def read_seat_cards(v: Any, name: str, canonical: bool) -> list[int]:
    """Four card lists, one per seat -> their masks."""
    return [read_cards(x, f"{name}[{i}]", canonical) for i, x in enumerate(check_list(v, name, 4))]


def read_numbers(v: Any, name: str, lo: int, hi: int) -> list[int]:
    """Four whole numbers, one per seat."""
    return [check_int(x, f"{name}[{i}]", lo, hi) for i, x in enumerate(check_list(v, name, 4))]


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


def read_layout(r: _Reader) -> int:
    """The layout field -> the cards on the layout (each suit's range from low to high)."""
    table = 0
    layout_raw = r.raw("layout", None)
    if layout_raw is None:
        return table
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
        check_layout_range(where, lo_i, hi_i)
        for q in range(lo_i, hi_i + 1):
            table |= 1 << (suit * 13 + q)
    return table


class _Load:
    """One document being read: its reader, its kind, and what the reading found so far:
    the cards placed (``seen``) and each hand's size (``counts``: for a view's hidden
    hands, the number it shows)."""

    def __init__(self, r: _Reader, partial: bool, view: bool) -> None:
        self.r = r
        self.partial = partial
        self.view = view
        self.view_seat: int | None = None
        self.hands_given = False
        self.counts = [0, 0, 0, 0]
        self.seen = 0
        self.trick_seats: list[int] = []

    def hidden(self, seat: int) -> bool:
        """Whether ``seat``'s hand is a count in this document (another seat's, in a view)."""
        return self.view and seat != self.view_seat


def load_state(
    data: Any, parse_options: ParseOptions, *, partial: bool, view: bool
) -> tuple[TrexState, list[int], int | None]:
    """Validate a full state (``partial`` False), a layout (``partial``) or a view (``view``)
    and build the internal state. Returns ``(state, hand_counts, view_seat)``; for a view the
    hidden hands hold only the cards the view pins to them (doubled cards, exposed 2s). The
    fields are read in this order, each checked as soon as what it depends on is read."""
    r = _Reader(data, partial)
    if not partial:
        check_fields(r.data, view)
    opts = load_options(r, partial, parse_options)
    if r.raw("players", 4) != 4 or isinstance(r.raw("players", 4), bool):
        raise InvalidState("Trex needs exactly 4 players", field="players")
    ld = _Load(r, partial, view)
    if view:
        ld.view_seat = check_int(r.data.get("seat"), "seat", 0, 3)
    elif "seat" in r.data:
        raise InvalidState("a state has no field 'seat' (that is a view)", field="seat")
    s = TrexState(opts)
    s.deal_no = r.int("deal_no", 1, opts.total_deals, 1)
    load_hands(ld, s)
    load_contract_and_phase(ld, s)
    load_owner_and_dealer(ld, s)
    load_doubles(ld, s)
    tricks_won = load_trick(ld, s)
    s.table = read_layout(r)
    check_layout(s, s.table, ld.seen)
    s.lay_mask = layout_fits(s.table)
    ld.seen |= s.table
    load_cards_won(ld, s, tricks_won)
    load_trex_fields(ld, s)
    load_to_act(ld, s)
    load_scores(ld, s)
    load_history(r, s, view)
    if not partial and not view:
        check_full_state(s, state_json)
    return s, ld.counts, ld.view_seat


def load_hands(ld: _Load, s: TrexState) -> None:
    """The hands: card lists (counts for a view's hidden hands)."""
    r = ld.r
    if ld.partial and not r.has("hands"):
        return
    ld.hands_given = True
    for i, h in enumerate(check_list(r.raw("hands"), "hands", 4)):
        if ld.hidden(i):
            ld.counts[i] = check_int(h, f"hands[{i}]", 0, 13)
            continue
        m = read_cards(h, f"hands[{i}]", not ld.partial)
        check_hand(i, m, ld.seen)
        ld.seen |= m
        s.hands[i] = m
        ld.counts[i] = m.bit_count()


def load_contract_and_phase(ld: _Load, s: TrexState) -> None:
    """The contract, the contracts used in the kingdom and the phase (a layout may leave the
    last two out: the phase is then the one the contract's deal is in)."""
    r, opts = ld.r, s.opts
    contract_raw = r.raw("contract", None)
    s.contract = -1 if contract_raw is None else contract_of(contract_raw, "contract", opts)
    used_raw = r.raw("contracts_used", [contract_raw] if contract_raw is not None else [])
    s.contracts_used = tuple(
        contract_of(c, f"contracts_used[{i}]", opts)
        for i, c in enumerate(check_list(used_raw, "contracts_used"))
    )
    check_contracts_used(s)
    phase_name = r.raw("phase", None)
    if phase_name is None:
        phase_name = PHASE_NAMES[layout_phase(ld, s)]
    if not isinstance(phase_name, str) or phase_name not in PHASE_OF_NAME:
        raise InvalidState(f"unknown phase {phase_name!r}", field="phase")
    s.phase = PHASE_OF_NAME[phase_name]
    check_phase(s)


def layout_phase(ld: _Load, s: TrexState) -> int:
    """A layout without a phase: the contract's first phase, or tricks once doubling is done."""
    r, contract = ld.r, s.contract
    if contract < 0:
        return CHOOSE
    if contract == TREX:
        return LAYOUT
    if (
        s.opts.doubling
        and DOUBLABLE_MASK[contract]
        and r.raw("doubling_turn", 0) != 4
        and not r.raw("trick", [])
        and not r.raw("tricks_played", 0)
    ):
        return DOUBLING
    return TRICKS


def load_owner_and_dealer(ld: _Load, s: TrexState) -> None:
    """The first kingdom's owner (a layout may give it through the kingdom owner, the 7H in
    deal 1, or the dealer), the kingdom fields and the dealer."""
    r = ld.r
    k = (s.deal_no - 1) // s.opts.deals_per_kingdom
    if r.has("first_owner"):
        s.first_owner = r.int("first_owner", 0, 3)
    elif r.has("kingdom_owner"):
        s.first_owner = (r.int("kingdom_owner", 0, 3) - k) & 3
    elif s.deal_no == 1:
        s.first_owner = next((i for i in range(4) if s.hands[i] >> SEVEN_H & 1), 0)
    elif r.has("dealer"):
        s.first_owner = (r.int("dealer", 0, 3) - k) & 3
    check_kingdom(s, r.given("kingdom_index", 0, 3), r.given("kingdom_owner", 0, 3))
    s.dealer = r.int("dealer", 0, 3, s.owner if s.deal_no > 1 else 0)
    check_dealer(s)


def load_doubles(ld: _Load, s: TrexState) -> None:
    """The doubled cards (card -> doubler, in doubling order) and the doubling turn."""
    r, opts = ld.r, s.opts
    doubled_raw = r.raw("doubled", {})
    if not isinstance(doubled_raw, dict):
        raise InvalidState("doubled must be an object card -> seat", field="doubled")
    doubled = []
    for code, d in doubled_raw.items():
        c = card_index(code, "doubled")
        doubled.append((c, check_int(d, f"doubled.{code}", 0, 3)))
        check_doublable(s, c)
        s.dbl_mask |= 1 << c
    s.doubled = tuple(doubled)
    doubling_done = s.phase not in (CHOOSE, DOUBLING) and s.contract >= 0 and opts.doubling
    s.doubling_turn = r.int("doubling_turn", 0, 4, 4 if doubling_done and DOUBLABLE_MASK[s.contract] else 0)
    check_doubling_turn(s)


def load_trick(ld: _Load, s: TrexState) -> list[int] | None:
    """The trick on the table and its leader; returns ``tricks_won`` if the document gives it."""
    r = ld.r
    trick_raw = check_list(r.raw("trick", []), "trick")
    check_trick_size(s, len(trick_raw))
    for i, t in enumerate(trick_raw):
        if not isinstance(t, dict) or set(t) != {"seat", "card"}:
            raise InvalidState(f"trick[{i}] must be an object with seat and card", field=f"trick[{i}]")
        ld.trick_seats.append(check_int(t["seat"], f"trick[{i}].seat", 0, 3))
        s.trick.append(card_index(t["card"], f"trick[{i}].card"))
    tricks_won_raw = r.raw("tricks_won", None)
    tricks_won = None if tricks_won_raw is None else read_numbers(tricks_won_raw, "tricks_won", 0, 13)
    if s.phase == TRICKS:
        if ld.trick_seats:
            s.leader = ld.trick_seats[0]
        else:
            s.leader = r.int("trick_leader", 0, 3, r.raw("to_act", s.owner), nullable=False)
        check_trick_seats(ld.trick_seats, s.leader, r.data.get("trick_leader"), r.has("trick_leader"))
    else:
        s.leader = s.owner
        check_no_trick_leader(r.data.get("trick_leader"))
    check_trick_cards(s.trick, ld.seen)
    if s.trick:
        s.best, s.best_seat = trick_winner(s.trick, s.leader)
    for c in s.trick:
        ld.seen |= 1 << c
    return tricks_won


def load_cards_won(ld: _Load, s: TrexState, tricks_won: list[int] | None) -> None:
    """The cards and tricks won, and the tricks played (a layout may give only some of them:
    without cards won, every card not in sight went in the leader's earlier tricks)."""
    r = ld.r
    tricks_given = tricks_won
    cw_raw = r.raw("cards_won", None)
    cards_won = None if cw_raw is None else read_seat_cards(cw_raw, "cards_won", not ld.partial)
    if cards_won is not None:
        check_cards_won_apart(cards_won, ld.seen)
        for m in cards_won:
            ld.seen |= m
        if tricks_won is None:
            tricks_won = [m.bit_count() // 4 for m in cards_won]
    if s.contract == TREX or s.phase in (CHOOSE, DOUBLING):
        check_no_tricks_won(cards_won, tricks_won)
        cards_won, tricks_won = [0, 0, 0, 0], [0, 0, 0, 0]
    default = sum(tricks_given) if tricks_given is not None else None
    tricks_played = r.int("tricks_played", 0, 13, default, nullable=ld.partial)
    if not ld.hands_given:
        raise InvalidState("hands are required", field="hands")
    if cards_won is None:
        # layout shorthand: every card not in a hand or the trick went in earlier tricks
        missing = cards_of(ALL & ~ld.seen)
        if tricks_played is None:
            tricks_played = (len(missing) - hidden_total(ld)) // 4
        if tricks_won is None:
            tricks_won = [0, 0, 0, 0]
            tricks_won[s.leader] = tricks_played
        cards_won = [0, 0, 0, 0]
        pos = 0
        for i in range(4):
            for c in missing[pos : pos + 4 * tricks_won[i]]:
                cards_won[i] |= 1 << c
            pos += 4 * tricks_won[i]
        for m in cards_won:
            ld.seen |= m
    assert tricks_won is not None  # given, or set from cards_won or by the shorthand above
    s.tricks_won = tricks_won
    s.cards_won = cards_won
    s.tricks_played = sum(tricks_won) if tricks_played is None else tricks_played
    check_tricks_won(s)
    s.taken = cards_won[0] | cards_won[1] | cards_won[2] | cards_won[3]
    check_cards_conserved(s, ld.seen, hidden_total(ld), ld.counts, ld.trick_seats)
    trick_mask = sum(1 << c for c in s.trick)
    for c, d in s.doubled:
        if ld.hidden(d) and not ld.seen >> c & 1:
            s.hands[d] |= 1 << c  # pinned: a doubled card stays with its doubler until played
            ld.seen |= 1 << c
            continue
        check_doubled_card(c, d, ld.seen, s.hands[d] | trick_mask | s.taken)


def hidden_total(ld: _Load) -> int:
    """The cards a view's hidden hands hold (0 in a state or a layout)."""
    return sum(ld.counts[i] for i in range(4) if ld.hidden(i))


def load_trex_fields(ld: _Load, s: TrexState) -> None:
    """Trex's fields: the seats out, the layout turns, the 2s exposed (R18)."""
    r = ld.r
    fo_raw = check_list(r.raw("finish_order", []), "finish_order")
    s.finish_order = [check_int(v, f"finish_order[{i}]", 0, 3) for i, v in enumerate(fo_raw)]
    check_finish_order(s)
    s.layout_turns = r.int("layout_turns", 0, 10_000, s.table.bit_count())
    check_layout_turns(s)
    check_seats_out(s, ld.counts)
    s.twos_exposed = twos_are_exposed(s)
    if r.has("twos_exposed"):
        check_twos_exposed(r.data["twos_exposed"], s.twos_exposed)
    et_raw = r.raw("exposed_twos", None)
    if et_raw is not None:
        for i, twos in enumerate(read_seat_cards(et_raw, "exposed_twos", not ld.partial)):
            check_exposed_twos(i, twos, s.twos_exposed, None if ld.hidden(i) else s.hands[i])
            if ld.hidden(i):
                if twos & ld.seen:
                    raise InvalidState("an exposed 2 is also elsewhere", field="exposed_twos")
                s.hands[i] |= twos
                ld.seen |= twos
    elif s.twos_exposed and ld.view:
        raise InvalidState("exposed_twos is required once the 2s are exposed", field="exposed_twos")
    if ld.view_seat is not None:
        check_known_cards_fit(s.hands, ld.counts, ld.view_seat)


def load_to_act(ld: _Load, s: TrexState) -> None:
    """The seat to act, and deal 1's 7H (R3): a view pins it to the first owner's hand."""
    r = ld.r
    layout_turn = check_int(r.raw("to_act", s.owner), "to_act", 0, 3) if s.phase == LAYOUT else -1
    want = seat_to_act(s, ld.counts, layout_turn)
    check_to_act(r.raw("to_act", None if want < 0 else want), want)
    s.to_act = want
    if s.deal_no != 1:
        return
    if not ld.view:
        if ld.hands_given:
            check_first_owner_holds_7h(s, s.hands)
        return
    if not ld.seen >> SEVEN_H & 1:
        check_first_owner_keeps_7h(s, ld.counts, ld.view_seat)
        s.hands[s.first_owner] |= 1 << SEVEN_H  # pinned: the first owner holds 7H until played
        ld.seen |= 1 << SEVEN_H


def load_scores(ld: _Load, s: TrexState) -> None:
    """The deal's and the match's scores, and the results of the finished deals."""
    r, opts = ld.r, s.opts
    s.deal_scores = read_numbers(r.raw("deal_scores", [0, 0, 0, 0]), "deal_scores", -10_000, 10_000)
    s.match_scores = read_numbers(r.raw("match_scores", [0, 0, 0, 0]), "match_scores", -(10**7), 10**7)
    if r.has("scores"):
        check_scores(s, r.data["scores"])
    check_deal_scores(s)
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
    check_history_ends_with_played(hist, played, view)
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
