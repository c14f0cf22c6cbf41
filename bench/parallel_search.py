"""Root-parallel search speed-up on the real stack: Redis + Celery workers.

For each worker count W (default 1 and 2) it starts an embedded Redis (or uses
REDIS_URL) and one ``celery worker --concurrency W``, then submits bot-move jobs split
into W parts with the same per-part time budget, and measures merged ISMCTS iterations
per second of wall time (submit to done). Speed-up = it/s with W processes / it/s with 1.

    python bench/parallel_search.py [--workers 1,2] [--ms 2000] [--jobs 3] [--game ronda]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import get_game  # noqa: E402
from service import create_app  # noqa: E402
from service.redis_conn import EmbeddedRedis  # noqa: E402
from service.settings import Settings  # noqa: E402
from tests.integration.conftest import Worker  # noqa: E402


def run(workers: int, ms: float, jobs: int, game_id: str, url: str) -> tuple[float, float]:
    prefix = f"majlis-bench-{workers}-{time.time_ns()}"
    log = Path(tempfile.mkdtemp()) / "worker.log"
    worker = Worker(url, prefix, log, concurrency=workers)
    try:
        worker.wait_ready()
        settings = Settings()
        settings.REDIS_URL, settings.KEY_PREFIX, settings.SEARCH_PARTS = url, prefix, workers
        settings.LOG_REQUESTS = False
        client = create_app(settings).test_client()
        game = get_game(game_id)
        state = game.new_state(2, game.parse_options({}, 2), 0, seed=9)
        seat = game.to_act(state)
        rates = []
        for j in range(jobs + 1):  # the first job warms the pool processes up
            t0 = time.perf_counter()
            job = client.post(
                f"/v1/games/{game_id}/bot-move",
                json={
                    "state": game.to_json(state),
                    "seat": seat,
                    "async": True,
                    "budget": {"ms": ms},
                    "seed": j,
                },
            ).get_json()["job"]
            while True:
                body = client.get(job["url"]).get_json()
                if body["status"] in ("done", "failed"):
                    break
                time.sleep(0.02)
            wall = time.perf_counter() - t0
            if body["status"] != "done":
                raise SystemExit(f"job failed: {body}")
            if j:
                rates.append(body["stats"]["iterations"] / wall)
        return statistics.median(rates), wall
    finally:
        worker.stop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--ms", type=float, default=2000.0)
    parser.add_argument("--jobs", type=int, default=3)
    parser.add_argument("--game", default="ronda")
    args = parser.parse_args()
    import os

    server = None
    url = os.environ.get("REDIS_URL")
    if not url:
        server = EmbeddedRedis()
        url = server.start()
    try:
        base = None
        print(
            f"{'processes':>9} {'parts':>5} {'iter/s':>10} {'speed-up':>8}  (median of {args.jobs} jobs, "
            f"{args.ms:g} ms per part, {args.game})"
        )
        for w in (int(x) for x in args.workers.split(",")):
            rate, _ = run(w, args.ms, args.jobs, args.game, url)
            base = base or rate
            print(f"{w:>9} {w:>5} {rate:>10.0f} {rate / base:>8.2f}", flush=True)
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
