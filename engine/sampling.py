"""Helpers for samplers: dealing unseen cards into places under constraints.

Game-free: a "bin" is any place with a capacity (a seat's hand, the stock)."""

from __future__ import annotations

import _random
import random
from typing import Final, cast

SHUFFLE_BITS: Final[list[int]] = [n.bit_length() for n in range(129)]
"""``n.bit_length()`` by ``n`` (a list lookup: cheaper than the method call, compiled or not)."""

_RANDOM: Final = random.Random
_BASE_RANDOM: Final = _random.Random
"""The generator classes whose draws :func:`shuffle` writes out (``Final``: the compiled
build reads them as statics, not as attributes of the modules at every call)."""


def shuffle(cards: list[int], rng: _random.Random) -> None:
    """``rng.shuffle(cards)``: the same permutation from the same calls of the same
    generator, which is left in the same state (so every later draw, e.g. a search's, is
    unchanged); the engines' deals and the samplers use it.

    CPython's ``Random.shuffle`` swaps ``cards[i]`` with ``cards[j]`` for ``i`` from the end
    down to 1, ``j`` drawn below ``i + 1`` by ``getrandbits(k)`` (``k`` the bit length of
    ``i + 1``) until the draw is below: that loop written out, because ``random.py`` is
    interpreted (two Python frames a card) while this module is compiled. A generator of
    another class, which may draw differently, keeps its own shuffle."""
    kind = type(rng)
    if kind is not _RANDOM and kind is not _BASE_RANDOM:
        if isinstance(rng, random.Random):
            rng.shuffle(cards)
            return
    getrandbits = rng.getrandbits
    bits = SHUFFLE_BITS
    # the cards are swapped as the objects they are: read from a list[int], the compiled
    # build would unbox each card to a C integer and box it again to store it
    deck = cast("list[object]", cards)
    i: int = len(cards) - 1  # typed: C integers in the compiled build
    while i > 0:
        n: int = i + 1
        k: int = bits[n] if n <= 128 else n.bit_length()
        j: int = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        deck[i], deck[j] = deck[j], deck[i]
        i -= 1


def index_below(n: int, rng: _random.Random) -> int:
    """A uniform draw from ``range(n)`` (``n >= 1``), as :func:`shuffle` draws each swap:
    ``getrandbits(n.bit_length())`` until the draw is below ``n``."""
    k: int = SHUFFLE_BITS[n] if n <= 128 else n.bit_length()
    j: int = rng.getrandbits(k)
    while j >= n:
        j = rng.getrandbits(k)
    return j


def assign_cards(
    cards: list[int],
    capacity: dict[int, int],
    allowed: dict[int, list[int]],
    rng: random.Random | None = None,
) -> dict[int, list[int]] | None:
    """Put every card in one of its ``allowed`` bins without going over ``capacity``
    (bipartite matching by augmenting paths); returns bin -> cards, or None when no such
    assignment exists. With ``rng``, the cards and each card's bins are tried in random
    order (a random valid deal, not a uniform one); without it the result is
    deterministic. Shuffles ``cards`` in place when ``rng`` is given.

    >>> assign_cards([1, 2], {0: 1, 1: 1}, {1: [0, 1], 2: [0]})
    {0: [2], 1: [1]}
    >>> assign_cards([1, 2], {0: 1, 1: 1}, {1: [0], 2: [0]}) is None
    True
    """
    if rng is not None:
        rng.shuffle(cards)
    content: dict[int, list[int]] = {b: [] for b in capacity}
    for card in cards:
        if not _place(card, set(), content, capacity, allowed, rng):
            return None
    return content


def _place(
    card: int,
    seen: set[int],
    content: dict[int, list[int]],
    capacity: dict[int, int],
    allowed: dict[int, list[int]],
    rng: random.Random | None,
) -> bool:
    """Put ``card`` in a bin with room, or free one by moving a card of a bin not ``seen``
    yet along an augmenting path (recursively). A module function rather than a closure
    of :func:`assign_cards`, so that the compiled build calls it natively."""
    bins = allowed[card][:]
    if rng is not None:
        rng.shuffle(bins)
    for b in bins:
        if b not in seen and len(content[b]) < capacity[b]:
            content[b].append(card)
            return True
    for b in bins:
        if b in seen:
            continue
        seen.add(b)
        held = content[b]
        for other in held[:]:
            held.remove(other)
            if _place(other, seen, content, capacity, allowed, rng):
                held.append(card)
                return True
            held.append(other)
    return False
