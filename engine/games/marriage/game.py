"""Marriage (Nepal) behind the engine's Game protocol: delegation to the package's modules."""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from engine.protocol import (
    JSON,
    EngineError,
    Event,
    Game,
    IllegalAction,
    InvalidSetup,
    InvalidState,
    ScoreReport,
)

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

    # ---- setup ---------------------------------------------------------------

    def new_state(
        self,
        players: int,
        options: Mapping[str, Any] | None = None,
        dealer: int = 0,
        *,
        seed: int | None = None,
        deck: list[str] | None = None,
        layout: JSON | None = None,
    ) -> MState:
        n = self.check_players(players)
        opts = self.parse_options(options, n)
        self.check_dealer(n, dealer)
        if deck is not None and layout is not None:
            raise InvalidSetup("give a deck or a layout, not both", field="deck")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise InvalidSetup("seed must be a whole number", field="seed")
        if layout is not None:
            try:
                return codec.load_layout(layout, n, opts, dealer, seed, self.parse_options)
            except EngineError:
                raise
            except (KeyError, TypeError, ValueError, IndexError, AttributeError, RecursionError) as exc:
                raise InvalidState(f"not a Marriage layout: {exc}", field="layout") from None
        cards = None
        if deck is not None:
            if seed is not None:
                raise InvalidSetup("give a seed or a deck, not both", field="seed")
            cards = codec.deck_from_json(deck, opts["man_cards"])
        return rules.new_match(n, opts, dealer, seed, cards)

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

    # ---- scores, views, JSON ---------------------------------------------------

    def score(self, state: MState) -> ScoreReport:
        return scoring.score_report(state)

    def from_json(self, data: Any) -> MState:
        return self._load(data, canonical=True)

    def _load(self, data: Any, *, canonical: bool) -> MState:
        try:
            st = codec.load(data, canonical=canonical)
        except EngineError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, RecursionError) as exc:
            raise InvalidState(f"not a Marriage state: {exc}", field="state") from None
        return st

    def sampler(self, view: JSON) -> Callable[[random.Random], MState]:
        return sampling.make_sampler(view)

    def info_key(self, state: MState, seat: int) -> Hashable:
        return info_key(state, seat)

    def random_playout(self, start: MState, state: MState, rng: random.Random) -> None:
        playout.random_playout(start, state, rng)

    # ---- invariants ------------------------------------------------------------

    def pack(self, state: MState) -> list[str]:
        return codes(pack_cards(state.opts.man_cards))

    def cards_in_play(self, state: MState) -> list[str]:
        return cards_in_play(state)

    def hidden_cards(self, state: MState, seat: int) -> list[str]:
        _check_seat(state, seat)
        return codes(sampling.hidden_cards(state, seat))

    # ---- search support ----------------------------------------------------------

    def is_playout_over(self, start: MState, state: MState) -> bool:
        return hand_eval.is_playout_over(start, state)

    def outcome(self, start: MState, end: MState) -> list[float]:
        return hand_eval.outcome(start, end)


def _check_seat(state: MState, seat: Any) -> None:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.n:
        raise InvalidState(f"seat must be a seat from 0 to {state.n - 1}", field="seat")


GAME = Marriage()
