"""Baloot states and actions as JSON: writing, strict loading (states, layouts, views).

State JSON (besides the common game/version/options/players/dealer/phase/to_act/scores/
deal_no/history/rng_state):

- ``hands`` (list by seat, canonical order), ``candidate`` (the turned card, kept after it
  is taken), ``candidate_taken``, ``stock`` (top first), ``bidding`` {round, stage,
  hokm_bidder}, ``contract`` (null during bidding; kind, trump, ashkal, bidder, taker,
  declarer_team, multiplier, locked, gahwa, last_raiser_team), ``doubling_step``;
- play: ``trick_no``, ``leader``, ``table`` [{seat, card}], ``lead_ekka``, ``tricks``
  [{leader, cards, winner, ekka}], ``played_by`` {card: seat|null} for earlier cards a
  layout placed without tricks, ``tricks_won``, ``card_points``;
- ``projects`` {declared (class per seat), declare_done (the seat to act already
  declared/passed in trick 1; null in other seats' views), revealed ({kind, top} per seat),
  team, shown (groups per seat once shown in trick 2; [] = nothing to show)}, ``baloot``
  (seats), ``kawesh`` {seat, cards}, ``match_winner``, ``last_deal`` (the finished deal's
  award and workings), ``deal_history_start`` (index of the current deal in ``history``).

History entries are ``{"seat", "action"}``; a trick-1 project pass (R20, private) carries
``"project": true``. A view keeps only the current deal's history (cards of earlier deals
are back in play), drops other seats' project passes and caller decks, and adds ``seat``
and ``engine_dealt``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.checks import MAX_SAFE_INT, MAX_SCORE, rng_state_from_json, rng_state_to_json
from engine.games.baloot import checks, rules
from engine.games.baloot.options import compact
from engine.games.baloot.projects import project_set
from engine.games.baloot.state import State, blank
from engine.games.baloot.tables import (
    BID_ASHKAL,
    BID_HOKM,
    BID_SUN,
    BIDDING,
    CHOOSE,
    CHOOSE_TRUMP,
    CLASS_NAMES,
    CLASS_OF_NAME,
    CODE,
    DEAL,
    DEAL_OVER,
    DECLARE,
    DOUBLE,
    DOUBLE_LOCKED,
    DOUBLE_OPEN,
    DOUBLING,
    EKKA,
    FOUR,
    FOUR_LOCKED,
    FOUR_OPEN,
    FULL_HAND,
    GAHWA,
    HOKM,
    KAWESH,
    KIND_NAMES,
    MAIN,
    MATCH_OVER,
    NSLOTS,
    PASS,
    PASS_PROJECT,
    PHASE_NAMES,
    PLAIN_STR,
    PLAY,
    SEQ_ORDER,
    SLOT,
    STAGE_NAMES,
    STEP_NAMES,
    STOCK_SIZE,
    SUBKIND_NAMES,
    SUIT_CHARS,
    SUIT_OF,
    SUN,
    TRIPLE,
    TRUMP_STR,
)
from engine.protocol import BadAction, EngineError, InvalidState

# --------------------------------------------------------------------------- actions

_SIMPLE: dict[int, dict[str, Any]] = {
    PASS: {"type": "pass"},
    PASS_PROJECT: {"type": "pass"},
    DECLARE: {"type": "declare"},
    BID_HOKM: {"type": "bid", "bid": "hokm"},
    BID_SUN: {"type": "bid", "bid": "sun"},
    BID_ASHKAL: {"type": "bid", "bid": "ashkal"},
    KAWESH: {"type": "kawesh"},
    DOUBLE_OPEN: {"type": "double", "locked": False},
    DOUBLE_LOCKED: {"type": "double", "locked": True},
    DOUBLE: {"type": "double"},
    TRIPLE: {"type": "triple"},
    FOUR_OPEN: {"type": "four", "locked": False},
    FOUR_LOCKED: {"type": "four", "locked": True},
    FOUR: {"type": "four"},
    GAHWA: {"type": "gahwa"},
}
VERBS = {
    "bid": "bid hokm, sun or ashkal (field bid)",
    "pass": "pass a call, a double step or a project declaration",
    "kawesh": "annul the deal with a first hand of 7s, 8s and 9s (option kawesh)",
    "choose_trump": "name the trump suit after a round-2 hokm (field suit)",
    "double": "double the contract (Hokm: field locked)",
    "triple": "the bidder triples a doubled Hokm",
    "four": "a defender quadruples (field locked unless four_lock_choice is off)",
    "gahwa": "the bidder raises to gahwa: the deal decides the match",
    "declare": "announce the class of your best project in trick 1",
    "play": "play a card (field card; optional ekka when leading)",
    "deal": "the caller's next deck, 32 codes top first (field deck)",
}
_FIELDS = {
    "bid": {"bid"},
    "pass": set(),
    "kawesh": set(),
    "choose_trump": {"suit"},
    "double": {"locked"},
    "triple": set(),
    "four": {"locked"},
    "gahwa": set(),
    "declare": set(),
    "play": {"card", "ekka"},
    "deal": {"deck"},
}


def action_to_json(action: Any) -> dict[str, Any]:
    """The JSON form of an internal action."""
    if isinstance(action, tuple):
        return {"type": "deal", "deck": [CODE[p] for p in action[1:]]}
    if action < 64:
        out: dict[str, Any] = {"type": "play", "card": CODE[action & 31]}
        if action >= EKKA:
            out["ekka"] = True
        return out
    if CHOOSE <= action < CHOOSE + 4:
        return {"type": "choose_trump", "suit": SUIT_CHARS[action - CHOOSE]}
    simple: dict[str, Any] = _SIMPLE[action]
    return dict(simple)


def parse_code(code: Any, where: str) -> int:
    if isinstance(code, str) and code in SLOT:
        return SLOT[code]
    raise BadAction(f"no such card in the Baloot pack: {code!r}", field=where)


def parse_action(data: Any, phase: int) -> Any:
    """Read a JSON action (BadAction naming the bad field). ``phase`` tells a project
    pass (play phase) from a call pass."""
    if not isinstance(data, Mapping):
        raise BadAction("unknown action: an action is an object with a type", field="action")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise BadAction("unknown action", field="type")
    extra = set(data) - _FIELDS[kind] - {"type"}
    if extra:
        raise BadAction(f"unknown field for {kind}: {min(extra)}", field=min(extra))
    if kind == "play":
        if "card" not in data:
            raise BadAction("missing field: card", field="card")
        p = parse_code(data["card"], "card")
        ekka = data.get("ekka", False)
        if not isinstance(ekka, bool):
            raise BadAction("ekka must be true or false", field="ekka")
        return EKKA + p if ekka else p
    if kind == "pass":
        return PASS_PROJECT if phase == PLAY else PASS
    if kind == "bid":
        bid = data.get("bid")
        if "bid" not in data:
            raise BadAction("missing field: bid", field="bid")
        codes = {"hokm": BID_HOKM, "sun": BID_SUN, "ashkal": BID_ASHKAL}
        if not isinstance(bid, str) or bid not in codes:
            raise BadAction("bid must be hokm, sun or ashkal", field="bid")
        return codes[bid]
    if kind == "choose_trump":
        if "suit" not in data:
            raise BadAction("missing field: suit", field="suit")
        suit = data["suit"]
        if not isinstance(suit, str) or len(suit) != 1 or suit not in SUIT_CHARS:
            raise BadAction("suit must be one of S, H, D, C", field="suit")
        return CHOOSE + SUIT_CHARS.index(suit)
    if kind in ("double", "four"):
        if "locked" not in data:
            return DOUBLE if kind == "double" else FOUR
        locked = data["locked"]
        if not isinstance(locked, bool):
            raise BadAction("locked must be true or false", field="locked")
        if kind == "double":
            return DOUBLE_LOCKED if locked else DOUBLE_OPEN
        return FOUR_LOCKED if locked else FOUR_OPEN
    if kind == "deal":
        deck = data.get("deck")
        if "deck" not in data:
            raise BadAction("missing field: deck", field="deck")
        if not isinstance(deck, list) or len(deck) > 64:
            raise BadAction("deck must be a list of 32 card codes", field="deck")
        return (DEAL, *(parse_code(c, "deck") for c in deck))
    return {"triple": TRIPLE, "gahwa": GAHWA, "kawesh": KAWESH, "declare": DECLARE}[kind]


# --------------------------------------------------------------------------- writing


def _codes(mask: int) -> list[str]:
    return [CODE[p] for p in rules.slots_of(mask)]


def history_list(st: State, current_deal: bool = False) -> list[tuple[int, Any]]:
    """The history entries, oldest first (only the current deal's when asked)."""
    out = []
    node = st.history
    stop = st.hist_base if current_deal else None
    while node is not None and node is not stop:
        node, entry = node
        out.append(entry)
    out.reverse()
    return out


def to_json(st: State) -> dict[str, Any]:
    """The full state as JSON (every hidden card included)."""
    contract = None
    if st.kind:
        contract = {
            "kind": KIND_NAMES[st.kind],
            "trump": SUIT_CHARS[st.trump] if st.trump >= 0 else None,
            "ashkal": st.ashkal,
            "bidder": st.bidder,
            "taker": st.taker,
            "declarer_team": st.bidder & 1,
            "multiplier": st.mult,
            "locked": st.locked,
            "gahwa": st.gahwa,
            "last_raiser_team": st.raiser if st.raiser >= 0 else st.bidder & 1,
        }
    leader = st.leader
    return {
        "game": "baloot",
        "version": 1,
        "options": st.opts.as_json,
        "players": 4,
        "dealer": st.dealer,
        "phase": PHASE_NAMES[st.phase],
        "to_act": st.to_act,
        "scores": list(st.scores),
        "deal_no": st.deal_no,
        "history": [_entry(s, a) for s, a in history_list(st)],
        "deal_history_start": _chain_length(st.hist_base),
        "rng_state": rng_state_to_json(st.rng_state),
        "hands": [_codes(h) for h in st.hands],
        "candidate": CODE[st.candidate] if st.candidate >= 0 else None,
        "candidate_taken": st.cand_taken,
        "stock": [CODE[p] for p in st.stock],
        "bidding": {
            "round": st.round,
            "stage": STAGE_NAMES[st.stage],
            "hokm_bidder": st.hokm_bidder if st.hokm_bidder >= 0 else None,
        },
        "contract": contract,
        "doubling_step": STEP_NAMES[st.dstep] if st.phase == DOUBLING else None,
        "trick_no": st.trick_no,
        "leader": leader if leader >= 0 else None,
        "table": [{"seat": (leader + i) & 3, "card": CODE[p]} for i, p in enumerate(st.table)],
        "lead_ekka": st.lead_ekka,
        "tricks": [
            {"leader": lead, "cards": [CODE[p] for p in cards], "winner": win, "ekka": ekka}
            for lead, cards, win, ekka in st.tricks
        ],
        "played_by": {CODE[p]: (s if s >= 0 else None) for p, s in st.extra_played},
        "tricks_won": list(st.tricks_won),
        "card_points": list(st.card_points),
        "projects": {
            "declared": [CLASS_NAMES[c] if c else None for c in st.declared],
            "declare_done": st.decided,
            "revealed": [
                {"kind": SUBKIND_NAMES[r[0]], "top": SEQ_ORDER[7 - r[1]]} if r else None for r in st.revealed
            ],
            "team": st.proj_team if st.proj_team >= 0 else None,
            "shown": [[_codes(m) for m in g] if g is not None else None for g in st.shown],
        },
        "baloot": list(st.baloot),
        "kawesh": {"seat": st.kawesh[0], "cards": _codes(st.kawesh[1])} if st.kawesh else None,
        "match_winner": st.match_winner if st.match_winner >= 0 else None,
        "last_deal": st.result,
    }


def _chain_length(node: Any) -> int:
    n = 0
    while node is not None:
        node = node[0]
        n += 1
    return n


def _entry(seat: int, action: Any) -> dict[str, Any]:
    """A history entry; a trick-1 project pass (R20) is marked ``"project": true``."""
    if action == PASS_PROJECT:
        return {"seat": seat, "action": {"type": "pass"}, "project": True}
    return {"seat": seat, "action": action_to_json(action)}


def public_history(st: State, seat: int) -> list[dict[str, Any]]:
    """The history as ``seat`` may see it: other seats' project passes dropped (R20),
    caller decks replaced by their size."""
    out = []
    for s, a in history_list(st, current_deal=True):
        if a == PASS_PROJECT and s != seat:
            continue
        if isinstance(a, tuple):
            out.append({"seat": s, "action": {"type": "deal", "deck": len(a) - 1}})
        else:
            out.append(_entry(s, a))
    return out


def view(st: State, seat: int) -> dict[str, Any]:
    """What ``seat`` may know (section 7)."""
    out = to_json(st)
    del out["rng_state"]
    out["seat"] = seat
    out["engine_dealt"] = st.rng_state is not None
    out["hands"] = [cards if s == seat else len(cards) for s, cards in enumerate(out["hands"])]
    out["stock"] = len(st.stock)
    out["history"] = public_history(st, seat)
    out["deal_history_start"] = 0  # a view's history is the current deal's only
    if st.to_act != seat:
        out["projects"]["declare_done"] = None
    return out


# --------------------------------------------------------------------------- loading

STATE_FIELDS = frozenset(
    "game version options players dealer phase to_act scores deal_no history deal_history_start "
    "rng_state hands candidate candidate_taken stock bidding contract doubling_step trick_no leader "
    "table lead_ekka tricks played_by tricks_won card_points projects baloot kawesh match_winner "
    "last_deal".split()
)
VIEW_FIELDS = (STATE_FIELDS - {"rng_state"}) | {"seat", "engine_dealt"}
OBJECT_FIELDS = {
    "contract": frozenset(
        "kind trump ashkal bidder taker declarer_team multiplier locked gahwa last_raiser_team".split()
    ),
    "bidding": frozenset({"round", "stage", "hokm_bidder"}),
    "projects": frozenset({"declared", "declare_done", "revealed", "team", "shown"}),
    "kawesh": frozenset({"seat", "cards"}),
}
TRICK_FIELDS = frozenset({"leader", "cards", "winner", "ekka"})


def _check_fields(data: Mapping[str, Any], known: frozenset[str], where: str) -> None:
    """Refuse a field the state format does not have (a typo or a tampered state)."""
    for key in data:
        if key not in known:
            raise _fail(f"unknown field {where}{key}", f"{where}{key}")


_fail = checks.invalid


def _int(data: Mapping[str, Any], key: str, lo: int, hi: int, default: Any = ..., where: str = "") -> Any:
    name = where + key
    if key not in data:
        if default is ...:
            raise _fail(f"missing field: {name}", name)
        return default
    value = data[key]
    if default is None and value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise _fail(f"{name} must be a whole number from {lo} to {hi}", name)
    return value


def _bool(data: Mapping[str, Any], key: str, default: Any = ..., where: str = "") -> bool:
    name = where + key
    if key not in data:
        if default is ...:
            raise _fail(f"missing field: {name}", name)
        return bool(default)
    value = data[key]
    if not isinstance(value, bool):
        raise _fail(f"{name} must be true or false", name)
    return value


def _card(code: Any, where: str) -> int:
    if isinstance(code, str) and code in SLOT:
        return SLOT[code]
    raise _fail(f"{where}: no such card in the Baloot pack: {code!r}", where)


def _card_list(value: Any, where: str, limit: int = 32) -> list[int]:
    if not isinstance(value, list) or len(value) > limit:
        raise _fail(f"{where} must be a list of at most {limit} card codes", where)
    return [_card(c, where) for c in value]


def _choice(
    data: Mapping[str, Any],
    key: str,
    names: tuple[str, ...] | list[str],
    default: Any = ...,
    where: str = "",
) -> int:
    name = where + key
    if key not in data:
        if default is ...:
            raise _fail(f"missing field: {name}", name)
        return int(default)
    value = data[key]
    if not isinstance(value, str) or value not in names:
        raise _fail(f"{name} must be one of {', '.join(names)}", name)
    return list(names).index(value)


def _dict(data: Mapping[str, Any], key: str, layout: bool) -> Mapping[str, Any] | None:
    value = data.get(key)
    if value is None:
        if key in data or layout:
            return None
        raise _fail(f"missing field: {key}", key)
    if not isinstance(value, Mapping):
        raise _fail(f"{key} must be an object", key)
    return value


class Loader:
    """Reads a state (strict), a layout (partial, natural defaults) or a view's public
    part (hidden hands given as counts, filled by the caller through ``fill``): the shape
    here, then every rule-implied check of ``checks``."""

    def __init__(
        self,
        game: Any,
        data: Any,
        *,
        layout: bool = False,
        view: bool = False,
        rng_state: Any = ...,
    ) -> None:
        self.game = game
        self.data = data
        self.layout = layout
        self.is_view = view
        self.rng_state = rng_state
        self.placed: list[tuple[int, str]] = []  # every card read, where, in reading order
        self.hidden_seats: list[int] = []  # a view's seats shown as counts

    def load(self, fill: Any = None) -> State:
        try:
            st = self._load(fill)
            if not self.layout and not self.is_view:
                checks.check_written_canonically(to_json(st), self.data)
            return st
        except EngineError as err:
            if isinstance(err, InvalidState):
                raise
            raise InvalidState(err.message, field=getattr(err, "field", None)) from None
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, RecursionError) as err:
            raise InvalidState(f"malformed state: {type(err).__name__}: {err}", field=None) from None

    def _load(self, fill: Any) -> State:
        data = self.data
        st = self._read_match(data)
        self._read_history(st, data)
        self._read_contract(st, data)
        self._read_bidding(st, data)
        counts, stock_count = self._read_hands(st, data)
        self._read_table(st, data)
        self._read_tricks(st, data)
        self._place_the_rest(st, data, fill, counts, stock_count)
        entries = history_list(st, current_deal=True)
        self._read_turn(st, data, entries)
        self._read_projects(st, data)
        self._read_end(st, data)
        unknown_seats = any(s < 0 for _, s in st.extra_played)
        checks.check_loaded(
            st,
            data,
            entries,
            hidden_seats=self.hidden_seats,
            exact=not self.is_view and not unknown_seats,
        )
        return st

    def _place(self, p: int, where: str) -> None:
        self.placed.append((p, where))

    def _read_match(self, data: Any) -> State:
        """The common fields: game, version, players, options, dealer, scores, the generator."""
        layout = self.layout
        if not isinstance(data, Mapping):
            raise _fail("a state must be an object", "state")
        _check_fields(data, VIEW_FIELDS if self.is_view else STATE_FIELDS, "")
        for name, known in OBJECT_FIELDS.items():
            if isinstance(data.get(name), Mapping):
                _check_fields(data[name], known, name + ".")
        if (not layout or "game" in data) and data.get("game") != "baloot":
            raise _fail("game must be 'baloot'", "game")
        if (not layout or "version" in data) and data.get("version") != 1:
            raise _fail("version must be 1", "version")
        players = data.get("players", 4 if layout else None)
        if players != 4 or isinstance(players, bool):
            raise _fail("players must be 4", "players")
        raw_options = data.get("options", {} if layout else None)
        if raw_options is None:
            raise _fail("missing field: options", "options")
        opts = compact(self.game.parse_options(raw_options, 4))
        dealer = _int(data, "dealer", 0, 3, 0 if layout else ...)
        scores = data.get("scores", [0, 0] if layout else None)
        if (
            not isinstance(scores, list)
            or len(scores) != 2
            or any(isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= MAX_SCORE for x in scores)
        ):
            raise _fail(f"scores must be two whole numbers from 0 to {MAX_SCORE}", "scores")
        if self.is_view:
            rng_state = 0 if data.get("engine_dealt") else None
        elif layout:
            rng_state = self.rng_state if self.rng_state is not ... else None
        else:
            if "rng_state" not in data:
                raise _fail("missing field: rng_state", "rng_state")
            rng_state = data["rng_state"]
            if rng_state is not None:
                rng_state = rng_state_from_json(rng_state)
        st = blank(opts, dealer, list(scores), rng_state)
        st.deal_no = _int(data, "deal_no", 1, MAX_SAFE_INT, 1 if layout else ...)
        st.phase = _choice(data, "phase", PHASE_NAMES, BIDDING if layout else ...)
        return st

    def _read_history(self, st: State, data: Mapping[str, Any]) -> None:
        """``history`` and ``deal_history_start``: the actions as a linked chain."""
        hist = data.get("history", [] if self.layout else None)
        if not isinstance(hist, list):
            raise _fail("history must be a list", "history")
        start = (
            0 if self.is_view else _int(data, "deal_history_start", 0, len(hist), 0 if self.layout else ...)
        )
        node: Any = None
        base: Any = None
        for i, entry in enumerate(hist):
            if i == start:
                base = node
            node = (node, self._read_entry(entry, f"history[{i}]"))
        st.history = node
        st.hist_base = base if start < len(hist) else node

    def _read_entry(self, entry: Any, where: str) -> tuple[int, Any]:
        if not isinstance(entry, Mapping) or not {"seat", "action"} <= set(entry) <= {
            "seat",
            "action",
            "project",
        }:
            raise _fail(f"{where} must be an object with seat and action", where)
        project = entry.get("project", False)
        if project is not True and project is not False:
            raise _fail(f"{where}.project must be true or false", where)
        seat = _int(entry, "seat", 0, 3, where=where + ".")
        act = entry["action"]
        if project and (not isinstance(act, Mapping) or act.get("type") != "pass"):
            raise _fail(f"{where}: only a pass can be a project pass", where)
        if (
            self.is_view
            and isinstance(act, Mapping)
            and act.get("type") == "deal"
            and isinstance(act.get("deck"), int)
        ):
            return seat, (DEAL, *range(NSLOTS))  # a view shows a caller's deck by its size
        try:
            return seat, parse_action(act, PLAY if project else BIDDING)
        except BadAction as err:
            raise _fail(f"{where}.action: {err.message}", where) from None

    def _read_contract(self, st: State, data: Mapping[str, Any]) -> None:
        """``contract``: null during bidding; a layout may leave out what the bids imply."""
        layout = self.layout
        contract = _dict(data, "contract", layout)
        if contract is None:
            return
        w = "contract."
        st.kind = (HOKM, SUN)[_choice(contract, "kind", ("hokm", "sun"), where=w)]
        trump = contract.get("trump")
        if trump is not None:
            if not isinstance(trump, str) or trump not in ("S", "H", "D", "C"):
                raise _fail("contract.trump must be S, H, D or C (hokm only)", "contract.trump")
            st.trump = SUIT_CHARS.index(trump)
        st.ashkal = _bool(contract, "ashkal", False, where=w)
        st.bidder = _int(contract, "bidder", 0, 3, where=w)
        st.taker = _int(contract, "taker", 0, 3, checks.natural_taker(st) if layout else ..., where=w)
        _int(contract, "declarer_team", 0, 1, st.bidder & 1 if layout else ..., where=w)
        st.mult = _int(contract, "multiplier", 1, 4, 1 if layout else ..., where=w)
        st.locked = _bool(contract, "locked", False if layout else ..., where=w)
        st.gahwa = _bool(contract, "gahwa", False if layout else ..., where=w)
        st.raiser = _int(
            contract, "last_raiser_team", 0, 1, checks.natural_raiser(st) if layout else ..., where=w
        )

    def _read_bidding(self, st: State, data: Mapping[str, Any]) -> None:
        """``bidding``: round, stage and the Hokm bidder of a Sun window."""
        bidding = _dict(data, "bidding", self.layout) or {}
        w = "bidding."
        st.round = _int(bidding, "round", 1, 2, 2 if st.phase == CHOOSE_TRUMP else 1, where=w)
        st.stage = _choice(bidding, "stage", STAGE_NAMES, MAIN, where=w)
        hokm_bidder = _int(bidding, "hokm_bidder", 0, 3, None, where=w)
        st.hokm_bidder = -1 if hokm_bidder is None else hokm_bidder

    def _read_hands(self, st: State, data: Mapping[str, Any]) -> tuple[list[int], int | None]:
        """``hands`` (a view: counts for the other seats), ``candidate``, ``stock``; returns
        the hand sizes and a view's stock count."""
        layout = self.layout
        phase = st.phase
        raw_hands = data.get("hands", [[], [], [], []] if layout else None)
        if isinstance(raw_hands, Mapping) and layout:
            raw_hands = [raw_hands.get(str(s), raw_hands.get(s, [])) for s in range(4)]
        if not isinstance(raw_hands, list) or len(raw_hands) != 4:
            raise _fail("hands must be a list of 4 hands", "hands")
        counts = [0, 0, 0, 0]
        for s, h in enumerate(raw_hands):
            if self.is_view and isinstance(h, int) and not isinstance(h, bool):
                if not 0 <= h <= FULL_HAND:
                    raise _fail(f"hands[{s}] must be a count from 0 to 8", f"hands[{s}]")
                counts[s] = h
                self.hidden_seats.append(s)
                continue
            cards = _card_list(h, f"hands[{s}]", FULL_HAND)
            for p in cards:
                self._place(p, f"hands[{s}]")
                st.hands[s] |= 1 << p
            counts[s] = len(cards)
        if self.is_view:
            seat = _int(data, "seat", 0, 3)
            if self.hidden_seats != [s for s in range(4) if s != seat]:
                raise _fail("a view shows its own hand and counts the others", "hands")
        cand = data.get("candidate")
        if cand is not None:
            st.candidate = _card(cand, "candidate")
        dealt_out = phase in (DOUBLING, PLAY) or (phase in (DEAL_OVER, MATCH_OVER) and counts == [0, 0, 0, 0])
        st.cand_taken = _bool(data, "candidate_taken", dealt_out if layout else ...)
        if st.candidate >= 0 and not st.cand_taken:
            self._place(st.candidate, "candidate")
        stock_raw = data.get("stock", None if not layout else ...)
        if self.is_view:
            if (
                isinstance(stock_raw, bool)
                or not isinstance(stock_raw, int)
                or not 0 <= stock_raw <= STOCK_SIZE
            ):
                raise _fail("a view's stock is a count", "stock")
            return counts, stock_raw
        if stock_raw is not ...:
            stock = _card_list(stock_raw, "stock", STOCK_SIZE)
            for p in stock:
                self._place(p, "stock")
            st.stock = tuple(stock)
        return counts, None

    def _read_table(self, st: State, data: Mapping[str, Any]) -> None:
        """``trick_no``, ``leader``, ``table``, ``lead_ekka``, and the trick so far derived from them."""
        layout = self.layout
        st.trick_no = _int(data, "trick_no", 1, 9, 1 if layout else ...)
        lead = _int(data, "leader", 0, 3, None)
        st.leader = -1 if lead is None else lead
        table_raw = data.get("table", [] if layout else None)
        if not isinstance(table_raw, list) or len(table_raw) > 3:
            raise _fail("table must be a list of at most 3 plays", "table")
        for i, entry in enumerate(table_raw):
            where = f"table[{i}]"
            if isinstance(entry, str) and layout:
                p = _card(entry, where)
            else:
                if not isinstance(entry, Mapping) or set(entry) != {"seat", "card"}:
                    raise _fail(f"{where} must be an object with seat and card", where)
                _int(entry, "seat", 0, 3, where=where + ".")
                p = _card(entry["card"], where)
            self._place(p, where)
            st.table.append(p)
            st.seat_played[(st.leader + i) & 3] |= 1 << p
        st.lead_ekka = _bool(data, "lead_ekka", False if layout else ...)
        if st.table and st.kind:
            win, top = rules.trick_state(st.kind, st.trump, st.table)
            st.led = SUIT_OF[st.table[0]]
            st.win_seat = (st.leader + win) & 3
            st.top_trump = top
            wp = st.table[win]
            st.win_str = 16 + TRUMP_STR[wp] if SUIT_OF[wp] == st.trump else PLAIN_STR[wp]

    def _read_tricks(self, st: State, data: Mapping[str, Any]) -> None:
        """``tricks``: the finished tricks of the deal."""
        tricks_raw = data.get("tricks", [] if self.layout else None)
        if not isinstance(tricks_raw, list) or len(tricks_raw) > 8:
            raise _fail("tricks must be a list of at most 8 tricks", "tricks")
        tricks = []
        for i, t in enumerate(tricks_raw):
            where = f"tricks[{i}]"
            if not isinstance(t, Mapping):
                raise _fail(f"{where} must be an object", where)
            _check_fields(t, TRICK_FIELDS, where + ".")
            leader = _int(t, "leader", 0, 3, where=where + ".")
            cards = _card_list(t.get("cards"), where + ".cards", 4)
            if len(cards) != 4:
                raise _fail(f"{where}.cards must hold 4 cards", where + ".cards")
            winner = _int(t, "winner", 0, 3, where=where + ".")
            ekka = _bool(t, "ekka", False if self.layout else ..., where=where + ".")
            for k, p in enumerate(cards):
                self._place(p, where)
                st.seat_played[(leader + k) & 3] |= 1 << p
                st.played |= 1 << p
            tricks.append((leader, tuple(cards), winner, ekka))
        st.tricks = tuple(tricks)

    def _place_the_rest(
        self, st: State, data: Mapping[str, Any], fill: Any, counts: list[int], stock_count: int | None
    ) -> None:
        """``played_by``, then the cards no field placed: a view's hidden cards (dealt by
        ``fill``), a layout's left-out cards (the stock while bidding, else played)."""
        layout = self.layout
        pb = data.get("played_by", {})
        if not isinstance(pb, Mapping):
            raise _fail("played_by must be an object", "played_by")
        in_tricks = {p for p, where in self.placed if where.startswith("tricks")}
        extra: dict[int, int] = {}
        for code, s in pb.items():
            p = _card(code, "played_by")
            if s is not None and (isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= 3):
                raise _fail("played_by seats must be 0-3 or null", "played_by")
            if layout and p in in_tricks:
                continue
            extra[p] = -1 if s is None else s
            self._place(p, "played_by")
        checks.check_each_card_once(self.placed)
        placed = {p for p, _ in self.placed}
        missing = [p for p in range(NSLOTS) if p not in placed]
        if self.is_view:
            checks.check_hidden_counts(
                sum(counts[s] for s in self.hidden_seats) + (stock_count or 0), missing
            )
            (fill or _first_fill)(st, missing, self.hidden_seats, counts, stock_count)
        elif layout and missing:
            stock_given = "stock" in data
            if st.phase in (BIDDING, CHOOSE_TRUMP) or (
                st.phase == DEAL_OVER and any(counts) and not stock_given
            ):
                if stock_given:
                    raise _fail(f"card {CODE[missing[0]]} is nowhere", "stock")
                st.stock = tuple(missing)
            else:
                for p in missing:
                    extra[p] = -1
        else:
            checks.check_nothing_missing(missing)
        for p, s in extra.items():
            st.played |= 1 << p
            if s >= 0:
                st.seat_played[s] |= 1 << p
        st.extra_played = tuple(sorted(extra.items()))

    def _read_turn(self, st: State, data: Mapping[str, Any], entries: list[tuple[int, Any]]) -> None:
        """``to_act``, ``doubling_step`` (in the doubling phase only), ``tricks_won``, ``card_points``."""
        layout = self.layout
        to_act = data.get("to_act", ...)
        if to_act is ...:
            if not layout:
                raise _fail("missing field: to_act", "to_act")
            to_act = checks.natural_to_act(st, entries)
        if to_act is not None and (
            isinstance(to_act, bool) or not isinstance(to_act, int) or not 0 <= to_act <= 3
        ):
            raise _fail("to_act must be a seat 0-3", "to_act")
        st.to_act = to_act
        if st.phase == DOUBLING:
            st.dstep = _choice(data, "doubling_step", STEP_NAMES, checks.natural_step(st) if layout else ...)
        elif data.get("doubling_step") is not None:
            raise _fail("doubling_step only in the doubling phase", "doubling_step")
        for name, hi in (("tricks_won", 8), ("card_points", 162)):
            val = data.get(name, [0, 0] if layout else None)
            if (
                not isinstance(val, list)
                or len(val) != 2
                or any(isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= hi for x in val)
            ):
                raise _fail(f"{name} must be two whole numbers from 0 to {hi}", name)
            setattr(st, name, list(val))

    def _read_projects(self, st: State, data: Mapping[str, Any]) -> None:
        """``projects`` (declared, declare_done, revealed, team, shown), and each seat's
        project set derived from its cards once play has begun."""
        phase = st.phase
        if phase == PLAY or (phase in (DEAL_OVER, MATCH_OVER) and st.kind and st.cand_taken):
            st.psets = [project_set(st.hands[s] | st.seat_played[s], st.kind) for s in range(4)]
        pj = _dict(data, "projects", self.layout) or {}
        declared = _seat_list(pj, "declared")
        for s, name in enumerate(declared):
            if name is not None:
                if not isinstance(name, str) or name not in CLASS_OF_NAME:
                    raise _fail("projects.declared entries are project classes or null", "projects.declared")
                st.declared[s] = CLASS_OF_NAME[name]
        done = pj.get("declare_done", False)
        if self.is_view and done is None:  # another seat's view: what the declarations show
            to_act = st.to_act
            done = bool(phase == PLAY and st.trick_no == 1 and to_act is not None and st.declared[to_act])
        if not isinstance(done, bool):
            raise _fail("projects.declare_done must be true or false", "projects.declare_done")
        st.decided = done
        for s, r in enumerate(_seat_list(pj, "revealed")):
            if r is not None:
                if not isinstance(r, Mapping) or set(r) != {"kind", "top"}:
                    raise _fail("projects.revealed entries are {kind, top} or null", "projects.revealed")
                sub = _choice(r, "kind", SUBKIND_NAMES, where="projects.revealed.")
                top = r["top"]
                if not isinstance(top, str) or len(top) != 1 or top not in SEQ_ORDER:
                    raise _fail("projects.revealed.top must be a rank", "projects.revealed")
                st.revealed[s] = (sub, 7 - SEQ_ORDER.index(top))
        team = pj.get("team")
        if team is not None and (isinstance(team, bool) or team not in (0, 1)):
            raise _fail("projects.team must be 0, 1 or null", "projects.team")
        st.proj_team = -1 if team is None else team
        for s, groups in enumerate(_seat_list(pj, "shown")):
            if groups is not None:
                if not isinstance(groups, list) or len(groups) > 4:
                    raise _fail("projects.shown entries are lists of groups or null", "projects.shown")
                st.shown[s] = tuple(_mask(_card_list(g, "projects.shown", 5)) for g in groups)

    def _read_end(self, st: State, data: Mapping[str, Any]) -> None:
        """``baloot``, ``kawesh``, ``match_winner``, ``last_deal``."""
        bal = data.get("baloot", [])
        if (
            not isinstance(bal, list)
            or len(bal) > 4
            or any(isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= 3 for s in bal)
        ):
            raise _fail("baloot must be a list of seats", "baloot")
        st.baloot = tuple(bal)
        kw = data.get("kawesh")
        if kw is not None:
            if not isinstance(kw, Mapping):
                raise _fail("kawesh must be an object or null", "kawesh")
            seat = _int(kw, "seat", 0, 3, where="kawesh.")
            st.kawesh = (seat, _mask(_card_list(kw.get("cards"), "kawesh.cards", 5)))
        mw = data.get("match_winner")
        if mw is not None:
            if isinstance(mw, bool) or mw not in (0, 1):
                raise _fail("match_winner must be 0 or 1 once the match is over", "match_winner")
            st.match_winner = mw
        res = data.get("last_deal")
        if res is not None:
            _read_result(res)
        st.result = dict(res) if res is not None else None


