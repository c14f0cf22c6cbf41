"""What a loaded Baloot state must satisfy beyond its JSON shape: the rule-implied checks.

``codec`` reads a document's shape into a :class:`State`; the functions here then check
that the state is one the rules can reach (cards conserved, the contract and the phase
agreeing, hand sizes, the seat to act replayed from the history, projects, the match end
...), each refusing with the shared codec's wording (``refuse(field, problem)``).
``check_loaded`` runs them in order (the values a rule implies for a field, which a layout
may leave out, are ``layout.natural_*``). A few checks read the document's decoded values
too, for fields the state does not keep (the declarer team, table seats).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.checks import as_current_deal
from engine.codec import refuse
from engine.games.baloot.layout import bidding_opener, natural_raiser, natural_step, natural_taker
from engine.games.baloot.projects import compare_declared
from engine.games.baloot.rules import (
    defenders,
    legal_actions,
    slots_of,
    step,
    trick_state,
)
from engine.games.baloot.scoring import match_winner_after
from engine.games.baloot.state import State, reset_deal_calls
from engine.games.baloot.tables import (
    BIDDING,
    CHOOSE_TRUMP,
    CLASS_NAMES,
    CODE,
    DEAL_OVER,
    DOUBLE_STEP,
    DOUBLING,
    FIRST_HAND,
    FOUR_STEP,
    FULL_HAND,
    HOKM,
    MAIN,
    MATCH_OVER,
    NSLOTS,
    PASS,
    PHASE_NAMES,
    PLAY,
    POINTS,
    STOCK_SIZE,
    SUIT_OF,
    SUN,
    SWITCH,
)

Entries = list[tuple[int, Any]]
"""This deal's history entries (seat, action), oldest first."""


# --------------------------------------------------------------------------- cards


def check_each_card_once(placed: list[tuple[int, str]]) -> None:
    """R1: no card lies in two places (``placed``: each card read, where, in reading order)."""
    owner: dict[int, str] = {}
    for p, where in placed:
        if p in owner:
            raise refuse(where, f"card {CODE[p]} appears twice ({owner[p]} and {where})")
        owner[p] = where


def check_cards(st: State, values: Mapping[str, Any], layout: bool) -> None:
    """R1: every card in one place: none twice (named where it is read the second time,
    ``values`` giving the document's order), none missing (``layout.place_left_out_cards``
    has placed a layout's left-out cards, unless the layout gives its stock)."""
    placed = [(p, f"hands[{s}]") for s, hand in enumerate(st.hands) for p in slots_of(hand)]
    if st.candidate >= 0 and not st.cand_taken:
        placed.append((st.candidate, "candidate"))
    placed += [(p, "stock") for p in values.get("stock", ())]
    placed += [(p, f"table[{i}]") for i, p in enumerate(st.table)]
    placed += [(p, f"tricks[{i}]") for i, trick in enumerate(st.tricks) for p in trick[1]]
    extra = dict(st.extra_played)
    placed += [(p, "played_by") for p, _ in values["played_by"] if p in extra]
    check_each_card_once(placed)
    seen = {p for p, _ in placed}.union(st.stock, extra)
    missing = [p for p in range(NSLOTS) if p not in seen]
    if missing and layout:
        raise refuse("stock", f"card {CODE[missing[0]]} is nowhere")
    check_nothing_missing(missing)


def check_hidden_counts(hidden: int, unseen: list[int]) -> None:
    """A view's hidden hands and stock count exactly the cards it does not show."""
    if hidden != len(unseen):
        raise refuse("hands", "the view's hidden card counts do not match the unseen cards")


def check_nothing_missing(missing: list[int]) -> None:
    """R1: every card of the pack is somewhere."""
    if missing:
        raise refuse("hands", f"card {CODE[missing[0]]} is missing")


# --------------------------------------------------------------------------- the calls


