"""The Trex Game: the protocol wired to the rules (``rules``), JSON (``codec``) and the
sampler (``sampling``)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Mapping
from types import MappingProxyType
from typing import Any

from engine.protocol import (
    JSON,
    SPECTATOR,
    Action,
    BadAction,
    Event,
    Game,
    InvalidSetup,
    InvalidState,
    ScoreReport,
)

from . import playout, rules
from .codec import action_json, card_index, parse_action_json, state_json
from .loading import load_state
from .rules import TrexState, entries
from .tables import (
    CODES,
    CONTRACT_NAMES,
    DEAL_OVER,
    LAYOUT,
    MATCH_OVER,
    OPTION_SPECS,
    PHASE_NAMES,
    RNG_BITS,
    TREX,
    TREX_BONUS,
    TWO_MASK,
    Opts,
    codes_of,
)

SIDES_SOLO = [[0], [1], [2], [3]]
SIDES_TEAMS = [[0, 2], [1, 3]]
OUTCOME_SCALE = 150.0
"""Points of relative deal score that move a seat's reward by tanh(1)/2 (outcome)."""


class Trex(Game[TrexState]):
    id = "trex"
    title = "Trex"
    player_counts = (4,)
    option_specs = OPTION_SPECS
    verbs: Mapping[str, str] = MappingProxyType(
        {
            "choose": "the kingdom owner picks this deal's contract",
            "double": "double a king of hearts or queen you hold (doubling phase)",
            "pass": "end your doubling turn, or pass in Trex when no card fits",
            "play": "play a card to the trick or the Trex layout",
            "deal": "deal the next deal from a caller's deck (caller-dealt matches)",
        }
    )

    def __init__(self) -> None:
        # The search's hot path: bind the rule functions directly (no wrapper call frame);
        # the methods below are the typed contract they stand in for. mypy checks such an
        # instance assignment against the unbound method (self included), so it cannot be
        # typed: hence the ignores.
        self.step = rules.step  # type: ignore[method-assign, assignment]
        self.legal_actions = rules.legal_actions  # type: ignore[method-assign, assignment]
        self.clone = TrexState.clone  # type: ignore[method-assign, assignment]
        self.to_act = rules.to_act  # type: ignore[method-assign, assignment]

    # ---- setup
    def new_state(
        self,
        players: int,
        options: Mapping[str, Any] | None = None,
        dealer: int = 0,
        *,
        seed: int | None = None,
        deck: list[str] | None = None,
        layout: JSON | None = None,
    ) -> TrexState:
        self.check_players(players)
        self.check_dealer(4, dealer)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise InvalidSetup("seed must be a whole number", field="seed")
        if deck is not None and layout is not None:
            raise InvalidSetup("give either a deck or a layout, not both", field="deck")
        if layout is not None:
            return self._from_layout(players, options, dealer, seed, layout)
        opts = Opts(self.parse_options(options, players))
        s = TrexState(opts)
        if deck is not None:
            cards = parse_deck(deck, "deck", InvalidSetup)
            if seed is not None:
                s.rng_state = random.Random(seed).getrandbits(RNG_BITS)
        else:
            rng = random.Random(seed) if seed is not None else random.Random()
            cards = rules.shuffled_pack(rng)
            s.rng_state = rng.getrandbits(RNG_BITS)
        rules.start_deal(s, 1, dealer, cards, None)
        return s

    def _from_layout(
        self, players: int, options: Any, dealer: int, seed: int | None, layout: Any
    ) -> TrexState:
        if not isinstance(layout, dict):
            raise InvalidSetup("layout must be a JSON object (a partial state)", field="layout")
        data = dict(layout)
        if options is not None:
            parsed = self.parse_options(options, players)
            if "options" in data and self.parse_options(data["options"], players) != parsed:
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
            tmp = Opts(self.parse_options(data.get("options"), players))
            deal_no = data.get("deal_no", 1)
            probe = TrexState(tmp)
            if (
                not isinstance(deal_no, int)
                or isinstance(deal_no, bool)
                or not 1 <= deal_no <= tmp.total_deals
            ):
                raise InvalidState("deal_no is out of range", field="deal_no")
            probe.deal_no = deal_no
            d = data["dealer"]
            if isinstance(d, bool) or not isinstance(d, int) or not 0 <= d <= 3:
                raise InvalidState("dealer must be a seat 0-3", field="dealer")
            data["hands"] = [codes_of(m) for m in rules.deal_from(first, d)]
        s, _, _ = load_state(data, partial=True, view=False)
        if seed is not None:
            s.rng_state = random.Random(seed).getrandbits(RNG_BITS)
        return s

    # ---- turn
    def to_act(self, state: TrexState) -> int | None:
        return None if state.to_act < 0 else state.to_act

    def phase(self, state: TrexState) -> str:
        return PHASE_NAMES[state.phase]

    def is_playout_over(self, start: TrexState, state: TrexState) -> bool:
        """The match is over, the deal of ``start`` ended, or a caller's deal is awaited."""
        return state.to_act < 0 or state.deal_no != start.deal_no or state.phase == DEAL_OVER

    def random_playout(self, start: TrexState, state: TrexState, rng: random.Random) -> None:
        """The generic loop's plays, fused over the hand masks (``playout``); the deal is
        ended without dealing the next one from the generator (same ``outcome``)."""
        playout.random_playout(start, state, rng)

    def deal_no(self, state: TrexState) -> int:
        return state.deal_no

    def legal_actions(self, state: TrexState) -> list[Action]:
        return rules.legal_actions(state)

    def check_action(self, state: TrexState, action: Action) -> None:
        rules.check_action(state, action)

    def clone(self, state: TrexState) -> TrexState:
        return state.clone()

    def step(self, state: TrexState, action: Action, events: list[Event] | None = None) -> None:
        rules.step(state, action, events)

    # ---- actions
    def parse_action(self, state: TrexState, data: Any) -> Action:
        action: Action = parse_action_json(data)
        return action

    def action_to_json(self, state: TrexState, action: Action) -> JSON:
        return action_json(action)

    # ---- JSON
    def to_json(self, state: TrexState) -> JSON:
        return state_json(state)

    def from_json(self, data: Any) -> TrexState:
        return load_state(data, partial=False, view=False)[0]

    def view(self, state: TrexState, seat: int) -> JSON:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3:
            raise InvalidState("seat must be 0-3", field="seat")
        return state_json(state, seat)

    def public_view(self, state: TrexState) -> JSON:
        out = state_json(state, SPECTATOR)  # no seat is -1: every hand a count
        out["seat"] = None
        return out

    def sampler(self, view: JSON) -> Callable[[random.Random], TrexState]:
        from .sampling import make_sampler

        return make_sampler(view)

    def info_key(self, state: TrexState, seat: int) -> Hashable:
        s = state
        h = s.hands
        return (
            seat,
            h[seat],
            h[0].bit_count(),
            h[1].bit_count(),
            h[2].bit_count(),
            h[3].bit_count(),
            s.deal_no,
            s.phase,
            s.to_act,
            s.first_owner,
            s.dealer,
            s.contract,
            s.contracts_used,
            s.doubled,
            s.doubling_turn,
            tuple(s.trick),
            s.leader,
            tuple(s.cards_won),
            s.table,
            tuple(s.finish_order),
            s.layout_turns,
            (h[0] & TWO_MASK, h[1] & TWO_MASK, h[2] & TWO_MASK, h[3] & TWO_MASK) if s.twos_exposed else None,
            tuple(s.deal_scores),
            tuple(s.match_scores),
            s.deal_results,
            s.played,
        )

    # ---- invariants
    def pack(self, state: TrexState) -> list[str]:
        return list(CODES)

    def cards_in_play(self, state: TrexState) -> list[str]:
        s = state
        m = s.hands + s.cards_won + [s.table]
        out = [CODES[c] for c in s.trick]
        for x in m:
            out += codes_of(x)
        return out

    def hidden_cards(self, state: TrexState, seat: int) -> list[str]:
        s = state
        public = s.dbl_mask | (TWO_MASK if s.twos_exposed else 0)
        out: list[str] = []
        for i in range(4):
            if i != seat:
                out += codes_of(s.hands[i] & ~public)
        return out

    # ---- scores
    def score(self, state: TrexState) -> ScoreReport:
        s = state
        opts = s.opts
        sides = SIDES_TEAMS if opts.partnership else SIDES_SOLO
        team_mask = 1 if opts.partnership else 3  # a seat's side: its team, or itself
        ms = s.match_scores
        scores = [sum(ms[i] for i in side) for side in sides]
        items = deal_items(s)
        for it in items:
            it["side"] = it["seat"] & team_mask
        deal_points = [sum(s.deal_scores[i] for i in side) for side in sides]
        finished = s.phase == MATCH_OVER
        winners, draw = match_result(s) if finished else ([], False)
        return ScoreReport(
            sides=[list(x) for x in sides],
            scores=scores,
            deal_no=s.deal_no,
            deal_points=deal_points,
            items=items,
            finished=finished,
            winner=winners[0] if len(winners) == 1 else None,
            extra={
                "match_scores": list(ms),
                "deal_scores": list(s.deal_scores),
                "contract": CONTRACT_NAMES[s.contract] if s.contract >= 0 else None,
                "winners": winners,
                "draw": draw,
            },
        )

    def standings(self, state: TrexState) -> list[float]:
        # S8/E4: with reversed_scores the lowest total wins
        sign = state.opts.sign
        return [float(v * sign) for v in self.score(state).scores]

    def outcome(self, start: TrexState, end: TrexState) -> list[float]:
        if end.phase == MATCH_OVER:
            winners, draw = match_result(end)
            if draw:
                return [0.5] * 4
            if end.opts.partnership:
                return [1.0 if (i & 1) in winners else 0.0 for i in range(4)]
            return [1.0 if i in winners else 0.0 for i in range(4)]
        a, b = running_totals(start), running_totals(end)
        ch = [(b[i] - a[i]) * end.opts.sign for i in range(4)]
        if end.opts.partnership:
            t = [ch[0] + ch[2], ch[1] + ch[3]]
            diff = [(t[i & 1] - t[1 - (i & 1)]) / 2 for i in range(4)]
        else:
            mean = sum(ch) / 4
            diff = [(ch[i] - mean) * 4 / 3 for i in range(4)]
        return [0.5 + 0.5 * math.tanh(d / OUTCOME_SCALE) for d in diff]


