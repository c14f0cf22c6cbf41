"""Ronda's JSON shape, declared for the shared codec (engine/codec.py): its verbs, its
state fields in document order (with what a layout may leave out and what a seat's view
shows), and the glue that builds a state from the decoded values."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine import codec as C
from engine.checks import MAX_SAFE_INT, MAX_SCORE
from engine.games.ronda import rules
from engine.games.ronda.checks import check_state, hand_of_stock
from engine.games.ronda.codec_kinds import SeatSet
from engine.games.ronda.layout import fill_left_out
from engine.games.ronda.options import OPTION_SPECS, Rules, check_options
from engine.games.ronda.rules import verb_of
from engine.games.ronda.state import RondaState, blank_state, cons_list
from engine.games.ronda.tables import (
    CHALLENGE_BASE,
    COMBO_NAMES,
    DEAL_MARK,
    DECLARE_BASE,
    PACK,
    PASS,
    PHASE_NAMES,
    RANK_CHARS,
    RBIT,
)
from engine.protocol import JSON, Action, BadAction, InvalidSetup, InvalidState

RONDA_PACK = C.Pack("Ronda", PACK)
CARD = C.Card(RONDA_PACK)
MASK = C.CardMask(RONDA_PACK)

# --------------------------------------------------------------------------- actions


def _hidden_deck(count: Any) -> tuple[int, ...]:
    """A view's caller deal (its deck shown as a count) read back: a placeholder deck."""
    if count != len(PACK):
        raise BadAction(f"malformed action: deck: must be a list of {len(PACK)} card codes", field="deck")
    return PACK


VERBS = C.Verbs(
    [
        C.Verb("pass", make=lambda: PASS),
        C.Verb(
            "declare",
            {"combo": C.Choice(COMBO_NAMES[1:], (1, 2, 3))},
            make=lambda combo: DECLARE_BASE + combo,
            split=lambda action: (action - DECLARE_BASE,),
        ),
        C.Verb(
            "challenge",
            {"target": C.Seat()},
            make=lambda target: CHALLENGE_BASE + target,
            split=lambda action: (action - CHALLENGE_BASE,),
        ),
        C.Verb("play", {"card": CARD}, make=lambda card: card, split=lambda action: (action,)),
        C.Verb(
            "deal",
            {"deck": C.Cards(RONDA_PACK, length=len(PACK), unique=False)},  # a card twice: check_action, R2
            make=tuple,
            split=lambda action: (action,),
            hidden={"deck": _hidden_deck},
        ),
    ],
    verb_of,
)


# --------------------------------------------------------------------------- state fields


def deal_history(s: RondaState, viewer: int) -> list[tuple[int, Action]]:
    """A state's and a view's history: this deal's entries only (earlier deals' cards went
    back into hidden places), each caller's deal with its deck (the newest decks)."""
    entries = cons_list(s.hist)
    marks = sum(1 for _, action in entries if action == DEAL_MARK)
    decks = []
    cons = s.decks
    for _ in range(marks):
        decks.append(cons[1])
        cons = cons[0]
    out = []
    for seat, action in entries:
        if action == DEAL_MARK:
            action = decks.pop()
        out.append((seat, action))
    return out


def _challenged(s: RondaState, viewer: int, seat: int) -> bool:
    """R13: a challenged seat's cards are shown to every seat."""
    return bool(s.challenged >> seat & 1)


def _dealt_shown(s: RondaState, viewer: int, seat: int) -> bool:
    """A seat's dealt cards are shown when challenged or when all of them are played."""
    return bool(s.challenged >> seat & 1) or not s.hands[seat]


def _hands_of_deal(o: Rules) -> int:
    return o.pattern.hands


def _played(s: RondaState) -> list[int]:
    """The cards each seat played this hand: dealt but no longer held."""
    return [s.dealt[t] & ~s.hands[t] for t in range(s.n)]


def _undeclared(o: Rules) -> list[int]:
    return [-1] * o.players


def _award(s: RondaState) -> tuple[int, int] | None:
    return None if s.prov_side < 0 else (s.prov_side, s.prov_pts)


POINTS = C.Int(-MAX_SCORE, MAX_SCORE)
AWARD = C.Obj(side=C.Side(), points=C.Int(1, MAX_SCORE))
CHAIN = C.Obj(rank=C.Choice(tuple(RANK_CHARS)), level=C.Int(1, 3), seat=C.Seat(), packet=MASK)
ITEM = C.Obj(side=C.Side(), points=POINTS, item=C.Text(), rule=C.Text())

