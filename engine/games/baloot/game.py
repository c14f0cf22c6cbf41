"""Baloot behind the engine's Game protocol: which module answers which call."""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from engine.games.baloot import codec, playout, rules, sampling, scoring
from engine.games.baloot.options import OPTION_SPECS, compact
from engine.games.baloot.state import State, blank
from engine.games.baloot.tables import CODE, PHASE_NAMES
from engine.protocol import JSON, Action, Event, Game, InvalidSetup, ScoreReport

PACK_CODES = tuple(CODE)


class Baloot(Game[State]):
    """The Saudi partnership game (docs/rules/baloot.md)."""

    id = "baloot"
    title = "Baloot"
    player_counts = (4,)
    option_specs = OPTION_SPECS
    verbs = {
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
    codec = codec.CODEC

    def __init__(self) -> None:
        self.bind_search_path(
            Baloot,
            step=rules.step,
            legal_actions=rules.legal_actions,
            clone=State.clone,
            to_act=rules.to_act,
            is_playout_over=rules.is_playout_over,
            random_playout=playout.random_playout,
            outcome=scoring.outcome,
        )

    # ---- setup (Game.new_state checks the request and calls one of these) ----

    def new_from_seed(self, players: int, options: JSON, dealer: int, seed: int) -> State:
        st = blank(compact(options), dealer, [0, 0], seed)
        rules.engine_deal(st)
        return st

    def new_from_deck(self, deck: Any, players: int, options: JSON, dealer: int, seed: int | None) -> State:
        st = blank(compact(options), dealer, [0, 0], seed)
        rules.deal(st, rules.read_deck(deck, "deck", InvalidSetup))
        return st

    def new_from_layout(
        self,
        layout: Mapping[str, Any],
        players: int,
        options: Mapping[str, Any] | None,
        dealer: int,
        seed: int | None,
    ) -> State:
        return codec.load_layout(layout, options, dealer, seed)

    # ---- the turn ------------------------------------------------------------

    def to_act(self, state: State) -> int | None:
        return rules.to_act(state)

    def phase(self, state: State) -> str:
        return PHASE_NAMES[state.phase]

    def deal_no(self, state: State) -> int:
        return state.deal_no

    def legal_actions(self, state: State) -> list[Action]:
        return rules.legal_actions(state)

    def check_action(self, state: State, action: Action) -> None:
        rules.check_action(state, action)

    def clone(self, state: State) -> State:
        return state.clone()

    def step(self, state: State, action: Action, events: list[Event] | None = None) -> None:
        rules.step(state, action, events)

    # ---- actions as JSON -----------------------------------------------------

    def parse_action(self, state: State, data: Any) -> Action:
        action: Action = rules.without_ace_ekka(state, codec.parse_action(data, state.phase))
        return action

    def action_to_json(self, state: State, action: Action) -> JSON:
        return codec.action_to_json(action)

    # ---- scores and views ----------------------------------------------------

    def score(self, state: State) -> ScoreReport:
        return scoring.score_report(state)

    def sampler(self, view: JSON) -> Callable[[random.Random], State]:
        return sampling.make_sampler(view)

    def info_key(self, state: State, seat: int) -> Hashable:
        return sampling.info_key(state, seat)

    # ---- invariants ----------------------------------------------------------

    def pack(self, state: State) -> list[str]:
        return list(PACK_CODES)

    def cards_in_play(self, state: State) -> list[str]:
        return rules.cards_in_play(state)

    def hidden_cards(self, state: State, seat: int) -> list[str]:
        return rules.hidden_cards(state, seat)

    # ---- search support ------------------------------------------------------

    def outcome(self, start: State, end: State) -> list[float]:
        return scoring.outcome(start, end)

    def is_playout_over(self, start: State, state: State) -> bool:
        return rules.is_playout_over(start, state)

    def random_playout(self, start: State, state: State, rng: random.Random) -> None:
        """The generic loop's plays without its wrappers (``playout``)."""
        playout.random_playout(start, state, rng)


GAME = Baloot()
