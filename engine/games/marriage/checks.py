"""Marriage: what a loaded state or view must satisfy beyond its shape.

The codec reads the fields; these checks hold them against the rules: fields that follow
from others (``seen`` from ``route``, ``turn.expose_done`` from the seat to act), the
seat to act, the phase and ``turns_completed`` replayed from this deal's history, the
public fields replayed from it, 21 cards owned per seat and every card of the pack
exactly once per copy, and the scores and results that follow from the finished deals.
:func:`check_loaded` runs them in order; each raises InvalidState naming the field."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.checks import as_current_deal
from engine.codec import Hidden, refuse
from engine.protocol import JSON

from .melds import is_pure_set
from .rules import expose_done
from .scoring import settle
from .state import MState, entry_by, entry_card, entry_unseen
from .tables import (
    ACT,
    ALL_CODES,
    DEAL,
    DRAW,
    DRAW_STOCK,
    DUBLEES,
    DUBLEES_TO_FINISH,
    DUBLEES_TO_SEE,
    EXPOSE,
    EXPOSE_BASE,
    FINISH,
    FINISH_DUBLEES,
    HAND_SIZE,
    NCODES,
    OVER,
    PASS,
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
    pack_cards,
)

Deal = list[tuple[int, Any]]
"""This deal's history entries: (seat, internal action)."""


def check_state(st: MState, values: dict[str, Any], mode: str) -> None:
    """Every check of :func:`check_loaded` on a full state (the shared codec's ``check``)."""
    hidden = {"hand_sizes": [sum(h) for h in st.hands], "stock_size": len(st.stock)}
    start = values["deal_start"]  # an old state's earlier deals, before it, are not checked
    check_loaded(st, values, None, hidden, values["history"][start:], start)


def check_loaded(
    st: MState, values: dict[str, Any], view_seat: int | None, hidden: dict[str, Any], deal: Deal, first: int
) -> None:
    """Every check below, in order, on a state (``view_seat`` None) or a seat's view just
    read into ``values``. ``hidden`` holds the hand and stock sizes (a view's hidden parts),
    ``deal`` this deal's history entries, ``first`` the index of the first of them."""
    full = view_seat is None
    generator_exactly_when_engine_dealt(st, full)
    to_act_null_only_at_match_end(st)
    seen_follows_route(st, values["seen"])
    shown_follows_route(st)
    shown_sets_and_pairs(st)
    tiplu_given_when_known(st, values["tiplu"], values["tiplu_chosen"], view_seat)
    discard_pile_not_empty(st)
    turn_follows_phase(st, values["turn"][3])
    winner_at_deal_over(st)
    if view_seat is None:
        taken_cards_in_hand(st)
        stock_ends_with_tiplu_and_men(st)
    else:
        hands_shown_in_view(st, values["hands"], view_seat)
    sizes_and_phase(st, hidden)
    if full:
        cards_conserved(st)
    turns_in_order(st, deal, first)
    public_fields_replay(st, deal, hidden["stock_size"])
    match_follows_deals(st, full=full)


def generator_exactly_when_engine_dealt(st: MState, full: bool) -> None:
    """R2/R34: an engine-dealt match carries its generator's state, a caller-dealt one
    none; the result described is of a deal already played."""
    if full and (st.rng_state is None) != st.caller:
        problem = "null in a caller-dealt match" if st.caller else "the generator's decimal string"
        raise refuse("rng_state", f"must be {problem}")
    if st.result_deal > st.deal_no:
        raise refuse("result_deal", f"must be a whole number from 1 to {st.deal_no} or null")


def to_act_null_only_at_match_end(st: MState) -> None:
    """R34: nobody acts only once the last deal of the match is over."""
    if st.over and (st.phase != OVER or not st.opts.deals or st.deal_no < st.opts.deals):
        raise refuse("to_act", "is null only when the match is over")


def seen_follows_route(st: MState, seen: list[bool]) -> None:
    """R12/R13: a seat has seen the joker exactly when it has a route."""
    for s, v in enumerate(seen):
        if v != (st.route[s] != UNSEEN):
            raise refuse(f"seen[{s}]", "must be true exactly when the route is set")


