"""Trex checks: what a loaded state must satisfy beyond its JSON shape, because the rules
imply it. ``check_state``, which the codec runs on every state, layout and view template
it reads, runs the checks of one rule each (cards in one place and conserved, contracts,
phase, seat to act, dealer, doubles, trick, layout, tricks won, seats out, 7H, deal
scores, history) and, on a full state, ``check_full_state``: the match record, the
earlier deals and the current deal replayed from the history. Each check raises
InvalidState naming the field at fault."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.codec import STATE, refuse
from engine.protocol import JSON, EngineError, InvalidState

from .layout import trick_leader_given
from .rules import (
    check_action,
    choosable,
    doubled_value_most,
    reset_deal,
    s9_short_allowed,
    step,
)
from .scoring import penalty_value
from .state import Entry, TrexState, entries, history_entries_past, kingdom_owner_of
from .tables import (
    ALL,
    CHOOSE,
    CHOOSE_BASE,
    CODES,
    CONTRACT_NAMES,
    DEAL_OVER,
    DOUBLABLE_MASK,
    DOUBLE,
    DOUBLING,
    HEARTS,
    LAYOUT,
    MATCH_OVER,
    PASS,
    PHASE_NAMES,
    SEQ_J,
    SEVEN_H,
    SINGLE_VALUE,
    SUITS_ORDER,
    TREX,
    TRICKS,
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
    # a state holds its current deal only (issue 33): a record of every finished deal is
    # the whole match's too
    whole = holds_whole_match(s) or len(s.deal_results) == finished
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
        short = deal_total(contract, s.opts.swap) * s.opts.sign - sum(scores)
        if short and not s9_short_allowed(s.opts, short, doubled_value_most(contract)):
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


# ================================================================ a loaded state, one rule each
def check_state(s: TrexState, values: dict[str, Any], mode: str, write: Callable[[TrexState], JSON]) -> None:
    """Every rule-implied check of a state the codec read in ``mode`` (``values``: the decoded
    fields; ``write``: the state's JSON writer, for the replay of a full state)."""
    counts = [h.bit_count() for h in s.hands]
    trick_seats = [seat for seat, _ in values["trick"]]
    check_layout_runs(values["layout"], s.opts.start_seq)
    check_cards_apart(s)
    check_contracts_known(s)
    check_contracts_used(s)
    check_phase(s)
    check_to_act(s)
    check_dealer(s)
    check_doubles(s)
    check_trick(s, trick_seats, values.get("trick_leader"), trick_leader_given(s, values))
    check_layout(s)
    check_tricks_won(s, values.get("cards_won"), values.get("tricks_won"))
    check_cards_conserved(s, counts, trick_seats)
    check_doubled_cards_held(s)
    check_finish_order(s, counts)
    check_first_owner_holds_7h(s)
    check_deal_scores(s)
    check_history_ends_with_played(values.get("history"), values["played"])
    if mode == STATE:
        check_full_state(s, write)


def check_cards_apart(s: TrexState) -> None:
    """R2: a hand holds at most 13 cards, and no card is in two places (hands, the trick,
    the layout, the cards won)."""
    seen = 0
    for i, hand in enumerate(s.hands):
        if hand.bit_count() > 13:
            raise refuse(f"hands[{i}]", "holds more than 13 cards")
        if hand & seen:
            raise refuse(f"hands[{i}]", "a card is in two places")
        seen |= hand
    for c in s.trick:
        if seen >> c & 1:
            raise refuse("trick", f"{CODES[c]} is in two places")
        seen |= 1 << c
    if s.table & seen:
        raise refuse("layout", "a layout card is also in a hand or trick")
    seen |= s.table
    for i, won in enumerate(s.cards_won):
        if won & seen:
            raise refuse(f"cards_won[{i}]", "a card is in two places")
        seen |= won


def check_contracts_known(s: TrexState) -> None:
    """R6, R6b: every contract named is one of the options' contract set."""
    named = [("contract", s.contract)] if s.contract >= 0 else []
    named += [(f"contracts_used[{i}]", c) for i, c in enumerate(s.contracts_used)]
    named += [(f"deal_results[{i}].contract", r[2]) for i, r in enumerate(s.deal_results)]
    for where, c in named:
        if c not in s.opts.contract_set:
            raise refuse(where, f"unknown contract {CONTRACT_NAMES[c]!r} for these options")


def check_contracts_used(s: TrexState) -> None:
    """R6: each contract once per kingdom, the current one last, one per deal of the kingdom so far."""
    used = s.contracts_used
    if len(set(used)) != len(used):
        raise refuse("contracts_used", "lists a contract twice")
    if s.contract >= 0 and (not used or used[-1] != s.contract):
        raise refuse("contracts_used", "must end with the current contract")
    position = (s.deal_no - 1) % s.opts.deals_per_kingdom
    if len(used) != position + (1 if s.contract >= 0 else 0):
        raise refuse(
            "contracts_used",
            f"must list {position + (s.contract >= 0)} contracts at deal {s.deal_no} "
            f"(deal {position + 1} of its kingdom)",
        )


def check_phase(s: TrexState) -> None:
    """R6, R7, R14, E3: the phase fits the contract (a doubling phase only where a card may be
    doubled, the layout only in trex) and the match ends only after its last deal."""
    phase, contract = s.phase, s.contract
    if (phase == CHOOSE) != (contract < 0):
        raise refuse("contract", "must be null exactly in phase choose_contract")
    if phase == DOUBLING and not (s.opts.doubling and DOUBLABLE_MASK[contract]):
        raise refuse("phase", f"no doubling phase in {CONTRACT_NAMES[contract]}")
    if phase in (DOUBLING, TRICKS) and contract == TREX or phase == LAYOUT and contract != TREX:
        raise refuse("phase", f"phase {PHASE_NAMES[phase]} does not fit contract {CONTRACT_NAMES[contract]}")
    if phase == MATCH_OVER and s.deal_no != s.opts.total_deals:
        raise refuse("phase", "match_over only after the last deal")


def check_dealer(s: TrexState) -> None:
    """R4: from deal 2 on the kingdom owner deals."""
    if s.deal_no > 1 and s.dealer != s.owner:
        raise refuse("dealer", f"must be the kingdom owner {s.owner} from deal 2 on (R4)")


def check_doubles(s: TrexState) -> None:
    """R7: only a contract's doublable cards are doubled, only with the doubling option and
    only by a seat that has had its doubling turn; the doubling turn fits the phase."""
    for card, _ in s.doubled:
        if s.contract < 0 or not DOUBLABLE_MASK[s.contract] >> card & 1 or not s.opts.doubling:
            raise refuse("doubled", f"{CODES[card]} cannot be doubled here")
    phase = s.phase
    if phase == DOUBLING and s.doubling_turn == 4 or phase == CHOOSE and (s.doubling_turn or s.doubled):
        raise refuse("doubling_turn", "does not fit the phase")
    if phase == DOUBLING:
        had_turn = {(s.owner + i) & 3 for i in range(s.doubling_turn + 1)}
        for _, d in s.doubled:
            if d not in had_turn:
                raise refuse("doubled", f"seat {d} has not had its doubling turn yet (R7)")


def check_trick(s: TrexState, trick_seats: list[int], trick_leader: int | None, led_by: int) -> None:
    """R8: a trick on the table holds 0 to 3 cards (the 4th ends it), only in phase tricks;
    its seats follow each other from its leader, who is ``trick_leader`` when given (None:
    not given; -1: null, as outside phase tricks); an empty trick has a leader (``led_by``)."""
    if len(s.trick) > 3 or s.trick and s.phase != TRICKS:
        raise refuse("trick", "holds 0 to 3 cards, only in phase tricks")
    if s.phase != TRICKS:
        if trick_leader is not None and trick_leader >= 0:
            raise refuse("trick_leader", "is null outside phase tricks")
        return
    if not s.trick and led_by < 0:
        raise refuse("trick_leader", "must be a seat in phase tricks")
    for i, seat in enumerate(trick_seats):
        if seat != (s.leader + i) & 3:
            raise refuse("trick", "trick seats must follow each other from the leader")
    if trick_leader is not None and trick_leader != s.leader:
        raise refuse("trick_leader", "must be the seat of the trick's first card")


def check_layout_runs(runs: tuple[tuple[int, int] | None, ...], start: int = SEQ_J) -> None:
    """R15: a suit's run on the layout grows from its jack (or its seven, section 11), so it
    holds it; from the sevens, the hearts open first (the seven of hearts opens the layout)."""
    word = "jack" if start == SEQ_J else "seven"
    for suit, run in enumerate(runs):
        if run is not None and not run[0] <= start <= run[1]:
            raise refuse(
                f"layout.{SUITS_ORDER[suit]}", f"a range runs from low up to high through the {word}"
            )
    if start != SEQ_J and runs[HEARTS] is None and any(run is not None for run in runs):
        raise refuse("layout.H", "the seven of hearts opens the layout (trex_layout_start: sevens)")


def check_layout(s: TrexState) -> None:
    """R14, R16: only the trex contract has a layout, and each card on it took a turn."""
    if s.table and s.contract != TREX:
        raise refuse("layout", "only the trex contract has a layout")
    if s.layout_turns < s.table.bit_count():
        raise refuse("layout_turns", "is less than the cards on the layout")


def check_tricks_won(s: TrexState, cards_won: list[int] | None, tricks_won: list[int] | None) -> None:
    """R12: no trick is won in trex, nor before the tricks begin (``cards_won``,
    ``tricks_won``: as given, None if not); the tricks played are the tricks won, of 4
    cards each."""
    if s.contract == TREX or s.phase in (CHOOSE, DOUBLING):
        if cards_won is not None and any(cards_won) or tricks_won is not None and any(tricks_won):
            raise refuse("tricks_won", "no tricks are won in this phase or contract")
    if sum(s.tricks_won) != s.tricks_played:
        raise refuse("tricks_played", "must be the sum of tricks_won")
    for i in range(4):
        if s.cards_won[i].bit_count() != 4 * s.tricks_won[i]:
            raise refuse(f"cards_won[{i}]", "must hold 4 cards per trick won")


def check_cards_conserved(s: TrexState, counts: list[int], trick_seats: list[int]) -> None:
    """R2: every card is once in hands, trick, cards won or layout, 13 in each hand before
    play, and in a trick contract 13 less the tricks played (and the card on the trick) after."""
    seen = s.hands[0] | s.hands[1] | s.hands[2] | s.hands[3] | s.table | s.taken
    found = seen.bit_count() + len(s.trick)
    if found != 52:
        raise refuse(
            "hands",
            f"every card must be exactly once in hands, trick, cards_won or layout ({found} of 52 found)",
        )
    if s.phase in (CHOOSE, DOUBLING) and any(n != 13 for n in counts):
        raise refuse("hands", "each hand holds 13 cards before play")
    if s.contract != TREX and s.phase in (TRICKS, DEAL_OVER, MATCH_OVER):
        for i in range(4):
            want = 13 - s.tricks_played - (1 if i in trick_seats else 0)
            if counts[i] != want:
                raise refuse(f"hands[{i}]", f"must hold {want} cards after {s.tricks_played} tricks")


def check_doubled_cards_held(s: TrexState) -> None:
    """R7: a doubled card stays with its doubler until played."""
    played = s.taken
    for c in s.trick:
        played |= 1 << c
    for card, doubler in s.doubled:
        if not (s.hands[doubler] | played) >> card & 1:
            raise refuse("doubled", f"doubled {CODES[card]} is not in its doubler's hand")


def check_finish_order(s: TrexState, counts: list[int]) -> None:
    """R17: each seat goes out once, only in trex; during trex the seats out are the seats
    without cards, at most two (the third ends the deal); a finished trex deal ranks all four."""
    fo = s.finish_order
    if len(set(fo)) != len(fo):
        raise refuse("finish_order", "lists a seat twice")
    if fo and s.contract != TREX:
        raise refuse("finish_order", "is only for the trex contract")
    if s.contract == TREX and s.phase == LAYOUT:
        if len(fo) > 2:
            raise refuse("finish_order", "the deal ends when three seats are out (R17)")
        for i in range(4):
            if (counts[i] == 0) != (i in fo):
                raise refuse("finish_order", "must list exactly the seats without cards")
    if s.contract == TREX and s.phase in (DEAL_OVER, MATCH_OVER) and len(fo) != 4:
        raise refuse("finish_order", "a finished trex deal has all four seats in finish_order")


def check_to_act(s: TrexState) -> None:
    """R16, R17: in trex a seat still holding cards is to act; E3: no deal follows the last."""
    if s.phase == LAYOUT and s.to_act < 0:
        raise refuse("to_act", "must be a seat in phase layout")
    if s.phase == LAYOUT and not s.hands[s.to_act]:
        raise refuse("to_act", "has gone out")
    if s.phase == DEAL_OVER and s.to_act < 0:
        raise refuse("phase", "deal_over cannot follow the last deal")


def check_first_owner_holds_7h(s: TrexState) -> None:
    """R3: in deal 1 the holder of 7H owns the first kingdom."""
    if s.deal_no != 1:
        return
    holder = next((i for i in range(4) if s.hands[i] >> SEVEN_H & 1), None)
    if holder is not None and holder != s.first_owner:
        raise refuse("first_owner", "in deal 1 the first owner is the holder of 7H (R3)")


def check_deal_scores(s: TrexState) -> None:
    """S9: the deal's scores sum to what the cards taken cost (the bonuses once trex is over)."""
    contract, opts = s.contract, s.opts
    if contract == TREX:
        want = deal_total(TREX, opts.swap) if s.phase != LAYOUT else 0
    elif contract >= 0:
        want = -penalty_value(s, s.taken)
    else:
        want = 0
    want *= opts.sign
    short = want - sum(s.deal_scores)
    taken_doubled = sum(SINGLE_VALUE[card] for card, _ in s.doubled if s.taken >> card & 1)
    if short and not s9_short_allowed(opts, short, taken_doubled):
        raise refuse("deal_scores", f"must sum to {want} for the cards taken (S9)")


def check_history_ends_with_played(history: list[tuple[int, Any]] | None, played: list[Entry]) -> None:
    """The match history (None: not given) ends with this deal's entries."""
    if history is None:
        return
    tail = history[len(history) - len(played) :]
    if len(played) > len(history) or tail != [e[:2] for e in played]:
        raise refuse("history", "must end with this deal's played entries")
