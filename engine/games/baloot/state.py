"""Baloot's compact state and its in-place transitions (R1-R23, S1-S8, E1-E4)."""

from __future__ import annotations

import random
from typing import Any

from engine.games.baloot import rules
from engine.games.baloot.options import Opts
from engine.games.baloot.projects import (
    EMPTY,
    ProjectSet,
    baloot_scores,
    compare_declared,
    project_set,
)
from engine.games.baloot.tables import (
    ACE_SLOTS,
    BALOOT_POINTS,
    BID_ASHKAL,
    BID_HOKM,
    BID_SUN,
    BIDDING,
    CANDIDATE_INDEX,
    CHOOSE,
    CHOOSE_TRUMP,
    CLASS_NAMES,
    CODE,
    DEAL_OVER,
    DEAL_PACKETS,
    DEAL_TOTAL,
    DECLARE,
    DOUBLE,
    DOUBLE_LOCKED,
    DOUBLE_OPEN,
    DOUBLE_STEP,
    DOUBLING,
    EKKA,
    FOUR,
    FOUR_LOCKED,
    FOUR_OPEN,
    FOUR_STEP,
    GAHWA,
    GAHWA_STEP,
    HOKM,
    KABOOT_BASE,
    KAWESH,
    KIND_NAMES,
    LAST_TRICK_BONUS,
    MAIN,
    MATCH_OVER,
    NSLOTS,
    OTHER_DRAW,
    PASS,
    PLAIN_POINTS,
    PLAIN_STR,
    PLAY,
    SEQ_ORDER,
    SUBKIND_NAMES,
    SUIT_CHARS,
    SUIT_OF,
    SUN,
    SUN_WINDOW,
    SWITCH,
    TAKER_DRAW,
    TRIPLE,
    TRIPLE_STEP,
    TRUMP_POINTS,
    TRUMP_STR,
)

Events = list[dict[str, Any]] | None

POINTS = (PLAIN_POINTS,) + tuple(
    tuple(TRUMP_POINTS[p] if p >> 3 == t else PLAIN_POINTS[p] for p in range(NSLOTS)) for t in range(4)
)
"""POINTS[trump + 1][slot]: card points with that trump suit (index 0: Sun)."""


