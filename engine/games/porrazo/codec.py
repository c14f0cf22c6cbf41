"""Porrazo's state JSON: output, strict validation on input, explicit layouts, views."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.cards import CODES, RANKS, BadCard, parse_card
from engine.checks import MAX_SAFE_INT, MAX_SCORE, rng_state_from_json, rng_state_to_json
from engine.games.porrazo.actions import action_to_json, parse_action, public_action_json
from engine.games.porrazo.rules import claimable, next_claimer, order_from_left
from engine.games.porrazo.state import (
    Item,
    Options,
    PState,
    blank_state,
    history_list,
    holding,
    push_history,
)
from engine.games.porrazo.tables import (
    CLAIM,
    COMBO_NAMES,
    DECLARE_RONDA,
    DECLARE_RONDINE,
    DECLINE,
    HAND_CARDS,
    NO_COMBO,
    P_CLAIM,
    P_DEAL_OVER,
    P_DECLARE,
    P_OVER,
    P_PLAY,
    P_TENDIDO,
    PASS,
    PHASE_NAMES,
    PHASE_OF_NAME,
    PLAYER_COUNTS,
    PORRAZO,
    RONDA,
    RONDINE,
    STAGE_NAMES,
    TENDIDO,
    TENDIDO_CARDS,
)
from engine.protocol import JSON, SCHEMA_VERSION, EngineError, InvalidState

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
P_DEALING = -1  # layouts only: the engine deals deal_no + 1 at once


def codes(cards: Any) -> list[str]:
    return [CODES[c] for c in cards]


def played_of(st: PState, seat: int) -> list[int]:
    """Section 7 (1): the cards ``seat`` has played this deal (public), sorted."""
    hand = st.hands[seat]
    return sorted(c for c in st.dealt[seat] if c not in hand)


def items_json(items: tuple[Item, ...]) -> list[JSON]:
    return [{"side": s, "points": p, "item": name, "rule": rule} for s, p, name, rule in items]


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


def own_hand_hidden(st: PState, seat: int) -> bool:
    """R6: in tendido_choice the dealer does not see his own new hand."""
    return st.phase == P_TENDIDO and seat == st.dealer


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


def parse_options(raw: Any, players: int) -> Options:
    """Options of a state: validated like a deal request's, as InvalidState."""
    from engine.games.porrazo import GAME

    try:
        return Options.build(GAME.parse_options(raw, players), players)
    except EngineError as err:
        raise InvalidState(err.message, field=getattr(err, "field", None) or "options") from None


def load(d: Any, *, mode: str = "state", base_options: Any = None, canonical: bool = False) -> PState:
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
    o = parse_options(need("options", base_options), n)
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
    st.deal_no = _int(
        need("deal_no", 0 if phase == P_DEALING else 1),
        "deal_no",
        0 if phase == P_DEALING else 1,
        o.deals - 1 if phase == P_DEALING else o.deals,
    )
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
        if st.decl[s] != NO_COMBO and st.held[s][0] != st.decl[s]:
            raise _fail(f"declarations[{s}]", f"seat {s} does not hold a {kind}")

    claims = need("claims", {})
    if not isinstance(claims, dict):
        raise _fail("claims", "must map holder seats to claiming seats")
    for key, claimer in claims.items():
        if key not in SEAT_KEYS[:n]:
            raise _fail("claims", f"{key!r} is not a seat")
        h = int(key)
        c = _seat(claimer, f"claims.{key}", n)
        assert c is not None
        if st.held[h][0] == NO_COMBO or st.decl[h] != NO_COMBO or o.side_of[h] == o.side_of[c]:
            raise _fail(f"claims.{key}", "only an opponent's undeclared ronda/rondine can be claimed")
        st.claims[h] = c

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
    for i, dk in enumerate(st.decks):
        if len(set(dk)) != 52:
            raise _fail(f"decks[{i}]", "must hold each of the 52 cards exactly once")
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
    check_consistency(st, d, layout)
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


