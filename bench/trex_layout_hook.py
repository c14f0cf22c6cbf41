"""Session 56's screen: Trex's hard level with a playout hook for the layout (the Trex contract).

    .venv/bin/python bench/trex_layout_hook.py --deals 60 --first 0 --jobs 2

The searching levels' playouts play the Trex contract's layout at random (the trick hook,
``ai.playouts.trex``, covers the trick contracts only). Here side A is the hard level whose
playouts play the layout as the easy policy does, in a cheap form on the hands' bit masks:
a card that opens the way to the seat's own next cards first, one that opens the way only
to the others' cards last (``ai.policies.trex.layout_value``'s terms without its
playable-cards term), one time in ten a random playable card. Side B is the hard level as
shipped. Each deal (``new_state(4, seed=560000 + i)``, its first owner choosing the Trex
contract) is played eight times: A, then B, in each of the four seats, the other three
seats the normal level; the same search seeds for A and B. Printed: A's and B's points in
the deal and pairwise share against the three normal seats, and the paired difference
A - B with a 95 % interval over the deals.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from ai import policies
from ai.bots import decide
from ai.playouts.trex import HOOK_TRICKS
from ai.playouts.trex import choose as trick_choose
from ai.policies.base import PlayoutHook
from ai.policies.trex import LAYOUT_W
from engine import get_game
from engine.games.trex.playout import play_tricks
from engine.games.trex.rules import is_playout_over, step
from engine.games.trex.tables import CHOOSE_BASE, LAYOUT, PASS, TREX, TRICKS

EPSILON = 0.1


def layout_score(card: int, hand: int, start: int) -> float:
    """``layout_value``'s direction terms for ``card`` (suit * 13 + seq) from ``hand`` (a mask)."""
    suit, seq = divmod(card, 13)
    mine = (hand >> (13 * suit)) & 0x1FFF & ~(1 << seq)
    value = 0.0
    for d in (-1, 1) if seq == start else ((-1,) if seq < start else (1,)):
        r = seq + d
        chain = 0
        while 0 <= r < 13 and mine >> r & 1:
            chain += 1
            r += d
        beyond = gap = 0
        first_gap = -1
        while 0 <= r < 13:
            if mine >> r & 1:
                beyond += 1
                if first_gap < 0:
                    first_gap = gap
            else:
                gap += 1
            r += d
        if chain:
            value += LAYOUT_W["chain0"] + LAYOUT_W["chain"] * chain
        if beyond:
            value += LAYOUT_W["beyond"] * beyond / (1.0 + first_gap)
        elif not chain and gap:
            value -= LAYOUT_W["helps"] + LAYOUT_W["gapscale"] * gap
    return value


def layout_choice(s: Any, rng: random.Random) -> int:
    """The hook's layout turn: pass when nothing fits, else the best-scored playable card."""
    hand = s.hands[s.to_act]
    fits = hand & s.lay_mask
    if not fits:
        return PASS
    cards = [c for c in range(52) if fits >> c & 1]
    if len(cards) == 1:
        return cards[0]
    if rng.random() < EPSILON:
        return cards[int(rng.random() * len(cards))]
    start = s.opts.start_seq
    return max(cards, key=lambda c: (layout_score(c, hand, start), -abs(c % 13 - start), -c))


def choose(s: Any, rng: random.Random) -> Any:
    return layout_choice(s, rng) if s.phase == LAYOUT else trick_choose(s, rng)


def play_out(start: Any, s: Any, rng: random.Random) -> None:
    while not is_playout_over(start, s):
        if s.phase == TRICKS:
            play_tricks(s, rng.random, HOOK_TRICKS)
        else:
            step(s, choose(s, rng))


LAYOUT_HOOK = PlayoutHook(choose, play_out)


def decide_with(game: Any, state: Any, seat: int, level: str, seed: int, hook: bool) -> Any:
    """``level``'s action for ``seat``; with ``hook`` its playouts play the layout as above."""
    shipped = policies.playout_policy(game)
    if hook:
        policies.PLAYOUTS["trex"] = LAYOUT_HOOK
    try:
        return decide(game, game.view(state, seat), level=level, seed=seed).action
    finally:
        policies.PLAYOUTS["trex"] = shipped