def check_contract(st: State, contract: Mapping[str, Any] | None) -> None:
    """R7, R8, R11, R12: the contract's fields agree (``contract``: its decoded keys, for
    the declarer team the state does not keep)."""
    if contract is None:
        return
    if st.kind == HOKM and st.trump < 0 and st.phase != CHOOSE_TRUMP:
        raise refuse("contract.trump", "must name a suit in hokm")
    if st.kind == SUN and st.trump >= 0:
        raise refuse("contract.trump", "must be S, H, D or C (hokm only)")
    if st.ashkal and st.kind != SUN:
        raise refuse("contract.ashkal", "is a sun contract")
    if st.taker != natural_taker(st):
        raise refuse("contract.taker", "must be the bidder (or his partner in ashkal)")
    if contract.get("declarer_team") not in (None, st.bidder & 1):
        raise refuse("contract.declarer_team", "must be the bidder's team")
    if st.kind == SUN and (st.mult > 2 or st.locked or st.gahwa):
        raise refuse("contract.multiplier", "a sun contract is at most doubled, never locked, no gahwa")
    if st.gahwa and st.mult != 4:
        raise refuse("contract.gahwa", "gahwa follows a four")
    if st.raiser != natural_raiser(st):
        raise refuse("contract.last_raiser_team", "does not match the multiplier")


def check_contract_fits_phase(st: State) -> None:
    """R7, R8: a contract exists from choose_trump on, never during bidding; choose_trump
    waits for a Hokm's trump."""
    phase = st.phase
    if phase in (CHOOSE_TRUMP, DOUBLING, PLAY) and not st.kind:
        raise refuse("contract", f"phase {PHASE_NAMES[phase]} needs a contract")
    if phase == BIDDING and st.kind:
        raise refuse("contract", "no contract during bidding")
    if phase == CHOOSE_TRUMP and (st.kind != HOKM or st.trump >= 0):
        raise refuse("contract.trump", "choose_trump needs a hokm contract without trump")


def check_sun_window(st: State) -> None:
    """R3, R5, R6: a Sun window or a switch follows a Hokm bid."""
    if st.stage != MAIN and st.hokm_bidder < 0:
        raise refuse("bidding.hokm_bidder", "a sun window needs the hokm bidder")


def check_candidate_taken(st: State) -> None:
    """R9: the candidate goes to the taker once the contract is fixed."""
    if st.cand_taken and st.candidate >= 0 and st.phase in (BIDDING, CHOOSE_TRUMP):
        raise refuse("candidate_taken", "the candidate is taken only after bidding")


# --------------------------------------------------------------------------- the tricks


def check_table(st: State, table: list[tuple[int | None, int]]) -> None:
    """R13: the table's cards were played round from the leader (``table``: the decoded
    (seat, card) plays, seat None for a layout's bare card)."""
    if st.table and st.leader < 0:
        raise refuse("leader", "a table needs a leader")
    for i, (seat, _) in enumerate(table):
        if seat is not None and seat != (st.leader + i) & 3:
            raise refuse(f"table[{i}]", "seat must follow the leader in order")
    if st.lead_ekka and (not st.table or st.kind != HOKM):
        raise refuse("lead_ekka", "needs a hokm lead on the table")


def check_trick_winners(st: State) -> None:
    """R13: each finished trick names the seat that won it."""
    if not st.kind:
        return
    for i, (leader, cards, winner, _) in enumerate(st.tricks):
        if winner != (leader + trick_state(st.kind, st.trump, cards)[0]) & 3:
            raise refuse(f"tricks[{i}].winner", "is not the trick's winner")


