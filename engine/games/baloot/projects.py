"""Projects (R18, R19, R21) and the baloot (R23): pure functions on slot masks."""

from __future__ import annotations

from engine.games.baloot.tables import (
    FOUR_HUNDRED,
    FOUR_KIND,
    HOKM,
    HUNDRED,
    PROJECT_VALUES,
    QUAD_RANKS,
    RUN_CLASS,
    SEQ_ORDER,
    SEQUENCE,
)

Group = tuple[tuple[int, int, int, int], int]
"""A project group: (key, slot mask); key = (class, subkind, top rank, suit) (R19)."""
ProjectSet = tuple[tuple[Group, ...], int]
"""A seat's project set: its groups, best first, and its value in game points."""

EMPTY: ProjectSet = ((), 0)
_CACHE: dict[int, ProjectSet] = {}
"""``project_set`` by ``hand * 4 + kind`` (an int key: cheaper to hash than a pair)."""
_RUN_STARTS = 0x3F3F3F3F  # slots 0-5 of each suit can start a run of three
_QUAD_BITS = 0x1F  # A K Q J T of spades: a quad shows in the AND of the four suit bytes
_QUADS: tuple[tuple[int, int, bool], ...] = tuple(
    (i, 0x01010101 << i, rank == "A") for rank in QUAD_RANKS for i in [SEQ_ORDER.index(rank)]
)
"""R18: per quad rank (A K Q J T): its sequence index, its four slots, whether it is the Aces."""


def candidate_groups(hand: int, kind: int) -> list[Group]:
    """R18: every four-of-a-kind and every sub-run of 3, 4 or 5 cards in ``hand``."""
    groups: list[Group] = []
    for suit in range(4):
        byte = (hand >> (8 * suit)) & 0xFF
        if not byte & (byte >> 1) & (byte >> 2):
            continue
        for start in range(6):
            for length in (3, 4, 5):
                run = ((1 << length) - 1) << start
                if start + length <= 8 and byte & run == run:
                    groups.append(((RUN_CLASS[length], SEQUENCE, 7 - start, 3 - suit), run << (8 * suit)))
    for i, quad, aces in _QUADS:
        if hand & quad == quad:
            cls = FOUR_HUNDRED if aces and kind != HOKM else HUNDRED
            groups.append(((cls, FOUR_KIND, 7 - i, 4), quad))
    return groups


def project_set(hand: int, kind: int) -> ProjectSet:
    """R19: the best collection of disjoint groups of an 8-card ``hand`` (highest
    total value, then the groups' keys compared from best down; a longer list wins
    a prefix tie). Returns (groups best first, value)."""
    if not (hand & (hand >> 1) & (hand >> 2) & _RUN_STARTS) and not (
        hand & (hand >> 8) & (hand >> 16) & (hand >> 24) & _QUAD_BITS
    ):
        return EMPTY
    cache_key = hand * 4 + kind
    cached = _CACHE.get(cache_key)
    if cached is not None:
        return cached
    groups = candidate_groups(hand, kind)
    if not groups:
        result = EMPTY
    elif len(groups) == 1:
        # most hands with a project hold a single candidate group: the collection of it
        # alone is the best one (every group is worth more than none), no search needed
        group = groups[0]
        result = ((group,), PROJECT_VALUES[kind][group[0][0]])
    else:
        groups.sort(reverse=True)
        best = _Best()
        _search(groups, PROJECT_VALUES[kind], 0, 0, 0, [], best)
        result = (tuple(best.groups), best.value)
    if len(_CACHE) > 200_000:
        _CACHE.clear()
    _CACHE[cache_key] = result
    return result


class _Best:
    """The best collection ``_search`` has found so far: its value, its keys best first
    (R19 compares the value, then the keys) and its groups."""

    def __init__(self) -> None:
        self.value = -1
        self.keys: list[tuple[int, int, int, int]] = []
        self.groups: list[Group] = []


def _search(
    groups: list[Group],
    values: dict[int, int],
    i: int,
    used: int,
    value: int,
    chosen: list[Group],
    best: _Best,
) -> None:
    """Every collection of disjoint ``groups`` from index ``i`` on, added to ``chosen``
    (cards ``used``, worth ``value``); the best one ends in ``best``."""
    if i == len(groups):
        keys = [g[0] for g in chosen]
        if value > best.value or (value == best.value and keys > best.keys):
            best.value = value
            best.keys = keys
            best.groups = list(chosen)
        return
    group = groups[i]
    key, mask = group
    if not used & mask:
        chosen.append(group)
        _search(groups, values, i + 1, used | mask, value + values[key[0]], chosen, best)
        chosen.pop()
    _search(groups, values, i + 1, used, value, chosen, best)


def set_mask(pset: ProjectSet) -> int:
    """Every card of a project set."""
    mask = 0
    for _, m in pset[0]:
        mask |= m
    return mask


def compare_declared(
    best_keys: dict[int, tuple[int, int, int, int]],
    order: list[int],
    kind: int,
    trump: int,
    trump_first: bool,
) -> tuple[int | None, list[int]]:
    """R21: the winning seat among the declared best projects (``best_keys`` by seat)
    and the seats that must reveal details. ``order`` is trick-1 play order."""
    if not best_keys:
        return None, []
    top_class = max(k[0] for k in best_keys.values())
    tops = [s for s in order if s in best_keys and best_keys[s][0] == top_class]
    if len({s & 1 for s in tops}) == 1:
        return tops[0], []

    winner = tops[0]
    for seat in tops[1:]:
        if _strength(best_keys[seat], kind, trump, trump_first) > _strength(
            best_keys[winner], kind, trump, trump_first
        ):
            winner = seat
    return winner, tops


def _strength(
    key: tuple[int, int, int, int], kind: int, trump: int, trump_first: bool
) -> tuple[int, int, int]:
    """R21: how a best project ranks among equal classes: its subkind, its top, and (with
    ``trump_first``) whether it is a sequence in Hokm's trump suit."""
    in_trumps = int(trump_first and kind == HOKM and key[1] == SEQUENCE and 3 - key[3] == trump)
    return key[1], key[2], in_trumps


def baloot_scores(pset: ProjectSet, k_q_mask: int, scored: bool, rule: str) -> bool:
    """R23: whether a seat's baloot (its trump K and Q, ``k_q_mask``) scores, given its
    project set and whether that set is scored (its team is the project team)."""
    if rule == "always" or not scored:
        return True
    for key, mask in pset[0]:
        if mask & k_q_mask == k_q_mask:
            if rule == "not_in_any":
                return False
            if key[0] == HUNDRED and key[1] == SEQUENCE:
                return False
    return True