class State:
    """One match of Baloot. Hands are slot masks (see tables). Only ``hands``, ``table``
    and ``seat_played`` are changed in place; other lists are replaced (copy on write)."""

    __slots__ = (
        "ashkal",
        "baloot",
        "bidder",
        "cand_taken",
        "candidate",
        "card_points",
        "deal_no",
        "dealer",
        "decided",
        "declared",
        "dstep",
        "extra_played",
        "gahwa",
        "hands",
        "hist_base",
        "history",
        "hokm_bidder",
        "kawesh",
        "kind",
        "lead_ekka",
        "leader",
        "led",
        "locked",
        "match_winner",
        "mult",
        "opts",
        "phase",
        "played",
        "proj_team",
        "psets",
        "raiser",
        "result",
        "revealed",
        "rng_state",
        "round",
        "scores",
        "seat_played",
        "shown",
        "stage",
        "stock",
        "table",
        "taker",
        "to_act",
        "top_trump",
        "trick_no",
        "tricks",
        "tricks_won",
        "trump",
        "win_seat",
        "win_str",
    )

    opts: Opts
    dealer: int
    phase: int
    to_act: int | None
    scores: list[int]
    deal_no: int
    history: Any
    hist_base: Any
    rng_state: int | None
    hands: list[int]
    candidate: int
    cand_taken: bool
    stock: tuple[int, ...]
    round: int
    stage: int
    hokm_bidder: int
    kind: int
    trump: int
    ashkal: bool
    bidder: int
    taker: int
    mult: int
    locked: bool
    gahwa: bool
    raiser: int
    dstep: int
    trick_no: int
    leader: int
    table: list[int]
    lead_ekka: bool
    led: int
    win_seat: int
    win_str: int
    top_trump: int
    tricks: tuple[tuple[int, tuple[int, ...], int, bool], ...]
    played: int
    seat_played: list[int]
    extra_played: tuple[tuple[int, int], ...]
    tricks_won: list[int]
    card_points: list[int]
    psets: list[ProjectSet]
    declared: list[int]
    decided: bool
    revealed: list[tuple[int, int] | None]
    proj_team: int
    shown: list[tuple[int, ...] | None]
    baloot: tuple[int, ...]
    match_winner: int
    kawesh: tuple[int, int] | None
    result: dict[str, Any] | None

    def clone(self) -> State:
        """An independent copy. Only hands, table and seat_played are mutated in place;
        every other list is replaced whole when it changes, so clones share them."""
        new = State.__new__(State)
        new.opts = self.opts
        new.dealer = self.dealer
        new.phase = self.phase
        new.to_act = self.to_act
        new.scores = self.scores
        new.deal_no = self.deal_no
        new.history = self.history
        new.hist_base = self.hist_base
        new.rng_state = self.rng_state
        new.hands = self.hands[:]
        new.candidate = self.candidate
        new.cand_taken = self.cand_taken
        new.stock = self.stock
        new.round = self.round
        new.stage = self.stage
        new.hokm_bidder = self.hokm_bidder
        new.kind = self.kind
        new.trump = self.trump
        new.ashkal = self.ashkal
        new.bidder = self.bidder
        new.taker = self.taker
        new.mult = self.mult
        new.locked = self.locked
        new.gahwa = self.gahwa
        new.raiser = self.raiser
        new.dstep = self.dstep
        new.trick_no = self.trick_no
        new.leader = self.leader
        new.table = self.table[:]
        new.lead_ekka = self.lead_ekka
        new.led = self.led
        new.win_seat = self.win_seat
        new.win_str = self.win_str
        new.top_trump = self.top_trump
        new.tricks = self.tricks
        new.played = self.played
        new.seat_played = self.seat_played[:]
        new.extra_played = self.extra_played
        new.tricks_won = self.tricks_won
        new.card_points = self.card_points
        new.psets = self.psets
        new.declared = self.declared
        new.decided = self.decided
        new.revealed = self.revealed
        new.proj_team = self.proj_team
        new.shown = self.shown
        new.baloot = self.baloot
        new.match_winner = self.match_winner
        new.kawesh = self.kawesh
        new.result = self.result
        return new


def blank(opts: Opts, dealer: int, scores: list[int], rng_state: int | None) -> State:
    """A match state before its first deal (every deal field at its natural value)."""
    st = State.__new__(State)
    st.opts = opts
    st.dealer = dealer
    st.phase = BIDDING
    st.to_act = None
    st.scores = scores
    st.deal_no = 1
    st.history = None
    st.hist_base = None
    st.rng_state = rng_state
    st.match_winner = -1
    st.result = None
    reset_deal(st)
    return st


def reset_deal(st: State) -> None:
    """Every per-deal field at its value before the cards are dealt."""
    st.hands = [0, 0, 0, 0]
    st.candidate = -1
    st.stock = ()
    reset_deal_calls(st)
    st.trick_no = 1
    st.leader = -1
    st.table = []
    st.lead_ekka = False
    st.led = st.win_seat = -1
    st.win_str = st.top_trump = 0
    st.tricks = ()
    st.played = 0
    st.seat_played = [0, 0, 0, 0]
    st.extra_played = ()
    st.tricks_won = [0, 0]
    st.card_points = [0, 0]
    st.psets = [EMPTY, EMPTY, EMPTY, EMPTY]
    st.declared = [0, 0, 0, 0]
    st.decided = False
    st.revealed = [None, None, None, None]
    st.proj_team = -1
    st.shown = [None, None, None, None]
    st.baloot = ()
    st.kawesh = None


def reset_deal_calls(st: State) -> None:
    """The calls of a deal at their opening: no bid, no contract, no double."""
    st.cand_taken = False
    st.round = 1
    st.stage = MAIN
    st.hokm_bidder = -1
    st.kind = 0
    st.trump = -1
    st.ashkal = False
    st.bidder = -1
    st.taker = -1
    st.mult = 1
    st.locked = False
    st.gahwa = False
    st.raiser = -1
    st.dstep = DOUBLE_STEP