def check_hand_sizes(st: State) -> None:
    """R1, R9, R13: the hands, stock and tricks hold what the phase deals out."""
    phase = st.phase
    sizes = [h.bit_count() for h in st.hands]
    nstock = len(st.stock)
    if phase in (BIDDING, CHOOSE_TRUMP):
        if sizes != [FIRST_HAND] * 4 or nstock != STOCK_SIZE or st.candidate < 0:
            raise refuse(
                "hands", "during bidding every hand holds 5 cards, the stock 11, and the candidate is up"
            )
        if st.trick_no != 1 or st.table or st.tricks or st.played:
            raise refuse("trick_no", "no card is played during bidding")
    elif phase == DOUBLING:
        if sizes != [FULL_HAND] * 4 or nstock:
            raise refuse("hands", "after the deal is completed every hand holds 8 cards")
    elif phase == PLAY:
        if not 1 <= st.trick_no <= 8 or st.leader < 0:
            raise refuse("trick_no", "play needs trick_no 1-8 and a leader")
        want = [
            FULL_HAND - (st.trick_no - 1) - (1 if (s - st.leader) & 3 < len(st.table) else 0)
            for s in range(4)
        ]
        if sizes != want or nstock:
            raise refuse("hands", f"in trick {st.trick_no} the hands must hold {want} cards")
        if st.played.bit_count() != 4 * (st.trick_no - 1):
            raise refuse("tricks", "earlier tricks must hold 4 cards each")
    elif not (sizes == [0] * 4 and nstock == 0) and not (
        sizes == [FIRST_HAND] * 4 and nstock == STOCK_SIZE and not st.cand_taken
    ):
        raise refuse("hands", "after a deal the hands are empty (or the annulled deal's cards stay put)")


def check_taker_holds_candidate(st: State, hidden_seats: list[int]) -> None:
    """R9: the taker holds (or has played) the candidate."""
    if (
        (
            st.cand_taken
            and st.candidate >= 0
            and st.phase in (DOUBLING, PLAY)
            and st.taker not in hidden_seats
        )
        and not ((st.hands[st.taker] | st.seat_played[st.taker]) >> st.candidate & 1)
        and not (st.played >> st.candidate & 1 and (st.candidate, -1) in st.extra_played)
    ):
        raise refuse("candidate", "the taker must hold the candidate")


def check_turn_fits_phase(st: State) -> None:
    """E2, R13: nobody acts once the match is over; in play, the trick's next seat acts."""
    if st.phase == MATCH_OVER:
        if st.to_act is not None:
            raise refuse("to_act", "is null once the match is over")
    elif st.to_act is None:
        raise refuse("to_act", "must be a seat 0-3")
    if st.phase == PLAY and st.to_act != (st.leader + len(st.table)) & 3:
        raise refuse("to_act", "must be the next seat of the trick")


def check_tricks_won(st: State) -> None:
    """R13: no more tricks are won than were played."""
    if sum(st.tricks_won) > (8 if st.phase != PLAY else st.trick_no - 1):
        raise refuse("tricks_won", "counts more tricks than were played")


# --------------------------------------------------------------------------- projects, baloot, the end


def check_declared_held(st: State, hidden_seats: list[int]) -> None:
    """R19, R20: a seat declares the class of the best project it holds."""
    if any(s < 0 for _, s in st.extra_played):
        return  # a layout's cards played by unknown seats: the sets cannot be known
    for s in range(4):
        declared = st.declared[s]
        if declared and s not in hidden_seats and (not st.psets[s][0] or st.psets[s][0][0][0][0] != declared):
            raise refuse("projects.declared", f"seat {s} has no {CLASS_NAMES[declared]} to declare")


def check_declare_done(st: State, hidden_seats: list[int]) -> None:
    """R20: ``declare_done`` marks the seat to act's decision on its project in trick 1."""
    in_trick_1 = st.phase == PLAY and st.trick_no == 1
    to_act = st.to_act
    if st.decided and not (in_trick_1 and (st.psets[to_act][0] or to_act in hidden_seats)):  # type: ignore[index]
        raise refuse("projects.declare_done", "only for a trick-1 project decision")
    if st.declared[to_act or 0] and in_trick_1 and not st.decided:
        raise refuse("projects.declare_done", "a seat that declared has decided")