def shown_follows_route(st: MState) -> None:
    """R12/R13: a seat on the sets route shows sets of three cards, one on the dublees
    route the cards of its pairs, an unseen seat nothing."""
    for s, items in enumerate(st.shown):
        route = st.route[s]
        if route == UNSEEN and items:
            raise refuse(f"shown[{s}]", "an unseen seat has shown nothing")
        for i, item in enumerate(items):
            if route == SETS and type(item) is not tuple:
                raise refuse(f"shown[{s}][{i}]", "a set is three cards")
            if route == DUBLEES and type(item) is not int:
                raise refuse(f"shown[{s}][{i}]", "a dublee is shown as its card")


def shown_sets_and_pairs(st: MState) -> None:
    """R7, R12, R13, R15, R16: a seen seat shows the sets or pairs that seeing asks for
    (less its exposed tunnelas), the first sets pure, and no more than finishing takes."""
    for s, item in enumerate(st.shown):
        t = len(st.tunnelas[s])
        if st.route[s] == SETS:
            if t + len(item) < SETS_TO_SEE:
                raise refuse(f"shown[{s}]", f"a seen seat shows {SETS_TO_SEE - t} sets")
            for i, trio in enumerate(item[: max(0, SETS_TO_SEE - t)]):
                if not is_pure_set(trio):
                    raise refuse(f"shown[{s}][{i}]", "the first sets must be tunnelas or pure sequences")
            if t + len(item) > SETS_TO_FINISH:
                raise refuse(f"shown[{s}]", "at most 7 sets")
        elif st.route[s] == DUBLEES:
            if t + len(item) < DUBLEES_TO_SEE or t + len(item) > DUBLEES_TO_FINISH:
                raise refuse(f"shown[{s}]", f"a dublee seat shows {DUBLEES_TO_SEE - t} pairs")


def tiplu_given_when_known(st: MState, tiplu: int, chosen: bool, view_seat: int | None) -> None:
    """R4/R14: the tiplu is given once chosen, except to a seat that has not seen the
    joker (before the deal's end); men are revealed only while the tiplu is picked."""
    unseen_viewer = view_seat is not None and st.phase != OVER and st.route[view_seat] == UNSEEN
    if tiplu < 0:
        if chosen and not unseen_viewer:
            raise refuse("tiplu", "the chosen tiplu must be given")
    elif not chosen:
        raise refuse("tiplu", "no tiplu before one is chosen")
    elif unseen_viewer:
        raise refuse("tiplu", "an unseen seat does not know the tiplu")
    if not chosen and st.men_rev and st.phase != PICK:
        raise refuse("men_revealed", "men are revealed only while picking the tiplu")


def discard_pile_not_empty(st: MState) -> None:
    """R2/R18: the pile holds the upcard or the last discard, except while a seat that
    took it acts or picks."""
    if not st.discard and st.phase not in (ACT, PICK):
        raise refuse("discard", "the discard pile holds at least one card")


def turn_follows_phase(st: MState, done: list[bool] | None) -> None:
    """R10/R11: ``took`` is the card taken from the discard; a seat acts or picks after
    its draw and draws after the previous discard; the seats done exposing are those
    before the seat to act."""
    if (st.drew == 2) != (st.took >= 0) or (st.tws and st.drew != 2):
        raise refuse("turn", "took is the card taken from the discard")
    if st.phase in (ACT, PICK) and not st.drew:
        raise refuse("turn.drew", f"{PHASES[st.phase]} comes after a draw")
    if st.phase in (EXPOSE, DRAW) and (st.drew or st.tws):
        raise refuse("turn", "no draw yet in this phase")
    if done is not None and st.cur is not None and done != expose_done(st):
        raise refuse("turn.expose_done", "must list the seats that have finished exposing")


def winner_at_deal_over(st: MState) -> None:
    """R15/R16/R24: a deal has a winner, and its finish kind, only once it is over."""
    if (st.fkind == UNSEEN) != (st.winner < 0):
        raise refuse("finish_kind", "must be 'sets' or 'dublees' exactly when there is a winner")
    if st.winner >= 0 and st.phase != OVER:
        raise refuse("winner", "a winner exists only at deal_over")


def taken_cards_in_hand(st: MState) -> None:
    """§7: a card known to be in a hand (taken from the discard) is in it."""
    for s, known in enumerate(st.taken):
        for c in known:
            if st.hands[s][c] < known.count(c):
                raise refuse(f"taken[{s}]", "a card known to be in this hand is missing")