def deal(st: State, deck: list[int] | tuple[int, ...]) -> None:
    """R1: deal ``deck`` (slots, index 0 first) for ``st.dealer``: packets of three then
    two, position 20 face up as the candidate, 21-31 the stock; bidding starts at d+1."""
    reset_deal(st)
    st.hist_base = st.history
    d = st.dealer
    i = 0
    hands = st.hands
    for offset, n in DEAL_PACKETS:
        seat = (d + offset) & 3
        for p in deck[i : i + n]:
            hands[seat] |= 1 << p
        i += n
    st.candidate = deck[CANDIDATE_INDEX]
    st.stock = tuple(deck[CANDIDATE_INDEX + 1 :])
    st.phase = BIDDING
    st.to_act = (d + 1) & 3


def engine_deal(st: State) -> None:
    """E1: the next deal drawn from the state's generator (engine-dealt matches)."""
    rng = random.Random(st.rng_state)
    deck = list(range(NSLOTS))
    rng.shuffle(deck)
    st.rng_state = rng.getrandbits(63)
    deal(st, deck)


# --------------------------------------------------------------------------- helpers


def defenders(st: State) -> tuple[int, int]:
    """R11: the defenders in asking order d+1, d+2, d+3, d."""
    d = st.dealer
    dt = st.bidder & 1
    order = [(d + k) & 3 for k in (1, 2, 3, 4)]
    first, second = [s for s in order if s & 1 != dt]
    return first, second


def project_pending(st: State) -> bool:
    """R20: the seat to act in trick 1 has a project set and has not yet declared or passed."""
    seat = st.to_act
    return (
        seat is not None
        and st.trick_no == 1
        and not st.decided
        and st.phase == PLAY
        and bool(st.psets[seat][0])
        and not st.declared[seat]
    )


def _log(events: Events, **event: Any) -> None:
    if events is not None:
        events.append(event)


# --------------------------------------------------------------------------- step


def step(st: State, action: Any, events: Events = None) -> None:
    """Apply a legal ``action`` by the seat to act, in place."""
    seat = st.to_act
    st.history = (st.history, (seat, action))
    phase = st.phase
    if phase == PLAY:
        if action < 64:
            play_card(st, seat, action & 31, action >= EKKA, events)  # type: ignore[arg-type]
        elif action == DECLARE:
            declare(st, seat, events)  # type: ignore[arg-type]
        else:
            st.decided = True
    elif phase == BIDDING:
        bid(st, seat, action, events)  # type: ignore[arg-type]
    elif phase == DOUBLING:
        double(st, seat, action, events)  # type: ignore[arg-type]
    elif phase == CHOOSE_TRUMP:
        st.trump = action - CHOOSE
        _log(events, type="trump", seat=seat, suit=SUIT_CHARS[st.trump])
        complete_deal(st, events)
    elif phase == DEAL_OVER:
        st.dealer = seat  # type: ignore[assignment]
        st.deal_no += 1
        deal(st, action[1:])
        _log(events, type="deal", dealer=seat, deal_no=st.deal_no)


def bid(st: State, seat: int, action: int, events: Events) -> None:
    """R2-R7, R10: one call of the bidding."""
    d = st.dealer
    if events is not None:
        name = {
            PASS: "pass",
            BID_HOKM: "hokm",
            BID_SUN: "sun",
            BID_ASHKAL: "ashkal",
            KAWESH: "kawesh",
        }
        events.append({"type": "call", "seat": seat, "call": name[action]})
    if action == KAWESH:
        st.kawesh = (seat, st.hands[seat])
        end_deal_annulled(st, "kawesh", events)
        return
    if action == BID_SUN:
        fix_contract(st, SUN, seat, seat, False, events)
        return
    if action == BID_ASHKAL:
        fix_contract(st, SUN, seat, (seat + 2) & 3, True, events)
        return
    stage = st.stage
    if action == BID_HOKM and stage == MAIN:
        st.hokm_bidder = seat
        if st.round == 2 and seat == d:
            close_window(st, events)
        else:
            st.stage = SUN_WINDOW
            st.to_act = (seat + 1) & 3
        return
    # a pass
    if stage == MAIN:
        if seat == d:
            if st.round == 1:
                st.round = 2
                st.to_act = (d + 1) & 3
            else:
                end_deal_annulled(st, "all_pass", events)
        else:
            st.to_act = (seat + 1) & 3
    elif stage == SUN_WINDOW:
        last = (st.hokm_bidder + 3) & 3 if st.round == 1 else d
        if seat == last:
            close_window(st, events)
        else:
            st.to_act = (seat + 1) & 3
    else:  # SWITCH: the Hokm stands
        finish_hokm(st, events)


