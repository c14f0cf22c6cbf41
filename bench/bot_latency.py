"""A searching level's bot move at its default budget, end to end over HTTP, per game
(``--level``: normal, the default, or hard).

Starts the system the README's way (``python -m service.run``: its embedded Redis, a
worker, the API's gunicorn and the stream server) on free loopback ports, with a data
directory of its own, and waits for ``/readyz``. Then, for each game, at ``--positions``
seeded positions (a few random steps into a deal, at a decision where the seat to act
has a real choice: more than one legal action, and more than one that the game's policy
lets the search consider, so the normal level searches), it asks for the level's move
with no ``budget`` in the request (the level's default: ai.bots.LEVEL_BUDGETS),
one request at a time, on two routes:

* ``stateless``: ``POST /v1/games/{game}/bot-move`` with the full ``state`` and the seat;
* ``session``: ``POST /v1/sessions/{id}/bot-move`` with the seat's token, in a session
  created with the same seed and brought to the same position by the same moves (its
  view is checked against the local one). A 202 answer (a job on the workers) is timed
  until ``GET /v1/jobs/{id}`` gives the result, and counted in the ``202`` column.

The time is the client's wall clock from sending the request to having read the whole
answer (a new connection per request, as a simple client does). Each of ``--runs`` runs
asks every position once on each route (a new session per run: a bot move is played).
Printed per game and route: p50, p90 and max in ms, the ``stats`` of the answers (the
iterations searched, and the server-side ``elapsed_ms`` of the bot's decision, so that
the rest is HTTP, JSON, the view and the service), the 1-minute load average and the
build the service runs (``/readyz``'s ``build``).

    python bench/bot_latency.py [--games trex ronda] [--positions 10] [--runs 3] [--level hard]
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the service starter lives in tests/ (not an installed package)

from ai import policies  # noqa: E402
from engine import GAME_IDS, get_game  # noqa: E402
from engine.protocol import Game  # noqa: E402
from tests.service_run import running_service  # noqa: E402

STEPS = 6
"""Random steps into the deal before a position may be taken."""


@dataclass
class Position:
    """A seeded decision: the state (seat ``seat`` to act) and the moves that lead to it
    from ``game.new_state(players, default options, dealer 0, seed=seed)``, in JSON."""

    game: str
    seed: int
    players: int
    state: Any
    seat: int
    moves: list[tuple[int, Any]] = field(default_factory=list)
    """(seat, JSON action) in order."""


def searches(game: Game[Any], state: Any, seat: int) -> bool:
    """The normal level searches here: more than one legal action, and more than one
    candidate left by the game's policy (where it leaves one, the policy plays it)."""
    if len(game.legal_actions(state)) < 2:
        return False
    candidates = policies.search_candidates(game, state, seat)
    return candidates is None or len(candidates) > 1


def build_position(game: Game[Any], seed: int, steps: int = STEPS) -> Position:
    """The first decision after at least ``steps`` seeded random steps of a deal (default
    options, the fewest players the game allows, dealer 0) where the normal level
    searches; raises ValueError if the deal has none within 1,000 steps."""
    players = min(game.player_counts)
    state = game.new_state(players, game.parse_options({}, players), 0, seed=seed)
    rng = random.Random(seed)
    moves: list[tuple[int, Any]] = []
    for n in range(1000):
        seat = game.to_act(state)
        if seat is None:
            break
        if n >= steps and searches(game, state, seat):
            return Position(game.id, seed, players, state, seat, moves)
        actions = game.legal_actions(state)
        if not actions:  # the deal is over and waits for the next one: none in this deal
            break
        action = actions[int(rng.random() * len(actions))]
        moves.append((seat, game.action_to_json(state, action)))
        game.step(state, action)
    raise ValueError(f"{game.id} seed {seed}: no searched decision in the first deal")


def positions(game: Game[Any], count: int) -> list[Position]:
    """``count`` positions from seeds 1, 2, ... (skipping a seed whose deal has none)."""
    found: list[Position] = []
    seed = 0
    while len(found) < count and seed < 10 * count + 10:
        seed += 1
        try:
            found.append(build_position(game, seed))
        except ValueError:
            continue
    return found


