"""Worlds that take declarations at their word (``make_sampler(..., trust_declarations=True)``,
the searching levels' sampler): a seat that declared a ronda, a tringa or a double ronda is
dealt from the list of hands that hold it, which must deal as redrawing random hands until
one holds it does (each fitting hand equally likely), only without the redraws."""

from __future__ import annotations

import random
from collections import Counter
from math import comb

import pytest

from engine.cards import card_code, cards_of_mask
from engine.games.ronda.rules import holding
from engine.games.ronda.sampling import declared_hands, make_sampler
from engine.games.ronda.tables import NONE, PACK, RONDA, RR, TRINGA
from tests.games.ronda.ronda_helpers import ALL_CODES, GAME, L


def declared_view(hands: list[str], table: str, combos: list[str], players: int = 2) -> dict:
    """The first seat's view once every seat has declared (``combos`` by seat: the dealer is
    the last seat, so the first declares first)."""
    placed = {c for hand in hands for c in L(hand)} | set(L(table))
    layout = {
        "hands": [L(hand) for hand in hands],
        "table": L(table),
        "stock": [c for c in ALL_CODES if c not in placed],
        "piles": [[] for _ in range(2 if players == 4 else players)],
    }
    state = GAME.new_state(players, None, players - 1, layout=layout)
    for combo in combos:
        seat = GAME.to_act(state)
        action = {"type": "pass"} if combo == "none" else {"type": "declare", "combo": combo}
        GAME.step(state, GAME.parse_action(state, action))
        assert seat is not None
    return GAME.view(state, 0)


def opponent_hands(view: dict, seat: int, draws: int, *, redraw: bool) -> Counter:
    """How often each hand of ``seat`` is dealt in ``draws`` worlds; ``redraw``: by the old
    way, random hands drawn until one holds the declaration."""
    sample = make_sampler(view, trust_declarations=True)
    if redraw:
        sample.listed = [None] * len(sample.listed)
    rng = random.Random(7 if redraw else 8)
    return Counter(sample(rng).hands[seat] for _ in range(draws))


def test_a_declared_holding_is_listed_hand_by_hand() -> None:
    """The list holds every hand of the size whose holding is the declared one, and no
    other: counted from the ranks left in the unseen cards."""
    pool = [c for c in PACK if card_code(c) not in {"5C", "7H", "KC", "KS", "3S", "7D", "6H"}]
    left = Counter(RR[c] for c in pool)
    tringas = declared_hands(pool, 3, 0, TRINGA)
    assert len(tringas) == sum(comb(n, 3) for n in left.values())
    rondas = declared_hands(pool, 3, 0, RONDA)
    pairs = sum(comb(n, 2) * (len(pool) - n) for n in left.values())  # one pair, a third card of another rank
    assert len(rondas) == pairs
    nones = declared_hands(pool, 3, 0, NONE)
    assert len(tringas) + len(rondas) + len(nones) == comb(len(pool), 3)
    for hands, combo in ((tringas, TRINGA), (rondas, RONDA), (nones, NONE)):
        assert all(m.bit_count() == 3 and holding(m)[0] == combo for m in hands)
    # mid-hand: the cards played this hand count towards the holding
    played = 1 << pool[0]
    partners = declared_hands(pool[1:], 2, played, TRINGA)
    assert partners and all(holding(m | played)[0] == TRINGA for m in partners)
    assert all(sum(RR[c] == RR[pool[0]] for c in cards_of_mask(m)) == 2 for m in partners)


@pytest.mark.parametrize("combo, draws", [("tringa", 400), ("ronda", 3000)])
def test_listed_hands_deal_as_redrawn_hands_do(combo: str, draws: int) -> None:
    """Every dealt hand holds the declaration, and the hands come
    as often as the redraws make them: the same distribution (uniform over the fitting
    hands), tested on the rank of the declared cards by a chi-square of the two samples."""
    opponent = "QD QS QH" if combo == "tringa" else "QD QS 2H"
    view = declared_view(["5C 7H KC", opponent], "KS 3S 7D 6H", ["none", combo])
    assert view["declarations"] == ["none", combo]
    listed = opponent_hands(view, 1, draws, redraw=False)
    redrawn = opponent_hands(view, 1, draws, redraw=True)
    for hands in (listed, redrawn):
        assert all(holding(m)[0] == (TRINGA if combo == "tringa" else RONDA) for m in hands)

    def declared_rank(m: int) -> int:
        ranks = Counter(RR[c] for c in cards_of_mask(m))
        return max(ranks, key=lambda r: ranks[r])

    a = Counter(declared_rank(m) for m in listed.elements())
    b = Counter(declared_rank(m) for m in redrawn.elements())
    ranks = sorted(set(a) | set(b))
    assert len(ranks) >= 8  # the ranks the unseen cards still hold three (or two) of
    chi2 = sum((a[r] - b[r]) ** 2 / (a[r] + b[r]) for r in ranks)
    assert chi2 < 30.0  # df <= 9: p < 0.0005 beyond it
    # and the uniform odds, hand by hand, for the tringas (few enough to count each)
    if combo == "tringa":
        fitting = len(declared_hands(make_sampler(view, trust_declarations=True).pool, 3, 0, TRINGA))
        assert len(listed) == fitting
        assert max(listed.values()) < 4 * draws / fitting


def test_several_hidden_seats_are_dealt_apart() -> None:
    """Three players, two of them hidden and declared: each is dealt a hand that holds its
    declaration, the two hands share no card, and the world is one of the view."""
    view = declared_view(["5C 7H KC", "QD QS QH", "2S 2H 4C"], "KS 3S 7D 6H", ["none", "tringa", "ronda"], 3)
    assert view["declarations"] == ["none", "tringa", "ronda"]
    sample = make_sampler(view, trust_declarations=True)
    assert [hands is not None for hands in sample.listed] == [True, True]
    rng = random.Random(3)
    for _ in range(200):
        world = sample(rng)
        assert holding(world.hands[1])[0] == TRINGA and holding(world.hands[2])[0] == RONDA
        assert not world.hands[1] & world.hands[2]
        assert GAME.view(world, 0) == view
