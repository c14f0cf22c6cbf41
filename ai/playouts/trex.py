"""Trex's playout hook (the normal level's playouts): the easy policy's trick play in its
cheapest form, on the sampled world's ``TrexState``. See ``ai.policies.trex.make_trex_playout``
for why it plays this way; ``ai.playouts`` for the two functions.

The trick phase of ``play_out`` is the engine's fused trick loop (``playout.play_tricks``,
on the hands' bit masks: the rules are all the engine's) with this hook's ``HookTricks`` as
its choice point; ``choose`` asks the same ``HOOK_TRICKS.card`` with the legal mask of
``rules.legal_actions``, so that both make the same choices with the same draws."""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING, Any, Final

from ai.playouts.trex_weights import WEIGHTS
from engine.games.trex.playout import BITS, POP, Rand, TrickPolicy, draw_card, play_tricks
from engine.games.trex.rules import is_playout_over, legal_actions, step
from engine.games.trex.state import TrexState
from engine.games.trex.tables import DIAMOND_MASK, KH_BIT, PENALTY_MASK, QUEEN_MASK, TRICKS

if TYPE_CHECKING:  # a mypyc native type; at run time the annotations are never evaluated
    from mypy_extensions import i64

EPSILON: Final = 0.1
"""Share of playout turns played uniformly at random (keeps the playouts varied)."""

# Cards: suit * 13 + rank, rank 0 = 2 ... 12 = ace; a hand mask holds suit s in its 13-bit
# chunk ``s`` (bits 13 s .. 13 s + 12). Bytes tables (see engine.games.trex.playout):
LOWEST: Final = bytes(((c & -c).bit_length() - 1) % 13 for c in range(1 << 13))
"""``LOWEST[chunk]``: the lowest rank of a non-empty 13-bit chunk."""
HIGHEST: Final = bytes((c.bit_length() - 1) % 13 for c in range(1 << 13))
"""``HIGHEST[chunk]``: the highest rank of a non-empty 13-bit chunk."""
BELOW: Final[list[int]] = [(1 << rank) - 1 for rank in range(13)]
"""``BELOW[rank]``: the ranks under ``rank``, as a chunk."""


def choose(s: TrexState, rng: random.Random) -> Any:
    """The action of the seat to act: in the trick phase ``HookTricks.card``; the layout,
    doubling and contract choice at random. One action: no draw."""
    return choose_with(s, rng, HOOK_TRICKS)


def choose_with(s: TrexState, rng: random.Random, tricks: TrickPolicy) -> Any:
    """The action of the seat to act: in the trick phase ``tricks.card``; the layout,
    doubling and contract choice at random. One action: no draw."""
    actions = legal_actions(s)
    n = len(actions)
    if n == 1:
        return actions[0]
    if s.phase != TRICKS:
        return actions[int(rng.random() * n)]
    legal, led, best, in_trick, penalty = trick_args(s, actions)
    return tricks.card(legal, led, best, in_trick, penalty, rng.random)


def trick_args(s: TrexState, actions: list[Any]) -> tuple[i64, i64, i64, i64, i64]:
    """What the fused trick loop gives a ``TrickPolicy`` at this trick-phase state, whose
    legal ``actions`` (cards, ascending) are given: the legal mask, the led suit (-1 when
    leading), the trick's winning card (-1 when leading), the cards in the trick and the
    contract's penalty cards."""
    legal: i64 = 0
    card: int
    for card in actions:
        legal |= BITS[card]
    trick = s.trick
    led: i64 = trick[0] // 13 if trick else -1
    best: i64 = s.best if trick else -1
    return legal, led, best, len(trick), PENALTY_MASK[s.contract]


def lowest_rank(m: i64) -> i64:
    """The first card (lowest suit) of the lowest rank in the non-empty mask ``m``."""
    return _card_of_rank(m, LOWEST)


def highest_rank(m: i64) -> i64:
    """The first card (lowest suit) of the highest rank in the non-empty mask ``m``."""
    return _card_of_rank(m, HIGHEST)


def _card_of_rank(m: i64, rank_of_chunk: bytes) -> i64:
    """The first card (lowest suit) in ``m`` of the rank that ``rank_of_chunk`` (LOWEST or
    HIGHEST) picks from the ranks present in any suit."""
    c0: i64 = m & 0x1FFF
    c1: i64 = m >> 13 & 0x1FFF
    c2: i64 = m >> 26 & 0x1FFF
    c3: i64 = m >> 39
    rank: i64 = rank_of_chunk[c0 | c1 | c2 | c3]
    return _first_suit_of(rank, c0, c1, c2)


def _first_suit_of(rank: i64, c0: i64, c1: i64, c2: i64) -> i64:
    """The card of ``rank`` in the first of the chunks that holds it (else clubs)."""
    if c0 >> rank & 1:
        return rank
    if c1 >> rank & 1:
        return 13 + rank
    if c2 >> rank & 1:
        return 26 + rank
    return 39 + rank


