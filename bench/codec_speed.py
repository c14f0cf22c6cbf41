"""State codec speed: load + dump + view of the recorded documents, per game, one core.

For every state of ``tests/data/corpus/<game>.jsonl.gz`` (the wire corpus: states along
seeded matches of every option set), one pass times ``from_json`` (the strict load the
service runs on every request), ``to_json`` and ``view`` for the seat to act (seat 0 when
the match is over). Each figure is the median of ``--runs`` passes, in microseconds of
this process's CPU time per document (``time.process_time``: on a shared machine, time
spent waiting for a core does not count), so two checkouts can be compared on the same
documents:

    PYTHONPATH=. MAJLIS_PURE_PYTHON=1 python bench/codec_speed.py [--games ronda] [--runs 7]

Only the Game protocol is used, so the script runs unchanged on older checkouts (copy it
there, or point ``--corpus`` at this checkout's corpus).
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import time
from pathlib import Path
from typing import Any

from engine import GAME_IDS, get_game

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "corpus"


def states_of(corpus: Path, game_id: str) -> list[dict[str, Any]]:
    with gzip.open(corpus / f"{game_id}.jsonl.gz", "rt", encoding="utf-8") as lines:
        return [record["doc"] for record in map(json.loads, lines) if record["kind"] == "state"]


def one_pass(game: Any, docs: list[dict[str, Any]]) -> tuple[float, float, float]:
    """Seconds spent in load, dump and view over ``docs``."""
    clock = time.process_time
    load = dump = view = 0.0
    for doc in docs:
        t0 = clock()
        state = game.from_json(doc)
        t1 = clock()
        game.to_json(state)
        t2 = clock()
        seat = game.to_act(state)
        game.view(state, 0 if seat is None else seat)
        t3 = clock()
        load += t1 - t0
        dump += t2 - t1
        view += t3 - t2
    return load, dump, view


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default=",".join(GAME_IDS))
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()
    print(f"{'game':<10}{'docs':>6}{'load µs':>10}{'dump µs':>10}{'view µs':>10}{'total µs':>10}")
    for game_id in args.games.split(","):
        game = get_game(game_id)
        docs = states_of(args.corpus, game_id)
        one_pass(game, docs)  # warm up: option caches, memoised card lists
        runs = [one_pass(game, docs) for _ in range(args.runs)]
        per_doc = [statistics.median(run[i] for run in runs) / len(docs) * 1e6 for i in range(3)]
        total = statistics.median(sum(run) for run in runs) / len(docs) * 1e6
        print(
            f"{game_id:<10}{len(docs):>6}{per_doc[0]:>10.1f}{per_doc[1]:>10.1f}{per_doc[2]:>10.1f}{total:>10.1f}"
        )


if __name__ == "__main__":
    main()