def natural_to_act(st: PState) -> int | None:
    """A layout's omitted to_act: the seat the phase implies."""
    n = st.o.players
    phase = st.phase
    if phase in (P_TENDIDO, P_DEAL_OVER, P_DEALING):
        return st.dealer
    if phase == P_DECLARE:
        return (st.dealer + 1) % n
    if phase == P_PLAY:
        k = sum(len(d) for d in st.dealt) - sum(len(h) for h in st.hands)
        return (st.dealer + 1 + k) % n
    if phase == P_CLAIM:
        for seat in order_from_left(st.dealer, n):
            if claimable(st, seat):
                return seat
    return None


def _check_match_end(st: PState) -> None:
    """R25 / R17: the match ends as soon as one side reaches the target (the others are
    below it then), or at a san benito before anyone has."""
    target = st.o.target
    for side, score in enumerate(st.scores):
        if side != st.winner and score >= target:
            raise _fail(f"scores[{side}]", f"the match ended when the first side reached the target {target}")
    if (st.win_reason == "target") != (st.scores[st.winner or 0] >= target):
        raise _fail("win_reason", 'the winner by "target" is the one side that reached the target')


Entry = tuple[int, Any]
DECISION_OF: dict[int, int] = {NO_COMBO: PASS, RONDA: DECLARE_RONDA, RONDINE: DECLARE_RONDINE}
"""R9: the history entry of each declaration (no combination declared: a pass)."""


def _is_play(action: Any) -> bool:
    return type(action) is int and action < DECLINE + 52


def _card_played(action: int) -> int:
    return action - DECLINE if action >= DECLINE else action


def _plays_end(entries: list[Entry]) -> int:
    """The index just after the last play among ``entries`` (0: no play)."""
    for i in range(len(entries), 0, -1):
        if _is_play(entries[i - 1][1]):
            return i
    return 0


def _replay_claims(
    st: PState, held: list[Any], decl: list[int], entries: list[Entry]
) -> tuple[int, int | None]:
    """R21: replay a deal's claims phase (the deal's ``held`` combinations and ``decl``
    declarations) from its first entry in ``entries``: each entry must be the asked seat's
    claim of a claimable holder or its pass. Returns (entries the phase took, the seat asked
    next, None once the phase is over); the replayed claims are left in ``st.claims``."""
    st.held, st.decl, st.claims = held, decl, [-1] * st.o.players
    seat = next_claimer(st, None) if st.o.claims else None
    for used, (who, action) in enumerate(entries):
        if seat is None:
            return used, None
        holder = action - CLAIM if type(action) is int and action >= CLAIM else -1
        if who != seat or not (action == PASS or holder in claimable(st, seat)):
            raise _fail("history", f"seat {seat} was to claim or pass after the deal's play (R21)")
        if holder >= 0:
            st.claims[holder] = seat
            if claimable(st, seat):
                continue
        seat = next_claimer(st, seat)
    return len(entries), seat


def _previous_deal_claims(st: PState, entries: list[Entry], end: int) -> int | None:
    """How many entries from ``end`` (just after the previous deal's last play) its claims
    phase took, replayed from that deal's plays and declarations (each seat plays its three
    dealt cards); None when the history does not hold that whole deal (a layout)."""
    n = st.o.players
    start = end
    while start and _is_play(entries[start - 1][1]):
        start -= 1
    if end - start != HAND_CARDS * n or start < n:
        return None
    dealt: list[list[int]] = [[] for _ in range(n)]
    for seat, action in entries[start:end]:
        dealt[seat].append(_card_played(action))
    of_decision = {a: kind for kind, a in DECISION_OF.items()}
    decl = [NO_COMBO] * n
    for seat, action in entries[start - n : start]:
        decl[seat] = of_decision.get(action, NO_COMBO)
    used, _ = _replay_claims(st.copy(), [holding(tuple(d)) for d in dealt], decl, entries[end:])
    return used