class HookTricks(TrickPolicy):
    """The hook's trick play, as the choice point of the engine's fused trick loop (and of
    ``choose``: one copy of the heuristic)."""

    def card(self, legal: i64, led: i64, best: i64, in_trick: i64, penalty: i64, rand: Rand) -> i64:
        """The card to play of the ``legal`` mask (the arguments: ``TrickPolicy.card``): one
        time in ten a random legal card, else lead the lowest rank, duck under the winner, shed
        penalty cards when void. One legal card: no draw."""
        c0: i64 = legal & 0x1FFF
        c1: i64 = legal >> 13 & 0x1FFF
        c2: i64 = legal >> 26 & 0x1FFF
        c3: i64 = legal >> 39
        if POP[c0] + POP[c1] + POP[c2] + POP[c3] == 1:
            return lowest_rank(legal)
        if rand() < EPSILON:  # the card ``actions[int(u * n)]`` of the ascending legal cards
            return draw_card(legal, rand())
        if in_trick == 0:  # lead the lowest rank (ties: the first suit; R10 is the engine's)
            return lowest_rank(legal)
        shift: i64 = 13 * led
        chunk: i64 = legal >> shift & 0x1FFF
        if chunk:  # following suit: every legal card is of the led suit
            low: i64 = LOWEST[chunk]
            best_rank: i64 = best - shift
            if low < best_rank:  # duck under the winner with the highest card that loses
                return shift + HIGHEST[chunk & BELOW[best_rank]]
            if in_trick == 3:  # last and winning anyway: shed the highest safe card
                safe: i64 = chunk & ~(penalty >> shift)
                return shift + HIGHEST[safe if safe else chunk]
            return shift + low  # a later seat may still overtake: play low
        # void in the led suit: shed a penalty card, else the highest card
        shed: i64 = legal & penalty
        return highest_rank(shed if shed else legal)


HOOK_TRICKS: Final = HookTricks()


# --- the learned trick play (the hard level's playouts) --------------------------------------
# A candidate card is described by flags (bit k: feature k holds) and its situation; its
# score is the sum of the weights of its flags plus rank / 12 times its situation's slope,
# and a card is played with probability proportional to exp(score) (a conditional logit,
# fitted to the normal level's own choices by ``python -m ai.train_playout``).
F_WINS: Final = 0
"""Following suit, the card beats the trick's winning card."""
F_LAST_WINS: Final = 1
"""... and it is the trick's last card (the trick is the player's for sure)."""
F_DUCK: Final = 2
"""The highest card of the led suit under the winning card (the hook's duck)."""
F_PENALTY_UNDER: Final = 3
"""A penalty card of the contract played under the trick's winning card (its taker gets it)."""
F_PENALTY_WINS: Final = 4
"""A penalty card that takes the trick (it stays with its player)."""
F_PENALTY_LEAD: Final = 5
"""A penalty card led."""
F_PENALTY_SHED: Final = 6
"""A penalty card discarded on another suit's trick (void in the led suit)."""
F_LOWEST: Final = 7
"""The lowest legal card of its suit."""
F_HIGHEST: Final = 8
"""The highest legal card of its suit."""
F_SUIT_PENALTY: Final = 9
"""Leading or void: the card's suit holds a penalty card of the player's."""
F_SHORT: Final = 10
"""Leading or void: the player holds at most two cards of the card's suit."""
F_SINGLETON: Final = 11
"""Leading or void: the card is the player's last of its suit (playing it makes a void)."""
FLAGS: Final = 12

LEAD: Final = 0
WIN: Final = 1
LOSE: Final = 2
VOID: Final = 3
"""The situations: leading; following and taking the trick (so far); following under the
winning card; void in the led suit. Each has its own slope on the card's rank."""

WEIGHTS_PER_CONTRACT: Final = FLAGS + 4
"""A contract's weights: one per flag, then the four situations' rank slopes."""
FEATURE_NAMES: Final = (
    "wins",
    "last_wins",
    "duck",
    "penalty_under",
    "penalty_wins",
    "penalty_lead",
    "penalty_shed",
    "lowest_of_suit",
    "highest_of_suit",
    "suit_holds_penalty",
    "short_suit",
    "singleton",
    "rank_leading",
    "rank_winning",
    "rank_losing",
    "rank_void",
)
CONTRACT_CLASSES: Final = ("collections", "king_of_hearts", "queens", "diamonds", "pooled")
"""The weight sets, by the contract's penalty mask (``contract_class``); "pooled" (fitted
on every contract's choices) plays a contract with another mask (the complex contract)."""


def contract_class(penalty: i64) -> i64:
    """The weight set of the contract whose penalty cards are ``penalty``."""
    if penalty == 0:
        return 0
    if penalty == KH_BIT:
        return 1
    if penalty == QUEEN_MASK:
        return 2
    if penalty == DIAMOND_MASK:
        return 3
    return 4


