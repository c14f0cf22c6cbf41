"""Ronda behind the Game protocol (rules in docs/rules/ronda.md)."""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from engine.cards import card_code
from engine.codec import LAYOUT
from engine.games.ronda import playout, rules, sampling, scoring
from engine.games.ronda.codec import CODEC, RONDA_PACK, VERBS
from engine.games.ronda.options import OPTION_SPECS, Rules, check_options
from engine.games.ronda.state import RondaState, blank_state
from engine.games.ronda.tables import PACK, PHASE_NAMES
from engine.protocol import (
    JSON,
    Action,
    Event,
    Game,
    InvalidSetup,
    InvalidState,
    ScoreReport,
)


class Ronda(Game[RondaState]):
    id = "ronda"
    title = "Ronda"
    player_counts = (2, 3, 4)
    option_specs = OPTION_SPECS
    codec = CODEC
    verbs = {
        "pass": "say nothing in the declaration round, or do not challenge",
        "declare": "declare a combination: combo ronda, tringa or double_ronda",
        "challenge": "demand to see the dealt cards of the declaring seat `target`",
        "play": "play `card` from the hand: claim a chain, capture, or drop it on the table",
        "deal": "deal the next deal from `deck` (40 codes, top first) in a caller-dealt match",
    }

    def __init__(self) -> None:
        self.bind_search_path(
            Ronda,
            step=rules.step,
            legal_actions=rules.legal_actions,
            clone=RondaState.clone,
            to_act=rules.to_act,
            is_playout_over=rules.is_playout_over,
            random_playout=playout.random_playout,
            outcome=scoring.outcome,
        )

    # ---- setup ---------------------------------------------------------------

    def check_options(self, options: JSON, players: int) -> None:
        check_options(options, players)

    def new_state(
        self,
        players: int,
        options: Mapping[str, Any] | None = None,
        dealer: int = 0,
        *,
        seed: int | None = None,
        deck: list[str] | None = None,
        layout: JSON | None = None,
    ) -> RondaState:
        n = self.check_players(players)
        self.check_dealer(n, dealer)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise InvalidSetup("seed must be a whole number", field="seed")
        if deck is not None and (layout is not None or seed is not None):
            raise InvalidSetup(
                "give a deck, or a seed, or a layout (a seed may go with a layout)", field="deck"
            )
        if layout is not None:
            rng_state = None if seed is None else random.Random(seed).getrandbits(63)
            opts = None if options is None else self.parse_options(options, n)
            given = {"dealer": dealer, "rng_state": rng_state}
            return CODEC.load(layout, LAYOUT, players=n, options=opts, given=given)
        o = Rules.of(self.parse_options(options, n), n)
        s = blank_state(o, dealer)
        if deck is not None:
            if not isinstance(deck, list) or len(deck) != len(PACK):
                raise InvalidSetup(
                    f"deck must list the {len(PACK)} cards of the Ronda pack, top first", field="deck"
                )
            cards = []
            for code in deck:
                try:
                    cards.append(RONDA_PACK.read(code, "deck"))
                except InvalidState as err:
                    raise InvalidSetup(err.message, field="deck") from None
            if len(set(cards)) != len(PACK):
                raise InvalidSetup("deck must hold each card of the Ronda pack exactly once", field="deck")
            rng = rules.caller_deal_rng(cards) if o.shuffle_returned else None
            try:
                rules.start_deal(s, cards, rng, None)
            except ValueError as err:
                raise InvalidSetup(f"deck: {err}", field="deck") from None
            return s
        if seed is None:
            # No seed at all: an engine-dealt match from fresh OS entropy (the service always passes one).
            seed = random.SystemRandom().getrandbits(63)
        s.rng_state = seed
        rules.engine_deal(s, None)
        return s

    # ---- the turn ------------------------------------------------------------

    def to_act(self, state: RondaState) -> int | None:
        return rules.to_act(state)

    def players(self, state: RondaState) -> int:
        return state.n

    def phase(self, state: RondaState) -> str:
        return PHASE_NAMES[state.phase]

    def deal_no(self, state: RondaState) -> int:
        return state.deal_no

    def legal_actions(self, state: RondaState) -> list[Action]:
        return rules.legal_actions(state)

    def check_action(self, state: RondaState, action: Action) -> None:
        rules.check_action(state, action)

    def clone(self, state: RondaState) -> RondaState:
        return state.clone()

    def step(self, state: RondaState, action: Action, events: list[Event] | None = None) -> None:
        rules.step(state, action, events)

    # ---- actions as JSON -----------------------------------------------------

    def parse_action(self, state: RondaState, data: Any) -> Action:
        return VERBS.decode(data, state.o)

    def action_to_json(self, state: RondaState, action: Action) -> JSON:
        return VERBS.encode(action)

    # ---- scores, views, JSON ---------------------------------------------------

    def score(self, state: RondaState) -> ScoreReport:
        return scoring.score_report(state)

    def sampler(self, view: JSON) -> Callable[[random.Random], RondaState]:
        return sampling.make_sampler(view)

    def info_key(self, state: RondaState, seat: int) -> Hashable:
        return sampling.info_key(state, seat)

    # ---- invariants -------------------------------------------------------------

    def pack(self, state: RondaState) -> list[str]:
        return [card_code(c) for c in PACK]

    def cards_in_play(self, state: RondaState) -> list[str]:
        s = state
        cards: list[int] = []
        for h in s.hands:
            cards += rules.cards_of(h)
        cards += s.table
        cards += s.stock
        for p in s.piles:
            cards += rules.cards_of(p)
        return [card_code(c) for c in cards]

    def hidden_cards(self, state: RondaState, seat: int) -> list[str]:
        s = state
        cards: list[int] = list(s.stock)
        for t in range(s.n):
            if t != seat and not s.challenged >> t & 1:
                cards += rules.cards_of(s.hands[t])
        return [card_code(c) for c in cards]

    # ---- search support ----------------------------------------------------------

    def outcome(self, start: RondaState, end: RondaState) -> list[float]:
        return scoring.outcome(start, end)

    def is_playout_over(self, start: RondaState, state: RondaState) -> bool:
        return rules.is_playout_over(start, state)

    def random_playout(self, start: RondaState, state: RondaState, rng: random.Random) -> None:
        """The generic loop's plays, without its wrappers (``playout``)."""
        playout.random_playout(start, state, rng)


GAME = Ronda()
