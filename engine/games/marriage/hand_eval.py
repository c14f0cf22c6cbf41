"""Marriage: pure helpers that value a hand for the bots (no rule of their own: which three
cards make a set comes from :mod:`engine.games.marriage.rules`).

A hand is a count list of length ``NCODES`` (cards are ``rank * 4 + suit``, A=0 .. K=12).
``live[c]`` is how many copies of ``c`` the evaluating seat may still draw or be thrown
(3 less the copies it can see). The measures are rummy "deficiencies": how many cards are
missing before the hand holds the sets it needs, counting a partial set (two cards that
one more card completes) as one missing card and a lone card as two.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from . import rules as R
from .rules import NCODES, XX


def _third_ranks() -> dict[tuple[int, int], tuple[int, ...]]:
    """(rank a, rank b) -> the ranks that complete a, b (same suit) to one of the 12 windows."""
    table: dict[tuple[int, int], set[int]] = {}
    for window in R.WINDOWS:
        for a, b in combinations(window, 2):
            (t,) = set(window) - {a, b}
            table.setdefault((a, b), set()).add(t)
            table.setdefault((b, a), set()).add(t)
    return {k: tuple(sorted(v)) for k, v in table.items()}


THIRD_RANKS = _third_ranks()
"""Ranks that complete two ranks of one suit to a window (A-K: Q; K-A: Q; A-2: 3)."""


def natural_sets(hand: Sequence[int]) -> list[tuple[tuple[int, int, int], bool]]:
    """Every distinct natural set the hand holds, as (sorted cards, pure): tunnelas and pure
    sequences (:func:`rules.pure_sets_in`, pure) and triplets (not pure, R7)."""
    out = [(s, True) for s in R.pure_sets_in(hand)]
    for rank in range(13):
        suits = [s for s in range(4) if hand[rank * 4 + s]]
        if len(suits) >= 3:
            for trio in combinations(suits, 3):
                cards = (rank * 4 + trio[0], rank * 4 + trio[1], rank * 4 + trio[2])
                if R.natural_kind(*cards) == "triplet":
                    out.append((cards, False))
    return out


def partials(hand: Sequence[int], live: Sequence[int]) -> list[tuple[int, int, int, bool, bool]]:
    """Two-card partial sets of the hand: (outs, a, b, pure, wild-completable). ``outs`` =
    live copies of the cards that complete them naturally; ``pure``: toward a tunnela or a
    pure sequence; wild-completable: a wild card would complete them (R6: never two
    identical cards)."""
    out: list[tuple[int, int, int, bool, bool]] = []
    present = [c for c in range(52) if hand[c]]
    for i, a in enumerate(present):
        ra, sa = a >> 2, a & 3
        if hand[a] >= 2:
            out.append((live[a], a, a, True, False))
        for b in present[i + 1 :]:
            rb, sb = b >> 2, b & 3
            if sa == sb:
                thirds = THIRD_RANKS.get((ra, rb))
                if thirds:
                    out.append((sum(live[t * 4 + sa] for t in thirds), a, b, True, True))
            elif ra == rb:
                outs = sum(live[ra * 4 + s] for s in range(4) if s != sa and s != sb)
                out.append((outs, a, b, False, True))
    out.sort(reverse=True)
    return out


def _pick_pairs(
    rest: list[int],
    pairs: list[tuple[int, int, int, bool, bool]],
    pure_only: bool,
    use_wild: bool,
    limit: int,
) -> tuple[int, int]:
    """Greedy disjoint partials (most outs first), at most ``limit``: (count, their outs)."""
    taken = 0
    outs_sum = 0
    if limit <= 0:
        return 0, 0
    counts = rest[:]
    for outs, a, b, pure, wildable in pairs:
        if pure_only and not pure:
            continue
        if outs <= 0 and not (use_wild and wildable):
            continue
        if a == b:
            if counts[a] < 2:
                continue
        elif not (counts[a] and counts[b]):
            continue
        counts[a] -= 1
        counts[b] -= 1
        taken += 1
        outs_sum += outs
        if taken >= limit:
            break
    return taken, outs_sum


def deficiency(
    hand: Sequence[int],
    live: Sequence[int],
    *,
    need_pure: int,
    need_total: int,
    wild: int = 0,
    max_leaves: int = 48,
) -> tuple[int, int, int, int]:
    """The best decomposition of ``hand`` into natural sets, partials and lone cards, as
    (show deficiency, finish deficiency, outs of the partials used, wild cards).

    * show deficiency: cards missing for ``need_pure`` pure sets (R12), from pure sets and
      pure partials only (0 when ``need_pure`` is 0);
    * finish deficiency: cards missing for ``need_total`` sets, wild cards (``wild`` mask,
      0 when the tiplu is unknown to the seat) filling partials and lone cards.
    Decompositions are searched over subsets of the natural sets (at most ``max_leaves``
    are valued); lower deficiencies are better, then more outs."""
    naturals = list(hand)
    wilds = 0
    if wild:
        for c in range(NCODES):
            if naturals[c] and wild >> c & 1:
                wilds += naturals[c]
                naturals[c] = 0
    naturals[XX] = 0  # a man is never natural
    cands = natural_sets(naturals)
    pairs = partials(naturals, live) if need_total or need_pure else []
    best: list[tuple[int, int, int, int]] = []
    leaves = [0]

    def leaf(rest: list[int], n_pure: int, n_sets: int) -> None:
        leaves[0] += 1
        show_def = 0
        show_outs = 0
        if need_pure:
            slots = max(0, need_pure - n_pure)
            p, show_outs = _pick_pairs(rest, pairs, True, False, slots)
            show_def = p + 2 * (slots - p)
        slots = max(0, need_total - n_sets)
        p, outs = _pick_pairs(rest, pairs, False, bool(wild), slots)
        fin_def = max(0, p + 2 * (slots - p) - wilds)
        key = (-show_def, -fin_def, show_outs + outs, wilds)
        if not best or key > best[0]:
            best[:] = [key]

    def rec(i: int, rest: list[int], n_pure: int, n_sets: int) -> None:
        if leaves[0] >= max_leaves:
            return
        for j in range(i, len(cands)):
            (a, b, c), pure = cands[j]
            if a == c:
                ok = rest[a] >= 3
            else:
                ok = rest[a] > 0 and rest[b] > 0 and rest[c] > 0
            if not ok:
                continue
            rest[a] -= 1
            rest[b] -= 1
            rest[c] -= 1
            rec(j, rest, n_pure + (1 if pure else 0), n_sets + 1)
            rest[a] += 1
            rest[b] += 1
            rest[c] += 1
            if leaves[0] >= max_leaves:
                return
        leaf(rest, n_pure, n_sets)

    rec(0, naturals, 0, 0)
    show_def, fin_def, outs, w = best[0]
    return -show_def, -fin_def, outs, w


def dublee_count(hand: Sequence[int], exposed_tunnelas: int) -> int:
    """R13/R8: dublees held (codes at least twice, never a man) plus exposed tunnelas."""
    return len(R.pair_codes(hand)) + exposed_tunnelas


def single_outs(hand: Sequence[int], live: Sequence[int]) -> int:
    """Live copies of the hand's lone codes (each would make a dublee)."""
    return sum(live[c] for c in range(52) if hand[c] == 1)
