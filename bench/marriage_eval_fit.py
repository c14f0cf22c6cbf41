"""Fit the Marriage search's leaf evaluation (``engine/games/marriage/hand_eval.py``:
``WEIGHTS`` and ``TEMPO``) by logistic regression.

    .venv/bin/python bench/marriage_eval_fit.py --matches 400 --seed 71 --holdout 100

Data: easy-v-easy matches of two players (the arena's deals: ``ai.arena.start_match`` of
the series ``--seed``, matches 0 .. ``--matches`` - 1, the last ``--holdout`` of them held
out). At every turn boundary (phase ``draw``: where the search's horizon cuts a playout)
the features of both seats are recorded with the match's result for seat 0 (1, 0, or
one half for a void deal). The model: seat 0 wins with probability
``sigmoid(w . (f0 - f1) + TEMPO * (+1 if seat 0 draws next else -1))``, no intercept (the
seats are symmetric), a small ridge penalty. Prints the weights as Python to paste, and
the held-out log loss against the constant 0.5 (0.693).

Tuning series used so far: seed 71 (matches 0-399). The arena's reported runs use other
series (docs/bots.md).
"""

from __future__ import annotations

import argparse
import math
import random
import sys

import numpy as np

from ai import policies
from ai.arena import start_match
from engine import get_game
from engine.games.marriage import hand_eval as H
from engine.games.marriage import melds as M
from engine.games.marriage import tables as T

GAME = get_game("marriage")


def features(st: object, seat: int) -> tuple[int, ...]:
    route = st.route[seat]  # type: ignore[attr-defined]
    tiplu = st.tiplu  # type: ignore[attr-defined]
    wild = M.joker_family(tiplu).wild if route != T.UNSEEN and tiplu >= 0 else 0
    tunnelas = len(st.tunnelas[seat])  # type: ignore[attr-defined]
    to_finish = max(0, T.SETS_TO_FINISH - tunnelas - len(st.shown[seat]))  # type: ignore[attr-defined]
    maal = H.maal_held(st, seat)  # type: ignore[arg-type]
    return H.seat_features(st.hands[seat], route, wild, tunnelas, to_finish, maal)  # type: ignore[attr-defined]


def play(seed: int, index: int) -> tuple[list[list[float]], float]:
    """One easy-v-easy match: the rows (feature differences, tempo) and seat 0's result."""
    start = start_match(GAME, 2, None, seed, index)
    st = start.state
    rng = random.Random(start.seed)
    rows = []
    for _ in range(5000):
        seat = GAME.to_act(st)
        if seat is None:
            break
        if st.phase == T.DRAW:
            f0, f1 = features(st, 0), features(st, 1)
            rows.append([a - b for a, b in zip(f0, f1, strict=True)] + [1.0 if seat == 0 else -1.0])
        GAME.step(st, policies.choose(GAME, st, seat, rng))
    report = GAME.score(st)
    result = 0.5 if report.winner is None else (1.0 if report.winner == 0 else 0.0)
    return rows, result


def fit(x: np.ndarray, y: np.ndarray, ridge: float = 1.0) -> np.ndarray:
    """Logistic regression by Newton's method (IRLS) with an L2 penalty."""
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-x @ w))
        grad = x.T @ (p - y) + ridge * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + ridge * np.eye(x.shape[1])
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def log_loss(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    p = np.clip(1.0 / (1.0 + np.exp(-x @ w)), 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=400)
    parser.add_argument("--holdout", type=int, default=100)
    parser.add_argument("--seed", type=int, default=71)
    args = parser.parse_args()
    train: list[tuple[list[float], float]] = []
    test: list[tuple[list[float], float]] = []
    for index in range(args.matches):
        rows, result = play(args.seed, index)
        target = test if index >= args.matches - args.holdout else train
        target.extend((r, result) for r in rows)
        if index % 50 == 49:
            print(f"{index + 1} matches, {len(train) + len(test)} rows", file=sys.stderr)
    x = np.array([r for r, _ in train])
    y = np.array([v for _, v in train])
    w = fit(x, y)
    names = list(H.FEATURES) + ["tempo"]
    for name, value in zip(names, w, strict=True):
        print(f"  {name:36s} {value:+.4f}")
    print("WEIGHTS = (" + ", ".join(f"{v:.4f}" for v in w[:-1]) + ")")
    print(f"TEMPO = {w[-1]:.4f}")
    if test:
        xt = np.array([r for r, _ in test])
        yt = np.array([v for _, v in test])
        print(
            f"held-out log loss {log_loss(xt, yt, w):.4f} (constant 0.5: {math.log(2):.4f}); "
            f"train {log_loss(x, y, w):.4f}; rows {len(train)} train, {len(test)} held out"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
