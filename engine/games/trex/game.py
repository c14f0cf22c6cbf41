"""The Trex Game: which module answers which protocol call (rules ``rules``, scoring
``scoring``, the JSON and a new match ``codec``, the sampler ``sampling``)."""

from __future__ import annotations

from collections.abc import Mapping
from operator import attrgetter
from types import MappingProxyType

from engine.protocol import Game

from . import codec, playout, rules, sampling, scoring, state
from .options import OPTION_SPECS, check_options
from .state import TrexState
from .tables import CODES, PHASE_NAMES


class Trex(Game[TrexState]):
    id = "trex"
    title = "Trex"
    player_counts = (4,)
    option_specs = OPTION_SPECS
    codec = codec.CODEC
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
        super().__init__(
            check_options=check_options,
            new_from_seed=codec.new_from_seed,
            new_from_deck=codec.new_from_deck,
            new_from_layout=codec.new_from_layout,
            # the turn
            to_act=rules.to_act,
            phase=lambda s: PHASE_NAMES[s.phase],
            deal_no=attrgetter("deal_no"),
            legal_actions=rules.legal_actions,
            check_action=rules.check_action,
            clone=TrexState.clone,
            step=rules.step,
            # actions as JSON
            parse_action=lambda s, data: codec.parse_action(data, s.opts),
            action_to_json=lambda s, action: codec.VERBS.encode(action),
            # scores and views
            score=scoring.score_report,
            standings=scoring.standings,
            sampler=sampling.make_sampler,
            info_key=state.info_key,
            # invariants
            pack=lambda s: list(CODES),
            cards_in_play=state.cards_in_play,
            hidden_cards=state.hidden_cards,
            # search: the playout is fused over the hand masks and ends the deal without
            # dealing the next one from the generator (same outcome)
            outcome=scoring.outcome,
            is_playout_over=rules.is_playout_over,
            random_playout=playout.random_playout,
        )


GAME = Trex()
