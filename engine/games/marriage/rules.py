"""Marriage: dealing, legality (one predicate per rule, one check per action), the
in-place step and the end of a deal."""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

from engine.protocol import Event, IllegalAction, InvalidSetup

from .melds import finishes, is_pure_set, is_valid_final, joker_family, pair_codes, presence, show_choices
from .options import Rules
from .scoring import settle
from .state import MState, blank_state, entry, entry_card, entry_unseen, public_action
from .tables import (
    ACT,
    DEAL,
    DRAW,
    DRAW_STOCK,
    DUBLEES,
    DUBLEES_TO_SEE,
    EXPOSE,
    EXPOSE_BASE,
    FINISH,
    FINISH_DUBLEES,
    HAND_SIZE,
    NCODES,
    OVER,
    PASS,
    PHASE_RULE,
    PHASES,
    PICK,
    PICK_BASE,
    SETS,
    SETS_TO_FINISH,
    SETS_TO_SEE,
    SHOW,
    SHOW_DUBLEES,
    TAKE_DISCARD,
    UNSEEN,
    XX,
    card_code,
    codes,
    pack_cards,
)

# --------------------------------------------------------------------------- dealing


def deal_deck(st: MState, deck: list[int], dealer: int) -> None:
    """R2: deal ``deck`` (top first) for ``dealer``: 21 cards each one at a time from the
    dealer's left, one upcard, the rest the stock. Resets every per-deal field."""
    n = st.n
    hands = [[0] * NCODES for _ in range(n)]
    for k in range(HAND_SIZE * n):
        hands[(dealer + 1 + k % n) % n][deck[k]] += 1
    up = deck[HAND_SIZE * n]
    st.dealer = dealer
    st.hands = hands
    st.tunnelas = [[] for _ in range(n)]
    st.shown = [[] for _ in range(n)]
    st.route = [UNSEEN] * n
    st.stock = deck[HAND_SIZE * n + 1 :][::-1]
    st.tiplu = -1
    st.men_rev = 0
    st.discard = [entry(up, -1, False)]
    st.drew = 0
    st.took = -1
    st.tws = False
    st.turns = 0
    st.winner = -1
    st.fkind = UNSEEN
    st.recycled = ()
    st.taken = [()] * n
    st.phase = EXPOSE
    st.cur = (dealer + 1) % n
    st.deal_start = st.hlen  # views show this deal's history only
    st.hkey = 0


def shuffled_deck(st: MState) -> list[int]:
    """A new deck from the state's generator (engine-dealt matches)."""
    deck = pack_cards(st.opts.man_cards)
    rng = random.Random(st.rng_state)
    rng.shuffle(deck)
    st.rng_state = rng.getrandbits(63)
    return deck


def check_deck(cards: list[int], man_cards: int) -> None:
    """R2: a caller's deck holds every card of the pack exactly as often as the pack does."""
    pack = pack_cards(man_cards)
    if sorted(cards) != pack:
        raise InvalidSetup(
            f"deck must hold every card of the {len(pack)}-card pack exactly as often as the pack does",
            field="deck",
        )


def new_match(
    players: int, options: dict[str, Any], dealer: int, seed: int | None, deck: list[int] | None
) -> MState:
    """R2: a match and its first deal, from ``deck`` (top first) or else shuffled by the
    generator seeded with ``seed``; the later deals come from that generator, or from the
    caller (a caller-dealt match) when no seed is given."""
    st = blank_state(Rules.of(options, players))
    st.rng_state, st.caller = seed, seed is None
    if deck is not None:
        check_deck(deck, st.opts.man_cards)
    else:
        deck = shuffled_deck(st)
    deal_deck(st, deck, dealer)
    return st


# --------------------------------------------------------------------------- predicates


def illegal(reason: str, rule: str) -> IllegalAction:
    return IllegalAction(reason, rule=rule)


def tunnelas_needed(st: MState, seat: int) -> int:
    """R12: sets still to show = max(0, 3 - exposed tunnelas)."""
    return max(0, SETS_TO_SEE - len(st.tunnelas[seat]))


def dublees_needed(st: MState, seat: int) -> int:
    """R13: pairs still to show = max(0, 7 - exposed tunnelas)."""
    return max(0, DUBLEES_TO_SEE - len(st.tunnelas[seat]))


def final_sets_needed(st: MState, seat: int) -> int:
    """R15: 7 - K sets, K = exposed tunnelas + shown sets."""
    return max(0, SETS_TO_FINISH - len(st.tunnelas[seat]) - len(st.shown[seat]))