def hands_shown_in_view(st: MState, hands: list[Any], seat: int) -> None:
    """§7: a view lists the viewer's own hand, and every hand once the deal is over."""
    for s, hand in enumerate(hands):
        if isinstance(hand, Hidden) and (s == seat or st.phase == OVER):
            problem = "hands are shown at deal_over" if s != seat else "the viewer's own hand is listed"
            raise refuse(f"hands[{s}]", problem)


def stock_ends_with_tiplu_and_men(st: MState) -> None:
    """R14: the chosen tiplu lies at the bottom of the stock, the men revealed at the
    pick just above it."""
    chosen = st.tiplu != -1
    if chosen and (not st.stock or st.stock[0] != st.tiplu):
        raise refuse("stock", "once the tiplu is chosen the stock's last card is the tiplu")
    low = 1 if chosen else 0
    if len(st.stock) < low + st.men_rev or any(c != XX for c in st.stock[low : low + st.men_rev]):
        raise refuse("stock", "revealed men lie just above the tiplu")


def written_as_the_engine_writes(written: JSON, data: Mapping[str, Any]) -> None:
    """Every field of ``data`` is what the engine writes for the state it loaded to (hands
    and sets in canonical order...). One older form is still read: ``rng_state`` as a JSON
    integer below 2**53, and a history holding earlier deals (issue 33: read as this deal's).
    (A layout may leave out ``turn.expose_done``; a state may not.)"""
    data = as_current_deal(data, "deal_start")
    for key, value in written.items():
        got = data[key]
        if key == "rng_state" and isinstance(got, int):
            continue
        if got != value:
            raise refuse(key, "must be written as the engine writes it (cards in canonical order)")


def turns_in_order(st: MState, deal: list[tuple[int, Any]], first: int) -> None:
    """R9-R18, R24, R33: the entries of this deal take their turns in order from the
    dealer's left (an expose turn ends with a pass, a play turn with a discard), and the
    seat to act, the phase and ``turns_completed`` follow from them. A deal dealt by the
    engine or a caller starts with the expose turns; one set up from a layout may start at
    any seat's play turn (its turns before are not in the history)."""
    if not deal and st.phase != EXPOSE:
        return
    n, dealer = st.n, st.dealer
    cur, exposing, ended, last = (dealer + 1) % n, True, False, None
    from_layout = not held_from_start(st, deal)
    discards = 0  # turns completed: a layout's own count plus the discards since
    if from_layout:
        cur, exposing = deal[0][0], False
        discards = st.turns - sum(1 for _, a in deal if isinstance(a, int) and a < NCODES)
    for i, (seat, action) in enumerate(deal):
        where = f"history[{first + i}]"
        if ended:
            raise refuse(where, "no entry follows the end of the deal")
        if seat != cur:
            raise refuse(f"{where}.seat", f"seat {cur} was to act, not {seat}")
        if (action == PASS or is_expose(action)) != exposing:
            raise refuse(f"{where}.action", f"{PHASES[EXPOSE] if exposing else 'a play turn'} was going on")
        last = action
        if action == PASS:
            cur = (seat + 1) % n
            exposing = seat != dealer
        elif isinstance(action, int) and action < NCODES:
            discards += 1
            cur = (seat + 1) % n
            ended = discards >= st.opts.turn_limit
        elif isinstance(action, tuple) and action[0] in (FINISH, FINISH_DUBLEES, DEAL):
            ended = True
    if st.turns != discards or discards < 0:
        raise refuse("turns_completed", "must be the count of this deal's discards")
    if ended != (st.phase == OVER):
        raise refuse("phase", "the deal is over exactly after a finish or the turn limit (R33)")
    if exposing != (st.phase == EXPOSE):
        raise refuse("phase", "expose lasts until the dealer passes (R9)")
    if st.phase == DRAW and not (last == PASS or isinstance(last, int) and last < NCODES):
        raise refuse("phase", "a turn starts with a draw after the previous discard")
    if st.phase in (ACT, PICK) and (last == PASS or isinstance(last, int) and last < NCODES):
        raise refuse("phase", "a seat acts after its draw")
    if st.phase != OVER and st.cur != cur:
        raise refuse("to_act", f"must be {cur}, the seat whose turn it is")


