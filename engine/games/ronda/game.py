"""Ronda behind the Game protocol (rules in docs/rules/ronda.md): which module answers
which call."""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from engine.cards import card_code
from engine.codec import LAYOUT
from engine.games.ronda import playout, rules, sampling, scoring
from engine.games.ronda.codec import CODEC, VERBS, deck_from_json
from engine.games.ronda.options import OPTION_SPECS, Rules, check_options
from engine.games.ronda.state import RondaState, blank_state
from engine.games.ronda.tables import PACK, PHASE_NAMES
from engine.protocol import JSON, Action, Event, Game, InvalidSetup, ScoreReport


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

    # ---- setup (Game.new_state checks the request and calls one of these) ----

    def check_options(self, options: JSON, players: int) -> None:
        check_options(options, players)

    def new_from_seed(self, players: int, options: JSON, dealer: int, seed: int) -> RondaState:
        s = blank_state(Rules.of(options, players), dealer)
        s.rng_state = seed
        rules.engine_deal(s, None)
        return s

    def new_from_deck(
        self, deck: Any, players: int, options: JSON, dealer: int, seed: int | None
    ) -> RondaState:
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
        self,
        layout: Mapping[str, Any],
        players: int,
        options: Mapping[str, Any] | None,
        dealer: int,
        seed: int | None,
    ) -> RondaState:
        rng_state = None if seed is None else random.Random(seed).getrandbits(63)
        opts = None if options is None else self.parse_options(options, players)
        given = {"dealer": dealer, "rng_state": rng_state}
        return CODEC.load(layout, LAYOUT, players=players, options=opts, given=given)

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

    # ---- scores and views ----------------------------------------------------

    def score(self, state: RondaState) -> ScoreReport:
        return scoring.score_report(state)

    def sampler(self, view: JSON) -> Callable[[random.Random], RondaState]:
        return sampling.make_sampler(view)

    def info_key(self, state: RondaState, seat: int) -> Hashable:
        return sampling.info_key(state, seat)

    # ---- invariants ----------------------------------------------------------

    def pack(self, state: RondaState) -> list[str]:
        return [card_code(c) for c in PACK]

    def cards_in_play(self, state: RondaState) -> list[str]:
        return rules.cards_in_play(state)

    def hidden_cards(self, state: RondaState, seat: int) -> list[str]:
        return rules.hidden_cards(state, seat)

    # ---- search support ------------------------------------------------------

    def outcome(self, start: RondaState, end: RondaState) -> list[float]:
        return scoring.outcome(start, end)

    def is_playout_over(self, start: RondaState, state: RondaState) -> bool:
        return rules.is_playout_over(start, state)

    def random_playout(self, start: RondaState, state: RondaState, rng: random.Random) -> None:
        """The generic loop's plays, without its wrappers (``playout``)."""
        playout.random_playout(start, state, rng)


GAME = Ronda()