def _seat_list(data: Mapping[str, Any], key: str) -> list[Any]:
    """``projects.<key>``: one entry per seat (all null when left out)."""
    value = data.get(key, [None] * 4)
    if not isinstance(value, list) or len(value) != 4:
        raise _fail(f"projects.{key} must list 4 seats", f"projects.{key}")
    return value


def _mask(slots: list[int]) -> int:
    mask = 0
    for p in slots:
        mask |= 1 << p
    return mask


RESULT_FIELDS = frozenset(
    "adds items winner gahwa multiplier declarer_team kind card_points projects baloot kaboot "
    "counted game_points totals deal_no annulled kawesh".split()
)


def _read_plain_numbers(value: Any, where: str, depth: int = 0) -> None:
    """The deal's workings hold whole numbers a JSON double keeps exactly, a few levels deep."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int):
        if not -MAX_SAFE_INT <= value <= MAX_SAFE_INT:
            raise _fail(f"{where}: a number out of range", where)
        return
    if depth < 3 and isinstance(value, list):
        for x in value:
            _read_plain_numbers(x, where, depth + 1)
        return
    if depth < 3 and isinstance(value, Mapping):
        for x in value.values():
            _read_plain_numbers(x, where, depth + 1)
        return
    raise _fail(f"{where}: holds something that is not plain JSON data", where)


def _read_result(res: Any) -> None:
    """The last deal's award: adds per team and items {side, points, item, rule}."""
    where = "last_deal"
    if not isinstance(res, Mapping):
        raise _fail("last_deal must be an object or null", where)
    _check_fields(res, RESULT_FIELDS, "last_deal.")
    _read_plain_numbers(res, where)
    adds = res.get("adds")
    items = res.get("items")
    if (
        not isinstance(adds, list)
        or len(adds) != 2
        or any(isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= 10**6 for x in adds)
    ):
        raise _fail("last_deal.adds must be two whole numbers", where)
    if not isinstance(items, list) or len(items) > 20:
        raise _fail("last_deal.items must be a list", where)
    for item in items:
        if (
            not isinstance(item, Mapping)
            or item.get("side") not in (0, 1)
            or isinstance(item.get("side"), bool)
            or isinstance(item.get("points"), bool)
            or not isinstance(item.get("points"), int)
            or not -(10**6) <= item["points"] <= 10**6
            or not isinstance(item.get("item"), str)
            or not isinstance(item.get("rule"), str)
        ):
            raise _fail("last_deal.items entries are {side, points, item, rule}", where)


def _first_fill(
    st: State, missing: list[int], seats: list[int], counts: list[int], stock_count: int | None
) -> None:
    i = 0
    for s in seats:
        for p in missing[i : i + counts[s]]:
            st.hands[s] |= 1 << p
        i += counts[s]
    st.stock = tuple(missing[i:])


__all__ = ["VERBS", "Loader", "action_to_json", "parse_action", "to_json", "view"]