def close_window(st: State, events: Events) -> None:
    """R3/R5 closing with no Sun bid: R6 if the option is on, else the Hokm stands."""
    if st.opts.switch_to_sun:
        st.stage = SWITCH
        st.to_act = st.hokm_bidder
    else:
        finish_hokm(st, events)


def finish_hokm(st: State, events: Events) -> None:
    """R7/R8: a round-1 Hokm takes the candidate's suit; a round-2 one names a suit."""
    h = st.hokm_bidder
    if st.round == 1:
        fix_contract(st, HOKM, h, h, False, events, trump=SUIT_OF[st.candidate])
    else:
        st.kind = HOKM
        st.bidder = st.taker = h
        st.phase = CHOOSE_TRUMP
        st.to_act = h


def fix_contract(
    st: State, kind: int, bidder: int, taker: int, ashkal: bool, events: Events, trump: int = -1
) -> None:
    """R7: the contract is fixed; R9 follows."""
    st.kind = kind
    st.bidder = bidder
    st.taker = taker
    st.ashkal = ashkal
    st.trump = trump
    complete_deal(st, events)


def complete_deal(st: State, events: Events) -> None:
    """R9: the taker takes the candidate, everyone draws from the stock (taker two,
    others three, from d+1); then doubling (R11/R12) or play."""
    st.mult = 1
    st.locked = False
    st.gahwa = False
    st.raiser = st.bidder & 1
    taker = st.taker
    hands = st.hands
    hands[taker] |= 1 << st.candidate
    st.cand_taken = True
    stock = st.stock
    i = 0
    d = st.dealer
    for k in (1, 2, 3, 4):
        seat = (d + k) & 3
        n = TAKER_DRAW if seat == taker else OTHER_DRAW
        for p in stock[i : i + n]:
            hands[seat] |= 1 << p
        i += n
    st.stock = ()
    if events is not None:
        events.append(
            {
                "type": "contract",
                "kind": KIND_NAMES[st.kind],
                "bidder": st.bidder,
                "taker": taker,
                "ashkal": st.ashkal,
                "trump": SUIT_CHARS[st.trump] if st.trump >= 0 else None,
            }
        )
    if st.kind == HOKM or rules.sun_double_allowed(st.scores, st.bidder & 1, st.opts):
        st.phase = DOUBLING
        st.dstep = DOUBLE_STEP
        st.to_act = defenders(st)[0]
    else:
        start_play(st)


def double(st: State, seat: int, action: int, events: Events) -> None:
    """R11/R12: one answer in the doubling sequence."""
    first, second = defenders(st)
    dstep = st.dstep
    if events is not None:
        events.append(
            {
                "type": "call",
                "seat": seat,
                "call": "pass" if action == PASS else STEP_OF_ACTION[action],
            }
        )
    if action == PASS:
        if dstep in (DOUBLE_STEP, FOUR_STEP) and seat == first:
            st.to_act = second
        else:
            start_play(st)
        return
    if dstep == DOUBLE_STEP:
        st.mult = 2
        st.locked = action == DOUBLE_LOCKED
        st.raiser = 1 - (st.bidder & 1)
        if st.kind == SUN:
            start_play(st)
        else:
            st.dstep = TRIPLE_STEP
            st.to_act = st.bidder
    elif dstep == TRIPLE_STEP:
        st.mult = 3
        st.locked = False
        st.raiser = st.bidder & 1
        st.dstep = FOUR_STEP
        st.to_act = first
    elif dstep == FOUR_STEP:
        st.mult = 4
        st.locked = action == FOUR_LOCKED
        st.raiser = 1 - (st.bidder & 1)
        st.dstep = GAHWA_STEP
        st.to_act = st.bidder
    else:
        st.gahwa = True
        st.locked = False
        st.raiser = st.bidder & 1
        start_play(st)


