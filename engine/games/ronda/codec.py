"""Ronda state JSON: dump, strict load (full states, layouts, views) and the sampler.

Every malformed input raises InvalidState naming the field; nothing else escapes.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine.cards import card_code, parse_card
from engine.checks import MAX_SAFE_INT, MAX_SCORE, rng_state_from_json, rng_state_to_json
from engine.games.ronda.rules import (
    cards_of,
    codes_of,
    holding,
    is_open_target,
    open_hand,
    r13_next_asked,
    target_winner,
)
from engine.games.ronda.state import RondaState, Rules, blank_state
from engine.games.ronda.tables import (
    CHALLENGE_BASE,
    CHALLENGE_P,
    COMBO_NAMES,
    COMBO_OF_NAME,
    DEAL_MARK,
    DEAL_OVER_P,
    DECLARE_BASE,
    DECLARE_P,
    DOUBLE,
    MATCH_OVER_P,
    PACK,
    PACK_MASK,
    PACK_SET,
    PASS,
    PHASE_NAMES,
    PHASE_OF_NAME,
    PLAY_P,
    RANK_CHARS,
    RBIT,
    RR,
)
from engine.protocol import JSON, BadAction, InvalidSetup, InvalidState

OptionsParser = Callable[[Any, int], JSON]

# Canonical code -> card of the Ronda pack: the fast path of card reading. Anything not
# found here (another spelling, a card outside the pack, a non-string) takes the
# checked path, which refuses it with the usual message.
_PACK_CODE: dict[str, int] = {card_code(c): c for c in PACK}

# --------------------------------------------------------------------------- actions


def action_json(action: Any, hide_deck: bool = False) -> JSON:
    """The JSON form of an internal action (a caller's deal deck as a count when hidden)."""
    if type(action) is int:
        if action < 52:
            return {"type": "play", "card": card_code(action)}
        if action == PASS:
            return {"type": "pass"}
        if action < CHALLENGE_BASE:
            return {"type": "declare", "combo": COMBO_NAMES[action - DECLARE_BASE]}
        return {"type": "challenge", "target": action - CHALLENGE_BASE}
    if hide_deck:
        return {"type": "deal", "deck": len(action)}
    return {"type": "deal", "deck": [card_code(c) for c in action]}


_FIELDS = {"pass": (), "declare": ("combo",), "challenge": ("target",), "play": ("card",), "deal": ("deck",)}


def parse_action_json(data: Any, players: int, *, hidden_deck_ok: bool = False) -> Any:
    """Read a JSON action into its internal form; BadAction names the bad field.
    A deal's deck must be 40 codes of the pack (duplicates are for ``check`` to refuse)."""
    if not isinstance(data, dict):
        raise BadAction("malformed action: an action is a JSON object", field="action")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise BadAction(
            f"malformed action: unknown type {kind!r} (expected one of {', '.join(_FIELDS)})", field="type"
        )
    wanted = _FIELDS[kind]
    for key in data:
        if key != "type" and key not in wanted:
            raise BadAction(f"malformed action: unexpected field {key!r} for {kind}", field=str(key))
    for key in wanted:
        if key not in data:
            raise BadAction(f"malformed action: {kind} needs a {key!r} field", field=key)
    if kind == "pass":
        return PASS
    if kind == "declare":
        combo = data["combo"]
        if not isinstance(combo, str) or combo not in COMBO_OF_NAME or combo == "none":
            raise BadAction(f"unknown combination: {combo}", field="combo")
        return DECLARE_BASE + COMBO_OF_NAME[combo]
    if kind == "challenge":
        target = data["target"]
        if isinstance(target, bool) or not isinstance(target, int) or not 0 <= target < players:
            raise BadAction(f"malformed action: target must be a seat 0..{players - 1}", field="target")
        return CHALLENGE_BASE + target
    if kind == "play":
        return _pack_card(data["card"], "card")
    deck = data["deck"]
    if hidden_deck_ok and isinstance(deck, int) and not isinstance(deck, bool) and deck == len(PACK):
        return tuple(PACK)
    if not isinstance(deck, list) or len(deck) != len(PACK):
        raise BadAction(f"malformed action: deck must list the {len(PACK)} cards, top first", field="deck")
    get = _PACK_CODE.get
    try:
        cards = tuple(get(c) for c in deck)
    except TypeError:  # an unhashable entry: _pack_card names it
        cards = (None,)
    if None not in cards:
        return cards
    return tuple(_pack_card(c, "deck") for c in deck)


def _pack_card(code: Any, field: str) -> int:
    try:
        card = parse_card(code)
    except ValueError:
        card = -1
    if card not in PACK_SET:
        raise BadAction(f"no such card in the Ronda pack: {code}", field=field)
    return card


# --------------------------------------------------------------------------- dump


def _cons_list(cons: Any) -> list[Any]:
    out = []
    while cons is not None:
        out.append(cons[1:])
        cons = cons[0]
    out.reverse()
    return out


def _history(s: RondaState, hide_decks: bool) -> list[JSON]:
    """The whole match's history; a view (``hide_decks``) has only this deal's entries
    (earlier deals' cards were shuffled back into hidden places) and decks as counts."""
    decks = [d[0] for d in _cons_list(s.decks)]
    entries = []
    for (chunk,) in _cons_list(s.old_hist):
        entries += _cons_list(chunk)
    entries += _cons_list(s.hist)
    out = []
    k = 0
    for i, (seat, action) in enumerate(entries):
        if action == DEAL_MARK:
            action = decks[k]
            k += 1
        if hide_decks and i < s.old_len:
            continue
        out.append({"seat": seat, "action": action_json(action, hide_decks)})
    return out


def seats_of(mask: int, n: int) -> list[int]:
    return [seat for seat in range(n) if mask >> seat & 1]


def dump(s: RondaState, seat: int | None = None, *, history: bool = True) -> JSON:
    """The state JSON; with ``seat``, that seat's view (hidden cards as counts); without
    ``history``, all of it but the history (the costly part of a long match)."""
    n = s.n
    full = seat is None
    hands: list[Any] = []
    dealt: list[Any] = []
    for t in range(n):
        h = s.hands[t]
        shown = full or t == seat or s.challenged >> t & 1
        hands.append(codes_of(h) if shown else h.bit_count())
        dealt.append(codes_of(s.dealt[t]) if shown or not h else s.dealt[t].bit_count())
    out: JSON = {
        "game": "ronda",
        "version": 1,
        "options": dict(s.o.raw),
        "players": n,
        "dealer": s.dealer,
        "phase": PHASE_NAMES[s.phase],
        "to_act": None if s.to_act < 0 else s.to_act,
        "scores": s.scores[:],
        "deal_no": s.deal_no,
        "hand_number": s.hand_no,
        "hands": hands,
        "dealt": dealt,
        "played": [codes_of(s.dealt[t] & ~s.hands[t]) for t in range(n)],
        "table": [card_code(c) for c in s.table],
        "stock": [card_code(c) for c in s.stock] if full else len(s.stock),
        "piles": [codes_of(p) for p in s.piles],
        "declarations": [None if d < 0 else COMBO_NAMES[d] for d in s.decl],
        "challenged": seats_of(s.challenged, n),
        "withdrawn": seats_of(s.withdrawn, n),
        "revealed": seats_of(s.challenged, n),
        "provisional_award": None if s.prov_side < 0 else {"side": s.prov_side, "points": s.prov_pts},
        "last_drop": None if s.last_drop < 0 else card_code(s.last_drop),
        "chain": None
        if s.chain is None
        else {
            "rank": RANK_CHARS[s.chain[0]],
            "level": s.chain[1],
            "seat": s.chain[2],
            "packet": codes_of(s.chain[3]),
        },
        "last_capturer": None if s.last_cap < 0 else s.last_cap,
        "winner": None if s.winner < 0 else s.winner,
        "deal_items": [
            {"side": side, "points": points, "item": item, "rule": rule}
            for side, points, item, rule in _cons_list(s.items)
        ],
        "history": _history(s, not full) if history else None,
        "deal_start": s.old_len,
    }
    if full:
        out["rng_state"] = rng_state_to_json(s.rng_state)
    else:
        out["seat"] = seat
    return out


# --------------------------------------------------------------------------- load


def _bad(message: str, field: str) -> InvalidState:
    return InvalidState(f"{field}: {message}", field=field)


def _int(v: Any, field: str, lo: int | None = None, hi: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise _bad("must be a whole number", field)
    if lo is not None and v < lo or hi is not None and v > hi:
        raise _bad(f"must be between {lo} and {hi}" if hi is not None else f"must be at least {lo}", field)
    return v


def _card(v: Any, field: str) -> int:
    if type(v) is str:
        card = _PACK_CODE.get(v)
        if card is not None:
            return card
    card = -1
    if isinstance(v, str):
        try:
            card = parse_card(v)
        except ValueError:
            card = -1
    if card not in PACK_SET:
        raise _bad(f"no such card in the Ronda pack: {v!r}", field)
    return card


def _cards(v: Any, field: str) -> list[int]:
    if type(v) is list:
        get = _PACK_CODE.get
        try:
            cards = [get(c) for c in v]
        except TypeError:  # an unhashable entry: the checked path names it
            cards = [None]
        if None not in cards:
            return cards  # type: ignore[return-value]
    if not isinstance(v, list):
        raise _bad("must be a list of card codes", field)
    return [_card(c, f"{field}[{i}]") for i, c in enumerate(v)]


def _simple_action(data: Any) -> int | None:
    """A history entry's play, pass or declaration in its plain JSON form, else None (then
    parse_action_json reads it and words any error)."""
    if type(data) is dict:
        kind = data.get("type")
        if kind == "play" and len(data) == 2:
            code = data.get("card")
            if type(code) is str:
                return _PACK_CODE.get(code)
        elif kind == "pass" and len(data) == 1:
            return PASS
        elif kind == "declare" and len(data) == 2:
            combo = data.get("combo")
            if type(combo) is str and combo != "none" and combo in COMBO_OF_NAME:
                return DECLARE_BASE + COMBO_OF_NAME[combo]
    return None


def _list(v: Any, field: str, size: int) -> list[Any]:
    if not isinstance(v, list) or len(v) != size:
        raise _bad(f"must be a list of {size} entries", field)
    return v


def _mask_of(cards: list[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def _mask(cards: list[int], field: str) -> int:
    m = 0
    for c in cards:
        if m >> c & 1:
            raise _bad(f"card {card_code(c)} appears twice", field)
        m |= 1 << c
    return m


def _seat_mask(v: Any, field: str, n: int) -> int:
    if not isinstance(v, list):
        raise _bad("must be a list of seats", field)
    m = 0
    for i, seat in enumerate(v):
        seat = _int(seat, f"{field}[{i}]", 0, n - 1)
        if m >> seat & 1:
            raise _bad(f"seat {seat} listed twice", field)
        m |= 1 << seat
    return m


def _opt_seat(v: Any, field: str, hi: int) -> int:
    return -1 if v is None else _int(v, field, 0, hi)


class _Fields:
    """Reads a state object's fields: strict (every field required) or a layout (defaults)."""

    def __init__(self, data: JSON, layout: bool) -> None:
        self.data = data
        self.layout = layout

    def get(self, name: str, default: Any = None) -> Any:
        if name in self.data:
            return self.data[name]
        if self.layout:
            return default
        raise InvalidState(f"missing field {name}", field=name)


# Options already read: (raw options with their value types, players, reader) ->
# (options, Rules). A state's options come back with every request, so the reading
# (which validates each option) is done once per distinct options object. Only plain
# scalar values make a key; the types are in the key so that 1 and True differ.
_SCALARS = (bool, int, str, float, type(None))
_RULES_SEEN: dict[tuple[Any, ...], tuple[JSON, Rules]] = {}


def _options_key(raw: Any, n: int, parse_options: OptionsParser) -> tuple[Any, ...] | None:
    if type(raw) is not dict:
        return None
    items = []
    for name, value in raw.items():
        if type(value) not in _SCALARS:
            return None
        items.append((name, type(value), value))
    return (n, parse_options, *items)


KNOWN_FIELDS = frozenset(
    "game version options players dealer phase to_act scores deal_no hand_number hands dealt played "
    "table stock piles declarations challenged withdrawn revealed provisional_award last_drop chain "
    "last_capturer winner deal_items history deal_start rng_state".split()
)


def load(
    data: Any,
    parse_options: OptionsParser,
    *,
    layout: bool = False,
    players: int | None = None,
    options: JSON | None = None,
    dealer: int | None = None,
    rng_state: int | None = None,
    hidden_decks_ok: bool = False,
) -> RondaState:
    """Validate and load a state (or, with ``layout``, a partial one whose omitted fields
    take their natural values; a layout without ``phase`` is the start of a hand)."""
    if not isinstance(data, dict):
        raise InvalidState("a state is a JSON object", field="state")
    for key in data:
        if key not in KNOWN_FIELDS:
            raise InvalidState(f"unknown field {key!r}", field=str(key))
    f = _Fields(data, layout)
    if f.get("game", "ronda") != "ronda":
        raise _bad("must be 'ronda'", "game")
    if f.get("version", 1) != 1 or isinstance(f.get("version", 1), bool):
        raise _bad("must be 1", "version")
    n = f.get("players", players)
    if n is None or isinstance(n, bool) or n not in (2, 3, 4):
        raise _bad("must be 2, 3 or 4", "players")
    if players is not None and n != players:
        raise _bad(f"layout is for {n} players, the request for {players}", "players")
    raw_options = f.get("options", options)
    key = _options_key(raw_options, n, parse_options)
    known = _RULES_SEEN.get(key) if key is not None else None
    if known is not None:
        opts, o = known
    else:
        try:
            opts = parse_options(raw_options, n)
        except InvalidSetup as err:
            raise InvalidState(err.message, field=err.field or "options") from None
        o = Rules.of(opts, n)
        if key is not None:
            if len(_RULES_SEEN) >= 512:
                _RULES_SEEN.clear()
            _RULES_SEEN[key] = (opts, o)
    if options is not None and opts != options:
        raise _bad("the layout's options differ from the request's options", "options")
    dealer_v = _int(f.get("dealer", dealer if dealer is not None else 0), "dealer", 0, n - 1)
    s = blank_state(o, dealer_v)
    ns = s.nsides
    pat = o.pattern

    phase_name = f.get("phase", None)
    if phase_name is None and not layout:
        raise _bad("must be one of " + ", ".join(PHASE_NAMES), "phase")
    if phase_name is not None and (not isinstance(phase_name, str) or phase_name not in PHASE_OF_NAME):
        raise _bad("must be one of " + ", ".join(PHASE_NAMES), "phase")
    start_of_hand = phase_name is None
    phase = DECLARE_P if phase_name is None else PHASE_OF_NAME[phase_name]
    s.phase = phase

    scores = _list(f.get("scores", [0] * ns), "scores", ns)
    s.scores = [_int(v, f"scores[{i}]", 0, MAX_SCORE) for i, v in enumerate(scores)]
    s.deal_no = _int(f.get("deal_no", 1), "deal_no", 1, MAX_SAFE_INT)

    # ---- cards
    if "hands" not in data:
        raise InvalidState("missing field hands", field="hands")
    hands_raw = _list(data["hands"], "hands", n)
    hands = [_mask(_cards(h, f"hands[{t}]"), f"hands[{t}]") for t, h in enumerate(hands_raw)]
    played_raw = f.get("played", None)
    dealt_raw = f.get("dealt", None)
    if played_raw is not None:
        played = [
            _mask(_cards(p, f"played[{t}]"), f"played[{t}]")
            for t, p in enumerate(_list(played_raw, "played", n))
        ]
    else:
        played = [0] * n
    if dealt_raw is not None:
        dealt = [
            _mask(_cards(d, f"dealt[{t}]"), f"dealt[{t}]") for t, d in enumerate(_list(dealt_raw, "dealt", n))
        ]
        if played_raw is None:
            played = [dealt[t] & ~hands[t] for t in range(n)]
    else:
        dealt = [hands[t] | played[t] for t in range(n)]
    for t in range(n):
        if hands[t] & played[t] or dealt[t] != hands[t] | played[t]:
            raise _bad(
                f"seat {t}'s dealt cards must be its hand plus the cards it played this hand", f"dealt[{t}]"
            )
    table = _cards(f.get("table", []), "table")
    stock = _cards(f.get("stock", []), "stock")
    piles = [
        _mask(_cards(p, f"piles[{i}]"), f"piles[{i}]")
        for i, p in enumerate(_list(f.get("piles", [[]] * ns), "piles", ns))
    ]
    seen = 0
    overlap = False
    for m in (*hands, _mask_of(table), _mask_of(stock), *piles):
        overlap = overlap or bool(seen & m)
        seen |= m
    if overlap or len(table) + len(stock) != (_mask_of(table) | _mask_of(stock)).bit_count():
        # Some card is in two places (or twice in a list): find and name the first one.
        seen = 0
        places: list[tuple[str, list[int]]] = [(f"hands[{t}]", cards_of(hands[t])) for t in range(n)]
        places += [("table", table), ("stock", stock)]
        places += [(f"piles[{i}]", cards_of(piles[i])) for i in range(ns)]
        for field, cards in places:
            for c in cards:
                if seen >> c & 1:
                    raise _bad(f"card {card_code(c)} is in two places (or twice)", field)
                seen |= 1 << c
    if seen != PACK_MASK:
        missing = " ".join(codes_of(PACK_MASK & ~seen))
        raise InvalidState(f"cards: missing from hands, table, stock and piles: {missing}", field="cards")
    s.hands = hands
    s.dealt = dealt
    s.table = table
    s.trank = 0
    for c in table:
        if s.trank & RBIT[c]:
            raise _bad(f"two cards of rank {RANK_CHARS[RR[c]]} on the table (R7)", "table")
        s.trank |= RBIT[c]
    s.stock = tuple(stock)
    s.piles = piles

    # ---- hand number and sizes (R3-R5)
    per_hand = pat.later * n
    if len(stock) % per_hand:
        raise _bad(f"{len(stock)} cards cannot be dealt in hands of {pat.later} per seat", "stock")
    natural_hand = pat.hands - len(stock) // per_hand
    if natural_hand < 1:
        raise _bad(f"too many cards for the {pat.hands} hands of a deal", "stock")
    s.hand_no = _int(f.get("hand_number", natural_hand), "hand_number", 1, pat.hands)
    if s.hand_no != natural_hand:
        raise _bad(
            f"hand {s.hand_no} leaves {(pat.hands - s.hand_no) * per_hand} cards in the stock, "
            f"not {len(stock)}",
            "hand_number",
        )
    size = pat.first if s.hand_no == 1 else pat.later
    for t in range(n):
        if dealt[t].bit_count() != size:
            raise _bad(f"seat {t} must have received {size} cards in hand {s.hand_no}", f"dealt[{t}]")
    total = sum(p.bit_count() for p in played)
    first = (dealer_v + 1) % n
    for k in range(n):
        t = (first + k) % n
        want = total // n + (1 if k < total % n else 0)
        if played[t].bit_count() != want:
            raise _bad(
                f"after {total} plays this hand seat {t} must have played {want} cards "
                "(play goes round from dealer+1)",
                f"played[{t}]",
            )

    # ---- declarations and challenges
    decl_raw = _list(f.get("declarations", [None] * n), "declarations", n)
    decl = []
    for t, d in enumerate(decl_raw):
        if d is None:
            decl.append(-1)
        elif isinstance(d, str) and d in COMBO_OF_NAME:
            decl.append(COMBO_OF_NAME[d])
        else:
            raise _bad("must be null, 'none', 'ronda', 'tringa' or 'double_ronda'", f"declarations[{t}]")
        if decl[t] == DOUBLE and size != 4:
            raise _bad("double_ronda needs a four-card hand", f"declarations[{t}]")
    s.decl = decl
    s.challenged = _seat_mask(f.get("challenged", []), "challenged", n)
    s.withdrawn = _seat_mask(f.get("withdrawn", []), "withdrawn", n)
    if _seat_mask(f.get("revealed", seats_of(s.challenged, n)), "revealed", n) != s.challenged:
        raise _bad("the revealed seats are exactly the challenged seats (R13)", "revealed")
    if s.withdrawn & ~s.challenged:
        raise _bad("only a challenged declaration can be withdrawn", "withdrawn")
    for t in seats_of(s.challenged, n):
        if decl[t] <= 0:
            raise _bad(f"seat {t} has no declaration to challenge", "challenged")
        false = decl[t] != holding(dealt[t])[0]
        if false != bool(s.withdrawn >> t & 1):
            raise _bad(
                f"seat {t}'s challenged declaration is withdrawn exactly when it is false", "withdrawn"
            )
    prov = f.get("provisional_award", None)
    if prov is not None:
        if not isinstance(prov, dict) or set(prov) != {"side", "points"}:
            raise _bad("must be null or {side, points}", "provisional_award")
        s.prov_side = _int(prov["side"], "provisional_award.side", 0, ns - 1)
        s.prov_pts = _int(prov["points"], "provisional_award.points", 1, MAX_SCORE)
    ld = f.get("last_drop", None)
    if ld is not None:
        s.last_drop = _card(ld, "last_drop")
        if not table or table[-1] != s.last_drop:
            raise _bad("the last drop must be the newest table card", "last_drop")
    chain = f.get("chain", None)
    if chain is not None:
        if not isinstance(chain, dict) or set(chain) != {"rank", "level", "seat", "packet"}:
            raise _bad("must be null or {rank, level, seat, packet}", "chain")
        rank = chain["rank"]
        if not isinstance(rank, str) or len(rank) != 1 or rank not in RANK_CHARS:
            raise _bad("must be a rank of A 2 3 4 5 6 7 J Q K", "chain.rank")
        level = _int(chain["level"], "chain.level", 1, 3)
        cseat = _int(chain["seat"], "chain.seat", 0, n - 1)
        packet = _mask(_cards(chain["packet"], "chain.packet"), "chain.packet")
        if packet & ~piles[cseat % ns] or not packet:
            raise _bad("the packet must lie in the pile of the chain seat's side", "chain.packet")
        s.chain = (RANK_CHARS.index(rank), level, cseat, packet)
    s.last_cap = _opt_seat(f.get("last_capturer", None), "last_capturer", n - 1)
    s.winner = _opt_seat(f.get("winner", None), "winner", ns - 1)

    items_raw = f.get("deal_items", [])
    if not isinstance(items_raw, list):
        raise _bad("must be a list", "deal_items")
    items: Any = None  # a cons list (previous, ...)
    for i, item in enumerate(items_raw):
        where = f"deal_items[{i}]"
        if not isinstance(item, dict) or set(item) != {"side", "points", "item", "rule"}:
            raise _bad("must be {side, points, item, rule}", where)
        if not isinstance(item["item"], str) or not isinstance(item["rule"], str):
            raise _bad("item and rule must be strings", where)
        items = (
            items,
            _int(item["side"], where + ".side", 0, ns - 1),
            _int(item["points"], where + ".points", -MAX_SCORE, MAX_SCORE),
            item["item"],
            item["rule"],
        )
    s.items = items

    hist_raw = f.get("history", [])
    if not isinstance(hist_raw, list):
        raise _bad("must be a list", "history")
    view = hidden_decks_ok
    start = _int(f.get("deal_start", 0), "deal_start", 0, MAX_SAFE_INT if view else len(hist_raw))
    parsed: list[tuple[int, Any]] = [(0, PASS)] * start if view else []
    decks: Any = None  # a cons list
    unusual: list[tuple[Any, int, Any]] = []  # entries not in the usual form: (entry, seat, action)
    for i, entry in enumerate(hist_raw):
        if type(entry) is dict and len(entry) == 2:  # the usual entry: a play or a pass by a seat
            seat = entry.get("seat")
            if type(seat) is int and 0 <= seat < n:
                action = _simple_action(entry.get("action"))
                if action is not None:
                    parsed.append((seat, action))
                    continue
        where = f"history[{i}]"
        if not isinstance(entry, dict) or set(entry) != {"seat", "action"}:
            raise _bad("must be {seat, action}", where)
        seat = _int(entry["seat"], where + ".seat", 0, n - 1)
        try:
            action = parse_action_json(entry["action"], n, hidden_deck_ok=view)
        except BadAction as err:
            raise InvalidState(f"{where}.action: {err.message}", field=where + ".action") from None
        unusual.append((entry, seat, action))
        if type(action) is tuple:
            if len(set(action)) != len(PACK):
                raise _bad("a deal's deck holds each card once", where + ".action.deck")
            decks = (decks, action)
            action = DEAL_MARK
        parsed.append((seat, action))
    # A view lists only this deal's entries; the earlier ones become placeholders.
    old: Any = None  # cons lists
    for seat, action in parsed[:start]:
        old = (old, seat, action)
    hist: Any = None
    for seat, action in parsed[start:]:
        hist = (hist, seat, action)
    s.hist = hist
    s.old_hist = None if old is None else (None, old)
    s.old_len = start
    s.decks = decks

    # The JSON carries the generator state as a decimal string (engine.checks); the
    # ``rng_state`` argument is the game's own number for a seeded layout.
    rs = f.get("rng_state", rng_state)
    if "rng_state" in data and rs is not None:
        rs = rng_state_from_json(rs)
    s.rng_state = rs

    if start_of_hand:
        if total or any(d >= 0 for d in decl) or s.challenged or s.prov_side >= 0 or s.winner >= 0:
            raise _bad("a layout without a phase is the start of a hand: give the phase", "phase")
        open_hand(s, None)
    else:
        _check_phase(s, f, total, size, hidden_decks_ok, parsed[start:])
        if s.phase in (DECLARE_P, PLAY_P):
            _check_hand_calls(s, parsed[start:], total)
        _check_play_turns(s, parsed[start:], total)
    _check_match_end(s)
    if "to_act" in data and not start_of_hand:
        given = data["to_act"]
        if given is not None:
            given = _int(given, "to_act", 0, n - 1)
        if (s.to_act if s.to_act >= 0 else None) != given:
            want = None if s.to_act < 0 else s.to_act
            raise _bad(f"must be {want} in this position", "to_act")
    if not layout and not hidden_decks_ok:
        _check_canonical(s, data, unusual)
    return s


def _check_canonical(s: RondaState, data: JSON, unusual: list[tuple[Any, int, Any]]) -> None:
    """A full state is written exactly as the engine writes it: every field present, cards
    in canonical order, nothing left for the loader to fill in or re-sort (a state the
    engine wrote never needs it, so a difference means the document was changed). One
    older form is still read: ``rng_state`` as a JSON integer below 2**53. History entries
    read on the fast path (a play, pass or declaration exactly as written) are canonical
    already; only the ``unusual`` ones are written again to compare."""
    for key, value in dump(s, history=False).items():
        if key == "history":
            continue
        got = data[key] if key in data else ...
        if got != value and not (key == "rng_state" and type(got) is int):
            raise _bad("must be written as the engine writes it (cards in canonical order)", key)
    for entry, seat, action in unusual:
        if entry != {"seat": seat, "action": action_json(action)}:
            raise _bad("must be written as the engine writes it", "history")


def _check_match_end(s: RondaState) -> None:
    """R32 and R13: a match is over exactly when a side has won it, by reaching the target
    with the highest score alone or by a genuine challenged declaration."""
    leader = target_winner(s.scores, s.o.target)
    genuine = [t % s.nsides for t in seats_of(s.challenged & ~s.withdrawn, s.n)]
    if s.phase != MATCH_OVER_P:
        if leader is not None:
            raise _bad(
                f"side {leader} has reached the target {s.o.target} with the highest score: "
                "the match is over (R32)",
                "scores",
            )
    elif s.winner not in genuine and s.winner != leader:
        raise _bad(
            "the winner must have reached the target with the highest score (R32) "
            "or have had a genuine declaration challenged (R13)",
            "winner",
        )


def _check_phase(
    s: RondaState, f: _Fields, total: int, size: int, view: bool, deal: list[tuple[int, Any]]
) -> None:
    """Phase-dependent consistency; sets ``to_act`` (challenge phase: replayed from this
    hand's calls in ``deal``, or taken from the data for a hand set up from a layout)."""
    n = s.n
    o = s.o
    phase = s.phase
    first = (s.dealer + 1) % n
    decl = s.decl
    if (phase == MATCH_OVER_P) != (s.winner >= 0):
        raise _bad("a winner is set exactly when the match is over", "winner")
    if phase in (DECLARE_P, CHALLENGE_P):
        if total:
            raise _bad("no card is played before the declarations are over", "played")
        if s.last_drop >= 0 or s.chain is not None:
            raise _bad("no play has been made in this hand yet", "last_drop")
        if o.auto_declare:
            raise _bad("auto_declare has no declaration or challenge round", "phase")
    elif any(d < 0 for d in decl) and not (phase == MATCH_OVER_P and total == 0):
        raise _bad("every seat has declared once the declaration round is over", "declarations")
    if phase != MATCH_OVER_P and s.challenged & ~s.withdrawn:
        raise _bad("a genuine challenged declaration ends the match", "challenged")
    if phase == DECLARE_P:
        order = [(first + k) % n for k in range(n)]
        acted = [decl[t] >= 0 for t in order]
        if all(acted) or acted != sorted(acted, reverse=True):
            raise _bad(
                "seats declare in turn from dealer+1; someone must still be to declare", "declarations"
            )
        if s.challenged or s.prov_side >= 0:
            raise _bad("no challenge before the declaration round ends", "challenged")
        s.to_act = order[acted.index(False)]
    elif phase == CHALLENGE_P:
        if not o.challenges:
            raise _bad("challenges are not played in this game", "phase")
        given = f.data.get("to_act")
        if given is None and f.layout:  # natural value: the round's first asked seat
            given = next(
                (
                    t
                    for t in ((first + k) % n for k in range(n))
                    if any(is_open_target(s, t, u) for u in range(n))
                ),
                None,
            )
        replayed = _check_hand_calls(s, deal, total)
        if replayed is not None:
            s.to_act = replayed
        else:
            seat = _int(given, "to_act", 0, n - 1)
            if not any(is_open_target(s, seat, t) for t in range(n)):
                raise _bad(f"seat {seat} has no open target to challenge", "to_act")
            s.to_act = seat
    elif phase == PLAY_P:
        if total >= size * n:
            raise _bad("every card of the hand is played: the hand is over", "played")
        s.to_act = (first + total) % n
    elif phase == DEAL_OVER_P:
        if any(s.hands) or s.stock or s.table:
            raise _bad("the deal is over: hands, table and stock are empty", "phase")
        s.to_act = first
    else:
        s.to_act = -1
    if o.auto_declare and phase != MATCH_OVER_P and not view:  # a view's template: the sampler sees to it
        for t in range(n):
            if decl[t] != holding(s.dealt[t])[0]:
                raise _bad("with auto_declare every declaration is the true holding", f"declarations[{t}]")


def _check_hand_calls(s: RondaState, deal: list[tuple[int, Any]], total: int) -> int | None:
    """R8, R11, R13: this hand's calls in ``deal`` (the current deal's history), before its
    ``total`` plays: the declarations in turn from dealer+1 (none is a pass), then the
    challenge round, replayed: each entry the asked seat's pass or challenge of an open
    target, the challenged seats the ones the entries give. Returns the seat asked next
    while the round goes on, else None. A hand a layout set up may have begun before its
    history (in the match's first deal: later deals are dealt in the history): then only
    what the history holds is checked."""
    n = s.n
    end = len(deal) - total
    if end < 0:  # the hand's first plays came before the history
        return None
    k = end
    while k and deal[k - 1][1] != DEAL_MARK and deal[k - 1][1] >= 52:  # the hand's calls
        k -= 1
    calls = deal[k:end]
    if s.o.auto_declare:
        if calls:
            raise _bad("with auto_declare nobody declares or challenges (R8)", "history")
        return None
    declared = [(seat, DECLARE_BASE + d) for seat, d in _round(s.decl, s.dealer + 1) if d >= 0]
    if calls[: len(declared)] != declared:
        if k == 0 and s.old_len == 0:  # the match's first deal may be a layout's, begun before its history
            return None
        raise _bad("the hand's declarations come first, in turn from dealer+1 (R8)", "history")
    if s.phase == DECLARE_P or not s.o.challenges:
        if len(calls) != len(declared):
            raise _bad("only the declarations come before this hand's plays (R8, R11)", "history")
        return None
    # A scratch copy from the start of the round: no seat challenged yet, no score that
    # could end the match (a genuine challenge cannot be followed by a challenge phase).
    replay = s.clone()
    replay.challenged = replay.withdrawn = 0
    replay.scores = [0] * s.nsides
    replay.phase = DECLARE_P
    r13_next_asked(replay, -1, None)
    for seat, action in calls[n:]:
        if replay.phase != CHALLENGE_P or seat != replay.to_act:
            raise _bad(f"seat {replay.to_act} was to act in the challenge round, not {seat} (R13)", "history")
        if action != PASS:
            target = action - CHALLENGE_BASE
            if not 0 <= target < n or not is_open_target(replay, seat, target):
                raise _bad("a challenge must name an open target of the asked seat (R13)", "history")
            replay.challenged |= 1 << target
            replay.withdrawn |= s.withdrawn & 1 << target
        r13_next_asked(replay, seat, None)
    if (replay.phase == CHALLENGE_P) != (s.phase == CHALLENGE_P):
        raise _bad("the challenge round is over exactly when the history's round is", "phase")
    if replay.challenged != s.challenged:
        raise _bad("the challenged seats must be the ones the history challenged", "challenged")
    return replay.to_act if replay.phase == CHALLENGE_P else None


def _check_play_turns(s: RondaState, deal: list[tuple[int, Any]], total: int) -> None:
    """R19: every play of this deal in the history was made in turn. Play goes round from
    dealer+1 and every hand of a deal has a multiple of the seat count of plays, so,
    counting back from the ``total`` plays of the current hand, the seat of each is known
    (also for a deal a layout set up, whose first plays came before its history)."""
    n = s.n
    plays = [seat for seat, action in deal if action < 52]
    offset = s.dealer + 1 + total - len(plays)
    for j, seat in enumerate(plays):
        if seat != (offset + j) % n:
            raise _bad(f"play {j + 1} of this deal was seat {(offset + j) % n}'s turn (R19)", "history")


def _round(decl: list[int], first: int) -> list[tuple[int, int]]:
    """(seat, declaration) in turn order from ``first``."""
    n = len(decl)
    return [((first + j) % n, decl[(first + j) % n]) for j in range(n)]


# --------------------------------------------------------------------------- sampler


def make_sampler(view: Any, parse_options: OptionsParser) -> Callable[[random.Random], RondaState]:
    """Validate ``view`` once; return f(rng) dealing the unseen cards at random into the
    other seats' hands (known sizes) and the stock (known size). Exact deductions kept:
    played cards, piles, table and revealed hands are fixed; each seat's dealt cards are
    its (sampled) hand plus what it played this hand (§7)."""
    if not isinstance(view, dict):
        raise InvalidState("a view is a JSON object", field="view")
    data = dict(view)
    if "seat" not in data:
        raise InvalidState("missing field seat", field="seat")
    n = data.get("players")
    if isinstance(n, bool) or n not in (2, 3, 4):
        raise _bad("must be 2, 3 or 4", "players")
    seat = _int(data.pop("seat"), "seat", 0, n - 1)
    if "rng_state" in data:
        raise InvalidState("a view carries no rng_state", field="rng_state")
    hands_v = _list(data.get("hands"), "hands", n)
    stock_n = data.get("stock")
    stock_n = _int(stock_n, "stock", 0, 40)
    if not isinstance(hands_v[seat], list):
        raise _bad("the viewing seat's own hand must be listed", f"hands[{seat}]")
    known = 0
    hidden_seats: list[tuple[int, int]] = []
    for t in range(n):
        h = hands_v[t]
        if isinstance(h, list):
            known |= _mask(_cards(h, f"hands[{t}]"), f"hands[{t}]")
        else:
            hidden_seats.append((t, _int(h, f"hands[{t}]", 0, 4)))
    known |= _mask(_cards(data.get("table", []), "table"), "table")
    piles_v = data.get("piles", [])
    if not isinstance(piles_v, list):
        raise _bad("must be a list", "piles")
    for i, p in enumerate(piles_v):
        known |= _mask(_cards(p, f"piles[{i}]"), f"piles[{i}]")
    pool = [c for c in PACK if not known >> c & 1]
    if len(pool) != stock_n + sum(k for _, k in hidden_seats):
        raise InvalidState(
            f"view: {len(pool)} unseen cards but {stock_n} in the stock and "
            f"{sum(k for _, k in hidden_seats)} in hidden hands",
            field="hands",
        )
    played_v = _list(data.get("played"), "played", n)
    played = [_mask(_cards(p, f"played[{t}]"), f"played[{t}]") for t, p in enumerate(played_v)]
    full = dict(data)
    hands_full = list(hands_v)
    dealt_full = list(_list(data.get("dealt"), "dealt", n))
    pos = 0
    for t, k in hidden_seats:
        hands_full[t] = [card_code(c) for c in pool[pos : pos + k]]
        pos += k
        if isinstance(dealt_full[t], int) and not isinstance(dealt_full[t], bool):
            dealt_full[t] = hands_full[t] + [card_code(c) for c in cards_of(played[t])]
    full["hands"] = hands_full
    full["dealt"] = dealt_full
    full["stock"] = [card_code(c) for c in pool[pos:]]
    full["rng_state"] = 0
    template = load(full, parse_options, hidden_decks_ok=True)
    if dump(template, seat) != view:
        raise InvalidState("view is not a consistent view of a Ronda state", field="view")
    n_decks = len(_cons_list(template.decks))
    hidden = [t for t, _ in hidden_seats]
    sizes = [k for _, k in hidden_seats]
    # With auto_declare a declaration is the seat's true holding: an exact deduction.
    must_hold = (
        template.o.auto_declare and template.phase != MATCH_OVER_P and all(d >= 0 for d in template.decl)
    )

    def deal_hidden(s: RondaState, rng: random.Random) -> list[int]:
        # Seat by seat: a seat's hand is redrawn from what is left until its holding is the
        # one it declared (joint rejection over every seat is hopeless when several seats
        # must hold a tringa). Consistent with the view; only the seats' joint odds differ
        # slightly from a uniform deal.
        for _ in range(200):
            rest = pool[:]
            ok = True
            for t, k in zip(hidden, sizes, strict=True):
                for _ in range(2_000):
                    rng.shuffle(rest)
                    m = 0
                    for c in rest[:k]:
                        m |= 1 << c
                    if not must_hold or holding(m | played[t])[0] == s.decl[t]:
                        break
                else:
                    ok = False
                    break
                s.hands[t] = m
                s.dealt[t] = m | played[t]
                rest = rest[k:]
            if ok:
                rng.shuffle(rest)
                return rest
        raise InvalidState(
            "view: no deal of the unseen cards matches the declared holdings", field="declarations"
        )

    if must_hold:
        deal_hidden(template.clone(), random.Random(0))  # fails now, not in the search, if impossible

    def sample(rng: random.Random) -> RondaState:
        s = template.clone()
        s.stock = tuple(deal_hidden(s, rng))
        decks: Any = None  # a cons list
        for _ in range(n_decks):
            deck = list(PACK)
            rng.shuffle(deck)
            decks = (decks, tuple(deck))
        s.decks = decks
        s.rng_state = rng.getrandbits(63)
        return s

    return sample
