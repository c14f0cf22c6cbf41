"""Ronda behind the Game protocol (rules in docs/rules/ronda.md): which module answers
which call."""

from __future__ import annotations

from operator import attrgetter

from engine.cards import card_code
from engine.games.ronda import codec, playout, rules, sampling, scoring
from engine.games.ronda.options import OPTION_SPECS, check_options
from engine.games.ronda.state import RondaState
from engine.games.ronda.tables import PACK, PHASE_NAMES
from engine.protocol import Game

PACK_CODES = tuple(card_code(c) for c in PACK)


class Ronda(Game[RondaState]):
    id = "ronda"
    title = "Ronda"
    player_counts = (2, 3, 4)
    option_specs = OPTION_SPECS
    codec = codec.CODEC
    verbs = {
        "pass": "say nothing in the declaration round, or do not challenge",
        "declare": "declare a combination: combo ronda, tringa or double_ronda",
        "challenge": "demand to see the dealt cards of the declaring seat `target`",
        "play": "play `card` from the hand: claim a chain, capture, or drop it on the table",
        "deal": "deal the next deal from `deck` (40 codes, top first) in a caller-dealt match",
    }

    def __init__(self) -> None:
        super().__init__(
            check_options=check_options,
            new_from_seed=codec.new_from_seed,
            new_from_deck=codec.new_from_deck,
            new_from_layout=codec.new_from_layout,
            # the turn
            to_act=rules.to_act,
            players=attrgetter("n"),
            phase=lambda s: PHASE_NAMES[s.phase],
            deal_no=attrgetter("deal_no"),
            legal_actions=rules.legal_actions,
            check_action=rules.check_action,
            clone=RondaState.clone,
            step=rules.step,
            # actions as JSON
            parse_action=lambda s, data: codec.VERBS.decode(data, s.o),
            action_to_json=lambda s, action: codec.VERBS.encode(action),
            # scores and views
            score=scoring.score_report,
            sampler=sampling.make_sampler,
            info_key=sampling.info_key,
            # invariants
            pack=lambda s: list(PACK_CODES),
            cards_in_play=rules.cards_in_play,
            hidden_cards=rules.hidden_cards,
            # search: the generic loop's plays without its wrappers (playout)
            outcome=scoring.outcome,
            is_playout_over=rules.is_playout_over,
            random_playout=playout.random_playout,
        )


GAME = Ronda()
