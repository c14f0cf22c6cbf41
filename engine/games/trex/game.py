"""The Trex Game: which module answers which protocol call (rules ``rules``, scoring
``scoring``, the JSON ``codec``, the sampler ``sampling``)."""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Mapping
from types import MappingProxyType
from typing import Any

from engine.protocol import JSON, Action, Event, Game, InvalidSetup, ScoreReport

from . import playout, rules, scoring
from .codec import CODEC, VERBS, parse_action, parse_deck, state_from_layout
from .options import OPTION_SPECS, Opts, check_options
from .sampling import make_sampler
from .state import TrexState, cards_in_play, hidden_cards, info_key
from .tables import CODES, PHASE_NAMES, RNG_BITS


class Trex(Game[TrexState]):
    id = "trex"
    title = "Trex"
    player_counts = (4,)
    option_specs = OPTION_SPECS
    codec = CODEC
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
        self.bind_search_path(
            Trex,
            step=rules.step,
            legal_actions=rules.legal_actions,
            clone=TrexState.clone,
            to_act=rules.to_act,
            is_playout_over=rules.is_playout_over,
            random_playout=playout.random_playout,
            outcome=scoring.outcome,
        )

    # ---- setup (Game.new_state checks the request and calls one of the new_from_*)
    def check_options(self, options: JSON, players: int) -> None:
        check_options(options, players)

    def new_from_seed(self, players: int, options: JSON, dealer: int, seed: int) -> TrexState:
        return rules.new_match(Opts(options), dealer, None, seed)

    def new_from_deck(
        self, deck: Any, players: int, options: JSON, dealer: int, seed: int | None
    ) -> TrexState:
        return rules.new_match(Opts(options), dealer, parse_deck(deck, "deck", InvalidSetup), seed)

    def new_from_layout(
        self,
        layout: Mapping[str, Any],
        players: int,
        options: Mapping[str, Any] | None,
        dealer: int,
        seed: int | None,
    ) -> TrexState:
        s = state_from_layout(
            layout, None if options is None else self.parse_options(options, players), dealer
        )
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
        return rules.is_playout_over(start, state)

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
        return parse_action(data, state.opts)

    def action_to_json(self, state: TrexState, action: Action) -> JSON:
        return VERBS.encode(action)

    # ---- views
    def sampler(self, view: JSON) -> Callable[[random.Random], TrexState]:
        return make_sampler(view)

    def info_key(self, state: TrexState, seat: int) -> Hashable:
        return info_key(state, seat)

    # ---- invariants
    def pack(self, state: TrexState) -> list[str]:
        return list(CODES)

    def cards_in_play(self, state: TrexState) -> list[str]:
        return cards_in_play(state)

    def hidden_cards(self, state: TrexState, seat: int) -> list[str]:
        return hidden_cards(state, seat)

    # ---- scores
    def score(self, state: TrexState) -> ScoreReport:
        return scoring.score_report(state)

    def standings(self, state: TrexState) -> list[float]:
        return scoring.standings(state)

    def outcome(self, start: TrexState, end: TrexState) -> list[float]:
        return scoring.outcome(start, end)


GAME = Trex()