def _check_deal_turns(st: PState) -> None:
    """R5, R9, R10, R21: the seat to act follows this deal's entries of the history, replayed
    in the rules' turn order (the dealer's tendido decision, the declarations from the
    dealer's left, the plays round the table, the claims of the seats able to claim).
    A deal set up from a layout may begin before its history: then only what the history
    holds is checked."""
    phase = st.phase
    entries = history_list(st.history)[st.hand_start :]
    if phase not in (P_OVER, P_DEAL_OVER):  # a finished hand's dealer has passed the deal on
        _check_hand_play_turns(st, entries)
    if phase == P_DECLARE:
        _check_declare_turn(st, entries)
    elif phase == P_PLAY:
        _check_play_entries(st, entries)
    elif phase == P_CLAIM:
        end = _plays_end(entries)
        if end:
            used, seat = _replay_claims(st.copy(), st.held, st.decl, entries[end:])
            if used != len(entries) - end or seat is None:
                raise _fail("history", "the claims phase is over (R21)")
            if seat != st.to_act:
                raise _fail("to_act", f"seat {seat} is asked to claim next (R21)")


def _check_hand_play_turns(st: PState, entries: list[Entry]) -> None:
    """R10: every play of this hand in the history was made in turn. Each deal's play goes
    round from the dealer's left and has a multiple of the seat count of plays, so,
    counting back from the plays of the current deal, the seat of each is known (also for
    a hand a layout set up, whose first plays came before its history)."""
    n = st.o.players
    order = order_from_left(st.dealer, n)
    seats = [seat for seat, action in entries if _is_play(action)]
    offset = (HAND_CARDS * n - sum(len(h) for h in st.hands) if st.phase == P_PLAY else 0) - len(seats)
    for j, seat in enumerate(seats):
        if seat != order[(offset + j) % n]:
            raise _fail(
                "history", f"play {j + 1} of this hand was seat {order[(offset + j) % n]}'s turn (R10)"
            )


def _check_play_entries(st: PState, entries: list[Entry]) -> None:
    """R10: this deal's plays are the history's last entries, round the table from the
    dealer's left, each a card the seat was dealt and no longer holds."""
    n = st.o.players
    order = order_from_left(st.dealer, n)
    played = HAND_CARDS * n - sum(len(h) for h in st.hands)
    end = len(entries)
    start = end
    while start > end - played and start and _is_play(entries[start - 1][1]):
        start -= 1
    if start > end - played and start > 0:
        raise _fail("history", f"this deal's {played} plays must be the history's last entries")
    for k, (seat, action) in enumerate(entries[start:], start=played - (end - start)):
        card = _card_played(action)
        if seat != order[k % n] or card not in st.dealt[seat] or card in st.hands[seat]:
            raise _fail(
                "history", f"play {k + 1} of the deal is seat {order[k % n]}'s, a card it was dealt (R10)"
            )


def _check_declare_turn(st: PState, entries: list[Entry]) -> None:
    """R5, R9: the round follows the dealer's tendido decision (when the deal offered one)
    or the previous deal's play and claims; it goes once round from the dealer's left, each
    entry the seat's own declaration, and the seat after the last one is to act."""
    n = st.o.players
    order = order_from_left(st.dealer, n)
    end = _plays_end(entries)
    if end and st.o.claims:
        used = _previous_deal_claims(st, entries, end)
        if used is None:
            return _check_declare_turn_of_layout(st, order)
        end += used
    rest = entries[end:]
    if st.deal_no < st.o.deals and (not st.tendido_done or rest[:1] == [(st.dealer, TENDIDO)]):
        # R5: this deal offered the tendido (not dealt yet, not the last deal)
        if rest[:1] != [(st.dealer, TENDIDO if st.tendido_done else PASS)]:
            if not end:  # a layout's deal, without its start
                return _check_declare_turn_of_layout(st, order)
            raise _fail("history", "the dealer decides on the tendido before the declarations (R5)")
        rest = rest[1:]
    want = [(seat, DECISION_OF[st.decl[seat]]) for seat in order[: len(rest)]]
    if rest != want or len(rest) >= n:
        raise _fail("history", "the declarations go round from the dealer's left, one decision each (R9)")
    if st.to_act != order[len(rest)]:
        raise _fail("to_act", f"seat {order[len(rest)]} declares next (R9)")


