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
from engine.games.baloot import rules
from engine.games.baloot.options import compact
from engine.games.baloot.projects import compare_declared, project_set
from engine.games.baloot.rules import defenders, step
from engine.games.baloot.scoring import match_winner_after
from engine.games.baloot.state import State, blank, reset_deal_calls
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
    DOUBLE_STEP,
    DOUBLING,
    EKKA,
    FIRST_HAND,
    FOUR,
    FOUR_LOCKED,
    FOUR_OPEN,
    FOUR_STEP,
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
    POINTS,
    SEQ_ORDER,
    SLOT,
    STAGE_NAMES,
    STEP_NAMES,
    STOCK_SIZE,
    SUBKIND_NAMES,
    SUIT_CHARS,
    SUIT_OF,
    SUN,
    SUN_WINDOW,
    SWITCH,
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


def _fail(message: str, where: str) -> InvalidState:
    return InvalidState(message, field=where)


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
    part (hidden hands given as counts, filled by the caller through ``fill``)."""

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

    def load(self, fill: Any = None) -> State:
        try:
            st = self._load(fill)
            if not self.layout and not self.is_view:
                _check_canonical(st, self.data)
            return st
        except EngineError as err:
            if isinstance(err, InvalidState):
                raise
            raise InvalidState(err.message, field=getattr(err, "field", None)) from None
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, RecursionError) as err:
            raise InvalidState(f"malformed state: {type(err).__name__}: {err}", field=None) from None

    def _load(self, fill: Any) -> State:
        data = self.data
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
        options = self.game.parse_options(raw_options, 4)
        opts = compact(options)
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
        phase = _choice(data, "phase", PHASE_NAMES, BIDDING if layout else ...)
        st.phase = phase
        over = phase == MATCH_OVER

        # history
        hist = data.get("history", [] if layout else None)
        if not isinstance(hist, list):
            raise _fail("history must be a list", "history")
        start = 0 if self.is_view else _int(data, "deal_history_start", 0, len(hist), 0 if layout else ...)
        node: Any = None
        base: Any = None
        for i, entry in enumerate(hist):
            if i == start:
                base = node
            where = f"history[{i}]"
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
                action: Any = (DEAL, *range(NSLOTS))
            else:
                try:
                    action = parse_action(act, PLAY if project else BIDDING)
                except BadAction as err:
                    raise _fail(f"{where}.action: {err.message}", where) from None
            node = (node, (seat, action))
        st.history = node
        st.hist_base = base if start < len(hist) else node

        # contract
        contract = _dict(data, "contract", layout)
        if contract is not None:
            w = "contract."
            st.kind = (HOKM, SUN)[_choice(contract, "kind", ("hokm", "sun"), where=w)]
            trump = contract.get("trump")
            if st.kind == HOKM and trump is None and phase != CHOOSE_TRUMP:
                raise _fail("contract.trump must name a suit in hokm", "contract.trump")
            if trump is not None:
                if st.kind == SUN or not isinstance(trump, str) or trump not in ("S", "H", "D", "C"):
                    raise _fail("contract.trump must be S, H, D or C (hokm only)", "contract.trump")
                st.trump = SUIT_CHARS.index(trump)
            st.ashkal = _bool(contract, "ashkal", False, where=w)
            if st.ashkal and st.kind != SUN:
                raise _fail("contract.ashkal is a sun contract", "contract.ashkal")
            st.bidder = _int(contract, "bidder", 0, 3, where=w)
            default_taker = (st.bidder + 2) & 3 if st.ashkal else st.bidder
            st.taker = _int(contract, "taker", 0, 3, default_taker if layout else ..., where=w)
            if st.taker != default_taker:
                raise _fail("contract.taker must be the bidder (or his partner in ashkal)", "contract.taker")
            team = _int(contract, "declarer_team", 0, 1, st.bidder & 1 if layout else ..., where=w)
            if team != st.bidder & 1:
                raise _fail("contract.declarer_team must be the bidder's team", "contract.declarer_team")
            st.mult = _int(contract, "multiplier", 1, 4, 1 if layout else ..., where=w)
            st.locked = _bool(contract, "locked", False if layout else ..., where=w)
            st.gahwa = _bool(contract, "gahwa", False if layout else ..., where=w)
            if st.kind == SUN and (st.mult > 2 or st.locked or st.gahwa):
                raise _fail(
                    "a sun contract is at most doubled, never locked, no gahwa",
                    "contract.multiplier",
                )
            if st.gahwa and st.mult != 4:
                raise _fail("gahwa follows a four", "contract.gahwa")
            natural = st.bidder & 1 if st.gahwa or st.mult in (1, 3) else 1 - (st.bidder & 1)
            st.raiser = _int(contract, "last_raiser_team", 0, 1, natural if layout else ..., where=w)
            if st.raiser != natural:
                raise _fail(
                    "contract.last_raiser_team does not match the multiplier",
                    "contract.last_raiser_team",
                )
        if phase in (CHOOSE_TRUMP, DOUBLING, PLAY) and not st.kind:
            raise _fail(f"phase {PHASE_NAMES[phase]} needs a contract", "contract")
        if phase == BIDDING and st.kind:
            raise _fail("no contract during bidding", "contract")
        if phase == CHOOSE_TRUMP and (st.kind != HOKM or st.trump >= 0):
            raise _fail("choose_trump needs a hokm contract without trump", "contract.trump")

        # bidding
        bidding = _dict(data, "bidding", layout) or {}
        st.round = _int(bidding, "round", 1, 2, 2 if phase == CHOOSE_TRUMP else 1, where="bidding.")
        st.stage = _choice(bidding, "stage", STAGE_NAMES, MAIN, where="bidding.")
        hb = _int(bidding, "hokm_bidder", 0, 3, None, where="bidding.")
        st.hokm_bidder = -1 if hb is None else hb
        if st.stage != MAIN and hb is None:
            raise _fail("a sun window needs bidding.hokm_bidder", "bidding.hokm_bidder")

        # cards
        owner: dict[int, str] = {}

        def place(p: int, where: str) -> None:
            if p in owner:
                raise _fail(f"card {CODE[p]} appears twice ({owner[p]} and {where})", where)
            owner[p] = where

        raw_hands = data.get("hands", [[], [], [], []] if layout else None)
        if isinstance(raw_hands, Mapping) and layout:
            raw_hands = [raw_hands.get(str(s), raw_hands.get(s, [])) for s in range(4)]
        if not isinstance(raw_hands, list) or len(raw_hands) != 4:
            raise _fail("hands must be a list of 4 hands", "hands")
        counts = [0, 0, 0, 0]
        hidden_seats = []
        for s, h in enumerate(raw_hands):
            if self.is_view and isinstance(h, int) and not isinstance(h, bool):
                if not 0 <= h <= FULL_HAND:
                    raise _fail(f"hands[{s}] must be a count from 0 to 8", f"hands[{s}]")
                counts[s] = h
                hidden_seats.append(s)
                continue
            cards = _card_list(h, f"hands[{s}]", FULL_HAND)
            for p in cards:
                place(p, f"hands[{s}]")
                st.hands[s] |= 1 << p
            counts[s] = len(cards)
        if self.is_view:
            seat = _int(data, "seat", 0, 3)
            if hidden_seats != [s for s in range(4) if s != seat]:
                raise _fail("a view shows its own hand and counts the others", "hands")
        cand = data.get("candidate")
        if cand is not None:
            st.candidate = _card(cand, "candidate")
        st.cand_taken = _bool(
            data,
            "candidate_taken",
            phase in (DOUBLING, PLAY) or (phase in (DEAL_OVER, MATCH_OVER) and counts == [0, 0, 0, 0])
            if layout
            else ...,
        )
        if st.candidate >= 0 and not st.cand_taken:
            place(st.candidate, "candidate")
        if st.cand_taken and st.candidate >= 0 and phase in (BIDDING, CHOOSE_TRUMP):
            raise _fail("the candidate is taken only after bidding", "candidate_taken")
        stock_raw = data.get("stock", None if not layout else ...)
        stock_count = None
        if self.is_view:
            if (
                isinstance(stock_raw, bool)
                or not isinstance(stock_raw, int)
                or not 0 <= stock_raw <= STOCK_SIZE
            ):
                raise _fail("a view's stock is a count", "stock")
            stock_count = stock_raw
        elif stock_raw is not ...:
            stock = _card_list(stock_raw, "stock", STOCK_SIZE)
            for p in stock:
                place(p, "stock")
            st.stock = tuple(stock)

        # play
        st.trick_no = _int(data, "trick_no", 1, 9, 1 if layout else ...)
        lead = _int(data, "leader", 0, 3, None)
        st.leader = -1 if lead is None else lead
        table_raw = data.get("table", [] if layout else None)
        if not isinstance(table_raw, list) or len(table_raw) > 3:
            raise _fail("table must be a list of at most 3 plays", "table")
        if table_raw and st.leader < 0:
            raise _fail("a table needs a leader", "leader")
        for i, entry in enumerate(table_raw):
            where = f"table[{i}]"
            if isinstance(entry, str) and layout:
                p = _card(entry, where)
            else:
                if not isinstance(entry, Mapping) or set(entry) != {"seat", "card"}:
                    raise _fail(f"{where} must be an object with seat and card", where)
                if _int(entry, "seat", 0, 3, where=where + ".") != (st.leader + i) & 3:
                    raise _fail(f"{where}.seat must follow the leader in order", where)
                p = _card(entry["card"], where)
            place(p, where)
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
        if st.lead_ekka and (not st.table or st.kind != HOKM):
            raise _fail("lead_ekka needs a hokm lead on the table", "lead_ekka")
        tricks_raw = data.get("tricks", [] if layout else None)
        if not isinstance(tricks_raw, list) or len(tricks_raw) > 8:
            raise _fail("tricks must be a list of at most 8 tricks", "tricks")
        tricks = []
        for i, t in enumerate(tricks_raw):
            where = f"tricks[{i}]"
            if not isinstance(t, Mapping):
                raise _fail(f"{where} must be an object", where)
            _check_fields(t, TRICK_FIELDS, where + ".")
            tl = _int(t, "leader", 0, 3, where=where + ".")
            cards = _card_list(t.get("cards"), where + ".cards", 4)
            if len(cards) != 4:
                raise _fail(f"{where}.cards must hold 4 cards", where + ".cards")
            win = _int(t, "winner", 0, 3, where=where + ".")
            ekka = _bool(t, "ekka", False if layout else ..., where=where + ".")
            for k, p in enumerate(cards):
                place(p, where)
                st.seat_played[(tl + k) & 3] |= 1 << p
                st.played |= 1 << p
            if st.kind and win != (tl + rules.trick_state(st.kind, st.trump, cards)[0]) & 3:
                raise _fail(f"{where}.winner is not the trick's winner", where + ".winner")
            tricks.append((tl, tuple(cards), win, ekka))
        st.tricks = tuple(tricks)
        pb = data.get("played_by", {})
        if not isinstance(pb, Mapping):
            raise _fail("played_by must be an object", "played_by")
        extra: dict[int, int] = {}
        for code, s in pb.items():
            p = _card(code, "played_by")
            if s is not None and (isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= 3):
                raise _fail("played_by seats must be 0-3 or null", "played_by")
            if layout and p in owner and owner[p].startswith("tricks"):
                continue
            extra[p] = -1 if s is None else s
            place(p, "played_by")
        missing = [p for p in range(NSLOTS) if p not in owner]
        if self.is_view:
            hidden_n = sum(counts[s] for s in hidden_seats) + (stock_count or 0)
            if hidden_n != len(missing):
                raise _fail("the view's hidden card counts do not match the unseen cards", "hands")
            if fill is None:
                fill = _first_fill
            fill(st, missing, hidden_seats, counts, stock_count)
            for s in hidden_seats:
                for p in rules.slots_of(st.hands[s]):
                    owner[p] = f"hands[{s}]"
            for p in st.stock:
                owner[p] = "stock"
            missing = []
        elif missing and layout:
            if phase in (BIDDING, CHOOSE_TRUMP) or (phase == DEAL_OVER and any(counts) and stock_raw is ...):
                if stock_raw is not ...:
                    raise _fail(f"card {CODE[missing[0]]} is nowhere", "stock")
                st.stock = tuple(missing)
            else:
                for p in missing:
                    extra[p] = -1
            missing = []
        if missing:
            raise _fail(f"card {CODE[missing[0]]} is missing", "hands")
        for p, s in extra.items():
            st.played |= 1 << p
            if s >= 0:
                st.seat_played[s] |= 1 << p
        st.extra_played = tuple(sorted(extra.items()))

        # hand sizes by phase
        sizes = [(h).bit_count() for h in st.hands]
        nstock = len(st.stock)
        if phase in (BIDDING, CHOOSE_TRUMP):
            if sizes != [FIRST_HAND] * 4 or nstock != STOCK_SIZE or st.candidate < 0:
                raise _fail(
                    "during bidding every hand holds 5 cards, the stock 11, and the candidate is up",
                    "hands",
                )
            if st.trick_no != 1 or st.table or st.tricks or st.played:
                raise _fail("no card is played during bidding", "trick_no")
        elif phase == DOUBLING:
            if sizes != [FULL_HAND] * 4 or nstock:
                raise _fail("after the deal is completed every hand holds 8 cards", "hands")
        elif phase == PLAY:
            if not 1 <= st.trick_no <= 8 or st.leader < 0:
                raise _fail("play needs trick_no 1-8 and a leader", "trick_no")
            want = [
                FULL_HAND - (st.trick_no - 1) - (1 if (s - st.leader) & 3 < len(st.table) else 0)
                for s in range(4)
            ]
            if sizes != want or nstock:
                raise _fail(f"in trick {st.trick_no} the hands must hold {want} cards", "hands")
            if st.played.bit_count() != 4 * (st.trick_no - 1):
                raise _fail("earlier tricks must hold 4 cards each", "tricks")
        else:
            if not (sizes == [0] * 4 and nstock == 0) and not (
                sizes == [FIRST_HAND] * 4 and nstock == STOCK_SIZE and not st.cand_taken
            ):
                raise _fail(
                    "after a deal the hands are empty (or the annulled deal's cards stay put)",
                    "hands",
                )
        if (
            (
                st.cand_taken
                and st.candidate >= 0
                and phase in (DOUBLING, PLAY)
                and st.taker not in hidden_seats
            )
            and not ((st.hands[st.taker] | st.seat_played[st.taker]) >> st.candidate & 1)
            and not (st.played >> st.candidate & 1 and (st.candidate, -1) in st.extra_played)
        ):
            raise _fail("the taker must hold the candidate", "candidate")

        # turn
        to_act = data.get("to_act", ...)
        if to_act is ...:
            if not layout:
                raise _fail("missing field: to_act", "to_act")
            to_act = self._natural_to_act(st, phase)
        if over:
            if to_act is not None:
                raise _fail("to_act is null once the match is over", "to_act")
        elif isinstance(to_act, bool) or not isinstance(to_act, int) or not 0 <= to_act <= 3:
            raise _fail("to_act must be a seat 0-3", "to_act")
        st.to_act = to_act
        if phase == PLAY and to_act != (st.leader + len(st.table)) & 3:
            raise _fail("to_act must be the next seat of the trick", "to_act")
        if phase == DOUBLING:
            st.dstep = _choice(data, "doubling_step", STEP_NAMES, _natural_step(st) if layout else ...)
        elif data.get("doubling_step") is not None:
            raise _fail("doubling_step only in the doubling phase", "doubling_step")
        wt = data.get("tricks_won", [0, 0] if layout else None)
        cp = data.get("card_points", [0, 0] if layout else None)
        for name, val, hi in (("tricks_won", wt, 8), ("card_points", cp, 162)):
            if (
                not isinstance(val, list)
                or len(val) != 2
                or any(isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= hi for x in val)
            ):
                raise _fail(f"{name} must be two whole numbers from 0 to {hi}", name)
        st.tricks_won = list(wt)
        st.card_points = list(cp)
        if sum(st.tricks_won) > (8 if phase != PLAY else st.trick_no - 1):
            raise _fail("tricks_won counts more tricks than were played", "tricks_won")

        # projects
        if phase == PLAY or (phase in (DEAL_OVER, MATCH_OVER) and st.kind and st.cand_taken):
            st.psets = [project_set(st.hands[s] | st.seat_played[s], st.kind) for s in range(4)]
        pj = _dict(data, "projects", layout) or {}
        declared = pj.get("declared", [None] * 4)
        if not isinstance(declared, list) or len(declared) != 4:
            raise _fail("projects.declared must list 4 seats", "projects.declared")
        unknown_seats = any(s < 0 for _, s in st.extra_played)
        for s, name in enumerate(declared):
            if name is None:
                continue
            if not isinstance(name, str) or name not in CLASS_OF_NAME:
                raise _fail("projects.declared entries are project classes or null", "projects.declared")
            st.declared[s] = CLASS_OF_NAME[name]
            if (
                not unknown_seats
                and s not in hidden_seats
                and (not st.psets[s][0] or st.psets[s][0][0][0][0] != st.declared[s])
            ):
                raise _fail(f"seat {s} has no {name} to declare", "projects.declared")
        dd = pj.get("declare_done", False)
        if self.is_view and dd is None:
            dd = bool(phase == PLAY and st.trick_no == 1 and to_act is not None and st.declared[to_act])
        if not isinstance(dd, bool):
            raise _fail("projects.declare_done must be true or false", "projects.declare_done")
        st.decided = dd
        if dd and not (
            phase == PLAY and st.trick_no == 1 and (st.psets[to_act][0] or to_act in hidden_seats)
        ):
            raise _fail("declare_done only for a trick-1 project decision", "projects.declare_done")
        if st.declared[to_act or 0] and phase == PLAY and st.trick_no == 1 and not dd:
            raise _fail("a seat that declared has decided", "projects.declare_done")
        revealed = pj.get("revealed", [None] * 4)
        if not isinstance(revealed, list) or len(revealed) != 4:
            raise _fail("projects.revealed must list 4 seats", "projects.revealed")
        for s, r in enumerate(revealed):
            if r is None:
                continue
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
        shown = pj.get("shown", [None] * 4)
        if not isinstance(shown, list) or len(shown) != 4:
            raise _fail("projects.shown must list 4 seats", "projects.shown")
        for s, groups in enumerate(shown):
            if groups is None:
                continue
            if not isinstance(groups, list) or len(groups) > 4:
                raise _fail("projects.shown entries are lists of groups or null", "projects.shown")
            masks = []
            for g in groups:
                m = 0
                for p in _card_list(g, "projects.shown", 5):
                    m |= 1 << p
                masks.append(m)
            st.shown[s] = tuple(masks)
            if (
                not unknown_seats
                and s not in hidden_seats
                and st.shown[s] != tuple(m for _, m in st.psets[s][0])
            ):
                raise _fail(f"projects.shown[{s}] is not that seat's project set", "projects.shown")
        bal = data.get("baloot", [])
        if (
            not isinstance(bal, list)
            or len(bal) > 4
            or any(isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= 3 for s in bal)
        ):
            raise _fail("baloot must be a list of seats", "baloot")
        if len(set(bal)) != len(bal) or (bal and st.kind != HOKM):
            raise _fail("baloot lists distinct seats, in hokm only", "baloot")
        st.baloot = tuple(bal)
        kw = data.get("kawesh")
        if kw is not None:
            if not isinstance(kw, Mapping):
                raise _fail("kawesh must be an object or null", "kawesh")
            ks = _int(kw, "seat", 0, 3, where="kawesh.")
            km = 0
            for p in _card_list(kw.get("cards"), "kawesh.cards", 5):
                km |= 1 << p
            st.kawesh = (ks, km)
        mw = data.get("match_winner")
        if over:
            if isinstance(mw, bool) or mw not in (0, 1):
                raise _fail("match_winner must be 0 or 1 once the match is over", "match_winner")
            st.match_winner = mw
        elif mw is not None:
            raise _fail("match_winner only once the match is over", "match_winner")
        res = data.get("last_deal")
        if res is not None:
            _check_result(res)
        st.result = dict(res) if res is not None else None
        entries = history_list(st, current_deal=True)
        _check_turn(st, entries)
        _check_replayed_turn(self.game, st, entries)
        _check_play_entries(st, entries)
        _check_bidding(st)
        _check_play_counts(st)
        _check_projects(st, exact=not self.is_view and not unknown_seats)
        _check_match_end(st)
        return st

    def _natural_to_act(self, st: State, phase: int) -> int | None:
        if phase == PLAY:
            return (st.leader + len(st.table)) & 3
        if phase == CHOOSE_TRUMP:
            return st.hokm_bidder if st.hokm_bidder >= 0 else st.bidder
        if phase == BIDDING and st.stage != SWITCH:
            entries = history_list(st, current_deal=True)
            return _bidding_opener(st, entries[-1] if entries else None)
        if phase == DOUBLING:
            return defenders(st)[0] if _natural_step(st) in (0, 2) else st.bidder
        if phase == DEAL_OVER:
            return (st.dealer + 1) & 3
        if phase == MATCH_OVER:
            return None
        return (st.dealer + 1) & 3


def _check_canonical(st: State, data: Mapping[str, Any]) -> None:
    """A full state is written exactly as the engine writes it: every field and option
    present, hands in canonical order, no extra key anywhere, nothing left for the loader
    to fill in or re-sort (a state the engine wrote never needs it, so a difference means
    the document was changed). One older form is still read: ``rng_state`` as a JSON
    integer below 2**53."""
    for key, value in to_json(st).items():
        got = data[key] if key in data else ...
        if got != value and not (key == "rng_state" and type(got) is int):
            raise _fail("must be written as the engine writes it (cards in canonical order)", key)


def _bidding_opener(st: State, last: tuple[int, Any] | None) -> int:
    """R2-R5: the seat the bidding passes to after this deal's ``last`` call (the next seat
    round the table), or, with no call yet, the first seat of the round (the dealer's left)
    or of the Sun window (the Hokm bidder's left)."""
    if last is not None:
        return (last[0] + 1) & 3
    return ((st.hokm_bidder if st.stage == SUN_WINDOW else st.dealer) + 1) & 3


# What the calls of a deal decide: a replay that reproduces them all must give the seat to act.
_CALL_FIELDS = tuple(
    "phase round stage hokm_bidder kind trump ashkal bidder taker mult locked gahwa dstep".split()
)


def _check_replayed_turn(game: Any, st: State, entries: list[tuple[int, Any]]) -> None:
    """R2-R12: during the calls, the seat to act is the one the engine's own rules give
    after this deal's calls, replayed from the deal's opening at the dealer's left. A deal
    a layout set up may have begun before its history: when the replay does not lead to
    the same calls position (phase, stage, contract, doubling step...), it is not the
    deal's whole history and only the bounds of ``_check_turn`` apply."""
    if not entries or st.phase not in (BIDDING, CHOOSE_TRUMP, DOUBLING):
        return
    replay = st.clone()
    replay.stock = ()  # the cards the contract deals out are in the hands already
    reset_deal_calls(replay)
    replay.phase = BIDDING
    replay.to_act = _bidding_opener(replay, None)
    for seat, action in entries:
        if replay.phase not in (BIDDING, CHOOSE_TRUMP, DOUBLING) or seat != replay.to_act:
            return
        if action not in game.legal_actions(replay):
            return
        step(replay, action)
    same_position = all(getattr(replay, name) == getattr(st, name) for name in _CALL_FIELDS)
    if same_position and replay.to_act != st.to_act:
        raise _fail(f"seat {replay.to_act} is to act after this deal's calls (R2-R12)", "to_act")


def _check_play_entries(st: State, entries: list[tuple[int, Any]]) -> None:
    """R13: this deal's plays in the history are the cards of its tricks and of the table,
    each by the seat whose turn it was (the trick's leader, then round the table). A deal
    a layout set up may have begun before its history: then the history holds the last
    of them."""
    if st.phase != PLAY:
        return
    made = [((lead + i) & 3, card) for lead, cards, _, _ in st.tricks for i, card in enumerate(cards)]
    made += [((st.leader + i) & 3, card) for i, card in enumerate(st.table)]
    plays = [(seat, action & 31) for seat, action in entries if type(action) is int and action < PASS]
    if len(plays) > len(made) or plays != made[len(made) - len(plays) :]:
        raise _fail(
            "the plays must be the tricks' cards, each by the seat whose turn it was (R13)", "history"
        )


def _check_turn(st: State, entries: list[tuple[int, Any]]) -> None:
    """The seat to act is one the phase allows (R2-R12, E1): once the deal has calls, the
    one its last call passes the turn to; in a bidding without calls, the first seat of the
    round (a layout that starts later in a round gives the calls before in its history)."""
    phase = st.phase
    to_act = st.to_act
    last = entries[-1] if entries else None
    want: set[int | None]
    if phase == BIDDING:
        h = st.hokm_bidder
        if st.stage == SWITCH:
            want = {h}
        else:
            if st.stage == MAIN:
                want = {0, 1, 2, 3}
            elif st.round == 1:  # R3: h+1, h+2, h+3
                want = {(h + k) & 3 for k in (1, 2, 3)}
            else:  # R5: the seats after h up to the dealer
                want = {(h + k) & 3 for k in range(1, (st.dealer - h) % 4 + 1)}
            opening = _bidding_opener(st, last)
            if last is None and to_act != opening:
                raise _fail(
                    f"seat {opening} opens the bidding (R2, R3, R5): a layout that starts later "
                    "gives the calls before in its history",
                    "to_act",
                )
            want &= {opening}
    elif phase == CHOOSE_TRUMP:
        want = {st.bidder}
    elif phase == DOUBLING:
        first, second = defenders(st)
        if st.dstep in (DOUBLE_STEP, FOUR_STEP):
            want = {first, second}
            if to_act == second and last is not None and last != (first, PASS):
                raise _fail(f"seat {second} is asked only after seat {first} passed (R11)", "to_act")
        else:
            want = {st.bidder}
    elif phase == DEAL_OVER:
        want = {(st.dealer + 1) & 3}
    else:
        return  # play: checked against the trick; match over: null
    if to_act not in want:
        raise _fail(f"seat {to_act} is not the seat to act in this position", "to_act")


def _check_bidding(st: State) -> None:
    """The bidding record fits the phase and the contract (R2-R8, R11)."""
    phase = st.phase
    if phase == BIDDING and st.stage == MAIN and st.hokm_bidder >= 0:
        raise _fail("bidding.hokm_bidder is set only once a hokm is bid", "bidding.hokm_bidder")
    if phase == CHOOSE_TRUMP and (st.round != 2 or st.hokm_bidder != st.bidder):
        raise _fail("choose_trump follows a round-2 hokm by the bidder (R8)", "bidding")
    if st.kind == HOKM and st.trump >= 0 and st.candidate >= 0:
        candidate_suit = SUIT_OF[st.candidate] == st.trump
        if candidate_suit != (st.round == 1):
            raise _fail(
                "a round-1 hokm has the candidate's suit as trumps, a round-2 hokm another suit (R7, R8)",
                "contract.trump",
            )
    if phase == DOUBLING and st.dstep != _natural_step(st):
        raise _fail("doubling_step does not follow the contract's multiplier", "doubling_step")


def _check_play_counts(st: State) -> None:
    """During play, tricks_won and card_points are what the listed tricks give (R13)."""
    if st.phase != PLAY or st.extra_played or len(st.tricks) != st.trick_no - 1:
        return
    won = [0, 0]
    points = [0, 0]
    values = POINTS[st.trump + 1]
    for _, cards, winner, _ in st.tricks:
        won[winner & 1] += 1
        points[winner & 1] += sum(values[p] for p in cards)
    if st.tricks_won != won:
        raise _fail(f"tricks_won must be {won} after these tricks", "tricks_won")
    if st.card_points != points:
        raise _fail(f"card_points must be {points} after these tricks", "card_points")


def _check_projects(st: State, exact: bool) -> None:
    """Projects follow trick 1 (R20-R22): nothing before play; in trick 1 only declarations
    by seats that came to play; after it the comparison's team and reveals (``exact``:
    when every seat's cards are known)."""
    phase = st.phase
    nothing_after_trick_1 = (
        st.proj_team < 0 and all(r is None for r in st.revealed) and all(g is None for g in st.shown)
    )
    if phase in (BIDDING, CHOOSE_TRUMP, DOUBLING):
        if any(st.declared) or st.decided or not nothing_after_trick_1 or st.baloot:
            raise _fail("no project is declared before play (R20)", "projects")
        if st.tricks_won != [0, 0] or st.card_points != [0, 0]:
            raise _fail("no trick is won before play", "tricks_won")
        return
    if phase != PLAY:
        return
    if st.trick_no == 1:
        if not nothing_after_trick_1:
            raise _fail("projects are compared only at the end of trick 1 (R21)", "projects")
        came = {(st.leader + k) & 3 for k in range(len(st.table))}
        for s in range(4):
            if st.declared[s] and s not in came and not (s == st.to_act and st.decided):
                raise _fail(f"seat {s} has not yet come to play in trick 1 (R20)", "projects.declared")
        return
    for s, groups in enumerate(st.shown):
        if groups is not None and s & 1 != st.proj_team:
            raise _fail(f"seat {s} is not of the project team (R22)", "projects.shown")
    if not exact:
        return
    best = {s: st.psets[s][0][0][0] for s in range(4) if st.declared[s]}
    order = [(st.dealer + k) & 3 for k in (1, 2, 3, 4)]
    winner, reveal = compare_declared(best, order, st.kind, st.trump, st.opts.trump_first)
    if st.proj_team != (-1 if winner is None else winner & 1):
        raise _fail("projects.team is not the team of the best declared project (R21)", "projects.team")
    revealed: list[tuple[int, int] | None] = [None] * 4
    for s in reveal:
        revealed[s] = (best[s][1], best[s][2])
    if st.revealed != revealed:
        raise _fail("projects.revealed must be the tied top declarations (R21)", "projects.revealed")


def _check_match_end(st: State) -> None:
    """E2/E3: a match whose scores decide it is over, won by the higher team (a gahwa deal
    ends it whatever the scores)."""
    decided = match_winner_after(st.scores, st.opts.target)
    if st.phase != MATCH_OVER:
        if decided is not None:
            raise _fail(
                f"team {decided} has reached the target {st.opts.target} with the higher score: "
                "the match is over (E2)",
                "scores",
            )
    elif not st.gahwa and st.match_winner != decided:
        raise _fail("match_winner must be the team the scores make the winner (E2)", "match_winner")


def _natural_step(st: State) -> int:
    return {1: 0, 2: 1, 3: 2, 4: 3}[st.mult] if not st.gahwa else 3


RESULT_FIELDS = frozenset(
    "adds items winner gahwa multiplier declarer_team kind card_points projects baloot kaboot "
    "counted game_points totals deal_no annulled kawesh".split()
)


def _check_plain_numbers(value: Any, where: str, depth: int = 0) -> None:
    """The deal's workings hold whole numbers a JSON double keeps exactly, a few levels deep."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int):
        if not -MAX_SAFE_INT <= value <= MAX_SAFE_INT:
            raise _fail(f"{where}: a number out of range", where)
        return
    if depth < 3 and isinstance(value, list):
        for x in value:
            _check_plain_numbers(x, where, depth + 1)
        return
    if depth < 3 and isinstance(value, Mapping):
        for x in value.values():
            _check_plain_numbers(x, where, depth + 1)
        return
    raise _fail(f"{where}: holds something that is not plain JSON data", where)


def _check_result(res: Any) -> None:
    """The last deal's award: adds per team and items that add up to them."""
    where = "last_deal"
    if not isinstance(res, Mapping):
        raise _fail("last_deal must be an object or null", where)
    _check_fields(res, RESULT_FIELDS, "last_deal.")
    _check_plain_numbers(res, where)
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
    sums = [0, 0]
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
        sums[item["side"]] += item["points"]
    if sums != adds:
        raise _fail("last_deal.items must add up to last_deal.adds", where)


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