def running_totals(s: TrexState) -> list[int]:
    """Match totals plus the running deal's scores (not yet recorded)."""
    if s.phase in (DEAL_OVER, MATCH_OVER):
        return list(s.match_scores)
    return [s.match_scores[i] + s.deal_scores[i] for i in range(4)]


def match_result(s: TrexState) -> tuple[list[int], bool]:
    """E4: the winning sides (seats, or teams 0 = {0,2} / 1 = {1,3}) and whether it is a draw."""
    sign = s.opts.sign  # reversed: lowest wins, i.e. highest of the negated totals
    ms = [v * sign for v in s.match_scores]
    if not s.opts.partnership:
        best = max(ms)
        return [i for i in range(4) if ms[i] == best], False
    if not s.opts.lowest_player_loses:
        t = [ms[0] + ms[2], ms[1] + ms[3]]
        if t[0] == t[1]:
            return [], True
        return [0 if t[0] > t[1] else 1], False
    low = min(ms)
    losing = {i & 1 for i in range(4) if ms[i] == low}
    if len(losing) == 2:
        return [], True
    return [1 - losing.pop()], False


def deal_items(s: TrexState) -> list[JSON]:
    """The current deal's score, item by item (replayed from ``played``); anything the
    replay cannot explain (a layout that started mid-deal) is one 'earlier play' item."""
    scratch = s.clone()
    scratch.deal_scores = [0, 0, 0, 0]
    events: list[Event] = []
    if s.contract == TREX:
        if len(s.finish_order) == 4:
            for pos, st in enumerate(s.finish_order):
                rules._score(
                    scratch,
                    st,
                    TREX_BONUS[pos],
                    f"finished {('first', 'second', 'third', 'fourth')[pos]}",
                    "S6",
                    events,
                )
    elif s.contract >= 0:
        tricks: dict[int, list[tuple[int, int]]] = {}
        for seat, action, no in entries(s.played):
            if no:
                tricks.setdefault(no, []).append((seat, action))
        for no in sorted(tricks):
            t = tricks[no]
            if len(t) != 4 or no > s.tricks_played:
                continue
            led = t[0][1] // 13
            w = max((c, seat) for seat, c in t if c // 13 == led)[1]
            tm = sum(1 << c for _, c in t)
            rules.score_trick(scratch, tm, w, t[0][0], events)
    items = [
        {"seat": e["seat"], "points": e["points"], "item": e["item"], "rule": e["rule"]}
        for e in events
        if e["type"] == "points"
    ]
    for i in range(4):
        rest = s.deal_scores[i] - scratch.deal_scores[i]
        if rest:
            items.append({"seat": i, "points": rest, "item": "earlier play given in the setup", "rule": "S9"})
    return items


def parse_deck(deck: Any, field: str, error: type[InvalidSetup] | type[InvalidState]) -> list[int]:
    """A deck of 52 distinct codes (top first) -> card indices; ``error`` naming ``field``."""
    if not isinstance(deck, list) or len(deck) != 52:
        raise error("a deck must be a list of the 52 card codes, top first", field=field)
    cards = [card_index(c, field, error) for c in deck]
    if len(set(cards)) != 52:
        raise error("a deck must hold each card exactly once", field=field)
    return cards


GAME = Trex()

__all__ = ["GAME", "LAYOUT", "BadAction", "InvalidState", "Trex"]
