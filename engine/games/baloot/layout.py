"""What a Baloot document leaves out, worked out from what it gives: the codec calls
:func:`fill_left_out` after ``codec.build`` for every document (a layout, a partial state
for ``new_state(layout=...)``, may leave out most fields, and most keys of ``contract``,
``bidding``, ``projects`` and a trick; a full state only what no document gives), and
``codec.load_layout`` calls :func:`settle_layout` on a layout once it is checked. The
``natural_*`` values are also what ``checks`` compares a full state's with. Not a hot
module: it runs once per loaded document."""

from __future__ import annotations

from typing import Any

from engine.codec import LAYOUT as LAYOUT_MODE
from engine.games.baloot.projects import project_set
from engine.games.baloot.rules import defenders, set_trick_so_far, slots_of, start_play, sun_double_allowed
from engine.games.baloot.state import State, history_list
from engine.games.baloot.tables import (
    BIDDING,
    CHOOSE_TRUMP,
    DEAL_OVER,
    DOUBLING,
    FULL,
    MATCH_OVER,
    PLAY,
    SUN,
    SUN_WINDOW,
    SWITCH,
)


def natural_taker(st: State) -> int:
    """R7: the taker is the bidder, or his partner in Ashkal."""
    return (st.bidder + 2) & 3 if st.ashkal else st.bidder


def natural_raiser(st: State) -> int:
    """R11: the team that made the last raise (the declarers when undoubled, tripled or in gahwa)."""
    return st.bidder & 1 if st.gahwa or st.mult in (1, 3) else 1 - (st.bidder & 1)


def natural_step(st: State) -> int:
    """R11: the doubling step the multiplier has reached."""
    return {1: 0, 2: 1, 3: 2, 4: 3}[st.mult] if not st.gahwa else 3


def natural_round(st: State) -> int:
    """R4: the bidding round; trump is chosen after a round-2 Hokm."""
    return 2 if st.phase == CHOOSE_TRUMP else 1


def natural_candidate_taken(st: State) -> bool:
    """R6: the candidate is taken once the hands are dealt out (doubling, play, or a finished
    deal whose hands are played out)."""
    return st.phase in (DOUBLING, PLAY) or (st.phase in (DEAL_OVER, MATCH_OVER) and not any(st.hands))


def bidding_opener(st: State, last: tuple[int, Any] | None) -> int:
    """R2-R5: the seat the bidding passes to after this deal's ``last`` call (the next seat
    round the table), or, with no call yet, the first seat of the round (the dealer's left)
    or of the Sun window (the Hokm bidder's left)."""
    if last is not None:
        return (last[0] + 1) & 3
    return ((st.hokm_bidder if st.stage == SUN_WINDOW else st.dealer) + 1) & 3


def natural_to_act(st: State, entries: list[tuple[int, Any]]) -> int | None:
    """The seat to act the position implies after this deal's history ``entries``."""
    phase = st.phase
    if phase == PLAY:
        return (st.leader + len(st.table)) & 3
    if phase == CHOOSE_TRUMP:
        return st.hokm_bidder if st.hokm_bidder >= 0 else st.bidder
    if phase == BIDDING and st.stage != SWITCH:
        return bidding_opener(st, entries[-1] if entries else None)
    if phase == DOUBLING:
        return defenders(st)[0] if natural_step(st) in (0, 2) else st.bidder
    if phase == DEAL_OVER:
        return (st.dealer + 1) & 3
    if phase == MATCH_OVER:
        return None
    return (st.dealer + 1) & 3


def layout_deals_left_out_cards(st: State, stock_given: bool) -> bool:
    """R1: a layout's left-out cards are still to be dealt (the stock) while the calls go
    on, or at a deal's end that still shows hands and gives no stock; else they were played."""
    if st.phase == DEAL_OVER:
        return any(st.hands) and not stock_given
    return st.phase in (BIDDING, CHOOSE_TRUMP)


def set_played(st: State) -> None:
    """R13: the cards played in this deal's earlier tricks (and ``played_by``'s), and each
    seat's plays (also the table's; ``played_by``'s where the seat is known)."""
    st.played = 0
    st.seat_played = [0, 0, 0, 0]
    for leader, cards, _, _ in st.tricks:
        for k, p in enumerate(cards):
            st.seat_played[(leader + k) & 3] |= 1 << p
            st.played |= 1 << p
    for i, p in enumerate(st.table):
        st.seat_played[(st.leader + i) & 3] |= 1 << p
    for p, seat in st.extra_played:
        st.played |= 1 << p
        if seat >= 0:
            st.seat_played[seat] |= 1 << p


def place_left_out_cards(st: State, stock_given: bool) -> None:
    """R1: the cards a layout puts nowhere go to the stock, or were played by unknown seats
    (``layout_deals_left_out_cards``); a given stock is never added to (the loader then
    refuses the missing cards)."""
    placed = st.played
    for mask in st.hands:
        placed |= mask
    for p in (*st.stock, *st.table):
        placed |= 1 << p
    if st.candidate >= 0 and not st.cand_taken:
        placed |= 1 << st.candidate
    left_out = FULL & ~placed
    if not left_out:
        return
    if not layout_deals_left_out_cards(st, stock_given):
        st.extra_played = tuple(sorted(st.extra_played + tuple((p, -1) for p in slots_of(left_out))))
        st.played |= left_out
    elif not stock_given:
        st.stock = tuple(slots_of(left_out))


def fill_left_out(st: State, values: dict[str, Any], mode: str) -> None:
    """What the decoded ``values`` leave out, worked out on the state ``codec.build`` made
    from them: who played what (``set_played``); each value left out as the rules imply it
    (``natural_*``), after those it depends on; a layout's left-out cards
    (``place_left_out_cards``); then the trick so far and the project sets, which no
    document gives."""
    set_played(st)
    contract = values.get("contract")
    if contract is not None and "taker" not in contract:
        st.taker = natural_taker(st)
    if contract is not None and "last_raiser_team" not in contract:
        st.raiser = natural_raiser(st)
    bidding = values.get("bidding")
    if bidding is not None and "round" not in bidding:
        st.round = natural_round(st)
    if "candidate_taken" not in values:
        st.cand_taken = natural_candidate_taken(st)
    if mode == LAYOUT_MODE:
        place_left_out_cards(st, "stock" in values)
    if "doubling_step" not in values and st.phase == DOUBLING:
        st.dstep = natural_step(st)
    if "to_act" not in values:
        st.to_act = natural_to_act(st, history_list(st, True))
    set_trick_so_far(st)
    # R19: from the cards each seat held when play began; under a contract only (a document
    # in play without one is the checks' to refuse, after this)
    if st.kind and (st.phase == PLAY or (st.phase in (DEAL_OVER, MATCH_OVER) and st.cand_taken)):
        set_project_sets(st)


def settle_layout(st: State) -> None:
    """A layout in phase doubling whose contract allows no call starts play (R9 -> R13)."""
    if (
        st.phase == DOUBLING
        and st.kind == SUN
        and st.mult == 1
        and not sun_double_allowed(st.scores, st.bidder & 1, st.opts)
    ):
        start_play(st)
    if st.phase == PLAY:
        set_project_sets(st)


def set_project_sets(st: State) -> None:
    """R19: each seat's project set, from the cards it held when play began (its hand and
    what it has played); kept until the next deal."""
    st.psets = [project_set(st.hands[s] | st.seat_played[s], st.kind) for s in range(4)]
