"""Marriage: pure helpers that value a hand for the bots (no rule of their own: which three
cards make a set comes from :mod:`engine.games.marriage.melds`), and the search's horizon:
a playout stops :data:`PLAYOUT_TURNS` turns after the searched position and
:func:`leaf_value` values the hands it reached.

A hand is a count list of length ``NCODES`` (cards are ``rank * 4 + suit``, A=0 .. K=12).
``live[c]`` is how many copies of ``c`` the evaluating seat may still draw or be thrown
(3 less the copies it can see). The measures are rummy "deficiencies": how many cards are
missing before the hand holds the sets it needs, counting a partial set (two cards that
one more card completes) as one missing card and a lone card as two.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations
from typing import Final

from . import scoring
from .melds import LOW44, joker_family, natural_kind, pair_codes, pure_sets_in, with_natural_set, with_partner
from .state import MState
from .tables import NCODES, OVER, SETS_TO_FINISH, SETS_TO_SEE, UNSEEN, WINDOWS, XX

PLAYOUT_TURNS: Final = 4
"""A search playout (and the tree below the root) stops this many completed turns after
the searched position, or at the end of the deal if sooner; ``outcome`` then values the
hands with the fitted evaluation of :func:`leaf_value`. A Marriage deal played out at
random lasts hundreds of turns and rarely finishes: cut short, an iteration costs tens of
microseconds instead of milliseconds."""


def _third_ranks() -> dict[tuple[int, int], tuple[int, ...]]:
    """(rank a, rank b) -> the ranks that complete a, b (same suit) to one of the 12 windows."""
    table: dict[tuple[int, int], set[int]] = {}
    for window in WINDOWS:
        for a, b in combinations(window, 2):
            (t,) = set(window) - {a, b}
            table.setdefault((a, b), set()).add(t)
            table.setdefault((b, a), set()).add(t)
    return {k: tuple(sorted(v)) for k, v in table.items()}


THIRD_RANKS = _third_ranks()
"""Ranks that complete two ranks of one suit to a window (A-K: Q; K-A: Q; A-2: 3)."""


def natural_sets(hand: list[int]) -> list[tuple[tuple[int, int, int], bool]]:
    """Every distinct natural set the hand holds, as (sorted cards, pure): tunnelas and pure
    sequences (:func:`melds.pure_sets_in`, pure) and triplets (not pure, R7)."""
    out = [(s, True) for s in pure_sets_in(hand)]
    for rank in range(13):
        suits = [s for s in range(4) if hand[rank * 4 + s]]
        if len(suits) >= 3:
            for trio in combinations(suits, 3):
                cards = (rank * 4 + trio[0], rank * 4 + trio[1], rank * 4 + trio[2])
                if natural_kind(*cards) == "triplet":
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


def dublee_count(hand: list[int], exposed_tunnelas: int) -> int:
    """R13/R8: dublees held (codes at least twice, never a man) plus exposed tunnelas."""
    return len(pair_codes(hand)) + exposed_tunnelas


def single_outs(hand: Sequence[int], live: Sequence[int]) -> int:
    """Live copies of the hand's lone codes (each would make a dublee)."""
    return sum(live[c] for c in range(52) if hand[c] == 1)


# --------------------------------------------------------------------------- leaf evaluation

FEATURES = (
    "seen",
    "dublee route",
    "unseen: cards missing for the show",
    "unseen: cards missing for the finish",
    "seen: codes in a natural set",
    "seen: codes with a partner only",
    "seen: lone codes",
    "seen: wild cards",
    "seen: sets still to finish",
    "dublee route: pair codes",
    "maal held",
)
"""The per-seat features of :func:`seat_features` (what :data:`WEIGHTS` multiply)."""

WEIGHTS: tuple[float, ...] = (
    0.0170,
    0.1179,
    -0.3534,
    -0.1241,
    0.2130,
    0.0355,
    -0.1314,
    0.6597,
    -0.4036,
    0.0,
    0.2855,
)
"""Fitted by ``bench/marriage_eval_fit.py --matches 2000 --holdout 500 --seed 71``: a
logistic regression of the match result on the difference of the two seats' features at
every turn of 1,500 easy-v-easy deals of 2 players (24,122 positions). On the 500 held-out
deals (7,671 positions) its log loss is 0.529 (0.693 for a coin). The dublee route's pair
count stays 0: the easy seats almost never take that route."""