STEP_OF_ACTION = {
    DOUBLE_OPEN: "double",
    DOUBLE_LOCKED: "double",
    DOUBLE: "double",
    TRIPLE: "triple",
    FOUR_OPEN: "four",
    FOUR_LOCKED: "four",
    FOUR: "four",
    GAHWA: "gahwa",
}


def start_play(st: State) -> None:
    """R13: seat d+1 leads trick 1; R18/R19: every seat's project set is fixed now."""
    st.phase = PLAY
    st.trick_no = 1
    st.leader = st.to_act = (st.dealer + 1) & 3
    st.table = []
    kind = st.kind
    st.psets = [project_set(h, kind) for h in st.hands]
    st.decided = False


def declare(st: State, seat: int, events: Events) -> None:
    """R20: announce the class of the seat's best project."""
    declared = st.declared[:]  # lists other than hands/table/seat_played are shared by clones
    declared[seat] = st.psets[seat][0][0][0][0]
    st.declared = declared
    st.decided = True
    _log(events, type="declare", seat=seat, project=CLASS_NAMES[st.declared[seat]])


def play_card(st: State, seat: int, p: int, ekka: bool, events: Events) -> None:
    """R13/R14/R23: play slot ``p``; finish the trick when it is the fourth card."""
    bit = 1 << p
    st.hands[seat] ^= bit
    st.seat_played[seat] |= bit
    table = st.table
    trump = st.trump
    suit = p >> 3
    if not table:
        st.led = suit
        st.lead_ekka = st.kind == HOKM and suit != trump and (ekka or p in ACE_SLOTS)
        st.win_seat = seat
        if suit == trump:
            st.win_str = 16 + TRUMP_STR[p]
            st.top_trump = TRUMP_STR[p]
        else:
            st.win_str = PLAIN_STR[p]
            st.top_trump = 0
    elif suit == trump:
        v = TRUMP_STR[p]
        st.top_trump = max(st.top_trump, v)
        if 16 + v > st.win_str:
            st.win_str = 16 + v
            st.win_seat = seat
    elif suit == st.led and PLAIN_STR[p] > st.win_str:
        st.win_str = PLAIN_STR[p]
        st.win_seat = seat
    table.append(p)
    st.decided = False
    if events is not None:
        ev: dict[str, Any] = {"type": "play", "seat": seat, "card": CODE[p]}
        if len(table) == 1 and st.lead_ekka:
            ev["ekka"] = True
        events.append(ev)
    if suit == trump and (p & 7) in (1, 2):
        kq = (1 << (trump * 8 + 1)) | (1 << (trump * 8 + 2))
        if st.seat_played[seat] & kq == kq and seat not in st.baloot:
            scored = st.proj_team == seat & 1
            if baloot_scores(st.psets[seat], kq, scored, st.opts.baloot_rule):
                st.baloot = st.baloot + (seat,)
                _log(events, type="baloot", seat=seat)
    if len(table) == 4:
        finish_trick(st, events)
    else:
        nxt = (seat + 1) & 3
        st.to_act = nxt
        if st.trick_no == 2 and st.proj_team == nxt & 1 and st.shown[nxt] is None:
            show(st, nxt, events)


def show(st: State, seat: int, events: Events) -> None:
    """R22: a project-team seat shows its whole set when its trick-2 turn comes."""
    groups = tuple(m for _, m in st.psets[seat][0])
    shown = st.shown[:]
    shown[seat] = groups
    st.shown = shown
    if events is not None:
        mask = 0
        for m in groups:
            mask |= m
        mask &= st.hands[seat]
        events.append({"type": "show", "seat": seat, "cards": [CODE[q] for q in rules.slots_of(mask)]})


