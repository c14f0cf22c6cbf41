"""Screen (session 55): Porrazo's normal level valuing a hand's end by the match it leaves.

    .venv/bin/python bench/porrazo_match_equity.py --game porrazo --a normal --b normal \\
        --budget-iterations 500 --matches 400 --first 4400 --seed 5000 --duplicate --jobs 2

A match is the unit of Porrazo (won the moment a side reaches ``target_score``, R25), but
the search's reward is the hand's score difference through ``tanh(diff / 12)``: it values
ten points alike at 0-0 and at 50-58, and a hand both sides score well in as a hand
neither scores in. Side A here values the end of a playout by the chance that its side
wins the match from there (its *match equity*), read from a table this script computes
first, from the hands of easy-v-easy play: the table gives, for the scores at the start
of a hand and the side that deals it, the share of continuations the dealer's side wins,
each continuation a recorded hand's scoring events in their order (so a side that reaches
the target first wins, as R25 says), the next hand dealt by the other side (R26).

The reward is that equity itself (1 or 0 for a match won or lost in the playout): its
spread within a search is about the shipped reward's (a median standard deviation of 0.23
against 0.31 over the playouts of a position). Two sides only.

A first screen rescaled it to the shipped reward's slope around the equity at the search's
start, clipped to [0, 1] (matches 4400-4799: 0.448 [0.408, 0.487]); a probe then found 36 %
of its rewards clipped, the next hand's dealer shifting every outcome.
"""

from __future__ import annotations

import random
import sys
import time
from typing import Any

import numpy as np

from ai import arena
from ai.bots import Budget, Decision, decide
from ai.policies import choose
from engine import get_game
from engine.protocol import Game

HANDS = 20_000
"""Hands of easy-v-easy play the table is computed from."""

HANDS_A_MATCH = 4
"""Hands recorded from one match before the next: the easy policy reads the seat's view,
whose history grows with the match."""

WON = 10**6
"""A San Benito (R23: the match won at once) recorded as this many points."""


def record_hands(hands: int, seed: int) -> list[list[tuple[int, int]]]:
    """``hands`` hands of easy-v-easy play (two players, a target no side reaches), each the
    list of its scoring events as cumulative (dealer's side, other side) gains."""
    game = get_game("porrazo")
    rng = random.Random(seed)
    out: list[list[tuple[int, int]]] = []
    while len(out) < hands:
        st = game.new_state(2, {"target_score": 10_000}, dealer=rng.randrange(2), seed=rng.getrandbits(63))
        hand_no, dealer, start, events = st.hand_no, st.dealer, list(st.scores), []
        last = list(st.scores)
        while st.to_act is not None and len(out) < hands and st.hand_no <= HANDS_A_MATCH:
            game.step(st, choose(game, st, st.to_act, rng))
            if st.hand_no != hand_no:  # the hand is over: keep it, the next begins here
                out.append(events)
                hand_no, dealer, start, events, last = (
                    st.hand_no,
                    st.dealer,
                    list(st.scores),
                    [],
                    list(st.scores),
                )
                continue
            if st.scores != last:
                gains = [st.scores[s] - start[s] for s in range(2)]
                events.append((gains[dealer], gains[1 - dealer]))
                last = list(st.scores)
        if st.to_act is None and st.win_reason == "san_benito":
            events.append((WON, 0) if st.winner == dealer else (0, WON))
            out.append(events)
    return out[:hands]


def equity_table(hands: list[list[tuple[int, int]]], target: int) -> np.ndarray:
    """E[a, b]: the chance the side dealing a hand wins the match from scores a (its own)
    and b (the other's), both below ``target``, over the recorded hands' continuations."""
    n = len(hands)
    first_d = np.full((n, target + 1), np.iinfo(np.int32).max, dtype=np.int64)
    first_o = np.full((n, target + 1), np.iinfo(np.int32).max, dtype=np.int64)
    end_d = np.zeros(n, dtype=np.int64)
    end_o = np.zeros(n, dtype=np.int64)
    for h, events in enumerate(hands):
        for t in range(len(events) - 1, -1, -1):  # the first event reaching each gain
            d, o = events[t]
            first_d[h, 1 : min(d, target) + 1] = t
            first_o[h, 1 : min(o, target) + 1] = t
        if events:
            end_d[h], end_o[h] = min(events[-1][0], target), min(events[-1][1], target)
    table = np.full((target, target), 0.5)
    # the other side deals next: E[a, b] = mean(win, or 1 - E[b + o, a + d]); by falling
    # a + b every continuation is known but the hands nobody scores in (a swap at equal sum)
    for total in range(2 * target - 2, -1, -1):
        cells = [(a, total - a) for a in range(max(0, total - target + 1), min(target, total + 1))]
        for _ in range(4 if total else 8):  # the swaps settle in a few sweeps
            for a, b in cells:
                td, to = first_d[:, target - a], first_o[:, target - b]
                never = np.iinfo(np.int32).max
                going = (td == never) & (to == never)
                # one step scoring for both sides past the target at once: read as even
                both = (td == to) & ~going
                nd, no = a + end_d[going], b + end_o[going]
                won = (td < to).sum() + 0.5 * both.sum()
                table[a, b] = (won + (1.0 - table[no, nd]).sum()) / n
    return table


class EquityReward:
    """The reward of a Porrazo playout from the match equity table (two sides)."""

    def __init__(self, table: np.ndarray, target: int) -> None:
        self.table = table.tolist()
        self.target = target

    def equity(self, st: Any, side: int) -> float:
        if st.winner is not None:
            return 1.0 if st.winner == side else 0.0
        dealer = st.o.side_of[st.dealer]
        mine, other = st.scores[side], st.scores[1 - side]
        if side == dealer:
            return float(self.table[mine][other])
        return 1.0 - float(self.table[other][mine])

    def outcome(self, start: Any, end: Any) -> list[float]:
        return [self.equity(end, start.o.side_of[seat]) for seat in range(start.o.players)]


class EquityGame:
    """``game`` unchanged but for its ``outcome`` (two sides; else the game's own)."""

    def __init__(self, game: Game[Any], reward: EquityReward) -> None:
        self._game = game
        self._reward = reward

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def outcome(self, start: Any, end: Any) -> list[float]:
        if start.o.sides != 2 or start.o.target != self._reward.target:
            return self._game.outcome(start, end)
        return self._reward.outcome(start, end)


REWARD: EquityReward | None = None


def equity_decider(
    game: Game[Any], state: Any, seat: int, level: str, budget: Budget | None, seed: int
) -> Decision:
    """Side A's move: ``level``'s search valuing a playout's end by the match equity."""
    assert REWARD is not None
    valued: Any = EquityGame(game, REWARD)
    return decide(
        valued, game.view(state, seat), level=level, budget=budget, seed=seed, max_ms=arena.OFFLINE_MAX_MS
    )


def main(argv: list[str]) -> int:
    global REWARD
    began = time.process_time()
    hands = record_hands(HANDS, seed=55)
    table = equity_table(hands, 61)
    REWARD = EquityReward(table, 61)
    print(
        f"equity table from {len(hands)} easy hands in {time.process_time() - began:.1f} s of CPU:"
        f" E[0,0] (dealer) {table[0, 0]:.3f}, E[50,50] {table[50, 50]:.3f}, E[30,50] {table[30, 50]:.3f}",
        flush=True,
    )
    return arena.main(
        argv,
        decide_a=equity_decider,
        a_note=" valuing hands by match equity",
        prog="python bench/porrazo_match_equity.py",
        description=__doc__.splitlines()[0],
    )


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
