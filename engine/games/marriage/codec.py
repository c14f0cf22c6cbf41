"""Marriage: the state's JSON (written, and read back shape first), layouts, views,
actions as JSON. What a loaded document must satisfy beyond its shape is :mod:`.checks`'s."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from engine.checks import rng_state_from_json, rng_state_to_json
from engine.protocol import JSON, SCHEMA_VERSION, SPECTATOR, BadAction, InvalidSetup, InvalidState

from .checks import bad, check_loaded, written_as_the_engine_writes
from .options import last_deal_no
from .rules import expose_done
from .state import GAP, MState, blank_state, entry, entry_by, entry_card, entry_unseen, public_action
from .tables import (
    ALL_CODES,
    CODE_TO_CARD,
    DEAL,
    DRAW_STOCK,
    DUBLEES,
    EXPOSE_BASE,
    FINISH,
    FINISH_DUBLEES,
    NCODES,
    OVER,
    PASS,
    PHASES,
    PICK_BASE,
    ROUTES,
    SETS,
    SHOW,
    SHOW_DUBLEES,
    TAKE_DISCARD,
    UNSEEN,
    XX,
    codes,
    pack_cards,
)

DREW = (None, "stock", "discard")
FINISH_KINDS = (None, "sets", "dublees")
TURN_KEYS = frozenset(("drew", "took", "took_while_seen", "expose_done"))
RNG_BITS = 63
"""Bits of the generator state of an engine-dealt match (``getrandbits(63)``)."""
DOUBLE_SAFE = 2**53
"""Integers from here on may be rounded by a client that reads JSON numbers as doubles
(JavaScript's ``JSON.parse``)."""


# --------------------------------------------------------------------------- actions


def action_to_json(action: Any, *, public: bool = False) -> JSON:
    """The JSON form of an internal action (R23 canonical forms)."""
    if isinstance(action, int):
        if action < NCODES:
            return {"type": "discard", "card": ALL_CODES[action]}
        if action == DRAW_STOCK:
            return {"type": "draw_stock"}
        if action == TAKE_DISCARD:
            return {"type": "take_discard"}
        if action == PASS:
            return {"type": "pass"}
        if action < PICK_BASE:
            return {"type": "expose_tunnela", "card": ALL_CODES[action - EXPOSE_BASE]}
        return {"type": "pick_tiplu", "index": action - PICK_BASE}
    kind = action[0]
    if kind == SHOW:
        return {"type": SHOW, "sets": [codes(s) for s in action[1]]}
    if kind == SHOW_DUBLEES:
        return {"type": SHOW_DUBLEES, "pairs": codes(action[1])}
    if kind == FINISH:
        return {
            "type": FINISH,
            "sets": [codes(s) for s in action[1]],
            "discard": ALL_CODES[action[2]],
        }
    if kind == FINISH_DUBLEES:
        return {
            "type": FINISH_DUBLEES,
            "pair": ALL_CODES[action[1]],
            "discard": ALL_CODES[action[2]],
        }
    deck = action[1]
    if public or isinstance(deck, int):
        return {"type": DEAL, "deck": deck if isinstance(deck, int) else len(deck)}
    return {"type": DEAL, "deck": codes(deck)}


_FIELDS = {
    "discard": {"card"},
    "draw_stock": set(),
    "take_discard": set(),
    "pass": set(),
    "expose_tunnela": {"card"},
    "pick_tiplu": {"index"},
    "show": {"sets"},
    "show_dublees": {"pairs"},
    "finish": {"sets", "discard"},
    "finish_dublees": {"pair", "discard"},
    "deal": {"deck"},
}


def _card(value: Any, man_cards: int, where: str) -> int:
    card = CODE_TO_CARD.get(value) if isinstance(value, str) else None
    if card is None or (card == XX and not man_cards):
        raise BadAction(f"no such card in the Marriage pack: {value!r}", field=where)
    return card


def _card_list(value: Any, man_cards: int, where: str) -> list[int]:
    if not isinstance(value, list) or len(value) > 200:
        raise BadAction(f"{where} must be a list of card codes", field=where)
    return [_card(v, man_cards, f"{where}[{i}]") for i, v in enumerate(value)]


def _sets(value: Any, man_cards: int, where: str) -> tuple[tuple[tuple[int, ...], ...], list[list[int]]]:
    if not isinstance(value, list) or len(value) > 8:
        raise BadAction(f"{where} must be a list of sets of three cards", field=where)
    raw = []
    for i, s in enumerate(value):
        cards = _card_list(s, man_cards, f"{where}[{i}]")
        if len(cards) != 3:
            raise BadAction(f"{where}[{i}]: a set is exactly three cards", field=f"{where}[{i}]")
        raw.append(cards)
    return tuple(sorted(tuple(sorted(s)) for s in raw)), raw


class ClientAction(tuple):  # type: ignore[type-arg]
    """A canonical action tuple that remembers the client's own set order, so reason
    texts quote a set as sent (§9). Equal to, and hashed as, the plain tuple."""

    raw: Any = None


def _with_raw(action: tuple[Any, ...], raw: Any) -> tuple[Any, ...]:
    out = ClientAction(action)
    out.raw = raw
    return out


def parse_action(data: Any, man_cards: int, *, allow_hidden_deck: bool = False) -> tuple[Any, Any]:
    """Read a JSON action: (internal action, the client's set order for reason texts)."""
    if not isinstance(data, Mapping):
        raise BadAction("an action must be an object with a type", field="action")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise BadAction(f"unknown action type {kind!r}; Marriage actions: {', '.join(_FIELDS)}", field="type")
    extra = set(data) - _FIELDS[kind] - {"type"}
    if extra:
        raise BadAction(f"unexpected field {sorted(extra)[0]!r} in {kind}", field=sorted(extra)[0])
    for name in _FIELDS[kind]:
        if name not in data:
            raise BadAction(f"{kind} needs {name!r}", field=name)
    if kind == "discard":
        return _card(data["card"], man_cards, "card"), None
    if kind == "draw_stock":
        return DRAW_STOCK, None
    if kind == "take_discard":
        return TAKE_DISCARD, None
    if kind == "pass":
        return PASS, None
    if kind == "expose_tunnela":
        return EXPOSE_BASE + _card(data["card"], man_cards, "card"), None
    if kind == "pick_tiplu":
        index = data["index"]
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < 1000:
            raise BadAction("index must be a whole number from 0", field="index")
        return PICK_BASE + index, None
    if kind == "show":
        sets, raw = _sets(data["sets"], man_cards, "sets")
        return _with_raw((SHOW, sets), raw), raw
    if kind == "show_dublees":
        pairs = _card_list(data["pairs"], man_cards, "pairs")
        if len(pairs) > 8:
            raise BadAction("pairs: at most seven dublees", field="pairs")
        return (SHOW_DUBLEES, tuple(sorted(pairs))), None
    if kind == "finish":
        sets, raw = _sets(data["sets"], man_cards, "sets")
        return _with_raw((FINISH, sets, _card(data["discard"], man_cards, "discard")), raw), raw
    if kind == "finish_dublees":
        return (
            FINISH_DUBLEES,
            _card(data["pair"], man_cards, "pair"),
            _card(data["discard"], man_cards, "discard"),
        ), None
    deck = data["deck"]
    if allow_hidden_deck and isinstance(deck, int) and not isinstance(deck, bool):
        return (DEAL, deck), None
    return (DEAL, tuple(_card_list(deck, man_cards, "deck"))), None


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


# --------------------------------------------------------------------------- state -> JSON


def history_json(st: MState, public: bool) -> list[JSON]:
    out: list[JSON] = []
    node = st.hist
    left = st.hlen - st.deal_start if public else st.hlen
    while node is not None and left > 0:
        if node[0] == GAP:
            out.extend({"seat": 0, "action": {"type": "pass"}} for _ in range(min(left, node[1])))
            break
        left -= 1
        node, seat, action = node
        out.append({"seat": seat, "action": action_to_json(action, public=public)})
    out.reverse()
    return out


def _shown_json(item: list[Any]) -> list[Any]:
    return [codes(x) if isinstance(x, tuple) else ALL_CODES[x] for x in item]


def to_json(st: MState, game_id: str) -> JSON:
    """The full state (§3 fields; names of the shared state convention)."""
    n = st.n
    return {
        "game": game_id,
        "version": SCHEMA_VERSION,
        "options": dict(st.options),
        "players": n,
        "dealer": st.dealer,
        "phase": PHASES[st.phase],
        "to_act": st.cur,
        "scores": list(st.totals),
        "deal_no": st.deal_no,
        "history": history_json(st, False),
        "deal_start": st.deal_start,
        "rng_state": rng_state_to_json(st.rng_state),
        "caller_dealt": st.caller,
        "hands": [[ALL_CODES[c] for c in range(NCODES) for _ in range(h[c])] for h in st.hands],
        "tunnelas": [codes(t) for t in st.tunnelas],
        "shown": [_shown_json(s) for s in st.shown],
        "route": [ROUTES[r] for r in st.route],
        "seen": [r != UNSEEN for r in st.route],
        "stock": codes(st.stock[::-1]),
        "tiplu": ALL_CODES[st.tiplu] if st.tiplu >= 0 else None,
        "tiplu_chosen": st.tiplu >= 0,
        "men_revealed": st.men_rev,
        "discard": [
            {
                "card": ALL_CODES[entry_card(e)],
                "by": entry_by(e) if entry_by(e) >= 0 else None,
                "by_unseen": entry_unseen(e),
            }
            for e in st.discard
        ],
        "turn": {
            "drew": DREW[st.drew],
            "took": ALL_CODES[st.took] if st.took >= 0 else None,
            "took_while_seen": st.tws,
            "expose_done": expose_done(st),
        },
        "turns_completed": st.turns,
        "winner": st.winner if st.winner >= 0 else None,
        "finish_kind": FINISH_KINDS[st.fkind],
        "maal": list(st.maal) if st.maal is not None else None,
        "deal_delta": list(st.delta) if st.delta is not None else None,
        "result_deal": st.result_deal or None,
        "recycled": codes(st.recycled),
        "taken": [codes(t) for t in st.taken],
    }


def view(st: MState, seat: int, game_id: str) -> JSON:
    """§7: the seat's view: own hand, public fields; other hands and the stock as counts,
    the tiplu only when seen or at the deal's end; no generator; dealt decks as sizes."""
    out = to_json(st, game_id)
    del out["rng_state"]
    out["seat"] = seat
    out["history"] = history_json(st, True)
    if st.phase != OVER:
        out["hands"] = [h if s == seat else len(h) for s, h in enumerate(out["hands"])]
        if seat == SPECTATOR or st.route[seat] == UNSEEN:
            out["tiplu"] = None
    out["stock"] = len(st.stock)
    return out


# --------------------------------------------------------------------------- JSON -> state

STATE_KEYS = frozenset(
    (
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
        "caller_dealt",
        "hands",
        "tunnelas",
        "shown",
        "route",
        "seen",
        "stock",
        "tiplu",
        "tiplu_chosen",
        "men_revealed",
        "discard",
        "turn",
        "turns_completed",
        "winner",
        "finish_kind",
        "maal",
        "deal_delta",
        "result_deal",
        "recycled",
        "taken",
        "deal_start",
    )
)


def get(data: Mapping[str, Any], key: str) -> Any:
    if key not in data:
        raise bad("missing", key)
    return data[key]


def as_int(value: Any, field: str, lo: int, hi: int, *, null: bool = False) -> Any:
    if value is None and null:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise bad(f"must be a whole number from {lo} to {hi}" + (" or null" if null else ""), field)
    return value


def as_bool(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise bad("must be true or false", field)
    return value


def as_list(value: Any, field: str, size: int | None = None, most: int = 400) -> list[Any]:
    if not isinstance(value, list) or len(value) > most:
        raise bad("must be a list", field)
    if size is not None and len(value) != size:
        raise bad(f"must have {size} entries", field)
    return value


def as_card(value: Any, field: str, man_cards: int) -> int:
    card = CODE_TO_CARD.get(value) if isinstance(value, str) else None
    if card is None or (card == XX and not man_cards):
        raise bad(f"{value!r} is not a card of the Marriage pack", field)
    return card


def as_cards(value: Any, field: str, man_cards: int) -> list[int]:
    return [as_card(v, f"{field}[{i}]", man_cards) for i, v in enumerate(as_list(value, field))]


def load(
    data: Any, game: Any, *, view_seat: int | None = None, canonical: bool = False
) -> tuple[MState, dict[str, Any]]:
    """Read a state (or, with ``view_seat``, a view), then hold it against the rules
    (:func:`checks.check_loaded`). For a view the hidden parts are left for the sampler:
    returns the state and the hidden sizes. With ``canonical`` (a full state from a
    client) the state must be written exactly as the engine writes it, so that nothing in
    it is silently reordered or dropped."""
    if not isinstance(data, Mapping):
        raise InvalidState("a state must be a JSON object", field="state")
    allowed = STATE_KEYS | ({"seat"} if view_seat is not None else set())
    for key in data:
        if key not in allowed:
            raise bad("unknown field", str(key))
    if view_seat is not None and "rng_state" in data:
        raise bad("a view carries no generator state", "rng_state")
    if get(data, "game") != game.id:
        raise bad(f"must be {game.id!r}", "game")
    if get(data, "version") != SCHEMA_VERSION:
        raise bad(f"must be {SCHEMA_VERSION}", "version")
    n = get(data, "players")
    if isinstance(n, bool) or n not in game.player_counts:
        raise bad("must be 2, 3, 4 or 5", "players")
    try:
        options = game.parse_options(get(data, "options"), n)
    except Exception as exc:  # InvalidSetup -> InvalidState naming the option
        raise InvalidState(str(exc), field="options") from None
    if options != data["options"]:
        raise bad("must list every option", "options")
    st = blank_state(n, options)
    _read_match(st, data, view_seat)
    _read_tables(st, data)
    _read_piles(st, data)
    _read_turn(st, data)
    hidden = _read_hands_and_stock(st, data, view_seat)
    start = get(data, "deal_start")
    st.hist, st.hkey, st.hlen, deal = _load_history(
        get(data, "history"), st.opts.man_cards, start, view_seat is not None
    )
    st.deal_start = start
    check_loaded(st, data, view_seat, hidden, deal, 0 if view_seat is not None else start)
    if canonical and view_seat is None:
        written_as_the_engine_writes(to_json(st, game.id), data)
    return st, hidden


def _read_match(st: MState, data: Mapping[str, Any], view_seat: int | None) -> None:
    """The match's fields: dealer, phase, seat to act, scores, deal, generator."""
    n = st.n
    st.dealer = as_int(get(data, "dealer"), "dealer", 0, n - 1)
    phase = get(data, "phase")
    if phase not in PHASES:
        raise bad(f"unknown phase {phase!r}", "phase")
    st.phase = PHASES.index(phase)
    st.cur = as_int(get(data, "to_act"), "to_act", 0, n - 1, null=True)
    st.over = st.cur is None
    scores = as_list(get(data, "scores"), "scores", n)
    st.totals = [as_int(v, f"scores[{i}]", 1 - DOUBLE_SAFE, DOUBLE_SAFE - 1) for i, v in enumerate(scores)]
    st.deal_no = as_int(get(data, "deal_no"), "deal_no", 1, last_deal_no(st.options, 10**9))
    st.caller = as_bool(get(data, "caller_dealt"), "caller_dealt")
    if view_seat is None:
        rng_state = get(data, "rng_state")
        if st.caller:  # a caller-dealt match has no generator
            if rng_state is not None:
                raise bad("must be null in a caller-dealt match", "rng_state")
        else:
            st.rng_state = rng_state_from_json(rng_state)


def _read_tables(st: MState, data: Mapping[str, Any]) -> None:
    """What each seat has laid on the table: tunnelas, route, seen, shown sets or pairs."""
    n, men = st.n, st.opts.man_cards
    tun = as_list(get(data, "tunnelas"), "tunnelas", n)
    st.tunnelas = [as_cards(t, f"tunnelas[{s}]", 0) for s, t in enumerate(tun)]
    routes = as_list(get(data, "route"), "route", n)
    st.route = []
    for s, r in enumerate(routes):
        if r not in ROUTES:
            raise bad("must be null, 'sets' or 'dublees'", f"route[{s}]")
        st.route.append(ROUTES.index(r))
    for s, v in enumerate(as_list(get(data, "seen"), "seen", n)):
        as_bool(v, f"seen[{s}]")
    shown = as_list(get(data, "shown"), "shown", n)
    st.shown = []
    for s, item in enumerate(shown):  # its shape follows the route: sets, pairs or nothing
        field = f"shown[{s}]"
        item = as_list(item, field, most=10)
        if st.route[s] == SETS:
            sets = []
            for i, x in enumerate(item):
                cards = as_cards(x, f"{field}[{i}]", men)
                if len(cards) != 3:
                    raise bad("a set is three cards", f"{field}[{i}]")
                sets.append(tuple(sorted(cards)))
            st.shown.append(sets)
        elif st.route[s] == DUBLEES:
            st.shown.append(as_cards(item, field, 0))
        else:
            if item:
                raise bad("an unseen seat has shown nothing", field)
            st.shown.append([])


def _read_piles(st: MState, data: Mapping[str, Any]) -> None:
    """The tiplu, the men revealed, the discard pile, the recycled and taken cards."""
    n, men = st.n, st.opts.man_cards
    st.men_rev = as_int(get(data, "men_revealed"), "men_revealed", 0, men)
    tiplu = get(data, "tiplu")
    chosen = as_bool(get(data, "tiplu_chosen"), "tiplu_chosen")
    if tiplu is None:
        st.tiplu = -2 if chosen else -1  # -2: chosen but hidden from the viewer
    else:
        st.tiplu = as_card(tiplu, "tiplu", 0)
    st.discard = []
    for i, e in enumerate(as_list(get(data, "discard"), "discard")):
        field = f"discard[{i}]"
        if not isinstance(e, Mapping) or set(e) != {"card", "by", "by_unseen"}:
            raise bad("an entry is {card, by, by_unseen}", field)
        by = as_int(e["by"], f"{field}.by", 0, n - 1, null=True)
        st.discard.append(
            entry(
                as_card(e["card"], f"{field}.card", men),
                -1 if by is None else by,
                as_bool(e["by_unseen"], f"{field}.by_unseen"),
            )
        )
    st.recycled = tuple(sorted(as_cards(get(data, "recycled"), "recycled", men)))
    taken = as_list(get(data, "taken"), "taken", n)
    st.taken = [tuple(sorted(as_cards(t, f"taken[{s}]", men))) for s, t in enumerate(taken)]


def _read_turn(st: MState, data: Mapping[str, Any]) -> None:
    """The turn in progress, the turns completed, and the last deal's result."""
    n, men = st.n, st.opts.man_cards
    turn = get(data, "turn")
    if not isinstance(turn, Mapping) or not ({"drew", "took", "took_while_seen"} <= set(turn) <= TURN_KEYS):
        raise bad("must be {drew, took, took_while_seen, expose_done}", "turn")
    if turn["drew"] not in DREW:
        raise bad("must be null, 'stock' or 'discard'", "turn.drew")
    st.drew = DREW.index(turn["drew"])
    st.took = -1 if turn["took"] is None else as_card(turn["took"], "turn.took", men)
    st.tws = as_bool(turn["took_while_seen"], "turn.took_while_seen")
    st.turns = as_int(get(data, "turns_completed"), "turns_completed", 0, st.opts.turn_limit)
    winner = as_int(get(data, "winner"), "winner", 0, n - 1, null=True)
    st.winner = -1 if winner is None else winner
    fk = get(data, "finish_kind")
    if fk not in FINISH_KINDS:
        raise bad("must be 'sets' or 'dublees' exactly when there is a winner", "finish_kind")
    st.fkind = FINISH_KINDS.index(fk)
    for key in ("maal", "deal_delta"):
        v = get(data, key)
        if v is not None:
            v = [
                as_int(x, f"{key}[{i}]", 1 - DOUBLE_SAFE, DOUBLE_SAFE - 1)
                for i, x in enumerate(as_list(v, key, n))
            ]
        setattr(st, "maal" if key == "maal" else "delta", v)
    st.result_deal = as_int(get(data, "result_deal"), "result_deal", 1, st.deal_no, null=True) or 0


def _read_hands_and_stock(st: MState, data: Mapping[str, Any], view_seat: int | None) -> dict[str, Any]:
    """The hands and the stock; a view gives the others' hands (before the deal's end) and
    the stock as sizes only: returns the sizes."""
    n, men = st.n, st.opts.man_cards
    hands = as_list(get(data, "hands"), "hands", n)
    hidden: dict[str, Any] = {"hand_sizes": [0] * n, "stock_size": 0}
    st.hands = []
    for s, h in enumerate(hands):
        field = f"hands[{s}]"
        counts = [0] * NCODES
        if view_seat is not None and s != view_seat and st.phase != OVER:
            hidden["hand_sizes"][s] = as_int(h, field, 0, 30)
        else:
            for c in as_cards(h, field, men):
                counts[c] += 1
            hidden["hand_sizes"][s] = sum(counts)
            if view_seat is not None and s != view_seat and not isinstance(h, list):
                raise bad("hands are shown at deal_over", field)
        st.hands.append(counts)
    stock = get(data, "stock")
    if view_seat is not None:
        hidden["stock_size"] = as_int(stock, "stock", 0, 200)
        st.stock = []
    else:
        st.stock = as_cards(stock, "stock", men)[::-1]
        hidden["stock_size"] = len(st.stock)
    return hidden


def _load_history(
    value: Any, men: int, start: Any, view: bool
) -> tuple[Any, int, int, list[tuple[int, Any]]]:
    """The history as a cons list, its public key, its length and this deal's entries. A
    view holds only the current deal's entries, after ``deal_start`` earlier ones (kept as
    a gap)."""
    deal: list[tuple[int, Any]] = []
    hist: Any = None
    hkey = 0
    items = as_list(value, "history", most=10**6)
    as_int(start, "deal_start", 0, 10**9 if view else len(items))
    if view:
        hist = (GAP, start) if start else None
        items_start = 0
    else:
        items_start = start
    for i, item in enumerate(items):
        field = f"history[{i}]"
        if not isinstance(item, Mapping) or set(item) != {"seat", "action"}:
            raise bad("an entry is {seat, action}", field)
        seat = as_int(item["seat"], f"{field}.seat", 0, 4)
        try:
            action, _ = parse_action(item["action"], men, allow_hidden_deck=True)
        except BadAction as exc:
            raise bad(exc.message, f"{field}.action") from None
        hist = (hist, seat, action)
        if i >= items_start:
            hkey = hash((hkey, seat, public_action(action)))
            deal.append((seat, action))
    return hist, hkey, len(items) + (start if view else 0), deal


# --------------------------------------------------------------------------- layouts


def _layout_cards(value: Any, field: str) -> list[Any]:
    """A card list in a layout: a list of codes or one space-separated string."""
    if isinstance(value, str):
        return value.split()
    return as_list(value, field)


_ENTRY_RE = re.compile(r"^\s*(\w\w)\s*(?:\(\s*(null|\d)\s*,\s*(yes|no)\s*\))?\s*$")


def _entry_shorthand(text: str, field: str) -> JSON:
    """A discard entry written as in §10: ``"8D(1,no)"``, ``"9C(null, no)"`` or ``"9C"``."""
    m = _ENTRY_RE.match(text)
    if m is None:
        raise bad("write an entry as CARD or CARD(seat|null, yes|no)", field)
    by = None if m.group(2) in (None, "null") else int(m.group(2))
    return {"card": m.group(1), "by": by, "by_unseen": m.group(3) == "yes"}


def layout_to_json(
    layout: Any, game: Any, players: int, options: JSON, dealer: int, seed: int | None
) -> JSON:
    """A full state JSON from a partial one, in the state's own shape (§10 conventions).

    Omitted fields take their natural values (phase ``draw``, ``to_act`` the dealer's
    left, nobody seen, no tiplu, scores 0). Shorthands the rules file uses: a card list
    may be one space-separated string; ``current`` stands for ``to_act``; ``route`` is
    inferred from ``shown`` (sets are lists, pairs are codes) or ``seen``; a discard entry
    may be ``"8D(1,no)"`` or a bare code (the upcard); the chosen ``tiplu`` is put at the
    bottom of the stock unless the listed stock already ends with it. Every card copy
    not placed goes, in canonical order, where the ``"fill"`` marker stands in ``stock``
    or ``discard`` (default: the stock, after the listed cards and before the tiplu; with
    no discard given, the first fill card is the upcard)."""
    if not isinstance(layout, Mapping):
        raise InvalidState("layout must be an object", field="layout")
    if seed is not None and not 0 <= seed < 2**RNG_BITS:
        # a layout's seed is its generator state as is (the deal is given, not shuffled)
        raise InvalidSetup(f"seed must be from 0 to 2**{RNG_BITS} - 1 with a layout", field="seed")
    n = players
    known = STATE_KEYS | {"current"}
    for key in layout:
        if key not in known:
            raise bad("unknown layout field", str(key))
    if "options" in layout and layout["options"] != options:
        options = game.parse_options(layout["options"], n)
    men = options["man_cards"]
    dealer = layout.get("dealer", dealer)
    as_int(dealer, "dealer", 0, n - 1)
    phase = layout.get("phase", "draw")
    to_act = layout.get("to_act", layout.get("current", (dealer + 1) % n))
    hands = [
        [c for c in _layout_cards(h, f"hands[{s}]")]
        for s, h in enumerate(as_list(get(layout, "hands"), "hands", n))
    ]
    tunnelas = layout.get("tunnelas", [[] for _ in range(n)])
    shown = layout.get("shown", [[] for _ in range(n)])
    as_list(shown, "shown", n)
    as_list(tunnelas, "tunnelas", n)
    seen_in = layout.get("seen")
    route = layout.get("route")
    if route is None:
        route = []
        for s in range(n):
            item = shown[s]
            if isinstance(item, list) and item:
                route.append("sets" if isinstance(item[0], list) else "dublees")
            elif seen_in is not None and isinstance(seen_in, list) and s < len(seen_in) and seen_in[s]:
                route.append("sets")
            else:
                route.append(None)
    as_list(route, "route", n)
    seen = [r is not None for r in route]
    tiplu = layout.get("tiplu")
    # count every placed card
    placed = [0] * NCODES

    def take(code: Any, field: str) -> None:
        placed[as_card(code, field, men)] += 1

    for s in range(n):
        for i, c in enumerate(hands[s]):
            take(c, f"hands[{s}][{i}]")
        for i, c in enumerate(as_list(tunnelas[s], f"tunnelas[{s}]")):
            for _ in range(3):
                take(c, f"tunnelas[{s}][{i}]")
        for i, x in enumerate(as_list(shown[s], f"shown[{s}]")):
            for c in x if isinstance(x, list) else [x, x]:
                take(c, f"shown[{s}][{i}]")
    stock_in = [c for c in _layout_cards(layout.get("stock", []), "stock")]
    if tiplu is not None and (not stock_in or stock_in[-1] != tiplu):
        stock_in.append(tiplu)
    disc_in = as_list(layout.get("discard", []), "discard")
    discard: list[Any] = []
    for i, e in enumerate(disc_in):
        if e == "fill":
            discard.append("fill")
        elif isinstance(e, str):
            discard.append(_entry_shorthand(e, f"discard[{i}]"))
        else:
            discard.append(e)
        if isinstance(discard[-1], Mapping):
            take(discard[-1].get("card"), f"discard[{i}].card")
    for i, c in enumerate(stock_in):
        if c != "fill":
            take(c, f"stock[{i}]")
    fill: list[str] = []
    for c in pack_cards(men):
        if placed[c]:
            placed[c] -= 1
        else:
            fill.append(ALL_CODES[c])
    if any(placed):
        c = next(i for i, k in enumerate(placed) if k)
        raise bad(f"too many copies of {ALL_CODES[c]}", "layout")
    if "fill" in discard:
        i = discard.index("fill")
        discard[i : i + 1] = [{"card": c, "by": None, "by_unseen": False} for c in fill]
    elif "fill" in stock_in:
        i = stock_in.index("fill")
        stock_in[i : i + 1] = fill
    else:
        if not discard and fill:
            discard = [{"card": fill.pop(0), "by": None, "by_unseen": False}]
        at = len(stock_in) - (1 if tiplu is not None else 0)
        stock_in[at:at] = fill
    turn = layout.get(
        "turn",
        {
            "drew": "stock" if phase in ("act", "pick_tiplu") else None,
            "took": None,
            "took_while_seen": False,
        },
    )
    return {
        "game": game.id,
        "version": SCHEMA_VERSION,
        "options": options,
        "players": n,
        "dealer": dealer,
        "phase": phase,
        "to_act": to_act,
        "scores": layout.get("scores", [0] * n),
        "deal_no": layout.get("deal_no", 1),
        "history": layout.get("history", []),
        "rng_state": layout.get("rng_state", rng_state_to_json(seed)),
        "caller_dealt": layout.get("caller_dealt", seed is None and "rng_state" not in layout),
        "hands": hands,
        "tunnelas": tunnelas,
        "shown": shown,
        "route": route,
        "seen": seen,
        "stock": stock_in,
        "tiplu": tiplu,
        "tiplu_chosen": tiplu is not None,
        "men_revealed": layout.get("men_revealed", 0),
        "discard": discard,
        "turn": turn,
        "turns_completed": layout.get("turns_completed", 0),
        "winner": layout.get("winner"),
        "finish_kind": layout.get("finish_kind"),
        "maal": layout.get("maal"),
        "deal_delta": layout.get("deal_delta"),
        "result_deal": layout.get("result_deal"),
        "recycled": layout.get("recycled", []),
        "deal_start": layout.get("deal_start", 0),
        "taken": layout.get("taken", [[] for _ in range(n)]),
    }