class Client:
    """JSON over HTTP to the service on ``127.0.0.1:port``, one connection per request."""

    def __init__(self, port: int) -> None:
        self.port = port

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
            answer = conn.getresponse()
            data = answer.read()
            return answer.status, json.loads(data) if data else None
        finally:
            conn.close()

    def ok(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        status, data = self.call(method, path, body, token)
        if status >= 300:
            raise RuntimeError(f"{method} {path}: {status} {data}")
        return data


@dataclass
class Sample:
    ms: float
    """Client-side wall clock, from sending to the full answer (to the job's result for a 202)."""
    iterations: int | None
    search_ms: float | None
    """The bot's decision on the server (``stats.elapsed_ms``)."""
    job: bool
    """Answered 202: the time counts until the job's result was readable."""


def wait_job(client: Client, url: str, token: str | None) -> dict[str, Any]:
    """Poll a job (every 5 ms) until it is done; its answer."""
    while True:
        job = client.ok("GET", url, token=token)
        if job["status"] == "done":
            return job
        if job["status"] == "failed":
            raise RuntimeError(f"job failed: {job.get('error')}")
        time.sleep(0.005)


def timed(client: Client, path: str, body: dict[str, Any], token: str | None) -> Sample:
    start = time.perf_counter()
    status, answer = client.call("POST", path, body, token)
    job = status == 202
    if job:
        answer = wait_job(client, answer["job"]["url"], token)
    elif status != 200:
        raise RuntimeError(f"POST {path}: {status} {answer}")
    ms = (time.perf_counter() - start) * 1000.0
    stats = answer.get("stats") or {}
    return Sample(ms, stats.get("iterations"), stats.get("elapsed_ms"), job)


def stateless(client: Client, game: Game[Any], pos: Position, level: str) -> Sample:
    body = {"state": game.to_json(pos.state), "seat": pos.seat, "level": level, "seed": pos.seed}
    return timed(client, f"/v1/games/{game.id}/bot-move", body, None)


def session(client: Client, game: Game[Any], pos: Position, level: str) -> Sample:
    """A session created with the position's seed, brought to it move by move (not timed),
    then the timed bot-move for the seat to act with its own token."""
    created = client.ok("POST", "/v1/sessions", {"game": game.id, "players": pos.players, "seed": pos.seed})
    url, tokens = created["url"], created["tokens"]
    for version, (seat, action) in enumerate(pos.moves):
        client.ok("POST", f"{url}/moves", {"action": action, "expected_version": version}, tokens[seat])
    shown = client.ok("GET", url, token=tokens[pos.seat])
    if shown["view"] != json.loads(json.dumps(game.view(pos.state, pos.seat))):
        raise RuntimeError(f"{game.id} seed {pos.seed}: the session's view differs from the position's")
    body = {"level": level, "seed": pos.seed, "expected_version": len(pos.moves)}
    return timed(client, f"{url}/bot-move", body, tokens[pos.seat])


ROUTES = {"stateless": stateless, "session": session}


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank ``q`` quantile (0 < q <= 1)."""
    ranked = sorted(values)
    return ranked[max(0, math.ceil(q * len(ranked)) - 1)]


def report(game_id: str, route: str, samples: list[Sample]) -> str:
    times = [s.ms for s in samples]
    iterations = [s.iterations for s in samples if s.iterations is not None]
    search = [s.search_ms for s in samples if s.search_ms is not None]
    its = "-"
    if iterations:
        its = f"{statistics.median(iterations):.0f} ({min(iterations)}-{max(iterations)})"
    server = f"{statistics.median(search):7.1f}" if search else "      -"
    p50, p90 = percentile(times, 0.5), percentile(times, 0.9)
    jobs = sum(s.job for s in samples)
    return (
        f"{game_id:9s} {route:9s} {len(samples):4d} {p50:7.1f} {p90:7.1f} {max(times):7.1f} {server}"
        f"  {its:18s} {jobs:4d} {os.getloadavg()[0]:5.2f}"
    )


def main() -> int:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--games", nargs="*", default=list(GAME_IDS))
    parser.add_argument("--positions", type=int, default=10, help="seeded positions per game")
    parser.add_argument("--runs", type=int, default=3, help="requests per position and route")
    parser.add_argument("--level", default="normal", choices=["normal", "hard"], help="the level asked")
    args = parser.parse_args()
    games = [get_game(game_id) for game_id in args.games]
    with tempfile.TemporaryDirectory(prefix="majlis-latency-") as data_dir:
        with running_service(Path(data_dir)) as port:
            client = Client(port)
            build = client.ok("GET", "/readyz")["build"]
            print(f"service.run on 127.0.0.1:{port}, build {build['mode']} ({build['reason']})")
            asked = f"{args.positions} positions x {args.runs} runs, per route"
            print(f"{args.level} level, default budget; {asked}")
            print(
                f"{'game':9s} {'route':9s} {'n':>4s} {'p50 ms':>7s} {'p90 ms':>7s} {'max ms':>7s}"
                f" {'search':>7s}  {'iterations':18s} {'202':>4s} {'load':>5s}"
            )
            for game in games:
                found = positions(game, args.positions)
                samples: dict[str, list[Sample]] = {route: [] for route in ROUTES}
                for _ in range(args.runs):
                    for pos in found:
                        for route, ask in ROUTES.items():
                            samples[route].append(ask(client, game, pos, args.level))
                for route in ROUTES:
                    print(report(game.id, route, samples[route]), flush=True)
    print("search: the median of the answers' stats.elapsed_ms (the bot's decision on the server)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
