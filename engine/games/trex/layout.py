"""What a Trex layout leaves out, worked out from what it gives (the codec calls
:func:`fill_left_out` after ``codec.build``, for every document: a layout, a partial state
for ``new_state(layout=...)``, may leave out what the rules tell from the rest; a full state
gives it all, and ``checks`` compares). Not a hot module: it runs once per loaded document."""

from __future__ import annotations

from typing import Any

from .rules import trick_winner
from .state import TrexState, kingdom_owner_of
from .tables import (
    ALL,
    CHOOSE,
    DEAL_OVER,
    DOUBLABLE_MASK,
    DOUBLING,
    LAYOUT,
    SEVEN_H,
    TREX,
    TRICKS,
    cards_of,
)


def fill_left_out(s: TrexState, values: dict[str, Any], mode: str) -> None:
    """The fields of ``s`` the decoded ``values`` leave out (a layout many, a full
    state none), from them and what ``codec.build`` put on ``s`` (the deal, hands,
    contract, trick, table, seats out); then the seat to act and the exposed 2s, which no
    document gives. The same in every mode: a full state's fields are all given."""
    s.contracts_used = tuple(values.get("contracts_used", [s.contract] if s.contract >= 0 else []))
    s.phase = values["phase"] if "phase" in values else layout_phase(s, values)
    set_owner_and_dealer(s, values)
    doubling_done = s.phase not in (CHOOSE, DOUBLING) and s.contract >= 0 and s.opts.doubling
    s.doubling_turn = values.get("doubling_turn", 4 if doubling_done and DOUBLABLE_MASK[s.contract] else 0)
    set_leader(s, values)
    set_tricks_won(s, values)
    s.layout_turns = values.get("layout_turns", s.table.bit_count())
    s.twos_exposed = twos_are_exposed(s)
    s.to_act = seat_to_act(s, values.get("to_act", s.owner) if s.phase == LAYOUT else -1)


def layout_phase(s: TrexState, given: dict[str, Any]) -> int:
    """A layout without a phase: the contract's first phase, or tricks once doubling is done."""
    if s.contract < 0:
        return CHOOSE
    if s.contract == TREX:
        return LAYOUT
    doubling = given.get("doubling_turn", 0) != 4 and not s.trick and not given.get("tricks_played")
    return DOUBLING if s.opts.doubling and DOUBLABLE_MASK[s.contract] and doubling else TRICKS


def set_owner_and_dealer(s: TrexState, given: dict[str, Any]) -> None:
    """The first kingdom's owner (a layout may give it through the kingdom owner, the 7H in
    deal 1 (R3) or the dealer) and the dealer (R4: the kingdom owner from deal 2 on)."""
    k = (s.deal_no - 1) // s.opts.deals_per_kingdom
    if "first_owner" in given:
        s.first_owner = given["first_owner"]
    elif "kingdom_owner" in given:
        s.first_owner = (given["kingdom_owner"] - k) & 3
    elif s.deal_no == 1:
        s.first_owner = next((i for i in range(4) if s.hands[i] >> SEVEN_H & 1), 0)
    elif "dealer" in given:
        s.first_owner = (given["dealer"] - k) & 3
    s.dealer = given.get("dealer", s.owner if s.deal_no > 1 else 0)


def set_leader(s: TrexState, given: dict[str, Any]) -> None:
    """The trick's leader: its first card's seat, or for an empty trick ``trick_leader_given``."""
    if s.phase != TRICKS:
        s.leader = s.owner
        return
    leader = given["trick"][0][0] if s.trick else trick_leader_given(s, given)
    s.leader = leader if leader >= 0 else s.owner  # none given: check_trick refuses it
    if s.trick:
        s.best, s.best_seat = trick_winner(s.trick, s.leader)


def trick_leader_given(s: TrexState, given: dict[str, Any]) -> int:
    """The leader of a layout's empty trick: ``trick_leader``, else the seat to act (-1: null)."""
    return given.get("trick_leader", given.get("to_act", s.owner))  # type: ignore[no-any-return]


def set_tricks_won(s: TrexState, given: dict[str, Any]) -> None:
    """The cards and tricks won and the tricks played. A layout may give only some of them:
    without cards won, every card out of sight went in the leader's earlier tricks."""
    tricks_given = given.get("tricks_won")
    cards_won = given.get("cards_won")
    tricks_won = tricks_given
    if cards_won is not None and tricks_won is None:
        tricks_won = [m.bit_count() // 4 for m in cards_won]
    if s.contract == TREX or s.phase in (CHOOSE, DOUBLING):
        cards_won, tricks_won = [0, 0, 0, 0], [0, 0, 0, 0]  # none won: check_tricks_won
    tricks_played = given.get("tricks_played", None if tricks_given is None else sum(tricks_given))
    if cards_won is None:
        seen = s.hands[0] | s.hands[1] | s.hands[2] | s.hands[3] | s.table
        for c in s.trick:
            seen |= 1 << c
        missing = cards_of(ALL & ~seen)
        if tricks_played is None:
            tricks_played = len(missing) // 4
        if tricks_won is None:
            tricks_won = [0, 0, 0, 0]
            tricks_won[s.leader] = tricks_played
        cards_won, pos = [0, 0, 0, 0], 0
        for i in range(4):
            for c in missing[pos : pos + 4 * tricks_won[i]]:
                cards_won[i] |= 1 << c
            pos += 4 * tricks_won[i]
    assert tricks_won is not None  # given, or from the cards won, or by the shorthand
    s.tricks_won, s.cards_won = tricks_won, cards_won
    s.tricks_played = sum(tricks_won) if tricks_played is None else tricks_played
    s.taken = cards_won[0] | cards_won[1] | cards_won[2] | cards_won[3]


def twos_are_exposed(s: TrexState) -> bool:
    """R18: in partnership trex the 2s are exposed once each seat has had a layout turn."""
    return s.opts.partnership and s.contract == TREX and s.layout_turns >= 4


def seat_to_act(s: TrexState, layout_turn: int) -> int:
    """R6-R17, E3: the seat to act (-1: none); in trex the seat whose turn it is, which the
    rules cannot tell from the rest of a state (``layout_turn``)."""
    phase = s.phase
    if phase == CHOOSE:
        return s.owner
    if phase == DOUBLING:
        return (s.owner + s.doubling_turn) & 3
    if phase == TRICKS:
        return (s.leader + len(s.trick)) & 3
    if phase == LAYOUT:
        return layout_turn
    if phase == DEAL_OVER and s.deal_no < s.opts.total_deals:
        return kingdom_owner_of(s.first_owner, s.deal_no + 1, s.opts)
    return -1
