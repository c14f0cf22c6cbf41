"""What a loaded Ronda state must satisfy beyond its JSON shape: the rules it implies.

The shared codec (engine/codec.py) has read every field by its kind; these checks see
the built state and refuse, naming the field, what no play of the rules can reach: cards
not conserved, hand sizes and turns that the deal pattern (R3-R5) and the turn order
(R8, R13, R19) forbid, a challenge round the history does not give, a decided match
without its winner (R32). They also set the seat to act, replayed from the history.
"""

from __future__ import annotations

from typing import Any

from engine.cards import card_code, cards_of_mask, mask_of
from engine.codec import LAYOUT, TEMPLATE, refuse
from engine.games.ronda.rules import holding, is_open_target, r13_next_asked
from engine.games.ronda.scoring import target_winner
from engine.games.ronda.state import RondaState, cons_list
from engine.games.ronda.tables import (
    CHALLENGE_BASE,
    CHALLENGE_P,
    DEAL_MARK,
    DEAL_OVER_P,
    DECLARE_BASE,
    DECLARE_P,
    DOUBLE,
    MATCH_OVER_P,
    PACK,
    PACK_MASK,
    PASS,
    PLAY_P,
    RANK_CHARS,
    RBIT,
    RR,
)
from engine.protocol import InvalidState


def check_state(s: RondaState, values: dict[str, Any], mode: str) -> None:
    """Every rule-implied check of a state read in ``mode``; sets ``s.to_act``."""
    played = check_cards(s, values)
    size = check_hand_sizes(s, played)
    total = sum(p.bit_count() for p in played)
    check_declarations(s, size)
    check_history_decks(s, values.get("history", ()))
    deal = cons_list(s.hist)
    if "phase" in values:  # else a layout's start of a hand, which the codec's build opened
        check_phase(s, values, mode, total, size, deal)
        if s.phase in (DECLARE_P, PLAY_P):
            check_hand_calls(s, deal, total)
        check_play_turns(s, deal, total)
    check_match_end(s)


def check_cards(s: RondaState, values: dict[str, Any]) -> list[int]:
    """Dealt = hand + played this hand (the cards each seat played, returned); every card of
    the pack exactly once in hands, table, stock and piles; no rank twice on the table (R7)."""
    n = s.n
    hands, dealt = s.hands, s.dealt
    played = values.get("played") or [dealt[t] & ~hands[t] for t in range(n)]
    for t in range(n):
        if hands[t] & played[t] or dealt[t] != hands[t] | played[t]:
            raise refuse(
                f"dealt[{t}]", f"seat {t}'s dealt cards must be its hand plus the cards it played this hand"
            )
    seen = 0  # the fast path: masks; a card met twice is named by the slow one
    for mask in (*hands, mask_of(s.table), mask_of(s.stock), *s.piles):
        seen |= mask
    counted = sum(h.bit_count() for h in hands) + sum(p.bit_count() for p in s.piles)
    if counted + len(s.table) + len(s.stock) != seen.bit_count():
        name_a_card_twice(s)
    if seen != PACK_MASK:
        missing = " ".join(card_code(c) for c in cards_of_mask(PACK_MASK & ~seen))
        raise InvalidState(f"cards: missing from hands, table, stock and piles: {missing}", field="cards")
    ranks = 0
    for c in s.table:
        if ranks & RBIT[c]:
            raise refuse("table", f"two cards of rank {RANK_CHARS[RR[c]]} on the table (R7)")
        ranks |= RBIT[c]
    return played


def name_a_card_twice(s: RondaState) -> None:
    """Some card lies in two places (or twice in one): refuse naming the first place where
    it is met again, in the order hands, table, stock, piles."""
    places: list[tuple[str, list[int]]] = [(f"hands[{t}]", cards_of_mask(h)) for t, h in enumerate(s.hands)]
    places += [("table", s.table), ("stock", list(s.stock))]
    places += [(f"piles[{i}]", cards_of_mask(p)) for i, p in enumerate(s.piles)]
    seen = 0
    for where, cards in places:
        for c in cards:
            if seen >> c & 1:
                raise refuse(where, f"card {card_code(c)} is in two places (or twice)")
            seen |= 1 << c


def hand_of_stock(s: RondaState, stock_size: int) -> int:
    """R3-R5: the number of the hand being played when ``stock_size`` cards are left (the
    codec's ``build`` uses it for ``hand_number``; ``check_hand_sizes`` refuses sizes no
    hand leaves)."""
    pat = s.o.pattern
    return pat.hands - stock_size // (pat.later * s.n)