def public_fields_replay(st: MState, deal: list[tuple[int, Any]], stock_size: int) -> None:
    """R9-R22 on a deal the history holds from its start: what the whole table saw follows
    from the entries. Replaying them on the public fields alone (exposed tunnelas, routes,
    shown sets, the discard pile's entries, the stock's size, the men revealed, the tiplu
    being chosen, the last rebuild) must give the state's; the card of the upcard and of
    each stock draw stay unknown and are not compared."""
    if not held_from_start(st, deal):
        return
    n = st.n
    tunnelas: list[list[int]] = [[] for _ in range(n)]
    route = [UNSEEN] * n
    shown: list[list[Any]] = [[] for _ in range(n)]
    pile: list[tuple[int | None, int, bool]] = [(None, -1, False)]  # the upcard is unknown
    stock = len(pack_cards(st.opts.man_cards)) - HAND_SIZE * n - 1
    chosen, men = False, 0
    recycled: list[int | None] = []  # None: the unknown upcard

    def rebuild() -> None:
        """R22 (as ``rules._rebuild``): the pile but its top goes under the stock."""
        nonlocal stock, pile, recycled
        if stock - chosen > 0:
            return
        recycled = [c for c, _, _ in pile[:-1]]
        stock += len(pile) - 1
        pile = pile[-1:]

    for i, (seat, action) in enumerate(deal):
        if isinstance(action, int):
            if action < NCODES:
                pile.append((action, seat, route[seat] == UNSEEN))
                rebuild()
            elif action == DRAW_STOCK:
                stock -= 1
                if men and stock - chosen < men:
                    men -= 1
            elif action == TAKE_DISCARD:
                pile.pop()
            elif is_expose(action):
                tunnelas[seat].append(action - EXPOSE_BASE)
            elif action >= PICK_BASE:
                again = deal[i + 1][1] if i + 1 < len(deal) else None
                is_man = isinstance(again, int) and again >= PICK_BASE or again is None and st.phase == PICK
                men, chosen = (men + 1, chosen) if is_man else (men, True)
        elif action[0] in (SHOW, SHOW_DUBLEES):
            route[seat] = SETS if action[0] == SHOW else DUBLEES
            shown[seat] = list(action[1])
            if not chosen and not stock:
                rebuild()
        elif action[0] in (FINISH, FINISH_DUBLEES):
            shown[seat] = shown[seat] + (list(action[1]) if action[0] == FINISH else [action[1]])
            pile.append((action[2], seat, False))
    if tunnelas != st.tunnelas:
        raise refuse("tunnelas", "must be the tunnelas exposed in this deal's history (R9)")
    if route != st.route:
        raise refuse("route", "a seat is seen exactly when it has shown in this deal's history (R12, R13)")
    if shown != st.shown:
        raise refuse("shown", "must be what this deal's history shows (R12, R13, R15, R16)")
    got = [(entry_card(e), entry_by(e), entry_unseen(e)) for e in st.discard]
    same = [
        want == have or want[0] is None and want[1:] == have[1:]
        for want, have in zip(pile, got, strict=False)
    ]
    if len(got) != len(pile) or not all(same):
        raise refuse("discard", "must be the discards of this deal's history, in order (R18)")
    if stock != stock_size or men != st.men_rev or chosen != (st.tiplu != -1):
        raise refuse("stock", "the stock, the men revealed and the tiplu follow from this deal's draws")
    unknown = list(st.recycled)  # the recycled cards not named by the history (the upcard)
    for c in recycled:
        if c is not None and c in unknown:
            unknown.remove(c)
    if len(st.recycled) != len(recycled) or len(unknown) != recycled.count(None):
        raise refuse("recycled", "must be the cards of the last stock rebuild (R22)")


def held_from_start(st: MState, deal: list[tuple[int, Any]]) -> bool:
    """Whether the history holds this deal from its start, the expose turns (a deal set up
    from a layout began before its history, at a play turn)."""
    if not deal:
        return st.phase == EXPOSE
    return deal[0][1] == PASS or is_expose(deal[0][1])


def is_expose(action: Any) -> bool:
    return isinstance(action, int) and EXPOSE_BASE <= action < PICK_BASE


