"""Porrazo: the easy policy (the tendido, captures, porrazos)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ai.policies.base import (
    Action,
    Sampler,
    best_of,
    greedy_policy,
    plausible_sampler,
    register,
    register_inference,
)
from engine.cards import CODES
from engine.protocol import Game

_PORRAZO_RANKS = "A23456789TJQK"
_PORRAZO_VALUE = {"K": 4, "Q": 3, "J": 2}


def _porrazo_play_value(data: dict[str, Any], view: dict[str, Any], seat: int) -> float:
    """How good a play looks from the view (R11 order): San Benito wins the match, a
    counter-porrazo scores 3 v(r), a capture takes its cards (a porrazo and a limpia score
    extra), a discard risks a porrazo by whoever holds the rank."""
    card = data["card"]
    rank = card[0]
    value_r = _PORRAZO_VALUE.get(rank, 1)
    chain = view.get("chain")
    stage = chain.get("stage") if isinstance(chain, dict) else None
    chain_rank = chain.get("rank") if isinstance(chain, dict) else None
    if isinstance(chain_rank, str) and len(chain_rank) == 2:
        chain_rank = chain_rank[0]
    if stage == "counter" and chain_rank == rank:
        return 1000.0
    if stage == "porrazo" and chain_rank == rank:
        return 50.0 + 3 * value_r
    table: list[str] = [c for c in (view.get("table") or []) if isinstance(c, str)]
    table_ranks = [c[0] for c in table]
    if rank in table_ranks and data.get("capture", True) is not False:
        taken = 1
        i = _PORRAZO_RANKS.index(rank)
        for k in range(1, 13):
            if _PORRAZO_RANKS[(i + k) % 13] in table_ranks:
                taken += 1
            else:
                break
        value = 2.0 + taken
        if stage == "discard" and chain_rank == rank:
            value += 3 * value_r
        if taken >= len(table):
            value += 3.0
        return value
    # a set: a card played this deal also lies on the table or on a pile
    seen = set(table)
    for pile in view.get("piles") or []:
        if isinstance(pile, list):
            seen.update(c for c in pile if isinstance(c, str))
    for played in view.get("played") or []:
        if isinstance(played, list):
            seen.update(c for c in played if isinstance(c, str))
    hands = view.get("hands") or []
    if seat < len(hands) and isinstance(hands[seat], list):
        seen.update(hands[seat])
    unseen = 4 - sum(1 for c in seen if c[0] == rank)
    bonus = 0.0
    if rank in "A234" and len(table) + 1 == _PORRAZO_RANKS.index(rank) + 1:
        bonus = 2.0 * (_PORRAZO_RANKS.index(rank) + 1)  # en su lugar (R13)
    return bonus - unseen * value_r


@register("porrazo")
def porrazo_policy(game: Game[Any], state: Any, seat: int, rng: random.Random) -> Action:
    """Easy Porrazo: take the tendido, declare combinations, claim whenever possible, and
    play the card whose capture is worth most (San Benito, counter-porrazo, porrazo,
    limpia), else discard the rank least likely to be matched."""
    view = game.view(state, seat)
    actions = game.legal_actions(state)
    as_json = [game.action_to_json(state, a) for a in actions]
    for wanted in ("tendido", "declare", "claim"):
        for action, data in zip(actions, as_json, strict=True):
            if data.get("type") == wanted:
                return action
    plays = [
        (action, _porrazo_play_value(data, view, seat))
        for action, data in zip(actions, as_json, strict=True)
        if isinstance(data.get("card"), str)
    ]
    best = best_of(plays, rng)
    return best if best is not None else greedy_policy(game, state, seat, rng)


_EN_SU_LUGAR_RANKS = "A234"
"""R13: a discard of these ranks scores when it leaves as many cards as its number."""


def _maybe_en_su_lugar(card: str, below: int) -> bool:
    """Whether a drop of ``card`` onto ``below`` cards may have scored en su lugar (R13:
    the table then holds as many cards as an A-4's number; it held at least ``below + 1``),
    a reason to keep a capture back (R14's declined captures are such drops)."""
    number = _EN_SU_LUGAR_RANKS.find(card[0]) + 1
    return number > 0 and below + 1 <= number


def ranks_not_held(view: dict[str, Any]) -> dict[int, set[str]]:
    """Per opponent with cards in hand, the ranks it holds none of if it captures whenever
    it can. A card that matches a table card must capture (R12); a player who holds a card
    that captures plays it rather than drop another (the opponent model: the easy policy
    does, the searching levels nearly always, as a drop invites a porrazo). The table keeps
    its order and a drop goes on top (R11), so a drop of this deal still on the table had
    every card now below it on the table when it was played, and the dropper's cards still
    in hand (all dealt before the drop, R10) match none of their ranks. A drop of A-4 that
    may have scored en su lugar says nothing (a reason to keep a capture back). Reads the
    view's ``table``, ``played`` (per seat, the cards played this deal) and ``hands``."""
    seat = view.get("seat")
    table: list[str] = view.get("table") or []
    hands = view.get("hands") or []
    out: dict[int, set[str]] = {}
    for opponent, cards in enumerate(view.get("played") or []):
        if opponent == seat or not isinstance(hands[opponent], int) or not hands[opponent]:
            continue
        ranks: set[str] = set()
        for card in cards:
            if card in table:  # a drop (a card that captured lies on a pile)
                below = table.index(card)
                if not _maybe_en_su_lugar(card, below):
                    ranks.update(code[0] for code in table[:below])
        if ranks:
            out[opponent] = ranks
    return out


def plausible_world(view: dict[str, Any]) -> Callable[[Any], bool] | None:
    """A test of a sampled world: no opponent holds a rank its drops say it lacks
    (``ranks_not_held``); None when the drops say nothing."""
    lacking = ranks_not_held(view)
    if not lacking:
        return None
    tests = [
        (opponent, frozenset(i for i, code in enumerate(CODES) if code[0] in ranks))
        for opponent, ranks in lacking.items()
    ]

    def plausible(world: Any) -> bool:
        return all(cards.isdisjoint(world.hands[opponent]) for opponent, cards in tests)

    return plausible


@register_inference("porrazo", levels=("hard",))
def porrazo_inference(game: Game[Any], view: dict[str, Any]) -> Sampler | None:
    """Hard's worlds: those that pass :func:`plausible_world`."""
    plausible = plausible_world(view)
    return None if plausible is None else plausible_sampler(game.sampler(view), plausible)