def play_deal(args: tuple[int, int, bool]) -> tuple[int, int, bool, list[int], float]:
    """Deal ``i`` with side A's searcher (hook or not) in ``seat``: the four seats' points."""
    i, seat, hook = args
    game = get_game("trex")
    state = game.new_state(4, None, 0, seed=560000 + i)
    step(state, CHOOSE_BASE + TREX)
    before = list(state.match_scores)
    deal_no = state.deal_no
    started = time.process_time()
    k = 0
    while state.deal_no == deal_no and game.to_act(state) is not None:
        actor = game.to_act(state)
        level = "hard" if actor == seat else "normal"
        action = decide_with(game, state, actor, level, 1000 * i + k, hook and actor == seat)
        game.step(state, action)
        k += 1
    points = [a - b for a, b in zip(state.match_scores, before, strict=True)]
    return i, seat, hook, points, time.process_time() - started


def mean_ci(xs: list[float]) -> str:
    m = statistics.fmean(xs)
    half = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("nan")
    return f"{m:+.3f} [{m - half:+.3f}, {m + half:+.3f}]"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    tasks = [
        (i, seat, hook)
        for i in range(args.first, args.first + args.deals)
        for seat in range(4)
        for hook in (True, False)
    ]
    results: dict[tuple[int, int, bool], list[int]] = {}
    cpu = 0.0
    started = time.time()
    with ProcessPoolExecutor(args.jobs) as pool:
        for n, (i, seat, hook, points, seconds) in enumerate(pool.map(play_deal, tasks), 1):
            results[(i, seat, hook)] = points
            cpu += seconds
            if n % 8 == 0:
                print(
                    f"\r{n // 8} of {args.deals} deals, {time.time() - started:.0f} s",
                    end="",
                    file=sys.stderr,
                    flush=True,
                )
    print(file=sys.stderr)

    def pairwise(points: list[int], seat: int) -> float:
        return (
            sum(
                1.0 if points[seat] > p else 0.5 if points[seat] == p else 0.0
                for j, p in enumerate(points)
                if j != seat
            )
            / 3
        )

    def margin(points: list[int], seat: int) -> float:
        return points[seat] - sum(p for j, p in enumerate(points) if j != seat) / 3

    per_deal: dict[str, list[float]] = {"pw_a": [], "pw_b": [], "m_a": [], "m_b": [], "pw_d": [], "m_d": []}
    for i in range(args.first, args.first + args.deals):
        pa = statistics.fmean(pairwise(results[(i, s, True)], s) for s in range(4))
        pb = statistics.fmean(pairwise(results[(i, s, False)], s) for s in range(4))
        ma = statistics.fmean(margin(results[(i, s, True)], s) for s in range(4))
        mb = statistics.fmean(margin(results[(i, s, False)], s) for s in range(4))
        per_deal["pw_a"].append(pa)
        per_deal["pw_b"].append(pb)
        per_deal["m_a"].append(ma)
        per_deal["m_b"].append(mb)
        per_deal["pw_d"].append(pa - pb)
        per_deal["m_d"].append(ma - mb)
    print(
        f"trex layout deals {args.first}-{args.first + args.deals - 1} (new_state seeds 560000+i), "
        f"hard with the layout hook (A) and as shipped (B), each in every seat against three normal seats"
    )
    pw = ", ".join(
        f"{k} {mean_ci(per_deal[key])}" for k, key in (("A", "pw_a"), ("B", "pw_b"), ("A - B", "pw_d"))
    )
    print(f"  pairwise v normal: {pw}")
    pts = ", ".join(
        f"{k} {mean_ci(per_deal[key])}" for k, key in (("A", "m_a"), ("B", "m_b"), ("A - B", "m_d"))
    )
    print(f"  points over the normal seats' mean: {pts}")
    print(f"  {cpu:.0f} s of CPU, {time.time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
