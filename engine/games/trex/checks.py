"""Trex checks: what a loaded state must satisfy beyond its JSON shape, because the rules
imply it (the match record, earlier deals replayed, the current deal replayed from its
history). Each check raises InvalidState naming the field at fault."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.protocol import JSON, EngineError, InvalidState

from .rules import check_action, choosable, reset_deal, step
from .state import Entry, TrexState, entries, history_entries_past, kingdom_owner_of
from .tables import (
    ALL,
    CHOOSE,
    CHOOSE_BASE,
    CODES,
    DEAL_OVER,
    DOUBLABLE_MASK,
    DOUBLE,
    DOUBLING,
    LAYOUT,
    MATCH_OVER,
    PASS,
    PHASE_NAMES,
    cards_of,
    deal_total,
)


def check_full_state(s: TrexState, write: Callable[[TrexState], JSON]) -> None:
    """The checks of a full state (not a layout, not a view): its match record, its earlier
    deals when the history holds them all, and its current deal (``check_replay``)."""
    check_match_record(s)
    if holds_whole_match(s):
        check_past_deals(s)
    check_replay(s, write)


def holds_whole_match(s: TrexState) -> bool:
    """Whether the history holds every deal from deal 1 (one contract choice per deal begun).
    A match set up from a layout of a later deal holds only what happened since."""
    begun = s.deal_no - (1 if s.phase == CHOOSE else 0)
    chosen = sum(1 for _, action, _ in history_entries_past(s) + entries(s.played) if is_choose(action))
    return chosen == begun


def is_choose(action: Any) -> bool:
    return type(action) is int and action >= CHOOSE_BASE


def check_match_record(s: TrexState) -> None:
    """R5, R19, S9 on a full state: ``deal_results`` lists finished deals in order, each under
    its kingdom's owner and summing to its contract's total. When the history holds the
    whole match, they are every finished deal and ``match_scores`` is their sum (a match
    set up from a layout may start with results and scores of its own)."""
    finished = s.deal_no - (0 if s.phase in (DEAL_OVER, MATCH_OVER) else 1)
    whole = holds_whole_match(s)
    if whole and len(s.deal_results) != finished:
        raise InvalidState(f"deal_results must list the {finished} finished deals", field="deal_results")
    totals = [0, 0, 0, 0]
    before = 0
    for i, (deal_no, owner, contract, scores) in enumerate(s.deal_results):
        where = f"deal_results[{i}]"
        if not before < deal_no <= finished or owner != kingdom_owner_of(s.first_owner, deal_no, s.opts):
            raise InvalidState(
                f"{where} must be a later finished deal, of its kingdom's owner (R5)", field=where
            )
        if sum(scores) != deal_total(contract, s.opts.swap) * s.opts.sign:
            raise InvalidState(f"{where}: the scores must sum to the contract's total (S9)", field=where)
        totals = [t + v for t, v in zip(totals, scores, strict=True)]
        before = deal_no
    if whole and totals != s.match_scores:
        raise InvalidState("match_scores must be the sum of deal_results", field="match_scores")


def check_past_deals(s: TrexState) -> None:
    """R4-R19 on the earlier deals of a history that holds the whole match: each is replayed
    through the rules' own ``step`` from its public facts (the cards its entries name, the
    rest of the pack making up each seat's 13), so its seats take their turns in order, it
    ends where the next deal begins, and it scores what ``deal_results`` records for it."""
    deals: list[list[tuple[int, Entry]]] = []  # per deal: (index in history, entry)
    for i, e in enumerate(history_entries_past(s)):
        if is_choose(e[1]):
            deals.append([])
        if not deals:
            raise InvalidState("the history begins with the first contract choice", field="history[0]")
        deals[-1].append((i, e))
    for deal_no, deal in enumerate(deals, start=1):
        replay_past_deal(s, deal_no, deal)


def replay_past_deal(s: TrexState, deal_no: int, deal: list[tuple[int, Entry]]) -> None:
    """One deal of ``check_past_deals``; InvalidState names the history entry at fault."""
    t = TrexState(s.opts)  # no generator and no decks: the replay stops at the deal's end
    t.deal_no, t.first_owner, t.dealer = deal_no, s.first_owner, 0
    kingdom = (deal_no - 1) // s.opts.deals_per_kingdom
    t.contracts_used = tuple(
        r[2] for r in s.deal_results[: deal_no - 1] if (r[0] - 1) // s.opts.deals_per_kingdom == kingdom
    )
    reset_deal(t)
    played = [0, 0, 0, 0]
    for i, (seat, action, _) in deal:
        if type(action) is int and action < PASS:
            if (played[0] | played[1] | played[2] | played[3]) >> action & 1:
                raise InvalidState(f"history[{i}]: {CODES[action]} was played before", field=f"history[{i}]")
            played[seat] |= 1 << action
    rest = cards_of(ALL & ~(played[0] | played[1] | played[2] | played[3]))
    for seat in range(4):
        need = 13 - played[seat].bit_count()
        if need < 0:
            raise InvalidState(f"seat {seat} plays more than 13 cards in deal {deal_no}", field="history")
        for c in rest[:need]:
            played[seat] |= 1 << c
        rest = rest[need:]
    t.hands = played
    for n, (i, (seat, action, _)) in enumerate(deal):
        where = f"history[{i}]"
        if t.phase == DEAL_OVER:
            if n != len(deal) - 1 or type(action) is not tuple or seat != t.to_act:
                raise InvalidState(
                    f"{where}: deal {deal_no} is over: only its next dealer deals", field=where
                )
            break
        if seat != t.to_act:
            raise InvalidState(f"{where}: seat {t.to_act} was to act, not {seat}", field=where)
        if not fits_phase(t, action):
            raise InvalidState(f"{where}: not an action of phase {PHASE_NAMES[t.phase]}", field=where)
        step(t, action)
    if t.phase != DEAL_OVER or t.deal_results[-1] != s.deal_results[deal_no - 1]:
        raise InvalidState(
            f"deal_results[{deal_no - 1}] must be what deal {deal_no}'s history scores", field="deal_results"
        )


def fits_phase(t: TrexState, action: Any) -> bool:
    """Whether ``action`` is of the kind the phase takes (R6-R17), as far as the public facts
    of a past deal tell: a contract still free, a doublable card, a card of the seat's."""
    if type(action) is not int:
        return False
    if t.phase == CHOOSE:
        return is_choose(action) and action - CHOOSE_BASE in choosable(t)
    if t.phase == DOUBLING:
        card = action - DOUBLE
        return (
            action == PASS
            or 0 <= card < 52
            and DOUBLABLE_MASK[t.contract] >> card & 1 > 0
            and not t.dbl_mask >> card & 1
        )
    if action == PASS:
        return t.phase == LAYOUT
    return action < PASS and t.hands[t.to_act] >> action & 1 > 0


