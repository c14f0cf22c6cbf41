"""Marriage: the sampler (worlds that fit a seat's view) and the cards a seat cannot place."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from engine.protocol import JSON, EngineError, InvalidState

from .codec import VERBS, load_view
from .state import MState, entry_card, history_entries
from .tables import ALL_CODES, CODE_TO_CARD, NCODES, OVER, UNSEEN, XX, pack_cards

# --------------------------------------------------------------------------- hidden cards


def hidden_cards(state: MState, seat: int) -> list[int]:
    """§7: the cards ``seat`` cannot place: other hands and the stock, less the cards
    known to be in a hand (taken from the discard), the revealed men, the tiplu for a
    seen seat, and recycled discards (seen, only their order in the stock is hidden)."""
    counts = [0] * NCODES
    over = state.phase == OVER
    if not over:
        for s in range(state.n):
            if s != seat:
                for c in range(NCODES):
                    counts[c] += state.hands[s][c]
                for c in state.taken[s]:
                    counts[c] -= 1
    stock = state.stock
    skip = state.men_rev + (1 if state.tiplu >= 0 and (over or state.route[seat] != UNSEEN) else 0)
    if state.tiplu >= 0 and skip == state.men_rev:  # an unseen seat: the tiplu is hidden
        counts[stock[0]] += 1
    for c in stock[1 + state.men_rev :] if state.tiplu >= 0 else stock[state.men_rev :]:
        counts[c] += 1
    # Cards this deal's public history named (discards, shows...) or that were
    # recycled or taken were seen by everyone: only where they went may be unknown.
    seen_once = Counter(state.recycled)
    for _, action in history_entries(state, True):
        seen_once.update(CODE_TO_CARD[c] for c in _codes_in(VERBS.encode(action, True)))
    for c, k in seen_once.items():
        counts[c] = max(0, counts[c] - k)
    return [c for c in range(NCODES) for _ in range(max(0, counts[c]))]


def _codes_in(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value in CODE_TO_CARD else []
    if isinstance(value, dict):
        return [c for v in value.values() for c in _codes_in(v)]
    if isinstance(value, list):
        return [c for v in value for c in _codes_in(v)]
    return []


# --------------------------------------------------------------------------- sampler


def _shuffled(cards: list[int], rng: random.Random) -> list[int]:
    """``cards`` shuffled in place (Fisher-Yates drawing with ``rng.random``: about twice
    as fast as ``rng.shuffle``, uniform up to the float's 53 bits) and returned."""
    # typed, so that the compiled build multiplies C doubles
    rand: Callable[[], float] = rng.random
    for i in range(len(cards) - 1, 0, -1):
        j = int(rand() * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def pop_blind_tiplu(shuffled: list[int]) -> int:
    """R4 for a seat that has not seen the tiplu: any hidden card but a man (the first seer
    picked blind). Takes the last card of ``shuffled`` (already in random order) that is not
    a man out of it and returns it."""
    i = next(i for i in range(len(shuffled) - 1, -1, -1) if shuffled[i] != XX)
    return shuffled.pop(i)


def make_sampler(view: JSON) -> Callable[[random.Random], MState]:
    """§7: read ``view`` once (InvalidState if it is no view of a Marriage state); the
    returned function deals the unseen cards at random, consistently with it."""
    try:
        return _make_sampler(view)
    except EngineError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, RecursionError) as exc:
        raise InvalidState(f"not a Marriage view: {exc}", field="view") from None


def _make_sampler(view: JSON) -> Callable[[random.Random], MState]:
    if not isinstance(view, Mapping):
        raise InvalidState("a view must be a JSON object", field="view")
    seat = view.get("seat")
    n = view.get("players")
    if isinstance(seat, bool) or not isinstance(seat, int) or not isinstance(n, int) or not 0 <= seat < n:
        raise InvalidState("seat: must be a seat of the view's table", field="seat")
    base, seat, hidden = load_view(view)
    over = base.phase == OVER
    pool = Counter(pack_cards(base.opts.man_cards))
    known: Counter[int] = Counter()
    for s in range(base.n):
        if s == seat or over:
            known.update({c: k for c, k in enumerate(base.hands[s]) if k})
        else:
            known.update(base.taken[s])
        for c in base.tunnelas[s]:
            known[c] += 3
        for x in base.shown[s]:
            known.update(x if isinstance(x, tuple) else (x, x))
    for e in base.discard:
        known[entry_card(e)] += 1
    tiplu_known = base.tiplu >= 0
    if tiplu_known:
        known[base.tiplu] += 1
    known[XX] += base.men_rev
    for c, k in known.items():
        if k > pool[c]:
            raise InvalidState(f"the view shows {k} copies of {ALL_CODES[c]}", field="cards")
    free = pool - known
    stock_size: int = hidden["stock_size"]
    chosen = base.tiplu != -1
    drawable = stock_size - (1 if chosen else 0) - base.men_rev
    if drawable < 0:
        raise InvalidState("stock: too small for the tiplu and the revealed men", field="stock")
    slots = [
        0 if (s == seat or over) else hidden["hand_sizes"][s] - len(base.taken[s]) for s in range(base.n)
    ]
    if any(x < 0 for x in slots):
        raise InvalidState("taken: more known cards than the hand holds", field="taken")
    need = sum(slots) + drawable + (1 if chosen and not tiplu_known else 0)
    free_list = sorted(free.elements())
    if chosen and not tiplu_known and all(c == XX for c in free_list):
        raise InvalidState("no hidden card can be the tiplu", field="tiplu")
    if need != len(free_list):
        raise InvalidState(
            f"the view hides {len(free_list)} cards but has {need} hidden places", field="cards"
        )
    recycled = Counter(base.recycled) & free
    if base.recycled and sum(recycled.values()) < drawable:
        raise InvalidState("stock: the recycled cards cannot fill the stock", field="stock")
    recycled_list = sorted(recycled.elements())

    def sample(rng: random.Random) -> MState:
        st = base.copy()  # hands copied too: the hidden ones are replaced below
        if base.recycled:
            rest = Counter(free_list)
            stock_cards = rng.sample(recycled_list, drawable)
            rest.subtract(stock_cards)
            remaining = _shuffled(sorted(rest.elements()), rng)
        else:  # one shuffle: the first cards are the stock, the rest (in random order) the hands
            remaining = _shuffled(free_list[:], rng)
            stock_cards = remaining[:drawable]
            del remaining[:drawable]
        if chosen:
            if tiplu_known:
                tiplu = base.tiplu
            else:
                tiplu = pop_blind_tiplu(remaining)
            st.tiplu = tiplu
            st.stock = [tiplu] + [XX] * base.men_rev + stock_cards
        else:  # men shown during the pick lie at the bottom
            st.stock = [XX] * base.men_rev + stock_cards
        for s in range(base.n):
            if slots[s]:
                counts = [0] * NCODES
                for c in base.taken[s]:
                    counts[c] += 1
                for _ in range(slots[s]):
                    counts[remaining.pop()] += 1
                st.hands[s] = counts
        st.rng_state = None if st.caller else rng.getrandbits(63)
        return st

    return sample