def check_shown_sets(st: State, hidden_seats: list[int]) -> None:
    """R22: a seat shows exactly its project set."""
    if any(s < 0 for _, s in st.extra_played):
        return
    for s, groups in enumerate(st.shown):
        if groups is not None and s not in hidden_seats and groups != tuple(m for _, m in st.psets[s][0]):
            raise refuse("projects.shown", f"seat {s} shows what is not its project set")


def check_baloot(st: State) -> None:
    """R23: each seat scores the baloot once, in Hokm only."""
    if len(set(st.baloot)) != len(st.baloot) or (st.baloot and st.kind != HOKM):
        raise refuse("baloot", "lists distinct seats, in hokm only")


def check_match_winner_given(st: State) -> None:
    """E2: the match winner is named once the match is over, and only then."""
    if st.phase == MATCH_OVER and st.match_winner < 0:
        raise refuse("match_winner", "must be 0 or 1 once the match is over")
    if st.phase != MATCH_OVER and st.match_winner >= 0:
        raise refuse("match_winner", "only once the match is over")


def check_result_adds_up(st: State) -> None:
    """S8: the last deal's items add up to its award per team."""
    res = st.result
    if res is None:
        return
    sums = [0, 0]
    for item in res["items"]:
        sums[item["side"]] += item["points"]
    if sums != res["adds"]:
        raise refuse("last_deal", "items must add up to adds")


# --------------------------------------------------------------------------- the turn and the history


def check_turn(st: State, entries: Entries) -> None:
    """The seat to act is one the phase allows (R2-R12, E1): once the deal has calls, the
    one its last call passes the turn to; in a bidding without calls, the first seat of the
    round (a layout that starts later in a round gives the calls before in its history)."""
    phase = st.phase
    to_act = st.to_act
    last = entries[-1] if entries else None
    want: set[int | None]
    if phase == BIDDING:
        h = st.hokm_bidder
        if st.stage == SWITCH:
            want = {h}
        else:
            if st.stage == MAIN:
                want = {0, 1, 2, 3}
            elif st.round == 1:  # R3: h+1, h+2, h+3
                want = {(h + k) & 3 for k in (1, 2, 3)}
            else:  # R5: the seats after h up to the dealer
                want = {(h + k) & 3 for k in range(1, (st.dealer - h) % 4 + 1)}
            opening = bidding_opener(st, last)
            if last is None and to_act != opening:
                raise refuse(
                    "to_act",
                    f"seat {opening} opens the bidding (R2, R3, R5): a layout that starts later gives "
                    "the calls before in its history",
                )
            want &= {opening}
    elif phase == CHOOSE_TRUMP:
        want = {st.bidder}
    elif phase == DOUBLING:
        first, second = defenders(st)
        if st.dstep in (DOUBLE_STEP, FOUR_STEP):
            want = {first, second}
            if to_act == second and last is not None and last != (first, PASS):
                raise refuse("to_act", f"seat {second} is asked only after seat {first} passed (R11)")
        else:
            want = {st.bidder}
    elif phase == DEAL_OVER:
        want = {(st.dealer + 1) & 3}
    else:
        return  # play: checked against the trick; match over: null
    if to_act not in want:
        raise refuse("to_act", f"seat {to_act} is not the seat to act in this position")


_CALL_FIELDS = tuple(
    "phase round stage hokm_bidder kind trump ashkal bidder taker mult locked gahwa dstep".split()
)


