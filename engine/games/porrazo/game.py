"""The Porrazo engine behind the :class:`~engine.protocol.Game` protocol: delegation only,
the rules live in the package's other modules."""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from engine.cards import CODES, BadCard, parse_card
from engine.checks import RNG_STATE_LIMIT, rng_state_to_json
from engine.games.porrazo import playout, rules, scoring
from engine.games.porrazo.codec import CODEC, VERB_LINES, VERBS, load_layout
from engine.games.porrazo.options import OPTION_SPECS, Options, check_teams
from engine.games.porrazo.rules import own_hand_hidden
from engine.games.porrazo.sampling import info_key, make_sampler
from engine.games.porrazo.state import PState, blank_state, match_deal_no
from engine.games.porrazo.tables import P_DEALING, PHASE_NAMES, PLAYER_COUNTS
from engine.protocol import (
    JSON,
    Action,
    Event,
    Game,
    IllegalAction,
    InvalidSetup,
    OptionSpec,
    ScoreReport,
)


class Porrazo(Game[PState]):
    """The Porrazo engine behind the Game protocol."""

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

    # ---- setup -------------------------------------------------------------------

    def check_options(self, options: JSON, players: int) -> None:
        """R1: teams "alternate" only with 4, 6 or 8 players."""
        check_teams(options, players)

    def new_state(
        self,
        players: int,
        options: Mapping[str, Any] | None = None,
        dealer: int = 0,
        *,
        seed: int | None = None,
        deck: list[str] | None = None,
        layout: JSON | None = None,
    ) -> PState:
        if seed is not None and (
            isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < RNG_STATE_LIMIT
        ):
            raise InvalidSetup("seed must be a whole number from 0 to 2**63 - 1", field="seed")
        if deck is not None and layout is not None:
            raise InvalidSetup("give a deck or a layout, not both", field="layout")
        if layout is not None:
            return self._from_layout(players, options, dealer, layout, seed)
        n = self.check_players(players)
        o = Options.build(self.parse_options(options, n), n)
        self.check_dealer(n, dealer)
        st = blank_state(o, dealer)
        if deck is not None:
            cards = self._deck(deck)
            st.rng_state = seed
        else:
            cards = rules.shuffled_deck(st, seed)
        rules.start_hand(st, cards, None)
        return st

    @staticmethod
    def _deck(deck: Any) -> tuple[int, ...]:
        if not isinstance(deck, list):
            raise InvalidSetup("deck must be a list of the 52 card codes, top first", field="deck")
        try:
            cards = tuple(parse_card(c) for c in deck)
        except BadCard as err:
            raise InvalidSetup(f"deck: {err}", field="deck") from None
        if len(cards) != 52 or len(set(cards)) != 52:
            raise InvalidSetup("deck must hold each of the 52 cards exactly once", field="deck")
        return cards

    def _from_layout(self, players: Any, options: Any, dealer: Any, layout: Any, seed: int | None) -> PState:
        if not isinstance(layout, Mapping):
            raise InvalidSetup("layout must be a JSON object (a partial state)", field="layout")
        data = dict(layout)
        data.setdefault("players", players)
        data.setdefault("dealer", dealer)
        if options is not None or "options" not in data:
            n = data["players"]
            if isinstance(n, bool) or n not in PLAYER_COUNTS:
                raise InvalidSetup("porrazo is played by 2, 3, 4, 5, 6 or 8 players", field="players")
            data["options"] = self.parse_options(options if options is not None else {}, n)
        if seed is not None and "rng_state" not in data:
            data["rng_state"] = rng_state_to_json(seed)
        st = load_layout(data)
        if st.phase == P_DEALING:
            rules.deal(st, None)
        return st

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
        cards = list(state.stock) + state.table
        for s in range(state.o.players):
            cards += state.hands[s]
            cards += state.piles[s]
        return [CODES[c] for c in cards]

    def hidden_cards(self, state: PState, seat: int) -> list[str]:
        hidden = list(state.stock)
        for s in range(state.o.players):
            if s != seat or own_hand_hidden(state, seat):
                hidden += state.hands[s]
        return [CODES[c] for c in hidden]

    # ---- search ---------------------------------------------------------------------

    def outcome(self, start: PState, end: PState) -> list[float]:
        return scoring.outcome(start, end)

    def is_playout_over(self, start: PState, state: PState) -> bool:
        return playout.is_playout_over(start, state)

    def random_playout(self, start: PState, state: PState, rng: random.Random) -> None:
        playout.random_playout(start, state, rng)


GAME = Porrazo()

__all__ = ["GAME", "Porrazo"]