def can_expose(st: MState, card: int) -> bool:
    """R9: a tunnela needs three identical cards (never men) in hand."""
    return card != XX and st.hands[st.cur][card] >= 3  # type: ignore[index]


def is_wild(st: MState, card: int) -> bool:
    """R4: wild under the chosen tiplu (men always, once a tiplu exists)."""
    return st.tiplu >= 0 and bool(joker_family(st.tiplu).wild >> card & 1)


TAKE_DISCARD_REFUSALS: tuple[tuple[str, str], ...] = (
    ("", ""),
    ("you cannot take the discard before seeing the joker", "R10"),
    ("cannot take a joker discarded by a player who had not seen the joker", "R20"),
    ("after seeing the joker you may take the discard only to finish", "R10"),
)
"""Why a seat may not take the top discard: (reason, rule) by :func:`take_discard_refusal`."""


def take_discard_refusal(st: MState) -> int:
    """R10/R20: why the seat to act may not take the top discard, as an index into
    :data:`TAKE_DISCARD_REFUSALS` (0: it may). An int, so that ``legal_actions`` asks
    without building an exception."""
    seat = st.cur
    assert seat is not None
    top = st.discard[-1]
    card = entry_card(top)
    route = st.route[seat]
    if route == UNSEEN:
        return 0 if st.opts.unseen_take_discard else 1
    if entry_unseen(top) and is_wild(st, card):
        return 2
    if not can_finish_with(st, seat, card):
        return 3
    return 0


def take_discard_problem(st: MState) -> IllegalAction | None:
    """R10/R20: why the seat to act may not take the top discard (None if it may)."""
    refusal = take_discard_refusal(st)
    if refusal == 0:
        return None
    reason, rule = TAKE_DISCARD_REFUSALS[refusal]
    return illegal(reason, rule)


def can_finish_with(st: MState, seat: int, card: int) -> bool:
    """R10(b): a seen seat can finish this turn with ``card`` added to its hand."""
    hand = st.hands[seat]
    if st.route[seat] == DUBLEES:
        return card != XX and hand[card] >= 1
    hand = hand[:]
    hand[card] += 1
    return any(card in flat(sets) for sets, _ in set_finishes(st, seat, hand))


def flat(sets: tuple[tuple[int, ...], ...]) -> set[int]:
    return {c for s in sets for c in s}


def set_finishes(st: MState, seat: int, hand: list[int] | None = None) -> list[Any]:
    """R15: every (sets, discard) finish of the seat's hand (sets route)."""
    return finishes(
        st.hands[seat] if hand is None else hand,
        final_sets_needed(st, seat),
        st.tiplu,
        st.opts.max_wild_per_set,
    )


def dublee_finishes(st: MState, seat: int) -> list[tuple[int, int]]:
    """R16: every (pair, discard) finish of a dublee seat; the pair is the taken code
    after a seen take."""
    hand = st.hands[seat]
    out = []
    for p in pair_codes(hand):
        if st.tws and p != st.took:
            continue
        for c in range(NCODES):
            if hand[c] - (2 if c == p else 0) > 0:
                out.append((p, c))
    return out


# --------------------------------------------------------------------------- legal actions


def legal_actions(st: MState) -> list[Any]:
    """Every legal action of the seat to act (R9-R18), canonical forms (R23)."""
    seat = st.cur
    if seat is None or st.phase == OVER:
        return []
    phase = st.phase
    hand = st.hands[seat]
    if phase == DRAW:
        if take_discard_refusal(st) == 0:
            return [DRAW_STOCK, TAKE_DISCARD]
        return [DRAW_STOCK]
    if phase == ACT:
        route = st.route[seat]
        if route == UNSEEN:
            out: list[Any] = [c for c in range(NCODES) if hand[c]]
            pairs = pair_codes(hand)
            for sets in show_choices(hand, tunnelas_needed(st, seat), presence(hand)):
                out.append((SHOW, sets))
            k = dublees_needed(st, seat)
            if len(pairs) >= k:
                for chosen in combinations(pairs, k):
                    out.append((SHOW_DUBLEES, chosen))
            return out
        out = [] if st.tws else [c for c in range(NCODES) if hand[c]]
        if route == SETS:
            took = st.took
            for sets, d in set_finishes(st, seat):
                if st.tws and not any(took in s for s in sets):
                    continue
                out.append((FINISH, sets, d))
        else:
            for p, d in dublee_finishes(st, seat):
                out.append((FINISH_DUBLEES, p, d))
        return out
    if phase == EXPOSE:
        out = [EXPOSE_BASE + c for c in range(52) if hand[c] >= 3]
        out.append(PASS)
        return out
    # PICK
    return [PICK_BASE + i for i in range(len(st.stock) - st.men_rev)]


