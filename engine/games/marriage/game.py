"""Marriage (Nepal) behind the engine's Game protocol: which module answers which call."""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from engine.protocol import JSON, Event, Game, IllegalAction, ScoreReport

from . import codec, hand_eval, playout, rules, sampling, scoring
from .options import OPTION_SPECS
from .state import MState, cards_in_play, info_key
from .tables import PHASES, codes, pack_cards


class Marriage(Game[MState]):
    id = "marriage"
    title = "Marriage (Nepal)"
    player_counts = (2, 3, 4, 5)
    option_specs = OPTION_SPECS
    codec = codec.CODEC
    verbs = {
        "expose_tunnela": "R9: show a tunnela (three identical cards) at the deal",
        "pass": "R9: done exposing tunnelas",
        "draw_stock": "R10: take the top card of the stock",
        "take_discard": "R10: take the top card of the discard pile",
        "discard": "R18: end the turn by discarding a card",
        "show": "R12: show three pure sets (less exposed tunnelas) to see the joker",
        "show_dublees": "R13: show seven dublees (less exposed tunnelas) to see the joker",
        "pick_tiplu": "R14: the first seer picks the tiplu from the stock by index",
        "finish": "R15: lay down the remaining sets and discard one card",
        "finish_dublees": "R16: show the eighth dublee and discard one card",
        "deal": "R2: a caller-dealt match's next deck (top first)",
    }

    def __init__(self) -> None:
        self.bind_search_path(
            Marriage,
            step=rules.step,
            legal_actions=rules.legal_actions,
            clone=MState.copy,
            to_act=rules.to_act,
            is_playout_over=hand_eval.is_playout_over,
            outcome=hand_eval.outcome,
            random_playout=playout.random_playout,
        )

    # ---- setup (Game.new_state checks the request and calls one of these) ----

    def new_from_seed(self, players: int, options: JSON, dealer: int, seed: int) -> MState:
        return rules.new_match(players, options, dealer, seed, None)

    def new_from_deck(self, deck: Any, players: int, options: JSON, dealer: int, seed: int | None) -> MState:
        return rules.new_match(
            players, options, dealer, seed, codec.deck_from_json(deck, options["man_cards"])
        )

    def new_from_layout(
        self,
        layout: Mapping[str, Any],
        players: int,
        options: Mapping[str, Any] | None,
        dealer: int,
        seed: int | None,
    ) -> MState:
        opts = self.parse_options(options, players)
        return codec.load_layout(layout, players, opts, dealer, seed, self.parse_options)

    # ---- the turn ------------------------------------------------------------

    def to_act(self, state: MState) -> int | None:
        return state.cur

    def phase(self, state: MState) -> str:
        return PHASES[state.phase]

    def deal_no(self, state: MState) -> int:
        return state.deal_no

    def legal_actions(self, state: MState) -> list[Any]:
        return rules.legal_actions(state)

    def check_action(self, state: MState, action: Any) -> None:
        if not rules.is_well_formed(action):
            raise IllegalAction("not a Marriage action", rule="R23")
        rules.check_action(state, action, getattr(action, "raw", None))

    def clone(self, state: MState) -> MState:
        return state.copy()

    def step(self, state: MState, action: Any, events: list[Event] | None = None) -> None:
        rules.step(state, action, events)

    # ---- actions as JSON -----------------------------------------------------

    def parse_action(self, state: MState, data: Any) -> Any:
        return codec.VERBS.decode(data, state.opts)

    def action_to_json(self, state: MState, action: Any) -> JSON:
        return codec.VERBS.encode(action)

    # ---- scores and views ----------------------------------------------------

    def score(self, state: MState) -> ScoreReport:
        return scoring.score_report(state)

    def sampler(self, view: JSON) -> Callable[[random.Random], MState]:
        return sampling.make_sampler(view)

    def info_key(self, state: MState, seat: int) -> Hashable:
        return info_key(state, seat)

    # ---- invariants ----------------------------------------------------------

    def pack(self, state: MState) -> list[str]:
        return codes(pack_cards(state.opts.man_cards))

    def cards_in_play(self, state: MState) -> list[str]:
        return cards_in_play(state)

    def hidden_cards(self, state: MState, seat: int) -> list[str]:
        return codes(sampling.hidden_cards(state, self.check_seat(state, seat)))

    # ---- search support ------------------------------------------------------

    def is_playout_over(self, start: MState, state: MState) -> bool:
        return hand_eval.is_playout_over(start, state)

    def outcome(self, start: MState, end: MState) -> list[float]:
        return hand_eval.outcome(start, end)

    def random_playout(self, start: MState, state: MState, rng: random.Random) -> None:
        playout.random_playout(start, state, rng)


GAME = Marriage()