TEMPO: Final = 0.1168
"""Fitted weight of being the next seat to draw (a turn ahead of the other)."""

_XXBIT: Final = 1 << XX
_ACES: Final = 0xF


def _missing(slots: int, partials: int) -> int:
    """Cards missing to fill ``slots`` sets when ``partials`` two-card partials are at hand
    (one card each) and the rest must be built from scratch (two cards each)."""
    return 2 * slots - min(slots, partials) if slots > 0 else 0


def seat_features(
    hand: list[int], route: int, wild: int, tunnelas: int, sets_to_finish: int, maal: int = 0
) -> tuple[int, ...]:
    """The features of one seat's hand (:data:`FEATURES`), from bit masks of the hand's
    codes: which natural cards lie in a natural set of the hand (:func:`melds.with_natural_set`),
    which only have a partner that one more card completes (:func:`melds.with_partner`), and
    which are alone; wild cards count only for a seen seat (``wild`` = 0 otherwise). For an
    unseen seat, quick estimates of :func:`deficiency`: sets held (overlaps counted once per
    three codes), partials (two identical cards, or two codes that one card completes) and
    the cards missing for the show (pure sets only, R7) and for the finish.
    ``route``: 0 unseen, 1 sets, 2 dublees (:mod:`engine.games.marriage.tables`); ``maal``:
    :func:`maal_held`."""
    present = 0
    dup = 0
    triples = 0  # codes held three times (never a man)
    for c in range(NCODES):
        k = hand[c]
        if k:
            present |= 1 << c
            if k >= 2:
                dup |= 1 << c
                if k >= 3 and c != XX:
                    triples |= 1 << c
    naturals = present & ~wild & ~_XXBIT
    in_set = with_natural_set(naturals)
    partnered = with_partner(naturals) & ~in_set
    if route == 0:
        # the show (R12): pure sets, and partials toward one (a pair, or same suit near)
        runs = naturals & (naturals >> 4) & (naturals >> 8) & LOW44
        in_run = runs | runs << 4 | runs << 8
        pure = tunnelas + triples.bit_count() + in_run.bit_count() // 3
        near = naturals << 4 | naturals >> 4 | naturals << 8 | naturals >> 8
        aces = naturals & _ACES  # QKA: the ace also sits above the king
        near |= (naturals >> 44 | naturals >> 48) & _ACES | aces << 44 | aces << 48
        loose = naturals & ~in_run & ~triples
        pure_partials = (dup & loose).bit_count() + (near & loose & ~dup).bit_count() // 2
        show = _missing(SETS_TO_SEE - min(SETS_TO_SEE, pure), pure_partials)
        # the finish (R15): natural sets of any kind, and partials of any kind
        sets = tunnelas + triples.bit_count() + (in_set & ~triples).bit_count() // 3
        spare = ~in_set & ~triples
        partials = (dup & spare).bit_count() + (partnered & spare & ~dup).bit_count() // 2
        finish = _missing(SETS_TO_FINISH - min(SETS_TO_FINISH, sets), partials)
        return (0, 0, show, finish, 0, 0, 0, 0, 0, 0, maal)
    if route == 1:
        wilds = 0
        held = present & wild
        while held:
            low = held & -held
            held ^= low
            wilds += hand[low.bit_length() - 1]
        lone = naturals & ~in_set & ~partnered
        n_set, n_partner = in_set.bit_count(), partnered.bit_count()
        return (1, 0, 0, 0, n_set, n_partner, lone.bit_count(), wilds, sets_to_finish, 0, maal)
    pairs = NCODES - hand.count(0) - hand.count(1) - (1 if hand[XX] >= 2 else 0)  # no men (R8)
    return (1, 1, 0, 0, 0, 0, 0, 0, 0, pairs, maal)


