"""Ronda: the easy policy (declarations, bluffs and challenges, captures) and the
search's playout hook."""

from __future__ import annotations

import random
from typing import Any

from ai.policies.base import (
    PLAYOUT_FACTORIES,
    Action,
    PlayoutHook,
    PlayoutPolicy,
    Sampler,
    best_of,
    greedy_policy,
    register,
    register_inference,
)
from engine.games.ronda.rules import claims_chain
from engine.protocol import Game, InvalidState

_RONDA_RANKS = "A234567JQK"


def _ronda_holding(cards: list[str]) -> str:
    """R8 table: the holding of a hand's dealt cards ("none", "ronda", "tringa", "double_ronda")."""
    counts: dict[str, int] = {}
    for code in cards:
        counts[code[0]] = counts.get(code[0], 0) + 1
    most = max(counts.values(), default=0)
    pairs = sum(1 for n in counts.values() if n == 2)
    if most == 4:
        return "double_ronda"
    if most == 3:
        return "tringa"
    if pairs == 2:
        return "double_ronda"
    if pairs == 1:
        return "ronda"
    return "none"


def _ronda_play_value(card: str, view: dict[str, Any], claims: bool, este_card_stays: bool) -> float:
    """How good playing ``card`` looks from the view: captured cards count 1 each, este,
    missa and chain bonuses their points (weighted up); a drop is scored by the risk that
    an opponent matches it (unseen cards of its rank)."""
    rank = card[0]
    table: list[str] = list(view.get("table") or [])
    table_ranks = {c[0] for c in table}
    if claims:  # the engine says this card claims a chain bonus (R24)
        return 100.0
    if rank in table_ranks:
        taken = 1
        index = _RONDA_RANKS.index(rank) + 1
        while index < len(_RONDA_RANKS) and _RONDA_RANKS[index] in table_ranks:
            taken += 1
            index += 1
        value = 2.0 + taken
        last_drop = view.get("last_drop")
        este = isinstance(last_drop, str) and last_drop[0] == rank
        if este:
            value += 3.0
        if taken == len(table) and not (este and este_card_stays):
            value += 3.0  # missa (ignoring the last-play exception; R21's stays_on_table: none)
        return value
    # a drop: fewer unseen cards of this rank = less risk of an este against us
    seen = [c for c in table]
    for pile in view.get("piles") or []:
        if isinstance(pile, list):
            seen.extend(pile)
    hands = view.get("hands") or []
    seat = view.get("seat")
    own = hands[seat] if isinstance(seat, int) and seat < len(hands) and isinstance(hands[seat], list) else []
    seen.extend(own)
    unseen = 4 - sum(1 for c in seen if c[0] == rank)
    # dropping next to a table rank also feeds a run capture
    index = _RONDA_RANKS.index(rank)
    feeds_run = index + 1 < len(_RONDA_RANKS) and _RONDA_RANKS[index + 1] in table_ranks
    return -1.0 * unseen - (0.5 if feeds_run else 0.0)


@register("ronda")
def ronda_policy(game: Game[Any], state: Any, seat: int, rng: random.Random) -> Action:
    """Easy Ronda: declare the true holding, never challenge (a genuine declaration
    challenged wins the match for its side), capture the most valuable packet (este and
    missa count extra), otherwise drop the card least likely to be matched."""
    view = game.view(state, seat)
    actions = game.legal_actions(state)
    as_json = [game.action_to_json(state, a) for a in actions]
    phase = view.get("phase")
    if phase == "declare":
        dealt = view.get("dealt")
        own = (
            dealt[seat] if isinstance(dealt, list) and isinstance(dealt[seat], list) else view["hands"][seat]
        )
        holding = _ronda_holding(own)
        for action, data in zip(actions, as_json, strict=True):
            if holding == "none" and data.get("type") == "pass":
                return action
            if data.get("type") == "declare" and data.get("combo") == holding:
                return action
    if phase == "challenge":
        for action, data in zip(actions, as_json, strict=True):
            if data.get("type") == "pass":
                return action
    stays = state.o.este_card_stays
    plays = [
        (
            action,
            _ronda_play_value(
                data["card"], view, isinstance(action, int) and claims_chain(state, action), stays
            ),
        )
        for action, data in zip(actions, as_json, strict=True)
        if isinstance(data.get("card"), str)
    ]
    best = best_of(plays, rng)
    return best if best is not None else greedy_policy(game, state, seat, rng)


def _ronda_playout_hook() -> PlayoutPolicy | None:
    """A cheap Ronda playout policy for the search: every seat declares its true holding
    and never challenges; capturing cards are preferred. Random declarations and challenges
    would make most playouts end in a penalty or in a challenged genuine declaration (a
    match won at once), which drowns the signal of the card play. It reads the sampled
    world's internal state (a playout runs in a world sampled from the view, so this sees
    nothing the searching seat does not). A card that captures is always preferred, the
    biggest packet first (an este or a missa counts 3 cards more), else a random card.
    The code is :mod:`ai.playouts.ronda`, compiled with the engine."""
    try:
        from ai.playouts import ronda
    except ImportError:  # pragma: no cover - Ronda not installed
        return None
    return PlayoutHook(ronda.choose, ronda.play_out)


PLAYOUT_FACTORIES["ronda"] = _ronda_playout_hook


@register_inference("ronda", levels=("normal", "hard"))
def ronda_inference(game: Game[Any], view: dict[str, Any]) -> Sampler | None:
    """The searching levels take every declaration of the hand at its word: they search
    worlds where each hidden hand holds what its seat declared (a ronda, a tringa, or
    nothing), as the easy policy and the playout hook always declare and as people mostly
    do (a bluff risks a challenge, R13, and a silence the violation penalty, R18). The
    rules alone deduce nothing from a declaration (a bluff is legal), so the engine's
    sampler takes them at their word only when asked (``trust_declarations``); when no
    deal of the unseen cards fits them, the declarations are ignored."""
    from engine.games.ronda.sampling import make_sampler

    try:
        return make_sampler(view, trust_declarations=True)
    except InvalidState:
        return None