def check_replayed_turn(st: State, entries: Entries) -> None:
    """R2-R12: during the calls, the seat to act is the one the engine's own rules give
    after this deal's calls, replayed from the deal's opening at the dealer's left. A deal
    a layout set up may have begun before its history: when the replay does not lead to
    the same calls position (phase, stage, contract, doubling step...), it is not the
    deal's whole history and only the bounds of ``check_turn`` apply."""
    if not entries or st.phase not in (BIDDING, CHOOSE_TRUMP, DOUBLING):
        return
    replay = st.clone()
    replay.stock = ()  # the cards the contract deals out are in the hands already
    reset_deal_calls(replay)
    replay.phase = BIDDING
    replay.to_act = bidding_opener(replay, None)
    for seat, action in entries:
        if replay.phase not in (BIDDING, CHOOSE_TRUMP, DOUBLING) or seat != replay.to_act:
            return
        if action not in legal_actions(replay):
            return
        step(replay, action)
    same_position = all(getattr(replay, name) == getattr(st, name) for name in _CALL_FIELDS)
    if same_position and replay.to_act != st.to_act:
        raise refuse("to_act", f"seat {replay.to_act} is to act after this deal's calls (R2-R12)")


def check_play_entries(st: State, entries: Entries) -> None:
    """R13: this deal's plays in the history are the cards of its tricks and of the table,
    each by the seat whose turn it was (the trick's leader, then round the table). A deal
    a layout set up may have begun before its history: then the history holds the last
    of them."""
    if st.phase != PLAY:
        return
    made = [((lead + i) & 3, card) for lead, cards, _, _ in st.tricks for i, card in enumerate(cards)]
    made += [((st.leader + i) & 3, card) for i, card in enumerate(st.table)]
    plays = [(seat, action & 31) for seat, action in entries if type(action) is int and action < PASS]
    if len(plays) > len(made) or plays != made[len(made) - len(plays) :]:
        raise refuse(
            "history", "the plays must be the tricks' cards, each by the seat whose turn it was (R13)"
        )


def check_bidding(st: State) -> None:
    """The bidding record fits the phase and the contract (R2-R8, R11)."""
    phase = st.phase
    if phase == BIDDING and st.stage == MAIN and st.hokm_bidder >= 0:
        raise refuse("bidding.hokm_bidder", "is set only once a hokm is bid")
    if phase == CHOOSE_TRUMP and (st.round != 2 or st.hokm_bidder != st.bidder):
        raise refuse("bidding", "choose_trump follows a round-2 hokm by the bidder (R8)")
    if st.kind == HOKM and st.trump >= 0 and st.candidate >= 0:
        candidate_suit = SUIT_OF[st.candidate] == st.trump
        if candidate_suit != (st.round == 1):
            raise refuse(
                "contract.trump",
                "a round-1 hokm has the candidate's suit as trumps, a round-2 hokm another suit (R7, R8)",
            )
    if phase == DOUBLING and st.dstep != natural_step(st):
        raise refuse("doubling_step", "does not follow the contract's multiplier")


def check_play_counts(st: State) -> None:
    """During play, tricks_won and card_points are what the listed tricks give (R13)."""
    if st.phase != PLAY or st.extra_played or len(st.tricks) != st.trick_no - 1:
        return
    won = [0, 0]
    points = [0, 0]
    values = POINTS[st.trump + 1]
    for _, cards, winner, _ in st.tricks:
        won[winner & 1] += 1
        points[winner & 1] += sum(values[p] for p in cards)
    if st.tricks_won != won:
        raise refuse("tricks_won", f"must be {won} after these tricks")
    if st.card_points != points:
        raise refuse("card_points", f"must be {points} after these tricks")


