"""The Porrazo engine behind the :class:`~engine.protocol.Game` protocol: which module
answers which call; the rules live in the package's other modules."""

from __future__ import annotations

from collections.abc import Mapping

from engine.cards import CODES
from engine.games.porrazo import codec, playout, rules, sampling, scoring
from engine.games.porrazo.options import OPTION_SPECS, check_teams
from engine.games.porrazo.state import PState, match_deal_no
from engine.games.porrazo.tables import PHASE_NAMES, PLAYER_COUNTS
from engine.protocol import Action, Game, IllegalAction, OptionSpec


class Porrazo(Game[PState]):
    """The Porrazo engine behind the Game protocol."""

    id = "porrazo"
    title = "Porrazo"
    player_counts: tuple[int, ...] = PLAYER_COUNTS
    option_specs: tuple[OptionSpec, ...] = OPTION_SPECS
    verbs: Mapping[str, str] = codec.VERB_LINES
    codec = codec.CODEC

    def __init__(self) -> None:
        super().__init__(
            check_options=check_teams,  # R1: teams "alternate" only with 4, 6 or 8 players
            new_from_seed=codec.new_from_seed,
            new_from_deck=codec.new_from_deck,
            new_from_layout=codec.new_from_layout,
            # the turn
            to_act=playout.to_act,
            phase=lambda st: PHASE_NAMES[st.phase],
            deal_no=match_deal_no,  # in the whole match (the state JSON's deal_no counts within the hand)
            legal_actions=rules.legal_actions,
            check_action=rules.check_action,
            clone=PState.copy,
            step=rules.step,
            # actions as JSON
            parse_action=lambda st, data: codec.VERBS.decode(data, st.o),
            action_to_json=lambda st, action: codec.VERBS.encode(action),
            # scores and views
            score=scoring.score_report,
            sampler=sampling.make_sampler,
            info_key=sampling.info_key,
            # invariants
            pack=lambda st: list(CODES),
            cards_in_play=rules.cards_in_play,
            hidden_cards=rules.hidden_cards,
            # search
            outcome=scoring.outcome,
            is_playout_over=playout.is_playout_over,
            random_playout=playout.random_playout,
        )

    def check(self, state: PState, seat: int, action: Action) -> None:
        """Section 9: the base checks with the rules file's wording, then the game's."""
        if state.to_act is None:
            raise IllegalAction("the match is over", rule="R25")
        super().check(state, seat, action)


GAME = Porrazo()

__all__ = ["GAME", "Porrazo"]
