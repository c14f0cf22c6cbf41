"""Fit Marriage's opponent hand model (``ai/policies/marriage_hands.py``: ``WEIGHTS``) by
logistic regression.

    .venv/bin/python bench/marriage_hand_fit.py --matches 400 --seed 71 --holdout 100

Data: easy-v-easy matches (the arena's deals: ``ai.arena.start_match`` of the series
``--seed``, matches 0 .. ``--matches`` - 1, the last ``--holdout`` held out), two players
unless ``--players``. At every draw of every seat, each copy of a card the seat cannot
place (``engine.games.marriage.sampling.hidden_cards``) is one row per opponent: the card's
features for that opponent (``card_features``), and whether the copy is in that opponent's
hidden hand (1) or elsewhere (0). The model: a copy is in the hand with probability
``sigmoid(b + w . f)``, a small ridge penalty on ``w``. Prints ``WEIGHTS`` as Python to
paste, and the held-out log loss a row of the fit and of the intercept alone (the uniform
deal), with the mean probability the model gives the copies that are in the hand against
the uniform deal's.

``--shape``: instead, how far the opponent's hand is from its show or finish (cards
missing, ``hand_eval.deficiency`` with every card live) at the draws after turn 8: the
true hand, a uniform deal of its hidden cards, and that deal with a share of the
opponent's turns replayed (``ai.policies.marriage_hands.worlds``' ``EVOLVED_SHARE``):

    .venv/bin/python bench/marriage_hand_fit.py --shape --matches 60 --seed 71

Tuning series used so far: seed 71 (Marriage's evaluation fit, matches 0-399). The arena's
reported runs use other series (docs/bots.md).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai import policies  # noqa: E402
from ai.arena import start_match  # noqa: E402
from ai.playouts.marriage import evolve_hand  # noqa: E402
from ai.policies.marriage_hands import FEATURES, card_features, seat_records  # noqa: E402
from engine import get_game  # noqa: E402
from engine.games.marriage import tables as T  # noqa: E402
from engine.games.marriage.hand_eval import deficiency  # noqa: E402
from engine.games.marriage.sampling import hidden_cards  # noqa: E402
from engine.games.marriage.state import MState  # noqa: E402
from engine.games.marriage.tables import NCODES  # noqa: E402

GAME = get_game("marriage")


def rows_at(state: object, seat: int) -> tuple[list[list[float]], list[float]]:
    """The rows (features, in the hand or not) of every hidden copy, for every opponent of
    ``seat``, at this position."""
    view = GAME.view(state, seat)
    records = seat_records(view)
    hidden = [0] * NCODES
    for c in hidden_cards(state, seat):  # type: ignore[arg-type]
        hidden[c] += 1
    x: list[list[float]] = []
    y: list[float] = []
    for other, record in enumerate(records):
        if other == seat:
            continue
        features = card_features(record)
        held = list(state.hands[other])  # type: ignore[attr-defined]
        for c in state.taken[other]:  # type: ignore[attr-defined]
            held[c] -= 1
        for c, copies in enumerate(hidden):
            inside = min(max(held[c], 0), copies)
            for k in range(copies):
                x.append(features[c])
                y.append(1.0 if k < inside else 0.0)
    return x, y


def play(seed: int, index: int, players: int) -> tuple[list[list[float]], list[float]]:
    """One easy-v-easy match's rows, at every seat's draws."""
    state = start_match(GAME, players, None, seed, index).state
    rng = random.Random(seed * 1_000_003 + index)
    x: list[list[float]] = []
    y: list[float] = []
    for _ in range(100_000):
        seat = GAME.to_act(state)
        if seat is None:
            break
        if GAME.phase(state) == "draw":
            xs, ys = rows_at(state, seat)
            x += xs
            y += ys
        GAME.step(state, policies.choose(GAME, state, seat, rng))
    return x, y


SHARES = (0.0, 0.6, 0.75, 0.9, 1.0)


def shape(seed: int, matches: int) -> None:
    """Prints the mean cards missing of the true hands and of the shaped deals."""
    missing: dict[str, list[int]] = {"true": []} | {f"{share:.2f}": [] for share in SHARES}
    for index in range(matches):
        state = start_match(GAME, 2, None, seed, index).state
        rng = random.Random(seed * 1_000_003 + index)
        while (seat := GAME.to_act(state)) is not None:
            if GAME.phase(state) == "draw" and state.turns > 8:  # type: ignore[attr-defined]
                other = 1 - seat
                view = GAME.view(state, seat)
                draws = seat_records(view)[other].draws
                missing["true"].append(cards_missing(state, other))
                sample = GAME.sampler(view)
                for share in SHARES:
                    world = sample(random.Random(index))
                    evolve_hand(world, other, round(share * draws), random.Random(index + 1))
                    missing[f"{share:.2f}"].append(cards_missing(world, other))
            GAME.step(state, policies.choose(GAME, state, seat, rng))
    for name, values in missing.items():
        label = "true hand" if name == "true" else f"deal, {name} of the turns replayed"
        print(f"{label}: {sum(values) / len(values):.2f} cards missing ({len(values)} positions)")


def cards_missing(state: object, seat: int) -> int:
    """Cards ``seat``'s hand lacks for its show (unseen) and its finish."""
    st: MState = state  # type: ignore[assignment]
    need_total = max(0, T.SETS_TO_FINISH - len(st.tunnelas[seat]) - len(st.shown[seat]))
    need_pure = max(0, T.SETS_TO_SEE - len(st.tunnelas[seat])) if st.route[seat] == T.UNSEEN else 0
    show, finish, _, _ = deficiency(st.hands[seat], [3] * NCODES, need_pure=need_pure, need_total=need_total)
    return show + finish


