"""Trex JSON: actions and the state JSON (full and view forms); loading is in ``loading``."""

from __future__ import annotations

from typing import Any

from engine.checks import rng_state_from_json, rng_state_to_json
from engine.protocol import BadAction, InvalidSetup, InvalidState

from .rules import (
    CHOOSE_BASE,
    DEAL,
    DOUBLE,
    PASS,
    TrexState,
    entries,
    history_entries_past,
)
from .tables import (
    CODES,
    CONTRACT_NAMES,
    CONTRACT_OF_NAME,
    INDEX_OF_CODE,
    PHASE_NAMES,
    SEQ_RANKS,
    SUITS_ORDER,
    TRICKS,
    TWO_MASK,
    codes_of,
)

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