def _check_declare_turn_of_layout(st: PState, order: list[int]) -> None:
    """R9 for a round a layout opened: the seat to act follows the last decision recorded
    in this hand's history (a layout may open the round at any seat without history: then
    only the declarations bound it)."""
    if st.history is None or len(history_list(st.history)) <= st.hand_start:
        return
    _, seat, action = st.history
    k = order.index(st.to_act)  # type: ignore[arg-type]
    decided = action in (PASS, DECLARE_RONDA, DECLARE_RONDINE)
    if k == 0:
        ok = action not in (DECLARE_RONDA, DECLARE_RONDINE)
    else:
        ok = decided and seat == order[k - 1]
    if not ok:
        raise _fail("to_act", "the declarations go round from the dealer's left, one decision each (R9)")


def check_consistency(st: PState, d: Mapping[str, Any], layout: bool) -> None:
    """Cross-field rules: the 52 cards exactly once, hand sizes, phase and turn."""
    o = st.o
    n = o.players
    phase = st.phase
    for s in range(n):
        if [c for c in st.dealt[s] if c in st.hands[s]] != st.hands[s]:
            raise _fail(
                f"hands[{s}]",
                "the hand must be the dealt cards not yet played, in the order received",
            )
    seen: dict[int, str] = {}
    for where, cards in (
        [("stock", st.stock), ("table", st.table)]
        + [(f"hands[{s}]", h) for s, h in enumerate(st.hands)]
        + [(f"piles[{s}]", p) for s, p in enumerate(st.piles)]
    ):
        for c in cards:
            if c in seen:
                raise _fail(where, f"card {CODES[c]} is also in {seen[c]}")
            seen[c] = where
    if len(seen) != 52:
        missing = " ".join(CODES[c] for c in range(52) if c not in seen)
        raise _fail("stock", f"the 52 cards must each be somewhere exactly once; missing: {missing}")
    in_dealt: set[int] = set()
    for s in range(n):
        dealt, hand = st.dealt[s], st.hands[s]
        where = f"dealt[{s}]"
        if len(set(dealt)) != len(dealt) or in_dealt & set(dealt):
            raise _fail(where, "a card was dealt twice")
        in_dealt |= set(dealt)
        if dealt and len(dealt) != HAND_CARDS:
            raise _fail(where, "a deal gives each seat three cards")
        for c in dealt:
            if c not in hand and not seen[c].startswith(("table", "piles")):
                raise _fail(where, f"played card {CODES[c]} must be on the table or in a pile")
    if "played" in d and d["played"] != [codes(played_of(st, s)) for s in range(n)]:
        raise _fail("played", "must list each seat's dealt cards that are no longer in hand (sorted)")
    if st.tendido is not None:
        if not st.tendido_done or len(st.tendido) != TENDIDO_CARDS or len(set(st.tendido)) != TENDIDO_CARDS:
            raise _fail("tendido", "four distinct cards, only once the tendido is done")
        for c in st.tendido:
            if not seen[c].startswith(("table", "piles")):
                raise _fail("tendido", f"tendido card {CODES[c]} must be on the table or in a pile")
    D = o.deals
    if st.deal_no == D and phase not in (P_DEALING, P_TENDIDO) and not st.tendido_done:
        raise _fail("tendido_done", "the tendido is dealt at the latest with the last deal")
    if phase == P_DEALING:
        expected_stock = 52 - HAND_CARDS * n * st.deal_no - TENDIDO_CARDS * st.tendido_done
    elif st.deal_no == D or phase == P_DEAL_OVER:
        expected_stock = 0
    else:
        expected_stock = 52 - HAND_CARDS * n * st.deal_no - TENDIDO_CARDS * st.tendido_done
    if phase != P_OVER and len(st.stock) != expected_stock:
        raise _fail(
            "stock",
            f"must hold {expected_stock} cards at deal {st.deal_no} (it holds {len(st.stock)})",
        )
    if phase != P_OVER:
        if st.winner is not None or st.win_reason is not None:
            raise _fail("winner", "only a finished match has a winner")
        for side, score in enumerate(st.scores):
            if score >= o.target:
                raise _fail(f"scores[{side}]", f"reaches the target {o.target}: the match would be over")
        if st.to_act is None:
            raise _fail("to_act", "only a finished match has no seat to act")
    else:
        if st.to_act is not None:
            raise _fail("to_act", "must be null when the match is over")
        if st.winner is None or st.win_reason is None:
            raise _fail("winner", "a finished match names its winner and win_reason")
        _check_match_end(st)
    fresh = phase in (P_DEALING, P_TENDIDO, P_DECLARE, P_DEAL_OVER)
    if fresh and (st.chain is not None or st.pending is not None):
        raise _fail("chain", "no play has been made in this deal yet")
    if phase not in (P_CLAIM, P_DEAL_OVER, P_OVER) and any(c >= 0 for c in st.claims):
        # R21: made after the deal's play; a finished deal keeps them until the next deal
        raise _fail("claims", "claims are made only after the deal's play")
    if phase == P_DEALING:
        if any(st.hands) or any(st.dealt):
            raise _fail("hands", "a layout in phase dealing has empty hands")
        if any(st.decl):
            raise _fail("declarations", "nobody has declared before the deal")
        return
    full = [len(h) == HAND_CARDS for h in st.hands]
    if phase in (P_TENDIDO, P_DECLARE) and not all(full):
        raise _fail("hands", "every seat holds its three dealt cards before the play")
    if phase == P_TENDIDO:
        if st.tendido_done or st.deal_no >= D:
            raise _fail("phase", "the tendido is offered only before it is dealt and before the last deal")
        if st.to_act != st.dealer:
            raise _fail("to_act", "the dealer decides on the tendido")
        if any(st.decl):
            raise _fail("declarations", "declarations come after the tendido decision")
    elif phase == P_DECLARE:
        if o.auto:
            raise _fail("phase", "declaration_mode auto has no declare phase")
        order = order_from_left(st.dealer, n)
        assert st.to_act is not None
        for seat in order[order.index(st.to_act) :]:
            if st.decl[seat]:
                raise _fail(f"declarations[{seat}]", "this seat has not decided yet")
    elif phase == P_PLAY:
        if not all(len(dl) == HAND_CARDS for dl in st.dealt):
            raise _fail("dealt", "every seat was dealt three cards")
        order = order_from_left(st.dealer, n)
        k = HAND_CARDS * n - sum(len(h) for h in st.hands)
        if k >= HAND_CARDS * n:
            raise _fail("hands", "every card of the deal has been played")
        for i, seat in enumerate(order):
            want = HAND_CARDS - k // n - (1 if i < k % n else 0)
            if len(st.hands[seat]) != want:
                raise _fail(f"hands[{seat}]", f"must hold {want} cards after {k} plays of this deal")
        if st.to_act != order[k % n]:
            raise _fail("to_act", f"seat {order[k % n]} plays next")
        if o.auto and any(st.decl[s] != st.held[s][0] for s in range(n)):
            raise _fail("declarations", "with declaration_mode auto every combination is declared")
        if st.chain is not None and (k == 0 or st.chain[2] != order[(k - 1) % n]):
            raise _fail("chain", "the chain describes the previous play of this deal")
        if st.pending is not None:
            pseat, _, _, cards = st.pending
            ch = st.chain
            if ch is None or ch[0] != PORRAZO or ch[2] != pseat or len(cards) < 2 or cards[-1] >> 2 != ch[1]:
                raise _fail(
                    "pending_porrazo",
                    "a pending porrazo is the previous play's, with chain stage porrazo",
                )
            if st.piles[pseat][len(st.piles[pseat]) - len(cards) :] != cards:
                raise _fail("pending_porrazo.cards", "must be the last cards of the porrazo player's pile")
        elif st.chain is not None and st.chain[0] == PORRAZO:
            raise _fail("pending_porrazo", "a porrazo chain has its pending porrazo")
    elif phase == P_CLAIM:
        if st.pending is not None:
            raise _fail("pending_porrazo", "a pending porrazo is credited before the claims")
        if any(st.hands) or not o.claims:
            raise _fail("phase", "claims come after the deal's play, with undeclared_claims on")
        if st.to_act is None or not claimable(st, st.to_act):
            raise _fail("to_act", "the seat to act must have something to claim")
    elif phase == P_DEAL_OVER:
        if any(st.hands):
            raise _fail("hands", "hands are empty while waiting for the next deck")
        if st.to_act != st.dealer:
            raise _fail("to_act", "the next dealer deals")
    _check_deal_turns(st)
    st.left = sum(len(h) for h in st.hands)
