"""The Porrazo engine behind the :class:`~engine.protocol.Game` protocol: delegation only,
the rules live in the package's other modules."""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from engine.cards import CODES
from engine.games.porrazo import playout, rules, scoring
from engine.games.porrazo.codec import CODEC, VERB_LINES, VERBS, deck_from_json, load_layout
from engine.games.porrazo.options import OPTION_SPECS, Options, check_teams
from engine.games.porrazo.sampling import info_key, make_sampler
from engine.games.porrazo.state import PState, blank_state, match_deal_no
from engine.games.porrazo.tables import PHASE_NAMES, PLAYER_COUNTS
from engine.protocol import (
    JSON,
    Action,
    Event,
    Game,
    IllegalAction,
    OptionSpec,
    ScoreReport,
)


class Porrazo(Game[PState]):
    """The Porrazo engine behind the Game protocol: which module answers which call."""

    id = "porrazo"
    title = "Porrazo"
    player_counts: tuple[int, ...] = PLAYER_COUNTS
    option_specs: tuple[OptionSpec, ...] = OPTION_SPECS
    verbs: Mapping[str, str] = VERB_LINES
    codec = CODEC

    def __init__(self) -> None:
        self.bind_search_path(
            Porrazo,
            step=rules.step,
            legal_actions=rules.legal_actions,
            clone=PState.copy,
            to_act=playout.to_act,
            is_playout_over=playout.is_playout_over,
            random_playout=playout.random_playout,
            outcome=scoring.outcome,
        )

    # ---- setup (Game.new_state checks the request and calls one of the new_from_*)

    def check_options(self, options: JSON, players: int) -> None:
        """R1: teams "alternate" only with 4, 6 or 8 players."""
        check_teams(options, players)

    def new_from_seed(self, players: int, options: JSON, dealer: int, seed: int) -> PState:
        st = blank_state(Options.build(options, players), dealer)
        rules.start_hand(st, rules.shuffled_deck(st, seed), None)
        return st

    def new_from_deck(self, deck: Any, players: int, options: JSON, dealer: int, seed: int | None) -> PState:
        st = blank_state(Options.build(options, players), dealer)
        cards = deck_from_json(deck)
        st.rng_state = seed  # the later hands: from the seed's generator, or the caller's
        rules.start_hand(st, cards, None)
        return st

    def new_from_layout(
        self,
        layout: Mapping[str, Any],
        players: int,
        options: Mapping[str, Any] | None,
        dealer: int,
        seed: int | None,
    ) -> PState:
        return load_layout(layout, players, options, dealer, seed, self.parse_options)

    # ---- the turn ------------------------------------------------------------------

    def to_act(self, state: PState) -> int | None:
        return state.to_act

    def phase(self, state: PState) -> str:
        return PHASE_NAMES[state.phase]

    def deal_no(self, state: PState) -> int:
        """The deal's number in the whole match (the state JSON's deal_no counts within the hand)."""
        return match_deal_no(state)

    def legal_actions(self, state: PState) -> list[Action]:
        return rules.legal_actions(state)

    def check(self, state: PState, seat: int, action: Action) -> None:
        """Section 9: the base checks with the rules file's wording, then the game's."""
        if state.to_act is None:
            raise IllegalAction("the match is over", rule="R25")
        super().check(state, seat, action)

    def check_action(self, state: PState, action: Action) -> None:
        rules.check_action(state, action)

    def clone(self, state: PState) -> PState:
        return state.copy()

    def step(self, state: PState, action: Action, events: list[Event] | None = None) -> None:
        rules.step(state, action, events)

    # ---- actions --------------------------------------------------------------------

    def parse_action(self, state: PState, data: Any) -> Action:
        return VERBS.decode(data, state.o)

    def action_to_json(self, state: PState, action: Action) -> JSON:
        return VERBS.encode(action)

    # ---- scores, views, JSON ------------------------------------------------------------

    def score(self, state: PState) -> ScoreReport:
        return scoring.score_report(state)

    def sampler(self, view: JSON) -> Callable[[random.Random], PState]:
        return make_sampler(view)

    def info_key(self, state: PState, seat: int) -> Hashable:
        return info_key(state, seat)

    # ---- invariants ------------------------------------------------------------------

    def pack(self, state: PState) -> list[str]:
        return list(CODES)

    def cards_in_play(self, state: PState) -> list[str]:
        return rules.cards_in_play(state)

    def hidden_cards(self, state: PState, seat: int) -> list[str]:
        return rules.hidden_cards(state, seat)

    # ---- search ---------------------------------------------------------------------

    def outcome(self, start: PState, end: PState) -> list[float]:
        return scoring.outcome(start, end)

    def is_playout_over(self, start: PState, state: PState) -> bool:
        return playout.is_playout_over(start, state)

    def random_playout(self, start: PState, state: PState, rng: random.Random) -> None:
        playout.random_playout(start, state, rng)


GAME = Porrazo()

__all__ = ["GAME", "Porrazo"]
