"""Baloot behind the engine's Game protocol: which module answers which call."""

from __future__ import annotations

from operator import attrgetter

from engine.games.baloot import codec, playout, rules, sampling, scoring
from engine.games.baloot.options import OPTION_SPECS
from engine.games.baloot.state import State
from engine.games.baloot.tables import CODE, PHASE_NAMES
from engine.protocol import Game

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
        super().__init__(
            new_from_seed=codec.new_from_seed,
            new_from_deck=codec.new_from_deck,
            new_from_layout=codec.new_from_layout,
            # the turn
            to_act=rules.to_act,
            phase=lambda st: PHASE_NAMES[st.phase],
            deal_no=attrgetter("deal_no"),
            legal_actions=rules.legal_actions,
            check_action=rules.check_action,
            clone=State.clone,
            step=rules.step,
            # actions as JSON
            parse_action=lambda st, data: rules.without_ace_ekka(st, codec.parse_action(data, st.phase)),
            action_to_json=lambda st, action: codec.action_to_json(action),
            # scores and views
            score=scoring.score_report,
            sampler=sampling.make_sampler,
            info_key=sampling.info_key,
            # invariants
            pack=lambda st: list(PACK_CODES),
            cards_in_play=rules.cards_in_play,
            hidden_cards=rules.hidden_cards,
            # search: the generic loop's plays without its wrappers (playout)
            outcome=scoring.outcome,
            is_playout_over=rules.is_playout_over,
            random_playout=playout.random_playout,
        )


GAME = Baloot()