def finish_trick(st: State, events: Events) -> None:
    """R13: the trick's winner takes its card points and leads next; R21 after trick 1."""
    table = st.table
    winner = st.win_seat
    leader = st.leader
    pts = POINTS[st.trump + 1]
    a, b, c, d = table
    points = pts[a] + pts[b] + pts[c] + pts[d]
    st.played |= (1 << a) | (1 << b) | (1 << c) | (1 << d)
    if st.trick_no == 8:
        points += LAST_TRICK_BONUS
    t = winner & 1
    card_points = st.card_points[:]
    card_points[t] += points
    st.card_points = card_points
    tricks_won = st.tricks_won[:]
    tricks_won[t] += 1
    st.tricks_won = tricks_won
    st.tricks = st.tricks + ((leader, (a, b, c, d), winner, st.lead_ekka),)
    if events is not None:
        events.append(
            {
                "type": "trick",
                "trick_no": st.trick_no,
                "winner": winner,
                "cards": [CODE[p] for p in table],
                "points": points,
            }
        )
    if st.trick_no == 1:
        compare_projects(st, events)
    st.trick_no += 1
    st.table = []
    st.lead_ekka = False
    st.led = st.win_seat = -1
    st.win_str = st.top_trump = 0
    if st.trick_no > 8:
        end_deal_scored(st, events)
        return
    st.leader = st.to_act = winner
    if st.trick_no == 2 and st.proj_team == t and st.shown[winner] is None:
        show(st, winner, events)


def compare_projects(st: State, events: Events) -> None:
    """R21: the declared best projects compete; the winner's team is the project team."""
    best = {s: st.psets[s][0][0][0] for s in range(4) if st.declared[s]}
    order = [(st.dealer + k) & 3 for k in (1, 2, 3, 4)]
    winner, reveal = compare_declared(best, order, st.kind, st.trump, st.opts.trump_first)
    revealed = st.revealed[:]
    for s in reveal:
        key = best[s]
        revealed[s] = (key[1], key[2])
    st.revealed = revealed
    if winner is not None:
        st.proj_team = winner & 1
    if events is not None and winner is not None:
        events.append(
            {
                "type": "projects",
                "team": st.proj_team,
                "seat": winner,
                "revealed": {
                    str(s): {"kind": SUBKIND_NAMES[best[s][1]], "top": SEQ_ORDER[7 - best[s][2]]}
                    for s in reveal
                },
            }
        )


# --------------------------------------------------------------------------- scoring