def expose_done(st: MState) -> list[bool]:
    """R9: which seats have finished exposing (they decide from the dealer's left)."""
    if st.phase != EXPOSE or st.cur is None:
        return [True] * st.n
    done = [False] * st.n
    seat = (st.dealer + 1) % st.n
    while seat != st.cur:
        done[seat] = True
        seat = (seat + 1) % st.n
    return done


# --------------------------------------------------------------------------- check


def is_well_formed(action: Any) -> bool:
    """R23: an internal action's shape (anything else is refused before the rule checks)."""
    if isinstance(action, bool):
        return False
    if isinstance(action, int):
        return (
            0 <= action < NCODES
            or action in (DRAW_STOCK, TAKE_DISCARD, PASS)
            or EXPOSE_BASE <= action < EXPOSE_BASE + NCODES
            or action >= PICK_BASE
        )
    return (
        isinstance(action, tuple)
        and len(action) >= 2
        and action[0] in (SHOW, SHOW_DUBLEES, FINISH, FINISH_DUBLEES, DEAL)
    )


def _phase_of(action: Any) -> int:
    if isinstance(action, int):
        if action < NCODES:
            return ACT
        if action in (DRAW_STOCK, TAKE_DISCARD):
            return DRAW
        if action == PASS or EXPOSE_BASE <= action < EXPOSE_BASE + NCODES:
            return EXPOSE
        return PICK
    if action[0] == DEAL:
        return OVER
    return ACT


def _missing(hand: list[int], cards: list[int]) -> list[int]:
    need = [0] * NCODES
    for c in cards:
        need[c] += 1
    return [c for c in range(NCODES) for _ in range(max(0, need[c] - hand[c]))]


def _set_text(cards: Any) -> str:
    return " ".join(codes(cards))


def check_action(st: MState, action: Any, raw: Any = None) -> None:
    """The checks of §9, in the spec's order. ``raw`` keeps the client's set order
    for the reason texts."""
    seat = st.cur
    assert seat is not None
    want = _phase_of(action)
    if st.phase == OVER and want != OVER:
        raise illegal("the deal is over", "R33")
    if want != st.phase:
        raise illegal(f"wrong phase: expected {PHASES[st.phase]}", PHASE_RULE[st.phase])
    hand = st.hands[seat]
    if want == OVER:
        deck = action[1]
        if isinstance(deck, int) or sorted(deck) != pack_cards(st.opts.man_cards):
            raise illegal("the deck must hold every card of the pack exactly once per copy", "R2")
        return
    if want == EXPOSE:
        if action != PASS and not can_expose(st, action - EXPOSE_BASE):
            raise illegal("a tunnela needs three identical cards in hand", "R9")
        return
    if want == PICK:
        i = action - PICK_BASE
        size = len(st.stock) - st.men_rev
        if not 0 <= i < size:
            raise illegal(f"index must be between 0 and {size - 1}", "R14")
        return
    if want == DRAW:
        if action == TAKE_DISCARD:
            problem = take_discard_problem(st)
            if problem is not None:
                raise problem
        return
    # ACT
    route = st.route[seat]
    if isinstance(action, int):
        if st.tws:
            raise illegal("you took the discard: you must finish this turn", "R18")
        if not hand[action]:
            raise illegal(f"you do not hold {card_code(action)}", "R18")
        return
    kind = action[0]
    if kind in (SHOW, SHOW_DUBLEES):
        if route != UNSEEN:
            raise illegal("you have already seen the joker", "R17")
        if kind == SHOW:
            sets = action[1]
            k = tunnelas_needed(st, seat)
            if len(sets) != k:
                raise illegal(f"show needs exactly {k} sets", "R12")
            missing = _missing(hand, [c for s in sets for c in s])
            if missing:
                raise illegal(f"you do not hold {_set_text(missing)}", "R12")
            for s in raw if raw is not None else sets:
                if not is_pure_set(s):
                    raise illegal(f"first sets must be tunnelas or pure sequences: {_set_text(s)}", "R7")
            return
        pairs = action[1]
        k = dublees_needed(st, seat)
        if len(pairs) != k or len(set(pairs)) != k or XX in pairs:
            raise illegal(f"show needs exactly {k} dublees of identical cards", "R13")
        missing = _missing(hand, [c for p in pairs for c in (p, p)])
        if missing:
            raise illegal(f"you do not hold {_set_text(missing)}", "R13")
        return
    # finishes
    if route == UNSEEN:
        raise illegal("you must see the joker before finishing", "R15")
    if kind == FINISH:
        if route != SETS:
            raise illegal("you showed dublees: finish with dublees", "R17")
        sets, d = action[1], action[2]
        k = final_sets_needed(st, seat)
        if len(sets) != k:
            raise illegal(f"finish needs exactly {k} sets and one discard", "R15")
        missing = _missing(hand, [c for s in sets for c in s] + [d])
        if missing:
            raise illegal(f"you do not hold {_set_text(missing)}", "R15")
        if sum(hand) != 3 * k + 1:
            raise illegal(f"finish needs exactly {k} sets and one discard", "R15")
        for s in raw if raw is not None else sets:
            if not is_valid_final(tuple(sorted(s)), st.tiplu, st.opts.max_wild_per_set):
                raise illegal(f"not a valid set: {_set_text(s)}", "R6")
        if st.tws and not any(st.took in s for s in sets):
            raise illegal("the card taken from the discard must be used in a set", "R10")
        return
    # FINISH_DUBLEES
    if route != DUBLEES:
        raise illegal("you showed sets: finish with sets", "R17")
    p, d = action[1], action[2]
    missing = _missing(hand, [p, p, d])
    if missing:
        raise illegal(f"you do not hold {_set_text(missing)}", "R16")
    if p == XX:
        raise illegal("a dublee is two identical cards, never men", "R8")
    if st.tws and p != st.took:
        raise illegal("the card taken from the discard must be used in a set", "R16")


