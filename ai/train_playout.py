"""Fit Trex's learned playout policy (the hard level's trick play in its playouts) to the
normal level's own choices, and write its weights to ``ai/playouts/trex_weights.py``.

    python -m ai.train_playout --matches 12 --seed 6000 --holdout 3

Data: normal-level self-play, four seats, whole matches dealt by ``new_state`` seeds
``--seed`` .. ``--seed + --matches - 1`` (small numbers: no arena series deals from them),
the first dealer turning with the seed. At every trick-phase decision with more than one
legal card, the card normal's search chose is recorded with the arguments the fused trick
loop gives a ``TrickPolicy`` (``ai.playouts.trex.trick_args``). The last ``--holdout``
matches are held out. ``--choices FILE`` keeps the choices (JSON lines), and a later run with
the same seeds and level refits from them without playing again.

The model (``ai.playouts.trex.LearnedTricks``): a conditional logit over the legal cards,
each card's score the sum of its features' weights (``card_features``), one weight set per
contract class and a pooled set fitted on every contract. Fitted by maximum likelihood
with a small ridge penalty (L-BFGS). Prints the held-out log loss and agreement of the
fit, of the normal level's current playout hook and of uniform play, and writes the
weights as a module with the command that made them (``--out``; ``--dry-run`` only prints).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np

from ai import bots
from ai.playouts import trex as hook
from engine import get_game

GAME = get_game("trex")
OUT = Path(__file__).resolve().parent / "playouts" / "trex_weights.py"
RIDGE = 1.0
"""The ridge penalty on the sum of the log likelihoods (about a decision's worth per
weight: it keeps a feature seen only a few times from a large weight)."""


@dataclass(frozen=True)
class TrickChoice:
    """One recorded decision: the trick loop's arguments and the card chosen."""

    legal: int
    led: int
    best: int
    in_trick: int
    penalty: int
    chosen: int
    match: int

    def candidates(self) -> list[int]:
        return [c for c in range(52) if self.legal >> c & 1]


def self_play(seed: int, index: int, level: str, log: Any) -> list[TrickChoice]:
    """Match ``seed + index`` played by four seats of ``level``: its trick-phase choices."""
    state = GAME.new_state(4, None, index % 4, seed=seed + index)
    choices: list[TrickChoice] = []
    step_no = 0
    while (seat := GAME.to_act(state)) is not None:
        view = GAME.view(state, seat)
        decision = bots.decide(GAME, view, level=level, seed=(seed + index) * 7919 + step_no)
        actions = GAME.legal_actions(state)
        if GAME.phase(state) == "tricks" and len(actions) > 1:
            legal, led, best, in_trick, penalty = hook.trick_args(state, actions)
            chosen = cast(int, decision.action)
            choices.append(TrickChoice(legal, led, best, in_trick, penalty, chosen, index))
        GAME.step(state, decision.action)
        step_no += 1
    print(f"  match {seed + index}: {len(choices)} trick choices", file=log, flush=True)
    return choices


def load_or_play(args: argparse.Namespace) -> list[TrickChoice]:
    """The self-play's choices: read from ``--choices`` when it holds this self-play's (its
    first line names the seeds and the level), else played (and kept there if named)."""
    header = {"seed": args.seed, "matches": args.matches, "level": args.level}
    path: Path | None = args.choices
    if path is not None and path.exists():
        lines = path.read_text(encoding="utf-8").splitlines()
        if lines and json.loads(lines[0]) == header:
            print(f"self-play: {len(lines) - 1} choices read from {path}")
            return [TrickChoice(**json.loads(line)) for line in lines[1:]]
        print(f"{path} holds another self-play: playing this one again")
    print(f"self-play: {args.matches} matches of four {args.level} seats", flush=True)
    choices: list[TrickChoice] = []
    for index in range(args.matches):
        choices += self_play(args.seed, index, args.level, sys.stdout)
    if path is not None:
        text = [json.dumps(header)] + [json.dumps(asdict(c)) for c in choices]
        path.write_text("\n".join(text) + "\n", encoding="utf-8")
    return choices


def design(choices: list[TrickChoice]) -> list[tuple[int, np.ndarray, int]]:
    """Per choice: its weight class, the candidates' feature rows and the chosen row."""
    rows = []
    for ch in choices:
        cands = ch.candidates()
        x = np.zeros((len(cands), hook.WEIGHTS_PER_CONTRACT))
        for i, card in enumerate(cands):
            flags, situation = hook.card_features(card, ch.legal, ch.led, ch.best, ch.in_trick, ch.penalty)
            for k in range(hook.FLAGS):
                if flags >> k & 1:
                    x[i, k] = 1.0
            x[i, hook.FLAGS + situation] = (card % 13) / 12.0
        rows.append((hook.contract_class(ch.penalty), x, cands.index(ch.chosen)))
    return rows