def match_follows_deals(st: MState, *, full: bool) -> None:
    """R30-R34: scores and results follow from the finished deals. Payments only move
    points between seats (the scores sum to 0); a finished deal's maal and deltas are what
    settling its cards gives; the last deal of a match ends it; a caller deals the next."""
    n, o = st.n, st.opts
    if sum(st.totals) != 0:
        raise refuse("scores", "must sum to 0: every point a seat wins another pays (R30, R31)")
    over = st.phase == OVER
    want_result = st.deal_no if over else st.deal_no - 1
    # a layout of a later deal may leave out the result of the deal before it
    if st.result_deal and st.result_deal != want_result or over and not st.result_deal:
        raise refuse("result_deal", f"must be {want_result}, the last finished deal")
    if (st.delta is None) != (not st.result_deal) or (st.maal is None) != (not st.result_deal):
        raise refuse("deal_delta", "maal and deal_delta are the last finished deal's")
    if not want_result and any(st.totals):
        raise refuse("scores", "are all 0 before the first deal ends")
    if st.delta is not None and sum(st.delta) != 0:
        raise refuse("deal_delta", "must sum to 0 (R30, R31)")
    if not over:
        return
    match_over = bool(o.deals) and st.deal_no >= o.deals
    if match_over != (st.cur is None):
        raise refuse("to_act", "is null exactly when the last deal of the match is over (R34)")
    if not match_over:
        if st.cur != (st.dealer + 1) % n:
            raise refuse("to_act", f"must be {(st.dealer + 1) % n}, the next dealer (R34)")
        if not st.caller:
            raise refuse("phase", "an engine-dealt match deals the next deal at once (R34)")
    if st.winner < 0:
        if st.turns != o.turn_limit or any(st.maal or ()) or any(st.delta or ()):
            raise refuse("deal_delta", "a deal without a winner is void at the turn limit (R33)")
    elif full:
        maal, delta, _ = settle(st)
        if st.maal != maal or st.delta != delta:
            raise refuse("deal_delta", "must be what settling the finished deal gives (R27-R31)")


def cards_owned(st: MState, s: int, hand_size: int) -> int:
    shown = sum(3 if isinstance(x, tuple) else 2 for x in st.shown[s])
    return hand_size + 3 * len(st.tunnelas[s]) + shown


def sizes_and_phase(st: MState, hidden: dict[str, Any]) -> None:
    """§3 invariant: 21 cards owned per seat (22 for the seat in act/pick)."""
    n = st.n
    if st.phase != OVER and st.cur is None:
        raise refuse("to_act", "a seat is to act until the match is over")
    for s in range(n):
        want = HAND_SIZE + (1 if st.phase in (ACT, PICK) and s == st.cur else 0)
        got = cards_owned(st, s, hidden["hand_sizes"][s])
        if got != want:
            raise refuse(
                f"hands[{s}]", f"seat {s} owns {got} cards (hand, tunnelas and shown) but must own {want}"
            )
    if st.phase == EXPOSE and any(st.route):
        raise refuse("route", "nobody has seen the joker during expose")
    if st.phase in (DRAW, EXPOSE):
        drawable = hidden["stock_size"] - (1 if st.tiplu != -1 else 0)
        if drawable < 1:
            raise refuse("stock", "the stock must hold a drawable card")
    if st.phase == PICK and (st.tiplu != -1 or st.cur is None or st.route[st.cur] == UNSEEN):
        raise refuse("phase", "pick_tiplu follows the first show")
    if st.tiplu != -1 and not any(st.route):
        raise refuse("tiplu_chosen", "the tiplu is chosen by the first seat to show")
    if st.phase in (ACT, DRAW) and any(st.route) and st.tiplu == -1:
        raise refuse("tiplu_chosen", "a seat has shown, so the tiplu must be chosen")
    if st.phase == OVER and st.winner >= 0 and st.route[st.winner] == UNSEEN:
        raise refuse("winner", "the winner is always seen")


def cards_conserved(st: MState) -> None:
    counts = [0] * NCODES
    for s in range(st.n):
        for c, k in enumerate(st.hands[s]):
            counts[c] += k
        for c in st.tunnelas[s]:
            counts[c] += 3
        for x in st.shown[s]:
            if isinstance(x, tuple):
                for c in x:
                    counts[c] += 1
            else:
                counts[x] += 2
    for c in st.stock:
        counts[c] += 1
    for e in st.discard:
        counts[entry_card(e)] += 1
    pack = [0] * NCODES
    for c in pack_cards(st.opts.man_cards):
        pack[c] += 1
    for c in range(NCODES):
        if counts[c] != pack[c]:
            word = "too many" if counts[c] > pack[c] else "missing"
            raise refuse(
                "cards", f"{word} copies of {ALL_CODES[c]}: {counts[c]} in play, the pack has {pack[c]}"
            )