def _maal_table() -> list[list[list[int]]]:
    """MAAL[t][p][j]: R27/R28's best maal of t tiplus, p poplus and j jhiplus (no exposed
    tunnela, no option points), from :func:`scoring.maal` itself."""
    fam = joker_family(0)
    table = []
    for t in range(3):
        rows = []
        for p in range(4):
            row = []
            for j in range(4):
                holding = [0] * NCODES
                holding[fam.tiplu], holding[fam.poplu], holding[fam.jhiplu] = t, p, j
                row.append(scoring.maal(holding, [], fam.tiplu, 0, 0)[0])
            rows.append(row)
        table.append(rows)
    return table


_MAAL: Final = _maal_table()


def maal_held(st: MState, seat: int) -> int:
    """The maal of the seat's tiplus, poplus and jhiplus (hand and shown cards; exposed
    tunnelas and option points left out): what it would score if the deal ended now.
    0 before the tiplu is chosen."""
    tiplu = st.tiplu
    if tiplu < 0:
        return 0
    fam = joker_family(tiplu)
    hand = st.hands[seat]
    t, p, j = hand[tiplu], hand[fam.poplu], hand[fam.jhiplu]
    for item in st.shown[seat]:
        for c in item if isinstance(item, tuple) else (item, item):
            t += c == tiplu
            p += c == fam.poplu
            j += c == fam.jhiplu
    return _MAAL[min(t, 2)][min(p, 3)][min(j, 3)]


def seat_score(features: tuple[int, ...]) -> float:
    """The fitted strength of one seat's features (log-odds scale): the weighted sum, added
    up from the first feature on (the same float as ``sum(map(mul, WEIGHTS, features))``)."""
    weights = WEIGHTS  # read once (a Final tuple of floats does not compile: mypyc 2.4)
    total = 0.0
    for i in range(len(weights)):
        total += weights[i] * features[i]
    return total


def pairwise_value(scores: list[float], next_seat: int | None) -> list[float]:
    """Each seat's expected share of the other seats it finishes ahead of, when seat s
    beats seat o with probability ``sigmoid(scores[s] - scores[o])`` (plus
    :data:`TEMPO` for the next seat to draw): the reward scale of ``Game.outcome``."""
    n = len(scores)
    out = []
    for s in range(n):
        mine = scores[s] + (TEMPO if s == next_seat else 0.0)
        total = 0.0
        for o in range(n):
            if o != s:
                theirs = scores[o] + (TEMPO if o == next_seat else 0.0)
                total += 1.0 / (1.0 + math.exp(theirs - mine))
        out.append(total / (n - 1))
    return out


def leaf_value(st: MState) -> list[float]:
    """The search's value of a deal cut short (``Marriage.outcome`` at the playout
    horizon): every seat's hand scored by :func:`seat_features` and :data:`WEIGHTS`, turned
    into each seat's expected share of the seats it finishes ahead of."""
    scores: list[float] = []
    for s in range(st.n):
        route = st.route[s]
        wild = joker_family(st.tiplu).wild if route != UNSEEN and st.tiplu >= 0 else 0
        tunnelas = len(st.tunnelas[s])
        to_finish = max(0, SETS_TO_FINISH - tunnelas - len(st.shown[s]))
        maal = maal_held(st, s)
        scores.append(seat_score(seat_features(st.hands[s], route, wild, tunnelas, to_finish, maal)))
    return pairwise_value(scores, st.cur)


def deal_is_over(start: MState, state: MState) -> bool:
    """Whether the deal ``start`` is in has ended by ``state`` (finished, the match over,
    or a later deal begun)."""
    return state.cur is None or state.phase == OVER or state.deal_no != start.deal_no


def is_playout_over(start: MState, state: MState) -> bool:
    """The protocol's end of the deal, or :data:`PLAYOUT_TURNS` completed turns after
    ``start`` (the search's horizon)."""
    return deal_is_over(start, state) or state.turns - start.turns >= PLAYOUT_TURNS


def outcome(start: MState, end: MState) -> list[float]:
    """The search's reward: for a deal cut at the playout horizon (still in play), the
    fitted estimate of :func:`leaf_value`; else the reward of :func:`scoring.outcome`."""
    if not deal_is_over(start, end):
        return leaf_value(end)
    return scoring.outcome(start, end)