def card_features(card: i64, legal: i64, led: i64, best: i64, in_trick: i64, penalty: i64) -> tuple[i64, i64]:
    """(flags, situation) of ``card``, one of the ``legal`` cards (the arguments of
    ``TrickPolicy.card``). In Trex no suit is trump: the winning card is of the led suit."""
    suit: i64 = card // 13
    rank: i64 = card % 13
    shift: i64 = 13 * suit
    chunk: i64 = legal >> shift & 0x1FFF
    flags: i64 = 0
    situation: i64
    if in_trick == 0:
        situation = LEAD
    elif suit == led:
        best_rank: i64 = best - shift
        if rank > best_rank:
            situation = WIN
            flags |= 1 << F_WINS
            if in_trick == 3:
                flags |= 1 << F_LAST_WINS
        else:
            situation = LOSE
            if rank == HIGHEST[chunk & BELOW[best_rank]]:
                flags |= 1 << F_DUCK
    else:
        situation = VOID
    if penalty >> card & 1:  # one flag a situation: a penalty card's four fates
        if situation == LOSE:
            flags |= 1 << F_PENALTY_UNDER
        elif situation == WIN:
            flags |= 1 << F_PENALTY_WINS
        elif situation == LEAD:
            flags |= 1 << F_PENALTY_LEAD
        elif situation == VOID:
            flags |= 1 << F_PENALTY_SHED
    if rank == LOWEST[chunk]:
        flags |= 1 << F_LOWEST
    if rank == HIGHEST[chunk]:
        flags |= 1 << F_HIGHEST
    if situation == LEAD or situation == VOID:
        if penalty >> shift & chunk:
            flags |= 1 << F_SUIT_PENALTY
        held: i64 = POP[chunk]
        if held <= 2:
            flags |= 1 << F_SHORT
        if held == 1:
            flags |= 1 << F_SINGLETON
    return flags, situation


class LearnedTricks(TrickPolicy):
    """The learned trick play: each legal card with probability proportional to
    exp(score) (see ``card_features``), the weights of the contract's class."""

    weights: list[float]

    def __init__(self, weights: list[float]) -> None:
        if len(weights) != WEIGHTS_PER_CONTRACT * len(CONTRACT_CLASSES):
            raise ValueError(f"{len(weights)} weights: {WEIGHTS_PER_CONTRACT} a contract class expected")
        self.weights = list(weights)

    def score(self, card: i64, legal: i64, led: i64, best: i64, in_trick: i64, penalty: i64) -> float:
        """The card's score: its flags' weights plus rank / 12 times its situation's slope."""
        w = self.weights
        base: i64 = WEIGHTS_PER_CONTRACT * contract_class(penalty)
        flags, situation = card_features(card, legal, led, best, in_trick, penalty)
        total = w[base + FLAGS + situation] * float(card % 13) / 12.0
        k: i64 = 0
        while flags:
            if flags & 1:
                total += w[base + k]
            flags >>= 1
            k += 1
        return total

    def card(self, legal: i64, led: i64, best: i64, in_trick: i64, penalty: i64, rand: Rand) -> i64:
        """A legal card drawn by the weights (one draw); one legal card: no draw."""
        low: i64 = POP[legal & 0x1FFF] + POP[legal >> 13 & 0x1FFF]
        if low + POP[legal >> 26 & 0x1FFF] + POP[legal >> 39] == 1:
            return lowest_rank(legal)
        total = 0.0
        card: i64
        for card in range(52):
            if legal >> card & 1:
                total += math.exp(self.score(card, legal, led, best, in_trick, penalty))
        u = rand() * total
        last: i64 = -1
        for card in range(52):
            if legal >> card & 1:
                u -= math.exp(self.score(card, legal, led, best, in_trick, penalty))
                last = card
                if u < 0.0:
                    return card
        return last  # rounding left u a hair above zero: the last legal card


LEARNED_TRICKS: Final = LearnedTricks(list(WEIGHTS))


def choose_learned(s: TrexState, rng: random.Random) -> Any:
    """``choose`` with the learned trick play."""
    return choose_with(s, rng, LEARNED_TRICKS)


def play_out_learned(start: TrexState, s: TrexState, rng: random.Random) -> None:
    """``play_out`` with the learned trick play."""
    play_out_with(start, s, rng, LEARNED_TRICKS)


def play_out(start: TrexState, s: TrexState, rng: random.Random) -> None:
    """What ``choose`` and ``rules.step`` play until ``rules.is_playout_over(start, s)``:
    the trick phase in the engine's fused loop (``play_tricks``, to the end of the deal,
    which leaves the next deal undealt: ``outcome`` is the same), the other phases (layout,
    doubling, contract choice) step by step."""
    play_out_with(start, s, rng, HOOK_TRICKS)


def play_out_with(start: TrexState, s: TrexState, rng: random.Random, tricks: TrickPolicy) -> None:
    """``play_out`` with ``tricks`` as the trick play (``choose_with``'s)."""
    while not is_playout_over(start, s):
        if s.phase == TRICKS:
            play_tricks(s, rng.random, tricks)
        else:
            step(s, choose_with(s, rng, tricks))