def check_hand_sizes(s: RondaState, played: list[int]) -> int:
    """R3-R5: the stock leaves whole hands; each seat received the hand's size; play went
    round from dealer+1. Returns the hand's size."""
    n = s.n
    pat = s.o.pattern
    per_hand = pat.later * n
    stock = len(s.stock)
    if stock % per_hand:
        raise refuse("stock", f"{stock} cards cannot be dealt in hands of {pat.later} per seat")
    if hand_of_stock(s, stock) < 1:
        raise refuse("stock", f"too many cards for the {pat.hands} hands of a deal")
    size = pat.first if s.hand_no == 1 else pat.later
    for t in range(n):
        if s.dealt[t].bit_count() != size:
            raise refuse(f"dealt[{t}]", f"seat {t} must have received {size} cards in hand {s.hand_no}")
    total = sum(p.bit_count() for p in played)
    first = (s.dealer + 1) % n
    for k in range(n):
        t = (first + k) % n
        want = total // n + (1 if k < total % n else 0)
        if played[t].bit_count() != want:
            raise refuse(
                f"played[{t}]",
                f"after {total} plays this hand seat {t} must have played {want} cards "
                "(play goes round from dealer+1)",
            )
    return size


def check_declarations(s: RondaState, size: int) -> None:
    """R12, R13, R15, R20-R24: declarations fit the hand; challenged and withdrawn seats
    agree with the holdings; the last drop and the chain lie where they must."""
    n = s.n
    for t, d in enumerate(s.decl):
        if d == DOUBLE and size != 4:
            raise refuse(f"declarations[{t}]", "double_ronda needs a four-card hand")
    if s.withdrawn & ~s.challenged:
        raise refuse("withdrawn", "only a challenged declaration can be withdrawn")
    for t in range(n):
        if not s.challenged >> t & 1:
            continue
        if s.decl[t] <= 0:
            raise refuse("challenged", f"seat {t} has no declaration to challenge")
        false = s.decl[t] != holding(s.dealt[t])[0]
        if false != bool(s.withdrawn >> t & 1):
            raise refuse(
                "withdrawn", f"seat {t}'s challenged declaration is withdrawn exactly when it is false"
            )
    if s.last_drop >= 0 and (not s.table or s.table[-1] != s.last_drop):
        raise refuse("last_drop", "the last drop must be the newest table card")
    if s.chain is not None:
        packet = s.chain[3]
        if packet & ~s.piles[s.chain[2] % s.nsides] or not packet:
            raise refuse("chain.packet", "the packet must lie in the pile of the chain seat's side")


def check_history_decks(s: RondaState, history: Any) -> None:
    """R2: a caller's deal deck in the history holds each card once."""
    for deck in cons_list(s.decks):
        if len(set(deck[0])) != len(PACK):
            i = next(i for i, (_, action) in enumerate(history) if action is deck[0])
            raise refuse(f"history[{i}].action.deck", "a deal's deck holds each card once")


def check_match_end(s: RondaState) -> None:
    """R32 and R13: a match is over exactly when a side has won it, by reaching the target
    with the highest score alone or by a genuine challenged declaration."""
    leader = target_winner(s.scores, s.o.target)
    genuine = [t % s.nsides for t in range(s.n) if (s.challenged & ~s.withdrawn) >> t & 1]
    if s.phase != MATCH_OVER_P:
        if leader is not None:
            raise refuse(
                "scores",
                f"side {leader} has reached the target {s.o.target} with the highest score: "
                "the match is over (R32)",
            )
    elif s.winner not in genuine and s.winner != leader:
        raise refuse(
            "winner",
            "the winner must have reached the target with the highest score (R32) "
            "or have had a genuine declaration challenged (R13)",
        )


def check_phase(
    s: RondaState, values: dict[str, Any], mode: str, total: int, size: int, deal: list[tuple[int, Any]]
) -> None:
    """Phase-dependent consistency; sets ``to_act`` (challenge phase: replayed from this
    hand's calls in ``deal``, or taken from the document for a hand a layout set up)."""
    n = s.n
    o = s.o
    phase = s.phase
    first = (s.dealer + 1) % n
    decl = s.decl
    if (phase == MATCH_OVER_P) != (s.winner >= 0):
        raise refuse("winner", "a winner is set exactly when the match is over")
    if phase in (DECLARE_P, CHALLENGE_P):
        if total:
            raise refuse("played", "no card is played before the declarations are over")
        if s.last_drop >= 0 or s.chain is not None:
            raise refuse("last_drop", "no play has been made in this hand yet")
        if o.auto_declare:
            raise refuse("phase", "auto_declare has no declaration or challenge round")
    elif any(d < 0 for d in decl) and not (phase == MATCH_OVER_P and total == 0):
        raise refuse("declarations", "every seat has declared once the declaration round is over")
    if phase != MATCH_OVER_P and s.challenged & ~s.withdrawn:
        raise refuse("challenged", "a genuine challenged declaration ends the match")
    if phase == DECLARE_P:
        order = [(first + k) % n for k in range(n)]
        acted = [decl[t] >= 0 for t in order]
        if all(acted) or acted != sorted(acted, reverse=True):
            raise refuse(
                "declarations", "seats declare in turn from dealer+1; someone must still be to declare"
            )
        if s.challenged or s.prov_side >= 0:
            raise refuse("challenged", "no challenge before the declaration round ends")
        s.to_act = order[acted.index(False)]
    elif phase == CHALLENGE_P:
        if not o.challenges:
            raise refuse("phase", "challenges are not played in this game")
        replayed = check_hand_calls(s, deal, total)
        if replayed is not None:
            s.to_act = replayed
        else:
            s.to_act = layout_challenge_seat(s, values.get("to_act", -1), mode == LAYOUT)
    elif phase == PLAY_P:
        if total >= size * n:
            raise refuse("played", "every card of the hand is played: the hand is over")
        s.to_act = (first + total) % n
    elif phase == DEAL_OVER_P:
        if any(s.hands) or s.stock or s.table:
            raise refuse("phase", "the deal is over: hands, table and stock are empty")
        s.to_act = first
    else:
        s.to_act = -1
    if (
        o.auto_declare and phase != MATCH_OVER_P and mode != TEMPLATE
    ):  # a view's template: the sampler sees to it
        for t in range(n):
            if decl[t] != holding(s.dealt[t])[0]:
                raise refuse(f"declarations[{t}]", "with auto_declare every declaration is the true holding")


