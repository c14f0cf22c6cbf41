"""Marriage (Nepal) behind the engine's Game protocol: which module answers which call."""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from engine.protocol import Game, IllegalAction

from . import codec, hand_eval, playout, rules, sampling, scoring, state
from .options import OPTION_SPECS
from .state import MState
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
        super().__init__(
            new_from_seed=codec.new_from_seed,
            new_from_deck=codec.new_from_deck,
            new_from_layout=codec.new_from_layout,
            # the turn
            to_act=rules.to_act,
            phase=lambda st: PHASES[st.phase],
            deal_no=attrgetter("deal_no"),
            legal_actions=rules.legal_actions,
            clone=MState.copy,
            step=rules.step,
            # actions as JSON
            parse_action=lambda st, data: codec.VERBS.decode(data, st.opts),
            action_to_json=lambda st, action: codec.VERBS.encode(action),
            # scores and views
            score=scoring.score_report,
            sampler=sampling.make_sampler,
            info_key=state.info_key,
            # invariants
            pack=lambda st: codes(pack_cards(st.opts.man_cards)),
            cards_in_play=state.cards_in_play,
            # search: the fitted hand evaluation and horizon (hand_eval)
            outcome=hand_eval.outcome,
            is_playout_over=hand_eval.is_playout_over,
            random_playout=playout.random_playout,
        )

    def check_action(self, state: MState, action: Any) -> None:
        """R23: an action of no Marriage shape is refused before the rule checks."""
        if not rules.is_well_formed(action):
            raise IllegalAction("not a Marriage action", rule="R23")
        rules.check_action(state, action, getattr(action, "raw", None))

    def hidden_cards(self, state: MState, seat: int) -> list[str]:
        return codes(sampling.hidden_cards(state, self.check_seat(state, seat)))


GAME = Marriage()
