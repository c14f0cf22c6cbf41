"""Marriage: state JSON out and in (strict), layouts, views, actions as JSON."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from engine.checks import rng_state_from_json, rng_state_to_json
from engine.protocol import JSON, SCHEMA_VERSION, SPECTATOR, BadAction, InvalidSetup, InvalidState

from . import play as P
from . import rules as R
from .rules import ALL_CODES, CODE_TO_CARD, NCODES, XX
from .state import (
    ACT,
    DEAL,
    DRAW,
    DRAW_STOCK,
    DUBLEES,
    EXPOSE,
    EXPOSE_BASE,
    FINISH,
    FINISH_DUBLEES,
    OVER,
    PASS,
    PHASES,
    PICK,
    PICK_BASE,
    ROUTES,
    SETS,
    SHOW,
    SHOW_DUBLEES,
    TAKE_DISCARD,
    UNSEEN,
    MState,
    entry,
    entry_by,
    entry_card,
    entry_unseen,
    public_action,
)

DREW = (None, "stock", "discard")
TURN_KEYS = frozenset(("drew", "took", "took_while_seen", "expose_done"))


def expose_done(st: MState) -> list[bool]:
    """R9: which seats have finished exposing (they decide from the dealer's left)."""
    if st.phase != EXPOSE or st.cur is None:
        return [True] * st.n
    done = [False] * st.n
    seat = (st.dealer + 1) % st.n
    while seat != st.cur:
        done[seat] = True
        seat = (seat + 1) % st.n
    return done


FINISH_KINDS = (None, "sets", "dublees")

# --------------------------------------------------------------------------- the generator state

RNG_BITS = 63
"""Bits of the generator state of an engine-dealt match (``getrandbits(63)``)."""
DOUBLE_SAFE = 2**53
"""Integers from here on may be rounded by a client that reads JSON numbers as doubles
(JavaScript's ``JSON.parse``)."""


# Written and read by engine.checks (one rule for every game: a decimal string, below 2**63).
rng_state_json = rng_state_to_json
parse_rng_state = rng_state_from_json


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
        return {"type": SHOW, "sets": [R.codes(s) for s in action[1]]}
    if kind == SHOW_DUBLEES:
        return {"type": SHOW_DUBLEES, "pairs": R.codes(action[1])}
    if kind == FINISH:
        return {
            "type": FINISH,
            "sets": [R.codes(s) for s in action[1]],
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
    return {"type": DEAL, "deck": R.codes(deck)}


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


# --------------------------------------------------------------------------- state -> JSON


GAP = "gap"
"""Root of a history whose earlier deals are unknown (a world sampled from a view):
``(GAP, k)`` stands for k entries; they are written as passes by seat 0."""


def _history(st: MState, public: bool) -> list[JSON]:
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
    return [R.codes(x) if isinstance(x, tuple) else ALL_CODES[x] for x in item]


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
        "history": _history(st, False),
        "deal_start": st.deal_start,
        "rng_state": rng_state_json(st.rng_state),
        "caller_dealt": st.caller,
        "hands": [[ALL_CODES[c] for c in range(NCODES) for _ in range(h[c])] for h in st.hands],
        "tunnelas": [R.codes(t) for t in st.tunnelas],
        "shown": [_shown_json(s) for s in st.shown],
        "route": [ROUTES[r] for r in st.route],
        "seen": [r != UNSEEN for r in st.route],
        "stock": R.codes(st.stock[::-1]),
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
        "recycled": R.codes(st.recycled),
        "taken": [R.codes(t) for t in st.taken],
    }


def view(st: MState, seat: int, game_id: str) -> JSON:
    """§7: the seat's view: own hand, public fields; other hands and the stock as counts,
    the tiplu only when seen or at the deal's end; no generator; dealt decks as sizes."""
    out = to_json(st, game_id)
    del out["rng_state"]
    out["seat"] = seat
    out["history"] = _history(st, True)
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


def bad(message: str, field: str) -> InvalidState:
    return InvalidState(f"{field}: {message}", field=field)


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
    """Validate a state (or, with ``view_seat``, a view) and load it. For a view the
    hidden parts are left for the sampler: returns the state and the hidden sizes. With
    ``canonical`` (a full state from a client) the state must be written exactly as the
    engine writes it, so that nothing in it is silently reordered or dropped."""
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
    st = MState.__new__(MState)
    from .state import Options

    st.n = n
    st.options = options
    st.opts = o = Options.of(options)
    men = o.man_cards
    st.dealer = as_int(get(data, "dealer"), "dealer", 0, n - 1)
    phase = get(data, "phase")
    if phase not in PHASES:
        raise bad(f"unknown phase {phase!r}", "phase")
    st.phase = PHASES.index(phase)
    st.cur = as_int(get(data, "to_act"), "to_act", 0, n - 1, null=True)
    scores = as_list(get(data, "scores"), "scores", n)
    st.totals = [as_int(v, f"scores[{i}]", 1 - DOUBLE_SAFE, DOUBLE_SAFE - 1) for i, v in enumerate(scores)]
    st.deal_no = as_int(get(data, "deal_no"), "deal_no", 1, last_deal_no(options, 10**9))
    st.caller = as_bool(get(data, "caller_dealt"), "caller_dealt")
    if view_seat is None:
        rng_state = get(data, "rng_state")
        if st.caller:
            if rng_state is not None:
                raise bad("must be null in a caller-dealt match", "rng_state")
            st.rng_state = None
        else:
            st.rng_state = parse_rng_state(rng_state)
    else:
        st.rng_state = None
    st.over = st.cur is None
    if st.over and (st.phase != OVER or not o.deals or st.deal_no < o.deals):
        raise bad("is null only when the match is over", "to_act")
    # tables
    tun = as_list(get(data, "tunnelas"), "tunnelas", n)
    st.tunnelas = [as_cards(t, f"tunnelas[{s}]", 0) for s, t in enumerate(tun)]
    routes = as_list(get(data, "route"), "route", n)
    st.route = []
    for s, r in enumerate(routes):
        if r not in ROUTES:
            raise bad("must be null, 'sets' or 'dublees'", f"route[{s}]")
        st.route.append(ROUTES.index(r))
    seen = as_list(get(data, "seen"), "seen", n)
    for s, v in enumerate(seen):
        if as_bool(v, f"seen[{s}]") != (st.route[s] != UNSEEN):
            raise bad("must be true exactly when the route is set", f"seen[{s}]")
    shown = as_list(get(data, "shown"), "shown", n)
    st.shown = []
    for s, item in enumerate(shown):
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
            pairs = as_cards(item, field, 0)
            st.shown.append(pairs)
        else:
            if item:
                raise bad("an unseen seat has shown nothing", field)
            st.shown.append([])
    for s, item in enumerate(st.shown):
        t = len(st.tunnelas[s])
        if st.route[s] == SETS:
            if t + len(item) < R.SETS_TO_SEE:
                raise bad(f"a seen seat shows {R.SETS_TO_SEE - t} sets", f"shown[{s}]")
            for i, trio in enumerate(item[: max(0, R.SETS_TO_SEE - t)]):
                if not R.is_pure_set(trio):
                    raise bad("the first sets must be tunnelas or pure sequences", f"shown[{s}][{i}]")
            if t + len(item) > R.SETS_TO_FINISH:
                raise bad("at most 7 sets", f"shown[{s}]")
        elif st.route[s] == DUBLEES:
            if t + len(item) < R.DUBLEES_TO_SEE or t + len(item) > R.DUBLEES_TO_FINISH:
                raise bad(f"a dublee seat shows {R.DUBLEES_TO_SEE - t} pairs", f"shown[{s}]")
    # piles
    st.men_rev = as_int(get(data, "men_revealed"), "men_revealed", 0, men)
    tiplu = get(data, "tiplu")
    chosen = as_bool(get(data, "tiplu_chosen"), "tiplu_chosen")
    if tiplu is None:
        if chosen and (view_seat is None or st.phase == OVER or st.route[view_seat] != UNSEEN):
            raise bad("the chosen tiplu must be given", "tiplu")
        st.tiplu = -2 if chosen else -1  # -2: chosen but hidden from the viewer
    else:
        if not chosen:
            raise bad("no tiplu before one is chosen", "tiplu")
        st.tiplu = as_card(tiplu, "tiplu", 0)
        if view_seat is not None and st.phase != OVER and st.route[view_seat] == UNSEEN:
            raise bad("an unseen seat does not know the tiplu", "tiplu")
    if not chosen and st.men_rev and st.phase != PICK:
        raise bad("men are revealed only while picking the tiplu", "men_revealed")
    disc = as_list(get(data, "discard"), "discard")
    if not disc and st.phase not in (ACT, PICK):
        raise bad("the discard pile holds at least one card", "discard")
    st.discard = []
    for i, e in enumerate(disc):
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
    turn = get(data, "turn")
    if not isinstance(turn, Mapping) or not ({"drew", "took", "took_while_seen"} <= set(turn) <= TURN_KEYS):
        raise bad("must be {drew, took, took_while_seen, expose_done}", "turn")
    if turn["drew"] not in DREW:
        raise bad("must be null, 'stock' or 'discard'", "turn.drew")
    st.drew = DREW.index(turn["drew"])
    st.took = -1 if turn["took"] is None else as_card(turn["took"], "turn.took", men)
    st.tws = as_bool(turn["took_while_seen"], "turn.took_while_seen")
    if (st.drew == 2) != (st.took >= 0) or (st.tws and st.drew != 2):
        raise bad("took is the card taken from the discard", "turn")
    if st.phase in (ACT, PICK) and not st.drew:
        raise bad(f"{PHASES[st.phase]} comes after a draw", "turn.drew")
    if st.phase in (EXPOSE, DRAW) and (st.drew or st.tws):
        raise bad("no draw yet in this phase", "turn")
    st.turns = as_int(get(data, "turns_completed"), "turns_completed", 0, o.turn_limit)
    if "expose_done" in turn and st.cur is not None and turn["expose_done"] != expose_done(st):
        raise bad("must list the seats that have finished exposing", "turn.expose_done")
    winner = as_int(get(data, "winner"), "winner", 0, n - 1, null=True)
    st.winner = -1 if winner is None else winner
    fk = get(data, "finish_kind")
    if fk not in FINISH_KINDS or (fk is None) != (winner is None):
        raise bad("must be 'sets' or 'dublees' exactly when there is a winner", "finish_kind")
    st.fkind = FINISH_KINDS.index(fk)
    if winner is not None and st.phase != OVER:
        raise bad("a winner exists only at deal_over", "winner")
    for key in ("maal", "deal_delta"):
        v = get(data, key)
        if v is not None:
            v = [
                as_int(x, f"{key}[{i}]", 1 - DOUBLE_SAFE, DOUBLE_SAFE - 1)
                for i, x in enumerate(as_list(v, key, n))
            ]
        setattr(st, "maal" if key == "maal" else "delta", v)
    st.result_deal = as_int(get(data, "result_deal"), "result_deal", 1, st.deal_no, null=True) or 0
    st.recycled = tuple(sorted(as_cards(get(data, "recycled"), "recycled", men)))
    taken = as_list(get(data, "taken"), "taken", n)
    st.taken = [tuple(sorted(as_cards(t, f"taken[{s}]", men))) for s, t in enumerate(taken)]
    # hands and stock
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
        for c in st.taken[s]:
            if view_seat is None and counts[c] < st.taken[s].count(c):
                raise bad("a card known to be in this hand is missing", f"taken[{s}]")
    stock = get(data, "stock")
    if view_seat is not None:
        hidden["stock_size"] = as_int(stock, "stock", 0, 200)
        st.stock = []
    else:
        st.stock = as_cards(stock, "stock", men)[::-1]
        hidden["stock_size"] = len(st.stock)
        if chosen and (not st.stock or st.stock[0] != st.tiplu):
            raise bad("once the tiplu is chosen the stock's last card is the tiplu", "stock")
        low = 1 if chosen else 0
        if len(st.stock) < low + st.men_rev or any(c != XX for c in st.stock[low : low + st.men_rev]):
            raise bad("revealed men lie just above the tiplu", "stock")
    _check_sizes(st, hidden)
    if view_seat is None:
        _check_conservation(st)
    start = get(data, "deal_start")
    st.hist, st.hkey, st.hlen, deal = _load_history(get(data, "history"), men, start, view_seat is not None)
    st.deal_start = start
    _check_turn_order(st, deal, 0 if view_seat is not None else start)
    _check_public_replay(st, deal, hidden["stock_size"])
    _check_match(st, full=view_seat is None)
    if canonical and view_seat is None:
        _check_canonical(st, data, game.id)
    return st, hidden


def _check_canonical(st: MState, data: Mapping[str, Any], game_id: str) -> None:
    """Every field of ``data`` is what the engine writes for the state it loaded to (hands
    and sets in canonical order...). One older form is still read: ``rng_state`` as a JSON
    integer below 2**53. (A layout may leave out ``turn.expose_done``; a state may not.)"""
    for key, value in to_json(st, game_id).items():
        got = data[key]
        if key == "rng_state" and isinstance(got, int):
            continue
        if got != value:
            raise bad("must be written as the engine writes it (cards in canonical order)", key)


def last_deal_no(options: Mapping[str, Any], default: int) -> int:
    """R34: the last deal of the match, or ``default`` in an open-ended match."""
    return int(options["deals"]) or default


def _check_turn_order(st: MState, deal: list[tuple[int, Any]], first: int) -> None:
    """R9-R18, R24, R33: the entries of this deal take their turns in order from the
    dealer's left (an expose turn ends with a pass, a play turn with a discard), and the
    seat to act, the phase and ``turns_completed`` follow from them. A deal dealt by the
    engine or a caller starts with the expose turns; one set up from a layout may start at
    any seat's play turn (its turns before are not in the history)."""
    if not deal and st.phase != EXPOSE:
        return
    n, dealer = st.n, st.dealer
    cur, exposing, ended, last = (dealer + 1) % n, True, False, None
    from_layout = not _held_from_start(st, deal)
    discards = 0  # turns completed: a layout's own count plus the discards since
    if from_layout:
        cur, exposing = deal[0][0], False
        discards = st.turns - sum(1 for _, a in deal if isinstance(a, int) and a < NCODES)
    for i, (seat, action) in enumerate(deal):
        where = f"history[{first + i}]"
        if ended:
            raise bad("no entry follows the end of the deal", where)
        if seat != cur:
            raise bad(f"seat {cur} was to act, not {seat}", f"{where}.seat")
        if (action == PASS or _is_expose(action)) != exposing:
            raise bad(f"{PHASES[EXPOSE] if exposing else 'a play turn'} was going on", f"{where}.action")
        last = action
        if action == PASS:
            cur = (seat + 1) % n
            exposing = seat != dealer
        elif isinstance(action, int) and action < NCODES:
            discards += 1
            cur = (seat + 1) % n
            ended = discards >= st.opts.turn_limit
        elif isinstance(action, tuple) and action[0] in (FINISH, FINISH_DUBLEES, DEAL):
            ended = True
    if st.turns != discards or discards < 0:
        raise bad("must be the count of this deal's discards", "turns_completed")
    if ended != (st.phase == OVER):
        raise bad("the deal is over exactly after a finish or the turn limit (R33)", "phase")
    if exposing != (st.phase == EXPOSE):
        raise bad("expose lasts until the dealer passes (R9)", "phase")
    if st.phase == DRAW and not (last == PASS or isinstance(last, int) and last < NCODES):
        raise bad("a turn starts with a draw after the previous discard", "phase")
    if st.phase in (ACT, PICK) and (last == PASS or isinstance(last, int) and last < NCODES):
        raise bad("a seat acts after its draw", "phase")
    if st.phase != OVER and st.cur != cur:
        raise bad(f"must be {cur}, the seat whose turn it is", "to_act")


def _check_public_replay(st: MState, deal: list[tuple[int, Any]], stock_size: int) -> None:
    """R9-R22 on a deal the history holds from its start: what the whole table saw follows
    from the entries. Replaying them on the public fields alone (exposed tunnelas, routes,
    shown sets, the discard pile's entries, the stock's size, the men revealed, the tiplu
    being chosen, the last rebuild) must give the state's; the card of the upcard and of
    each stock draw stay unknown and are not compared."""
    if not _held_from_start(st, deal):
        return
    n = st.n
    tunnelas: list[list[int]] = [[] for _ in range(n)]
    route = [UNSEEN] * n
    shown: list[list[Any]] = [[] for _ in range(n)]
    pile: list[tuple[int | None, int, bool]] = [(None, -1, False)]  # the upcard is unknown
    stock = len(R.pack_cards(st.opts.man_cards)) - R.HAND_SIZE * n - 1
    chosen, men = False, 0
    recycled: list[int | None] = []  # None: the unknown upcard

    def rebuild() -> None:
        """R22 (as ``play._rebuild``): the pile but its top goes under the stock."""
        nonlocal stock, pile, recycled
        if stock - chosen > 0:
            return
        recycled = [c for c, _, _ in pile[:-1]]
        stock += len(pile) - 1
        pile = pile[-1:]

    for i, (seat, action) in enumerate(deal):
        if isinstance(action, int):
            if action < NCODES:
                pile.append((action, seat, route[seat] == UNSEEN))
                rebuild()
            elif action == DRAW_STOCK:
                stock -= 1
                if men and stock - chosen < men:
                    men -= 1
            elif action == TAKE_DISCARD:
                pile.pop()
            elif _is_expose(action):
                tunnelas[seat].append(action - EXPOSE_BASE)
            elif action >= PICK_BASE:
                again = deal[i + 1][1] if i + 1 < len(deal) else None
                is_man = isinstance(again, int) and again >= PICK_BASE or again is None and st.phase == PICK
                men, chosen = (men + 1, chosen) if is_man else (men, True)
        elif action[0] in (SHOW, SHOW_DUBLEES):
            route[seat] = SETS if action[0] == SHOW else DUBLEES
            shown[seat] = list(action[1])
            if not chosen and not stock:
                rebuild()
        elif action[0] in (FINISH, FINISH_DUBLEES):
            shown[seat] = shown[seat] + (list(action[1]) if action[0] == FINISH else [action[1]])
            pile.append((action[2], seat, False))
    if tunnelas != st.tunnelas:
        raise bad("must be the tunnelas exposed in this deal's history (R9)", "tunnelas")
    if route != st.route:
        raise bad("a seat is seen exactly when it has shown in this deal's history (R12, R13)", "route")
    if shown != st.shown:
        raise bad("must be what this deal's history shows (R12, R13, R15, R16)", "shown")
    got = [(entry_card(e), entry_by(e), entry_unseen(e)) for e in st.discard]
    same = [
        want == have or want[0] is None and want[1:] == have[1:]
        for want, have in zip(pile, got, strict=False)
    ]
    if len(got) != len(pile) or not all(same):
        raise bad("must be the discards of this deal's history, in order (R18)", "discard")
    if stock != stock_size or men != st.men_rev or chosen != (st.tiplu != -1):
        raise bad("the stock, the men revealed and the tiplu follow from this deal's draws", "stock")
    unknown = list(st.recycled)  # the recycled cards not named by the history (the upcard)
    for c in recycled:
        if c is not None and c in unknown:
            unknown.remove(c)
    if len(st.recycled) != len(recycled) or len(unknown) != recycled.count(None):
        raise bad("must be the cards of the last stock rebuild (R22)", "recycled")


def _held_from_start(st: MState, deal: list[tuple[int, Any]]) -> bool:
    """Whether the history holds this deal from its start, the expose turns (a deal set up
    from a layout began before its history, at a play turn)."""
    if not deal:
        return st.phase == EXPOSE
    return deal[0][1] == PASS or _is_expose(deal[0][1])


def _is_expose(action: Any) -> bool:
    return isinstance(action, int) and EXPOSE_BASE <= action < PICK_BASE


def _check_match(st: MState, *, full: bool) -> None:
    """R30-R34: scores and results follow from the finished deals. Payments only move
    points between seats (the scores sum to 0); a finished deal's maal and deltas are what
    settling its cards gives; the last deal of a match ends it; a caller deals the next."""
    n, o = st.n, st.opts
    if sum(st.totals) != 0:
        raise bad("must sum to 0: every point a seat wins another pays (R30, R31)", "scores")
    over = st.phase == OVER
    want_result = st.deal_no if over else st.deal_no - 1
    # a layout of a later deal may leave out the result of the deal before it
    if st.result_deal and st.result_deal != want_result or over and not st.result_deal:
        raise bad(f"must be {want_result}, the last finished deal", "result_deal")
    if (st.delta is None) != (not st.result_deal) or (st.maal is None) != (not st.result_deal):
        raise bad("maal and deal_delta are the last finished deal's", "deal_delta")
    if not want_result and any(st.totals):
        raise bad("are all 0 before the first deal ends", "scores")
    if st.delta is not None and sum(st.delta) != 0:
        raise bad("must sum to 0 (R30, R31)", "deal_delta")
    if not over:
        return
    match_over = bool(o.deals) and st.deal_no >= o.deals
    if match_over != (st.cur is None):
        raise bad("is null exactly when the last deal of the match is over (R34)", "to_act")
    if not match_over:
        if st.cur != (st.dealer + 1) % n:
            raise bad(f"must be {(st.dealer + 1) % n}, the next dealer (R34)", "to_act")
        if not st.caller:
            raise bad("an engine-dealt match deals the next deal at once (R34)", "phase")
    if st.winner < 0:
        if st.turns != o.turn_limit or any(st.maal or ()) or any(st.delta or ()):
            raise bad("a deal without a winner is void at the turn limit (R33)", "deal_delta")
    elif full:
        maal, delta, _ = P.settle(st)
        if st.maal != maal or st.delta != delta:
            raise bad("must be what settling the finished deal gives (R27-R31)", "deal_delta")


def _owned(st: MState, s: int, hand_size: int) -> int:
    shown = sum(3 if isinstance(x, tuple) else 2 for x in st.shown[s])
    return hand_size + 3 * len(st.tunnelas[s]) + shown


def _check_sizes(st: MState, hidden: dict[str, Any]) -> None:
    """§3 invariant: 21 cards owned per seat (22 for the seat in act/pick)."""
    n = st.n
    if st.phase != OVER and st.cur is None:
        raise bad("a seat is to act until the match is over", "to_act")
    for s in range(n):
        want = R.HAND_SIZE + (1 if st.phase in (ACT, PICK) and s == st.cur else 0)
        got = _owned(st, s, hidden["hand_sizes"][s])
        if got != want:
            raise bad(
                f"seat {s} owns {got} cards (hand, tunnelas and shown) but must own {want}",
                f"hands[{s}]",
            )
    if st.phase == EXPOSE and any(st.route):
        raise bad("nobody has seen the joker during expose", "route")
    if st.phase in (DRAW, EXPOSE):
        drawable = hidden["stock_size"] - (1 if st.tiplu != -1 else 0)
        if drawable < 1:
            raise bad("the stock must hold a drawable card", "stock")
    if st.phase == PICK and (st.tiplu != -1 or st.cur is None or st.route[st.cur] == UNSEEN):
        raise bad("pick_tiplu follows the first show", "phase")
    if st.tiplu != -1 and not any(st.route):
        raise bad("the tiplu is chosen by the first seat to show", "tiplu_chosen")
    if st.phase in (ACT, DRAW) and any(st.route) and st.tiplu == -1:
        raise bad("a seat has shown, so the tiplu must be chosen", "tiplu_chosen")
    if st.phase == OVER and st.winner >= 0 and st.route[st.winner] == UNSEEN:
        raise bad("the winner is always seen", "winner")


def _check_conservation(st: MState) -> None:
    counts = [0] * NCODES
    for s in range(st.n):
        for c, k in enumerate(st.hands[s]):
            counts[c] += k
        for c in st.tunnelas[s]:
            counts[c] += 3
        for x in st.shown[s]:
            if isinstance(x, tuple):
                for c in x:
                    counts[c] += 1
            else:
                counts[x] += 2
    for c in st.stock:
        counts[c] += 1
    for e in st.discard:
        counts[entry_card(e)] += 1
    pack = [0] * NCODES
    for c in R.pack_cards(st.opts.man_cards):
        pack[c] += 1
    for c in range(NCODES):
        if counts[c] != pack[c]:
            word = "too many" if counts[c] > pack[c] else "missing"
            raise bad(
                f"{word} copies of {ALL_CODES[c]}: {counts[c]} in play, the pack has {pack[c]}",
                "cards",
            )


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
    for c in R.pack_cards(men):
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
        "rng_state": layout.get("rng_state", rng_state_json(seed)),
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
