"""Marriage: melds. The joker family of a tiplu (R4), set validation (R5-R8), and the
enumeration of pure sets, shows, dublees and finishes, as small pure functions on count
lists and card bit masks (the cards and tables are :mod:`.tables`'s)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Final

from .tables import NCODES, WINDOWS, XX

# --------------------------------------------------------------------------- R4


class Family:
    """R4: the joker family of a tiplu card."""

    __slots__ = ("tiplu", "poplu", "jhiplu", "ordinary", "alter", "wild")

    def __init__(self, tiplu: int) -> None:
        rank, suit = tiplu >> 2, tiplu & 3
        self.tiplu = tiplu
        self.poplu = ((rank + 1) % 13) * 4 + suit
        self.jhiplu = ((rank - 1) % 13) * 4 + suit
        self.ordinary = tuple(rank * 4 + s for s in range(4) if s != suit)
        self.alter = rank * 4 + (suit ^ 3)  # S<->C, H<->D
        wild = 1 << XX | 1 << tiplu | 1 << self.poplu | 1 << self.jhiplu
        for c in self.ordinary:
            wild |= 1 << c
        self.wild = wild


_FAMILIES: Final = [Family(c) for c in range(52)]


def joker_family(tiplu: int) -> Family:
    """R4: tiplu, poplu (rank above, circular), jhiplu (rank below), ordinary jokers,
    alter, and the wild-card mask (men included)."""
    return _FAMILIES[tiplu]


# --------------------------------------------------------------------------- R5-R8


def _in_one_window(r1: int, r2: int) -> bool:
    for w in WINDOWS:
        if r1 in w and r2 in w:
            return True
    return False


def natural_kind(a: int, b: int, c: int) -> str | None:
    """R5: the kind of three cards used as themselves (sorted): ``tunnela``,
    ``pure_sequence``, ``triplet`` or None. No man may appear in a natural set."""
    if c == XX:
        return None
    if a == b == c:
        return "tunnela"
    ra, rb, rc = a >> 2, b >> 2, c >> 2
    sa, sb, sc = a & 3, b & 3, c & 3
    if sa == sb == sc and ra != rb and rb != rc and (ra, rb, rc) in _SORTED_WINDOWS:
        return "pure_sequence"
    if ra == rb == rc and sa != sb and sb != sc and sa != sc:
        return "triplet"
    return None


_SORTED_WINDOWS = {tuple(sorted(w)) for w in WINDOWS}


def is_completable(natural: Sequence[int]) -> bool:
    """R6: one natural card always; two when same rank and different suits, or same
    suit, different ranks inside one window."""
    if len(natural) <= 1:
        return True
    a, b = natural
    if a == XX or b == XX:
        return False
    if a >> 2 == b >> 2:
        return (a & 3) != (b & 3)
    return (a & 3) == (b & 3) and _in_one_window(a >> 2, b >> 2)


_SUBSETS = tuple(tuple(i for i in range(3) if m >> i & 1) for m in range(1, 8))


def set_kind(cards: Sequence[int], wild: int, max_wild: int) -> str | None:
    """R6: validate a 3-card set. ``wild`` is the wild-card mask (0 when wild cards may
    not be used: before the tiplu, or for a first show). Returns ``tunnela``,
    ``pure_sequence``, ``triplet``, ``dirty`` or None (invalid)."""
    if len(cards) != 3:
        return None
    a, b, c = sorted(cards)
    kind = natural_kind(a, b, c)
    if kind is not None or not wild:
        return kind
    trio = (a, b, c)
    for sub in _SUBSETS:
        if len(sub) > max_wild:
            continue
        if any(not (wild >> trio[i] & 1) for i in sub):
            continue
        rest = [trio[i] for i in range(3) if i not in sub]
        if XX in rest:
            continue
        if is_completable(rest):
            return "dirty"
    return None


def is_pure_set(cards: Sequence[int]) -> bool:
    """R7: a pure set (for seeing the joker) is a tunnela or a pure sequence, no wild use."""
    return set_kind(cards, 0, 0) in ("tunnela", "pure_sequence")


_VALID: dict[tuple[int, int], dict[tuple[int, int, int], bool]] = {}


def valid_table(tiplu: int, max_wild: int) -> dict[tuple[int, int, int], bool]:
    """A lazily filled cache: sorted triple -> valid final set (R6, wild allowed)."""
    key = (tiplu, max_wild)
    table = _VALID.get(key)
    if table is None:
        table = _VALID[key] = {}
    return table


def is_valid_final(trio: tuple[int, int, int], tiplu: int, max_wild: int) -> bool:
    """R15/R6: a final set, wild cards allowed (trio sorted)."""
    table = valid_table(tiplu, max_wild)
    ok = table.get(trio)
    if ok is None:
        ok = table[trio] = set_kind(trio, _FAMILIES[tiplu].wild, max_wild) is not None
    return ok


# --------------------------------------------------------------------------- enumerations


# Final: the compiled build (mypyc) keeps these masks and tables as typed C statics.
_LOW44: Final = (1 << 44) - 1
LOW44: Final = _LOW44
_XXBIT: Final = 1 << XX
"""Bits of the cards that can start a sequence of three ranks up (ranks A to J)."""


def presence(hand: list[int]) -> int:
    """The mask of the codes a hand (counts) holds."""
    present = 0
    for c in range(NCODES):
        if hand[c]:
            present |= 1 << c
    return present


def pure_set_starts(hand: list[int], present: int) -> tuple[int, int, int]:
    """R7 as masks, by the lowest card of each pure set the hand (counts; ``present``, its
    mask) holds: (tunnelas, sequences of three ranks up, QKA sequences). A rank step is 4
    bits; QKA wraps to the ace, so its lowest card is the ace (bit c, then c + 44, c + 48).
    No man is in a pure set."""
    tunnelas = 0
    m = present & ~_XXBIT
    while m:
        low = m & -m
        m ^= low
        if hand[low.bit_length() - 1] >= 3:
            tunnelas |= low
    runs = present & (present >> 4) & (present >> 8) & _LOW44
    qka = present & (present >> 44) & (present >> 48) & 0xF
    return tunnelas, runs, qka


def pure_sets_in(hand: list[int], present: int = -1) -> list[tuple[int, int, int]]:
    """R7: every distinct pure set that the hand (counts) holds, as
    :func:`pure_set_starts` finds them: the tunnelas, then the runs, then the QKA runs,
    each by ascending lowest card (``present``: the hand's mask, or -1 to compute it)."""
    if present < 0:
        present = presence(hand)
    tunnelas, runs, qka = pure_set_starts(hand, present)
    out: list[tuple[int, int, int]] = []
    while tunnelas:
        low = tunnelas & -tunnelas
        tunnelas ^= low
        c = low.bit_length() - 1
        out.append((c, c, c))
    while runs:
        low = runs & -runs
        runs ^= low
        c = low.bit_length() - 1
        out.append((c, c + 4, c + 8))
    while qka:
        low = qka & -qka
        qka ^= low
        c = low.bit_length() - 1
        out.append((c, c + 44, c + 48))
    return out


def pure_set_count(present: int, triples: int) -> int:
    """R7: how many distinct pure sets the hand holds (as :func:`pure_sets_in` lists them,
    not necessarily disjoint), from its presence mask and the mask of codes held three
    times (never a man)."""
    runs = present & (present >> 4) & (present >> 8) & _LOW44
    qka = present & (present >> 44) & (present >> 48) & 0xF
    return triples.bit_count() + runs.bit_count() + qka.bit_count()


def show_choices(hand: list[int], k: int, present: int = -1) -> list[tuple[tuple[int, int, int], ...]]:
    """R12: every distinct canonical choice of k disjoint pure sets from the hand (counts;
    ``present``: its mask, or -1 to compute it), in ascending order."""
    if k == 0:
        return [()]
    if present < 0:
        present = presence(hand)
    tunnelas, runs, qka = pure_set_starts(hand, present)
    # the pure sets in ascending order (at one lowest card c: (c, c, c) < (c, c + 4, c + 8)
    # < (c, c + 44, c + 48)), and how often each could be used on its own: a quick bound
    cands: list[tuple[int, int, int]] = []
    room = 0
    m = tunnelas | runs | qka
    while m:
        low = m & -m
        m ^= low
        c = low.bit_length() - 1
        if tunnelas & low:
            cands.append((c, c, c))
            room += hand[c] // 3
        if runs & low:
            cands.append((c, c + 4, c + 8))
            room += min(min(hand[c], hand[c + 4]), hand[c + 8])  # min of two: a C op
        if qka & low:
            cands.append((c, c + 44, c + 48))
            room += min(min(hand[c], hand[c + 44]), hand[c + 48])
    if room < k:
        return []
    out: list[tuple[tuple[int, int, int], ...]] = []
    _choose_sets(cands, hand[:], k, 0, [], out)
    return out


def _choose_sets(
    cands: list[tuple[int, int, int]],
    counts: list[int],
    k: int,
    start: int,
    chosen: list[tuple[int, int, int]],
    out: list[tuple[tuple[int, int, int], ...]],
) -> None:
    """:func:`show_choices`' search: append to ``out`` every way to complete ``chosen`` to
    ``k`` sets with candidates from index ``start`` on that ``counts`` still holds. The
    candidates are distinct and ascending and their indices never decrease, so each choice
    comes once, already sorted, and ``out`` grows in ascending order (no set, no sort)."""
    if len(chosen) == k:
        out.append(tuple(chosen))
        return
    for i in range(start, len(cands)):
        s = cands[i]
        a, b, c = s
        if (counts[a] >= 3) if a == c else (counts[a] > 0 and counts[b] > 0 and counts[c] > 0):
            counts[a] -= 1
            counts[b] -= 1
            counts[c] -= 1
            chosen.append(s)
            _choose_sets(cands, counts, k, i, chosen, out)
            chosen.pop()
            counts[a] += 1
            counts[b] += 1
            counts[c] += 1


def pair_codes(hand: list[int]) -> list[int]:
    """R8: codes held at least twice (never a man)."""
    return [c for c in range(52) if hand[c] >= 2]


def dublee_choices(hand: list[int], k: int) -> list[tuple[int, ...]]:
    """R13: every choice of k distinct pair codes from the hand."""
    return list(combinations(pair_codes(hand), k))


def _natural_masks() -> list[list[int]]:
    """NAT[f][b]: mask of the cards c >= b with (f, b, c) a natural set (f <= b)."""
    nat = [[0] * NCODES for _ in range(NCODES)]
    for f in range(52):
        for b in range(f, 52):
            mask = 0
            for c in range(b, 52):
                if natural_kind(f, b, c) is not None:
                    mask |= 1 << c
            nat[f][b] = mask
    return nat


def _pair_masks() -> list[int]:
    """PAIR[a]: mask of the cards b completable with a (R6: |N| = 2)."""
    return [sum(1 << b for b in range(52) if is_completable((a, b))) if a < 52 else 0 for a in range(NCODES)]


_NAT: Final = _natural_masks()
_PAIR: Final = _pair_masks()
_ALL: Final = (1 << NCODES) - 1
_GE: Final = [_ALL & ~((1 << c) - 1) for c in range(NCODES)]


def third_cards(f: int, b: int, wild: int, max_wild: int) -> int:
    """R6 as a mask: the cards c making (f, b, c) a valid set, f <= b <= c, given the
    wild-card mask (0 = no wild use)."""
    mask = _NAT[f][b]
    if not wild:
        return mask
    wf, wb = wild >> f & 1, wild >> b & 1
    if max_wild >= 2:
        if wf and wb:
            mask |= _ALL & ~_XXBIT if f == XX and b == XX else _ALL  # two wilds + any card
        elif wf or wb:
            mask |= wild  # the third card is the second wild
    # one substitute W = {f}, {b} or {c}; every man must be in W
    if wf and b != XX:
        mask |= _PAIR[b]
    if wb and f != XX:
        mask |= _PAIR[f]
    if f != XX and b != XX and _PAIR[f] >> b & 1:
        mask |= wild
    return mask


_THIRD: dict[tuple[int, int], list[int]] = {}


def third_table(tiplu: int, max_wild: int) -> list[int]:
    """A lazily filled list indexed ``f * 64 + b`` of :func:`third_cards` masks (-1 = not yet)."""
    table = _THIRD.get((tiplu, max_wild))
    if table is None:
        table = _THIRD[(tiplu, max_wild)] = [-1] * (64 * NCODES)
    return table


_M52: Final = (1 << 52) - 1
_SUIT0: Final = sum(1 << (4 * r) for r in range(13))  # bit 4r: rank r, first suit
_ACES: Final = 0xF


def with_natural_set(present: int) -> int:
    """Cards of ``present`` that lie in some pure sequence or triplet of ``present``
    (bit-parallel: a rank step is 4 bits, a suit step 1 bit)."""
    runs = present & (present >> 4) & (present >> 8) & _LOW44
    qka = present & (present >> 44) & (present >> 48) & _ACES
    x0 = present & _SUIT0
    x1 = (present >> 1) & _SUIT0
    x2 = (present >> 2) & _SUIT0
    x3 = (present >> 3) & _SUIT0
    trips = (x0 & x1 & (x2 | x3)) | (x2 & x3 & (x0 | x1))  # ranks with 3+ suits
    return (runs | runs << 4 | runs << 8 | qka | qka << 44 | qka << 48 | every_suit(trips)) & present


def with_partner(present: int) -> int:
    """Cards of ``present`` with a completable partner in ``present`` (R6 |N| = 2)."""
    p = present & _M52
    x0 = p & _SUIT0
    x1 = (p >> 1) & _SUIT0
    x2 = (p >> 2) & _SUIT0
    x3 = (p >> 3) & _SUIT0
    pairs = (x0 | x1) & (x2 | x3) | (x0 & x1) | (x2 & x3)  # ranks with 2+ suits
    near = (p << 4) | (p >> 4) | (p << 8) | (p >> 8)
    near |= (p >> 44) & _ACES | (p >> 48) & _ACES | (p & _ACES) << 44 | (p & _ACES) << 48
    return (near | every_suit(pairs)) & p


def every_suit(ranks: int) -> int:
    """The four suits' bits of each rank bit ``4r`` of ``ranks`` (``ranks * 0xF``, written
    with shifts: compiled, a product above 2**31 leaves mypyc's fast path for a Python
    int multiplication, which allocates and can run a signal handler mid-search)."""
    return ranks | ranks << 1 | ranks << 2 | ranks << 3


def cannot_finish(
    counts: Sequence[int], present: int, wild: int, max_wild: int, discard_free: bool = True
) -> bool:
    """A quick necessary test for R15 (True = surely no finish). A natural card in no
    natural set of the hand needs a wild card in its set (one wild serves at most two
    such cards); one with no possible partner at all needs two; one card is discarded."""
    naturals = present & ~wild
    partnered = with_partner(present)
    in_set = with_natural_set(present)
    loners = 0
    needy = 0
    rest = naturals & ~in_set
    while rest:
        low = rest & -rest
        rest ^= low
        c = low.bit_length() - 1
        k = counts[c]
        if k >= 3:
            continue
        if low & partnered:
            needy += k
        else:
            loners += k
    if not discard_free:
        if loners and max_wild < 2:
            return True
    elif loners:
        loners -= 1
        if loners and max_wild < 2:
            return True
    elif needy:
        needy -= 1
    if not loners and not needy:
        return False
    spare = 0
    w = present & wild
    while w:
        low = w & -w
        w ^= low
        spare += counts[low.bit_length() - 1]
    return 2 * loners + (needy + 1) // 2 > spare


Finish = tuple[tuple[tuple[int, int, int], ...], int]
"""A sets-route finish: (sets, discard)."""
_FINISH_CACHE: dict[tuple[tuple[int, ...], int, int, int], list[Finish]] = {}


class _FinishSearch:
    """:func:`finishes`' search over one hand (a class, not a closure: the compiled build
    calls its method natively)."""

    def __init__(self, counts: list[int], wild: int, max_wild: int, table: list[int]) -> None:
        self.counts = counts
        """The cards not yet placed (changed and restored as the search goes)."""
        self.wild = wild
        self.max_wild = max_wild
        self.table = table
        """:func:`third_table` of the tiplu."""
        self.memo: dict[tuple[bytes, int], list[Finish]] = {}

    def solve(self, present: int, discard: int) -> list[Finish]:
        """Every (sets, discard) completion of the remaining cards (memoised: wild cards
        make many orders of choice meet in the same remainder)."""
        if not present:
            return [((), discard)]
        counts = self.counts
        wild = self.wild
        max_wild = self.max_wild
        key = (bytes(counts), discard)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        if cannot_finish(counts, present, wild, max_wild, discard < 0):
            self.memo[key] = []
            return []
        table = self.table
        found: list[Finish] = []
        f = (present & -present).bit_length() - 1
        counts[f] -= 1
        p1 = present if counts[f] else present & ~(1 << f)
        if discard < 0:
            found.extend(self.solve(p1, f))
        # f natural: its set-mate b is a natural partner, a wild card or f itself
        bm = p1 & _GE[f] & (_ALL if wild >> f & 1 else _PAIR[f] | wild | 1 << f)
        while bm:
            low = bm & -bm
            bm ^= low
            b = low.bit_length() - 1
            counts[b] -= 1
            p2 = p1 if counts[b] else p1 & ~low
            third = table[f * 64 + b]
            if third < 0:
                third = table[f * 64 + b] = third_cards(f, b, wild, max_wild)
            cm = p2 & _GE[b] & third
            while cm:
                lc = cm & -cm
                cm ^= lc
                c = lc.bit_length() - 1
                counts[c] -= 1
                sub = self.solve(p2 if counts[c] else p2 & ~lc, discard)
                counts[c] += 1
                if sub:
                    trio = ((f, b, c),)
                    found.extend((trio + sets, d) for sets, d in sub)
            counts[b] += 1
        counts[f] += 1
        self.memo[key] = found
        return found


def finishes(
    hand: Sequence[int], k: int, tiplu: int, max_wild: int
) -> list[tuple[tuple[tuple[int, int, int], ...], int]]:
    """R15: every distinct canonical (sets, discard) that uses all of the hand (counts,
    3k+1 cards) as k valid final sets plus one discard."""
    key = (tuple(hand), k, tiplu, max_wild)
    hit = _FINISH_CACHE.get(key)
    if hit is not None:
        return hit
    counts = list(hand)
    if sum(counts) != 3 * k + 1:
        return []
    wild = _FAMILIES[tiplu].wild
    present = 0
    for c in range(NCODES):
        if counts[c]:
            present |= 1 << c
    if cannot_finish(counts, present, wild, max_wild):
        _FINISH_CACHE[key] = []
        return []
    search = _FinishSearch(counts, wild, max_wild, third_table(tiplu, max_wild))
    out = {(tuple(sorted(sets)), d) for sets, d in search.solve(present, -1)}
    result = sorted(out)
    if len(_FINISH_CACHE) > 512:
        _FINISH_CACHE.clear()
    _FINISH_CACHE[key] = result
    return result
