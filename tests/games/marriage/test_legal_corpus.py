"""Marriage's legal actions against a recorded corpus (tests/data/marriage/corpus/legal_actions.json).

The corpus holds, for 120 seeded deals (2 to 5 players) played by a simple driver (a show
or a finish whenever one is legal, else a uniformly random action), a digest of
``legal_actions`` (the actions and their order) every fifth step of the first 300: 4,689
positions, most of them with a seen seat, 83 deals finished. It was recorded with the
legal-move generation of main at 2171530, so a faster generator must give the same answers
in the same order. Regenerate only when a rule really changes:
``python -m tests.games.marriage.test_legal_corpus > tests/data/marriage/corpus/legal_actions.json``.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

from engine import get_game

GAME = get_game("marriage")
CORPUS = Path(__file__).resolve().parents[2] / "data" / "marriage" / "corpus" / "legal_actions.json"


def digests(seed: int) -> list[str]:
    """The digests of the legal actions along the driver's deal of ``seed``."""
    players = 2 + seed % 4
    state = GAME.new_state(players, None, seed % players, seed=seed)
    rng = random.Random(seed)
    out = []
    for step in range(300):
        if GAME.to_act(state) is None or GAME.phase(state) == "deal_over":
            break
        actions = GAME.legal_actions(state)
        if step % 5 == 0:
            out.append(hashlib.sha256(repr(actions).encode()).hexdigest()[:10])
        melds = [a for a in actions if isinstance(a, tuple)]
        action: Any = melds[-1] if melds else actions[int(rng.random() * len(actions))]
        GAME.step(state, action)
    return out


def test_legal_actions_match_the_recorded_corpus() -> None:
    corpus = json.loads(CORPUS.read_text())
    assert len(corpus) == 120
    for seed, recorded in enumerate(corpus):
        assert digests(seed) == recorded, f"seed {seed}"


if __name__ == "__main__":
    json.dump([digests(seed) for seed in range(120)], sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")