def layout_challenge_seat(s: RondaState, given: int, layout: bool) -> int:
    """R13: the seat asked in a challenge round whose calls are not in the history: the
    document's ``to_act`` (a layout may leave it out: the round's first asked seat)."""
    n = s.n
    first = (s.dealer + 1) % n
    if given < 0 and layout:
        order = ((first + k) % n for k in range(n))
        given = next((t for t in order if any(is_open_target(s, t, u) for u in range(n))), -1)
    if given < 0:
        raise refuse("to_act", f"must be a whole number from 0 to {n - 1}")
    if not any(is_open_target(s, given, t) for t in range(n)):
        raise refuse("to_act", f"seat {given} has no open target to challenge")
    return given


def check_hand_calls(s: RondaState, deal: list[tuple[int, Any]], total: int) -> int | None:
    """R8, R11, R13: this hand's calls in ``deal`` (the current deal's history), before its
    ``total`` plays: the declarations in turn from dealer+1 (none is a pass), then the
    challenge round, replayed: each entry the asked seat's pass or challenge of an open
    target, the challenged seats the ones the entries give. Returns the seat asked next
    while the round goes on, else None. A hand a layout set up may have begun before its
    history (in the match's first deal: later deals are dealt in the history): then only
    what the history holds is checked."""
    n = s.n
    end = len(deal) - total
    if end < 0:  # the hand's first plays came before the history
        return None
    k = end
    while k and deal[k - 1][1] != DEAL_MARK and deal[k - 1][1] >= 52:  # the hand's calls
        k -= 1
    calls = deal[k:end]
    if s.o.auto_declare:
        if calls:
            raise refuse("history", "with auto_declare nobody declares or challenges (R8)")
        return None
    turn = [(s.dealer + 1 + j) % n for j in range(n)]
    declared = [(seat, DECLARE_BASE + s.decl[seat]) for seat in turn if s.decl[seat] >= 0]
    if calls[: len(declared)] != declared:
        if k == 0 and s.old_len == 0:  # the match's first deal may be a layout's, begun before its history
            return None
        raise refuse("history", "the hand's declarations come first, in turn from dealer+1 (R8)")
    if s.phase == DECLARE_P or not s.o.challenges:
        if len(calls) != len(declared):
            raise refuse("history", "only the declarations come before this hand's plays (R8, R11)")
        return None
    # A scratch copy from the start of the round: no seat challenged yet, no score that
    # could end the match (a genuine challenge cannot be followed by a challenge phase).
    replay = s.clone()
    replay.challenged = replay.withdrawn = 0
    replay.scores = [0] * s.nsides
    replay.phase = DECLARE_P
    r13_next_asked(replay, -1, None)
    for seat, action in calls[n:]:
        if replay.phase != CHALLENGE_P or seat != replay.to_act:
            raise refuse(
                "history", f"seat {replay.to_act} was to act in the challenge round, not {seat} (R13)"
            )
        if action != PASS:
            target = action - CHALLENGE_BASE
            if not 0 <= target < n or not is_open_target(replay, seat, target):
                raise refuse("history", "a challenge must name an open target of the asked seat (R13)")
            replay.challenged |= 1 << target
            replay.withdrawn |= s.withdrawn & 1 << target
        r13_next_asked(replay, seat, None)
    if (replay.phase == CHALLENGE_P) != (s.phase == CHALLENGE_P):
        raise refuse("phase", "the challenge round is over exactly when the history's round is")
    if replay.challenged != s.challenged:
        raise refuse("challenged", "the challenged seats must be the ones the history challenged")
    return replay.to_act if replay.phase == CHALLENGE_P else None


def check_play_turns(s: RondaState, deal: list[tuple[int, Any]], total: int) -> None:
    """R19: every play of this deal in the history was made in turn. Play goes round from
    dealer+1 and every hand of a deal has a multiple of the seat count of plays, so,
    counting back from the ``total`` plays of the current hand, the seat of each is known
    (also for a deal a layout set up, whose first plays came before its history)."""
    n = s.n
    plays = [seat for seat, action in deal if action < 52]
    offset = s.dealer + 1 + total - len(plays)
    for j, seat in enumerate(plays):
        if seat != (offset + j) % n:
            raise refuse("history", f"play {j + 1} of this deal was seat {(offset + j) % n}'s turn (R19)")