def check_replay(s: TrexState, write: Callable[[TrexState], JSON]) -> None:
    """A full state's current deal is what its ``played`` entries make of the deal's cards:
    deal the hands back (each seat's cards plus those it played this deal), replay the
    entries through the rules and compare every field. So the seat to act, tricks, layout,
    doubles and deal scores all follow from the history; InvalidState names the first
    field that does not (``write`` is the state's JSON writer). A deal set up from a layout
    mid-way is not replayed."""
    played = entries(s.played)
    if s.phase != CHOOSE and not (played and is_choose(played[0][1])):
        return  # set up from a layout: the deal began before its played entries
    start = TrexState(s.opts)
    start.rng_state, start.decks, start.past, start.past_json = s.rng_state, s.decks, s.past, s.past_json
    start.deal_no, start.dealer, start.first_owner = s.deal_no, s.dealer, s.first_owner
    start.contracts_used = s.contracts_used[:-1] if s.contract >= 0 else s.contracts_used
    start.deal_results, start.match_scores = s.deal_results, s.match_scores[:]
    if s.phase in (DEAL_OVER, MATCH_OVER) and s.deal_results:  # end_deal records the deal again
        start.deal_results = s.deal_results[:-1]
        start.match_scores = [t - v for t, v in zip(s.match_scores, s.deal_results[-1][3], strict=True)]
    reset_deal(start)
    hands = s.hands[:]
    for seat, action, _ in played:
        if type(action) is int and action < PASS:
            hands[seat] |= 1 << action
    dealt = [h.bit_count() for h in hands]
    start.hands = hands
    for i, (seat, action, trick) in enumerate(played):
        where = f"played[{i}]"
        if start.to_act != seat:
            raise InvalidState(f"{where}: seat {start.to_act} was to act, not {seat}", field=where)
        try:
            check_action(start, action)
        except EngineError as err:
            raise InvalidState(f"{where}: {err.message}", field=where) from None
        step(start, action)
        if start.played[1:] != (seat, action, trick):  # the entry step recorded
            raise InvalidState(f"{where}: the trick number must be the trick the card went to", field=where)
    for seat in range(4):  # R2: each seat was dealt 13 cards (checked after the turns)
        if dealt[seat] != 13:
            raise InvalidState(
                f"hands[{seat}] and its plays this deal make {dealt[seat]} cards, not 13",
                field=f"hands[{seat}]",
            )
    want = write(start)
    s.past_json = start.past_json  # the same earlier deals: their JSON is written once
    got = write(s)
    for key in want:
        if want[key] != got[key]:
            raise InvalidState(f"{key} is not what this deal's played entries give", field=key)