FIELDS: list[C.Field[RondaState]] = [
    C.Field("dealer", C.Seat(), default=0),
    C.Field("phase", C.Choice(PHASE_NAMES), default=C.OMITTED),
    C.Field("to_act", C.Nullable(C.Seat(), -1), derived=True, default=C.OMITTED),
    C.Field("scores", C.PerSide(C.Int(0, MAX_SCORE)), default=lambda o: [0] * o.sides),
    C.Field("deal_no", C.Int(1, MAX_SAFE_INT), default=1),
    C.Field("hand_number", C.Int(1, _hands_of_deal), lambda s: s.hand_no, derived=True, default=C.OMITTED),
    C.Field("hands", C.PerSeat(MASK), show=C.OwnOrCount(_challenged)),
    C.Field("dealt", C.PerSeat(MASK), default=C.OMITTED, show=C.OwnOrCount(_dealt_shown)),
    C.Field("played", C.PerSeat(MASK), _played, default=C.OMITTED),
    C.Field("table", C.Cards(RONDA_PACK), default=lambda o: []),
    C.Field("stock", C.Cards(RONDA_PACK), default=lambda o: [], show=C.COUNT),
    C.Field("piles", C.PerSide(MASK), default=lambda o: [0] * o.sides),
    C.Field("declarations", C.PerSeat(C.Nullable(C.Choice(COMBO_NAMES), -1)), lambda s: s.decl, _undeclared),
    C.Field("challenged", SeatSet(), default=0),
    C.Field("withdrawn", SeatSet(), default=0),
    C.Field("revealed", SeatSet(), lambda s: s.challenged, derived=True, default=C.OMITTED),
    C.Field("provisional_award", C.Nullable(AWARD), _award, default=None),
    C.Field("last_drop", C.Nullable(CARD, -1), default=-1),
    C.Field("chain", C.Nullable(CHAIN), default=None),
    C.Field("last_capturer", C.Nullable(C.Seat(), -1), lambda s: s.last_cap, default=-1),
    C.Field("winner", C.Nullable(C.Side(), -1), default=-1),
    C.Field("deal_items", C.ListOf(ITEM), lambda s: cons_list(s.items), default=lambda o: []),
    # a state's history is the current deal's (docs/api.md, "State size"), so a written
    # deal_start is 0; an old state's earlier entries (before it) are dropped on loading
    C.Field("history", C.History(VERBS), lambda s: deal_history(s, 0), default=lambda o: []),
    C.history_start("deal_start"),
    C.Field("rng_state", C.RngState(), default=None, show=C.STATE_ONLY),
    C.view_seat(),
]


def build(values: dict[str, Any], o: Rules, mode: str) -> RondaState:
    """A state from the decoded ``values``, ``hand_number`` from the stock (what they leave
    out is ``layout.fill_left_out``'s, which the codec calls next)."""
    s = blank_state(o, values["dealer"])
    s.scores = values["scores"]
    s.deal_no = values["deal_no"]
    s.hands = values["hands"]
    if "dealt" in values:
        s.dealt = values["dealt"]
    s.table = values["table"]
    for c in s.table:
        s.trank |= RBIT[c]
    s.stock = tuple(values["stock"])
    s.hand_no = hand_of_stock(s, len(s.stock))
    s.piles = values["piles"]
    s.decl = values["declarations"]
    s.challenged = values["challenged"]
    s.withdrawn = values["withdrawn"]
    if values["provisional_award"] is not None:
        s.prov_side, s.prov_pts = values["provisional_award"]
    s.last_drop = values["last_drop"]
    s.chain = values["chain"]
    s.last_cap = values["last_capturer"]
    s.winner = values["winner"]
    for item in values["deal_items"]:
        s.items = (s.items, *item)
    _build_history(s, values["history"], values["deal_start"], mode)
    s.rng_state = values["rng_state"]
    if "phase" in values:
        s.phase = values["phase"]
    return s


def _build_history(s: RondaState, entries: list[tuple[int, Action]], start: int, mode: str) -> None:
    """This deal's history from ``start`` on, decks apart. The entries before ``start`` (an
    old state's earlier deals, or a view template's placeholders) are folded away: their
    effects are in the scores; ``old_len`` keeps their count, so the checks still know the
    deal is not the first of the match."""
    decks: Any = None  # cons lists
    hist: Any = None
    for seat, action in entries if mode == C.TEMPLATE else C.current_entries(entries, start, "deal_start"):
        if type(action) is tuple:
            decks = (decks, action)
            action = DEAL_MARK
        hist = (hist, seat, action)
    s.hist = hist
    s.old_hist = None
    s.old_len = start
    s.decks = decks


CODEC = C.Codec(
    game="ronda",
    version=1,
    option_specs=OPTION_SPECS,
    player_counts=(2, 3, 4),
    check_options=check_options,
    rules_of=Rules.of,
    options_of=lambda s: dict(s.o.raw),
    players_of=lambda s: s.n,
    fields=FIELDS,
    verbs=VERBS,
    build=build,
    fill_left_out=fill_left_out,
    check=check_state,
)


def deck_from_json(deck: Any) -> list[int]:
    """A caller's deck (codes, top first) as cards: the Ronda pack, each card once."""
    if not isinstance(deck, list) or len(deck) != len(PACK):
        raise InvalidSetup(f"deck must list the {len(PACK)} cards of the Ronda pack, top first", field="deck")
    cards = []
    for code in deck:
        try:
            cards.append(RONDA_PACK.read(code, "deck"))
        except InvalidState as err:
            raise InvalidSetup(err.message, field="deck") from None
    if len(set(cards)) != len(PACK):
        raise InvalidSetup("deck must hold each card of the Ronda pack exactly once", field="deck")
    return cards


# --------------------------------------------------------------------------- a new match
# (Game.new_state checks the request, then calls one of these)


def new_from_seed(players: int, options: JSON, dealer: int, seed: int) -> RondaState:
    s = blank_state(Rules.of(options, players), dealer)
    s.rng_state = seed
    rules.engine_deal(s, None)
    return s


def new_from_deck(deck: Any, players: int, options: JSON, dealer: int, seed: int | None) -> RondaState:
    o = Rules.of(options, players)
    s = blank_state(o, dealer)
    cards = deck_from_json(deck)
    try:
        rules.start_deal(s, cards, rules.caller_deal_rng(cards) if o.shuffle_returned else None, None)
    except ValueError as err:
        raise InvalidSetup(f"deck: {err}", field="deck") from None
    s.rng_state = seed  # the later deals: from the seed's generator, or the caller's
    return s


def new_from_layout(
    layout: Mapping[str, Any], players: int, options: JSON, dealer: int, seed: int | None
) -> RondaState:
    rng_state = None if seed is None else random.Random(seed).getrandbits(63)
    return CODEC.load(
        layout, C.LAYOUT, players=players, options=options, given={"dealer": dealer, "rng_state": rng_state}
    )