def fit(rows: list[tuple[np.ndarray, int]], steps: int = 25) -> np.ndarray:
    """The weights of the largest penalised likelihood, by Newton's method (the conditional
    logit's negative log likelihood is convex; the ridge makes it strictly so)."""
    w = np.zeros(hook.WEIGHTS_PER_CONTRACT)
    for _ in range(steps):
        grad = RIDGE * w
        hess = RIDGE * np.eye(len(w))
        for x, chosen in rows:
            s = x @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            mean = p @ x
            grad = grad - (x[chosen] - mean)
            hess = hess + (x.T * p) @ x - np.outer(mean, mean)
        move = np.linalg.solve(hess, grad)
        w = w - move
        if float(np.abs(move).max()) < 1e-6:
            break
    return w


def policy_scores(choices: list[TrickChoice], weights: list[float]) -> tuple[float, float]:
    """Mean log loss and agreement (the most likely card is the chosen one) of the learned
    trick play with ``weights``."""
    tricks = hook.LearnedTricks(weights)
    loss = agree = 0.0
    for ch in choices:
        cands = ch.candidates()
        scores = [tricks.score(c, ch.legal, ch.led, ch.best, ch.in_trick, ch.penalty) for c in cands]
        top = max(scores)
        z = sum(math.exp(s - top) for s in scores)
        loss -= scores[cands.index(ch.chosen)] - top - math.log(z)
        agree += scores[cands.index(ch.chosen)] == top
    return loss / len(choices), agree / len(choices)


def hook_scores(choices: list[TrickChoice]) -> tuple[float, float]:
    """Mean log loss and agreement of the normal level's playout hook (``HookTricks``: its
    card with probability 1 - EPSILON, plus EPSILON spread over the legal cards)."""
    loss = agree = 0.0
    for ch in choices:
        n = len(ch.candidates())
        # the hook's card when its first draw does not pick a random card (0.5 >= EPSILON)
        card = hook.HOOK_TRICKS.card(ch.legal, ch.led, ch.best, ch.in_trick, ch.penalty, lambda: 0.5)
        p = hook.EPSILON / n + (1.0 - hook.EPSILON) * (card == ch.chosen)
        loss -= math.log(p)
        agree += card == ch.chosen
    return loss / len(choices), agree / len(choices)


def module_text(weights: list[float], argv: list[str], summary: list[str]) -> str:
    lines = [
        '"""Trex\'s learned trick play (``ai.playouts.trex.LearnedTricks``): its weights, written by',
        "",
        f"    python -m ai.train_playout {' '.join(argv)}",
        "",
        "One row per contract class (``CONTRACT_CLASSES``), one column per feature",
        "(``FEATURE_NAMES``). Do not edit: run the command again.",
        "",
        *summary,
        '"""',
        "",
        "WEIGHTS: tuple[float, ...] = (",
    ]
    per = hook.WEIGHTS_PER_CONTRACT
    for k, name in enumerate(hook.CONTRACT_CLASSES):
        row = ", ".join(f"{x:.4f}" for x in weights[k * per : (k + 1) * per])
        lines.append(f"    # {name}")
        lines.append(f"    {row},")
    lines.append(")")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ai.train_playout", description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=12)
    parser.add_argument("--seed", type=int, default=6000, help="new_state seeds seed .. seed + matches - 1")
    parser.add_argument("--holdout", type=int, default=3, help="the last matches, held out of the fit")
    parser.add_argument("--level", default="normal", choices=("easy", "normal", "hard"), help="whose choices")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument(
        "--choices", type=Path, default=None, help="keep (or reuse) the self-play's choices here"
    )
    parser.add_argument("--dry-run", action="store_true", help="print the fit, write nothing")
    args = parser.parse_args(argv)
    if not 0 < args.holdout < args.matches:
        parser.error("--holdout must leave matches on both sides")
    started = time.perf_counter()
    choices = load_or_play(args)
    train = [c for c in choices if c.match < args.matches - args.holdout]
    held = [c for c in choices if c.match >= args.matches - args.holdout]
    print(f"{len(train)} choices to fit, {len(held)} held out ({time.perf_counter() - started:.0f} s)")
    rows = design(train)
    weights: list[float] = []
    for k, name in enumerate(hook.CONTRACT_CLASSES):
        own = [(x, c) for cls, x, c in rows if name == "pooled" or cls == k]
        w = fit(own)
        weights += [round(float(v), 4) for v in w]
        named = ", ".join(f"{n} {v:+.2f}" for n, v in zip(hook.FEATURE_NAMES, w, strict=True))
        print(f"  {name}: {len(own)} choices; {named}")
    uniform = sum(math.log(len(c.candidates())) for c in held) / len(held)
    learned_loss, learned_agree = policy_scores(held, weights)
    hook_loss, hook_agree = hook_scores(held)
    summary = [
        f"Fitted on {len(train)} trick choices of the normal level's self-play, held out {len(held)}:",
        f"held-out log loss {learned_loss:.3f} a choice (the current hook {hook_loss:.3f}, uniform",
        f"{uniform:.3f}); the most likely card is normal's in {learned_agree:.1%} of them (the",
        f"hook's card: {hook_agree:.1%}).",
    ]
    print("\n".join(summary))
    if args.dry_run:
        return 0
    args.out.write_text(module_text(weights, list(argv if argv is not None else sys.argv[1:]), summary))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