def fit(x: np.ndarray, y: np.ndarray, ridge: float = 1.0) -> np.ndarray:
    """Newton's method on the penalised log likelihood; column 0 is the intercept."""
    w = np.zeros(x.shape[1])
    w[0] = math.log(y.mean() / (1 - y.mean()))
    penalty = np.full(x.shape[1], ridge)
    penalty[0] = 0.0
    for _ in range(30):
        p = 1 / (1 + np.exp(-(x @ w)))
        grad = x.T @ (y - p) - penalty * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        w += step
        if np.abs(step).max() < 1e-8:
            break
    return w


def log_loss(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    p = np.clip(1 / (1 + np.exp(-(x @ w))), 1e-9, 1 - 1e-9)
    return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=400)
    parser.add_argument("--seed", type=int, default=71)
    parser.add_argument("--holdout", type=int, default=100)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--ridge", type=float, default=1.0)
    parser.add_argument("--shape", action="store_true", help="measure the hands' shape instead")
    args = parser.parse_args()
    if args.shape:
        shape(args.seed, args.matches)
        return 0
    data = [play(args.seed, i, args.players) for i in range(args.matches)]
    cut = args.matches - args.holdout

    def stack(part: list[tuple[list[list[float]], list[float]]]) -> tuple[np.ndarray, np.ndarray]:
        x = np.array([[1.0, *row] for xs, _ in part for row in xs])
        y = np.array([v for _, ys in part for v in ys])
        return x, y

    x_fit, y_fit = stack(data[:cut])
    x_out, y_out = stack(data[cut:])
    w = fit(x_fit, y_fit, args.ridge)
    base = np.zeros_like(w)
    base[0] = math.log(y_fit.mean() / (1 - y_fit.mean()))
    print(f"rows: fit {len(y_fit):,}, held out {len(y_out):,}; share in a hand {y_fit.mean():.4f}")
    model_loss, uniform_loss = log_loss(x_out, y_out, w), log_loss(x_out, y_out, base)
    print(f"held-out log loss a row: model {model_loss:.5f}, uniform {uniform_loss:.5f}")
    inside = y_out == 1
    p_model = 1 / (1 + np.exp(-(x_out @ w)))
    print(
        f"held-out mean probability of the copies in the hand: model {p_model[inside].mean():.4f}, "
        f"uniform {1 / (1 + math.exp(-base[0])):.4f}"
    )
    print(f"intercept {w[0]:+.4f}")
    print("WEIGHTS: Final[tuple[float, ...]] = (")
    for name, value in zip(FEATURES, w[1:], strict=True):
        print(f"    {value:+.4f},  # {name}")
    print(")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