# --------------------------------------------------------------------------- step


def _forget_taken(st: MState, seat: int, cards: list[int]) -> None:
    """§7: a card known to be in a hand is no longer certain once that code leaves it."""
    known = st.taken[seat]
    if not known:
        return
    left = list(known)
    for c in cards:
        if c in left:
            left.remove(c)
    st.taken[seat] = tuple(left)


def _rebuild(st: MState) -> None:
    """R22: when the drawable stock is empty, every discard but the top one, bottom to top
    (shuffled under ``reshuffle = random``), goes above the old stock."""
    if st.drawable() > 0:
        return
    pile = [entry_card(e) for e in st.discard[:-1]]
    if st.opts.reshuffle == "random" and pile:
        if st.rng_state is not None:
            rng = random.Random(st.rng_state)
            rng.shuffle(pile)
            st.rng_state = rng.getrandbits(63)
        else:
            # caller-dealt (no generator): seed from the hidden hands too, so that the
            # order is reproducible yet not computable by any one seat
            hidden = tuple(tuple(h) for h in st.hands)
            random.Random(hash((st.deal_no, st.turns, tuple(pile), hidden))).shuffle(pile)
    st.stock = st.stock + pile[::-1]
    st.discard = st.discard[-1:]
    st.recycled = tuple(sorted(pile))


def to_act(st: MState) -> int | None:
    """The seat to act (None once the match is over)."""
    return st.cur