def check_projects(st: State, exact: bool) -> None:
    """Projects follow trick 1 (R20-R22): nothing before play; in trick 1 only declarations
    by seats that came to play; after it the comparison's team and reveals (``exact``:
    when every seat's cards are known)."""
    phase = st.phase
    nothing_after_trick_1 = (
        st.proj_team < 0 and all(r is None for r in st.revealed) and all(g is None for g in st.shown)
    )
    if phase in (BIDDING, CHOOSE_TRUMP, DOUBLING):
        if any(st.declared) or st.decided or not nothing_after_trick_1 or st.baloot:
            raise refuse("projects", "no project is declared before play (R20)")
        if st.tricks_won != [0, 0] or st.card_points != [0, 0]:
            raise refuse("tricks_won", "no trick is won before play")
        return
    if phase != PLAY:
        return
    if st.trick_no == 1:
        if not nothing_after_trick_1:
            raise refuse("projects", "compared only at the end of trick 1 (R21)")
        came = {(st.leader + k) & 3 for k in range(len(st.table))}
        for s in range(4):
            if st.declared[s] and s not in came and not (s == st.to_act and st.decided):
                raise refuse("projects.declared", f"seat {s} has not yet come to play in trick 1 (R20)")
        return
    for s, groups in enumerate(st.shown):
        if groups is not None and s & 1 != st.proj_team:
            raise refuse("projects.shown", f"seat {s} is not of the project team (R22)")
    if not exact:
        return
    best = {s: st.psets[s][0][0][0] for s in range(4) if st.declared[s]}
    order = [(st.dealer + k) & 3 for k in (1, 2, 3, 4)]
    winner, reveal = compare_declared(best, order, st.kind, st.trump, st.opts.trump_first)
    if st.proj_team != (-1 if winner is None else winner & 1):
        raise refuse("projects.team", "is not the team of the best declared project (R21)")
    revealed: list[tuple[int, int] | None] = [None] * 4
    for s in reveal:
        revealed[s] = (best[s][1], best[s][2])
    if st.revealed != revealed:
        raise refuse("projects.revealed", "must be the tied top declarations (R21)")


def check_match_end(st: State) -> None:
    """E2/E3: a match whose scores decide it is over, won by the higher team (a gahwa deal
    ends it whatever the scores)."""
    decided = match_winner_after(st.scores, st.opts.target)
    if st.phase != MATCH_OVER:
        if decided is not None:
            raise refuse(
                "scores",
                f"team {decided} has reached the target {st.opts.target} with the higher score: "
                "the match is over (E2)",
            )
    elif not st.gahwa and st.match_winner != decided:
        raise refuse("match_winner", "must be the team the scores make the winner (E2)")


def check_written_canonically(written: Mapping[str, Any], data: Mapping[str, Any]) -> None:
    """A full state is written exactly as the engine writes it (``written``): every field and
    option present, hands in canonical order, no extra key anywhere, nothing left for the
    loader to fill in or re-sort (a state the engine wrote never needs it, so a difference
    means the document was changed). One older form is still read: ``rng_state`` as a JSON
    integer below 2**53, and a history holding earlier deals (issue 33: read as this deal's)."""
    data = as_current_deal(data, "deal_history_start")
    for key, value in written.items():
        got = data[key] if key in data else ...
        if got != value and not (key == "rng_state" and type(got) is int):
            raise refuse(key, "must be written as the engine writes it (cards in canonical order)")


# --------------------------------------------------------------------------- all of them


def check_loaded(
    st: State,
    values: Mapping[str, Any],
    entries: Entries,
    *,
    hidden_seats: list[int],
    exact: bool,
) -> None:
    """Every rule-implied check of a state read from a document whose decoded fields are
    ``values`` (``entries``: this deal's history; ``hidden_seats``: a view's seats shown as
    counts; ``exact``: every seat's cards are known), in the order the fields are written."""
    check_contract(st, values.get("contract"))
    check_contract_fits_phase(st)
    check_sun_window(st)
    check_candidate_taken(st)
    check_table(st, values.get("table", []))
    check_trick_winners(st)
    check_hand_sizes(st)
    check_taker_holds_candidate(st, hidden_seats)
    check_turn_fits_phase(st)
    check_tricks_won(st)
    check_declared_held(st, hidden_seats)
    check_declare_done(st, hidden_seats)
    check_shown_sets(st, hidden_seats)
    check_baloot(st)
    check_match_winner_given(st)
    check_result_adds_up(st)
    check_turn(st, entries)
    check_replayed_turn(st, entries)
    check_play_entries(st, entries)
    check_bidding(st)
    check_play_counts(st)
    check_projects(st, exact)
    check_match_end(st)