def rounded(kind: int, points: int) -> int:
    """S2: a team's card points as game points."""
    if kind == HOKM:
        return (points + 4) // 10
    if points % 10 == 5:
        return points // 5
    return 2 * ((points + 5) // 10)


def tie_winner(kind: int, declarer: int, counted: int, x: int) -> int:
    """S5: the winner of a deal whose totals are equal."""
    u = x % 10
    if kind == HOKM:
        if 2 <= u <= 5:
            return counted
        if u == 1:
            return declarer
        return 1 - counted
    if 1 <= u <= 4:
        return counted
    if 6 <= u <= 9:
        return 1 - counted
    return declarer


def settle(
    kind: int,
    declarer: int,
    mult: int,
    gahwa: bool,
    raiser: int,
    cards: list[int],
    tricks_won: list[int],
    projects: list[int],
    baloot: list[int],
) -> dict[str, Any]:
    """S1-S8: a finished deal's award. Returns winner, adds, items and the workings."""
    total = DEAL_TOTAL[kind]
    items: list[dict[str, Any]] = []
    adds = [0, 0]
    out: dict[str, Any] = {
        "card_points": list(cards),
        "projects": list(projects),
        "baloot": list(baloot),
    }

    def item(side: int, points: int, name: str, rule: str) -> None:
        if points:
            items.append({"side": side, "points": points, "item": name, "rule": rule})
            adds[side] += points

    kaboot = 0 if tricks_won[0] == 8 else 1 if tricks_won[1] == 8 else -1
    if kaboot >= 0:
        w = kaboot
        if not gahwa:
            item(w, KABOOT_BASE[kind] * mult, "kaboot", "S6")
            item(w, projects[w] * (2 if mult >= 2 else 1), "projects", "S6")
            item(w, baloot[w], "baloot", "S6")
        out.update(kaboot=True)
    else:
        counted = 1 - raiser
        x = cards[counted]
        gp = [0, 0]
        gp[counted] = rounded(kind, x)
        gp[1 - counted] = total - gp[counted]
        g = [gp[k] + projects[k] + baloot[k] for k in (0, 1)]
        other = 1 - declarer
        if g[declarer] > g[other]:
            w = declarer
        elif g[declarer] < g[other]:
            w = other
        else:
            w = tie_winner(kind, declarer, counted, x)
        out.update(kaboot=False, counted=counted, game_points=gp, totals=g)
        if not gahwa:
            if mult == 1 and w == declarer:
                for k in (0, 1):
                    item(k, gp[k], "cards", "S7")
                    item(k, projects[k], "projects", "S7")
                    item(k, baloot[k], "baloot", "S7")
            elif mult == 1:
                item(w, total, "cards", "S7")
                item(w, projects[0] + projects[1], "projects", "S7")
                item(w, baloot[0] + baloot[1], "baloot", "S7")
            else:
                item(w, mult * total, "cards", "S7")
                item(w, 2 * (projects[0] + projects[1]), "projects", "S7")
                item(w, baloot[0] + baloot[1], "baloot", "S7")
    out.update(
        winner=w,
        adds=adds,
        items=items,
        gahwa=gahwa,
        multiplier=mult,
        declarer_team=declarer,
        kind=KIND_NAMES[kind],
    )
    return out


def deal_bonuses(st: State) -> tuple[list[int], list[int]]:
    """S1: P (projects of the project team) and B (baloot) per team."""
    proj = [0, 0]
    if st.proj_team >= 0:
        for s in range(4):
            if s & 1 == st.proj_team:
                proj[st.proj_team] += st.psets[s][1]
    bal = [0, 0]
    for s in st.baloot:
        bal[s & 1] += BALOOT_POINTS
    return proj, bal


def end_deal_scored(st: State, events: Events) -> None:
    """S1-S8, E2, E3: score the deal, then end the match or go to the next deal."""
    proj, bal = deal_bonuses(st)
    res = settle(
        st.kind,
        st.bidder & 1,
        st.mult,
        st.gahwa,
        st.raiser,
        st.card_points,
        st.tricks_won,
        proj,
        bal,
    )
    res["deal_no"] = st.deal_no
    st.result = res
    st.to_act = None
    if events is not None:
        events.append({"type": "points", **{k: res[k] for k in ("adds", "items", "winner")}})
    if st.gahwa:
        finish_match(st, res["winner"], events)
        return
    st.scores = [st.scores[0] + res["adds"][0], st.scores[1] + res["adds"][1]]
    winner = match_winner_after(st.scores, st.opts.target)
    if winner is not None:
        finish_match(st, winner, events)
        return
    next_deal(st, events)


def match_winner_after(scores: list[int], target: int) -> int | None:
    """E2: the match winner once a team reaches the target (the higher score if both
    do; None while below it or on equal scores)."""
    a, b = scores
    if (a >= target or b >= target) and a != b:
        return 0 if a > b else 1
    return None


def end_deal_annulled(st: State, why: str, events: Events) -> None:
    """R7 (all pass twice) / R10 (kawesh): no score; E1, E4."""
    st.result = {"deal_no": st.deal_no, "annulled": why, "adds": [0, 0], "items": []}
    if st.kawesh is not None:
        st.result["kawesh"] = {
            "seat": st.kawesh[0],
            "cards": [CODE[q] for q in rules.slots_of(st.kawesh[1])],
        }
    if events is not None:
        ev: dict[str, Any] = {"type": "deal_over", "annulled": why}
        if st.kawesh is not None:
            ev["kawesh"] = {
                "seat": st.kawesh[0],
                "cards": [CODE[q] for q in rules.slots_of(st.kawesh[1])],
            }
        events.append(ev)
    next_deal(st, events)


def finish_match(st: State, winner: int, events: Events) -> None:
    """E2/E3: the match is over."""
    st.match_winner = winner
    st.phase = MATCH_OVER
    st.to_act = None
    _log(events, type="match_over", winner=winner, scores=list(st.scores))


def next_deal(st: State, events: Events) -> None:
    """E1: the next dealer is d+1; engine-dealt matches deal at once."""
    nxt = (st.dealer + 1) & 3
    _log(events, type="deal_over", next_dealer=nxt, scores=list(st.scores))
    if st.rng_state is None:
        st.phase = DEAL_OVER
        st.to_act = nxt
        return
    st.deal_no += 1
    st.dealer = nxt
    engine_deal(st)
    _log(events, type="deal", dealer=nxt, deal_no=st.deal_no)