def step(st: MState, action: Any, events: list[Event] | None = None) -> None:
    """Apply a legal action in place (R9-R22, R24-R34)."""
    seat = st.cur
    assert seat is not None
    st.hist = (st.hist, seat, action)
    st.hlen += 1
    st.hkey = hash((st.hkey, seat, action if type(action) is int else public_action(action)))
    hand = st.hands[seat]
    if isinstance(action, int):
        if action < NCODES:  # R18 discard
            hand[action] -= 1
            st.discard.append(entry(action, seat, st.route[seat] == UNSEEN))
            if action in st.taken[seat]:
                _forget_taken(st, seat, [action])
            st.turns += 1
            if events is not None:
                events.append({"type": "discard", "seat": seat, "card": card_code(action)})
            _rebuild(st)
            if st.turns >= st.opts.turn_limit:
                _end_deal(st, events)
                return
            st.cur = (seat + 1) % st.n
            st.phase = DRAW
            st.drew, st.took, st.tws = 0, -1, False
            return
        if action == DRAW_STOCK:  # R10
            card = st.stock.pop()
            hand[card] += 1
            if st.men_rev and st.drawable() < st.men_rev:
                st.men_rev -= 1  # a man everyone saw at the pick
                st.taken[seat] = tuple(sorted(st.taken[seat] + (card,)))
            st.drew, st.took, st.tws = 1, -1, False
            st.phase = ACT
            if events is not None:
                events.append({"type": "draw_stock", "seat": seat})
            return
        if action == TAKE_DISCARD:  # R10
            card = entry_card(st.discard.pop())
            hand[card] += 1
            seen = st.route[seat] != UNSEEN
            if not seen:
                st.taken[seat] = tuple(sorted(st.taken[seat] + (card,)))
            st.drew, st.took, st.tws = 2, card, seen
            st.phase = ACT
            if events is not None:
                events.append({"type": "take_discard", "seat": seat, "card": card_code(card)})
            return
        if action == PASS:  # R9
            if events is not None:
                events.append({"type": "pass", "seat": seat})
            if seat == st.dealer:
                st.phase = DRAW
                st.cur = (st.dealer + 1) % st.n
            else:
                st.cur = (seat + 1) % st.n
            return
        if action < PICK_BASE:  # R9 expose_tunnela
            card = action - EXPOSE_BASE
            hand[card] -= 3
            st.tunnelas[seat] = st.tunnelas[seat] + [card]
            if events is not None:
                events.append({"type": "expose_tunnela", "seat": seat, "card": card_code(card)})
            return
        # R14 pick_tiplu
        i = action - PICK_BASE
        j = len(st.stock) - 1 - i
        card = st.stock.pop(j)
        st.stock.insert(0, card)
        if card == XX:
            st.men_rev += 1
            if events is not None:
                events.append({"type": "man_revealed", "seat": seat, "index": i})
            return
        st.tiplu = card
        st.phase = ACT
        if events is not None:
            events.append({"type": "pick_tiplu", "seat": seat, "index": i})
        return
    kind = action[0]
    if kind == SHOW or kind == SHOW_DUBLEES:  # R12 / R13
        if kind == SHOW:
            cards = [c for s in action[1] for c in s]
            st.shown[seat] = list(action[1])
            st.route[seat] = SETS
        else:
            cards = [c for p in action[1] for c in (p, p)]
            st.shown[seat] = list(action[1])
            st.route[seat] = DUBLEES
        for c in cards:
            hand[c] -= 1
        _forget_taken(st, seat, cards)
        if events is not None:
            events.append({"type": kind, "seat": seat})
        if st.tiplu < 0:
            if not st.stock:
                _rebuild(st)
            st.phase = PICK
        return
    if kind == FINISH or kind == FINISH_DUBLEES:  # R15 / R16
        if kind == FINISH:
            cards = [c for s in action[1] for c in s]
            st.shown[seat] = st.shown[seat] + list(action[1])
            st.fkind = SETS
        else:
            cards = [action[1], action[1]]
            st.shown[seat] = st.shown[seat] + [action[1]]
            st.fkind = DUBLEES
        d = action[2]
        for c in cards:
            hand[c] -= 1
        hand[d] -= 1
        if st.taken[seat]:
            _forget_taken(st, seat, cards + [d])
        st.discard.append(entry(d, seat, False))
        st.winner = seat
        if events is not None:
            events.append({"type": kind, "seat": seat, "discard": card_code(d)})
        _end_deal(st, events)
        return
    # R34 deal (caller-dealt)
    st.deal_no += 1
    deal_deck(st, list(action[1]), seat)
    if events is not None:
        events.append({"type": "deal", "seat": seat, "deal_no": st.deal_no})


# --------------------------------------------------------------------------- end of a deal


def _end_deal(st: MState, events: list[Event] | None) -> None:
    """R24/R33/R34: settle (or void), add to the totals, then the next deal or the end."""
    if st.winner >= 0:
        maal, delta, _ = settle(st)
    else:
        maal, delta = [0] * st.n, [0] * st.n
    st.maal, st.delta, st.result_deal = maal, delta, st.deal_no
    st.totals = [t + d for t, d in zip(st.totals, delta, strict=True)]
    st.phase = OVER
    nxt = (st.dealer + 1) % st.n
    if events is not None:
        events.append(
            {
                "type": "deal_over",
                "winner": st.winner if st.winner >= 0 else None,
                "void": st.winner < 0,
                "maal": list(maal),
                "deltas": list(delta),
                "scores": list(st.totals),
            }
        )
    if st.opts.deals and st.deal_no >= st.opts.deals:
        st.cur = None
        st.over = True
        if events is not None:
            events.append({"type": "match_over", "scores": list(st.totals)})
        return
    st.cur = nxt
    if not st.caller:
        st.deal_no += 1
        deal_deck(st, shuffled_deck(st), nxt)
