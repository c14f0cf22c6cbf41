"""The most human-paced tables the rehearsal cluster holds within the targets (issue 35).

    python bench/cluster_capacity.py [--bot-level normal] [--start 10] [--most 320]
                                     [--seconds 60] [--repeat 3] [--json out.json]

Runs ``bench/cluster.py --faults none`` (a fresh cluster each time: a primary, a replica,
three Sentinels, 3 API processes, 2 stream servers, 3 worker nodes) at a table count,
and calls a run good when it meets every target of the issue: the person's move p99 <=
150 ms, the bot's move p95 <= 1.5 s, the event delivery lag p99 <= 250 ms, no request
given up and every session's checks clean (its log replays, no move lost, streams and
webhooks complete, no session stuck at a bot seat). The search doubles the tables from
``--start`` until a run fails (or ``--most``; halves them if ``--start`` fails), then
bisects between the last good and the first failed count until they are ``--step``
apart (at least 5 % of the count); then
runs the largest good count again until it has ``--repeat`` runs in all, and reports
the medians of its figures. Each run's load average (``os.getloadavg``, as ``uptime``
shows it) before and after is printed beside its figures: on a shared machine a run can
fail because of its neighbours, which is why the final count is repeated."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

TARGETS = {"move_p99_ms": 150.0, "bot_p95_ms": 1500.0, "lag_p99_ms": 250.0}


def figures(report: dict[str, Any]) -> dict[str, Any]:
    """The figures of one bench/cluster.py report that the targets and the docs use."""
    checks = report.get("checks", {})
    return {
        "tables": report["processes"]["tables"],
        "moves_per_s": report["moves_per_s"],
        "move_p50_ms": report["move_ms"]["p50"],
        "move_p99_ms": report["move_ms"]["p99"],
        "bot_p50_ms": report["bot_move_ms"]["p50"],
        "bot_p95_ms": report["bot_move_ms"]["p95"],
        "bot_moves": report["bot_move_ms"]["n"],
        "lag_p99_ms": report["event_lag_ms"]["p99"],
        "errors": report["errors"],
        "failed_requests": report["failed_requests"],
        "problems": len(checks.get("problems", [])) + len(checks.get("stalled_at_a_bot_seat", [])),
        "webhook_missing": checks.get("webhook_missing"),
        "cpu_seconds": report["cpu_seconds"],
        "seconds": report["seconds"],
    }


def misses(found: dict[str, Any]) -> list[str]:
    """The targets a run missed (empty: it met them all)."""
    missed = [
        f"{name} {found[name]} > {limit:g}"
        for name, limit in TARGETS.items()
        if found[name] is None or found[name] > limit
    ]
    if found["failed_requests"] or found["problems"] or found["webhook_missing"]:
        missed.append(
            f"checks: {found['failed_requests']} requests given up, {found['problems']} session problems, "
            f"{found['webhook_missing']} webhooks missing"
        )
    return missed


def run_once(tables: int, args: argparse.Namespace) -> dict[str, Any]:
    """One bench/cluster.py run at ``tables``: its figures, load before and after, misses."""
    with tempfile.TemporaryDirectory(prefix="majlis-capacity-") as tmp:
        out = Path(tmp) / "report.json"
        argv = [
            sys.executable, str(ROOT / "bench" / "cluster.py"),
            "--tables", str(tables), "--bot-level", args.bot_level, "--faults", "none",
            "--seconds", str(args.seconds), "--seed", str(args.seed), "--json", str(out),
        ]  # fmt: skip
        load_before = os.getloadavg()
        started = time.monotonic()
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=args.seconds + 600)
        load_after = os.getloadavg()
        if not out.exists():
            raise RuntimeError(
                f"bench/cluster.py gave no report:\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
            )
        found = figures(json.loads(out.read_text()))
    found["load_before"] = [round(x, 2) for x in load_before]
    found["load_after"] = [round(x, 2) for x in load_after]
    found["wall_seconds"] = round(time.monotonic() - started, 1)
    found["misses"] = misses(found)
    return found


def show(found: dict[str, Any]) -> str:
    verdict = "meets the targets" if not found["misses"] else "MISSES " + "; ".join(found["misses"])
    return (
        f"{found['tables']:>4} tables  load {found['load_before'][0]:.2f} -> {found['load_after'][0]:.2f}  "
        f"{found['moves_per_s']:.1f} moves/s  move p50/p99 {found['move_p50_ms']}/{found['move_p99_ms']} ms  "
        f"bot p50/p95 {found['bot_p50_ms']}/{found['bot_p95_ms']} ms (n {found['bot_moves']})  "
        f"lag p99 {found['lag_p99_ms']} ms  errors {found['errors']}: {verdict}"
    )


def search(args: argparse.Namespace, runs: list[dict[str, Any]]) -> int:
    """The largest table count found good (0: not even ``--start``)."""

    def good(tables: int) -> bool:
        found = run_once(tables, args)
        runs.append(found)
        print(show(found), flush=True)
        return not found["misses"]

    best, worst = 0, None  # the largest good count, the smallest failed one
    tables = args.start
    while tables <= args.most:  # doubling
        if good(tables):
            best = tables
            tables *= 2
        else:
            worst = tables
            break
    while best == 0 and worst is not None and worst > 1:  # --start failed: halving
        tables = worst // 2
        if good(tables):
            best = tables
        else:
            worst = tables
    if best == 0:
        return 0
    if worst is None:
        return best  # good up to --most
    while worst - best > max(args.step, round(0.05 * best)):  # bisecting
        middle = (best + worst) // 2
        if good(middle):
            best = middle
        else:
            worst = middle
    return best


def median_of(runs: list[dict[str, Any]], name: str) -> float | None:
    values = [r[name] for r in runs if r[name] is not None]
    return round(statistics.median(values), 1) if values else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot-level", default="normal")
    parser.add_argument("--start", type=int, default=10)
    parser.add_argument("--most", type=int, default=320)
    parser.add_argument("--step", type=int, default=5, help="stop bisecting this close (tables)")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--repeat", type=int, default=3, help="runs in all at the final count")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", type=int, help="no search: run this count --repeat times")
    parser.add_argument("--json", help="write every run and the medians here")
    args = parser.parse_args(argv)
    runs: list[dict[str, Any]] = []
    best = args.only if args.only else search(args, runs)
    if best:
        print(f"final count: {best} tables; runs there until {args.repeat} in all", flush=True)
        while sum(r["tables"] == best for r in runs) < args.repeat:
            found = run_once(best, args)
            runs.append(found)
            print(show(found), flush=True)
    final = [r for r in runs if r["tables"] == best]
    medians = {
        name: median_of(final, name)
        for name in ("moves_per_s", "move_p50_ms", "move_p99_ms", "bot_p50_ms", "bot_p95_ms", "lag_p99_ms")
    }
    summary = {
        "bot_level": args.bot_level,
        "largest_good_tables": best,
        "final_runs": len(final),
        "final_runs_meeting_targets": sum(not r["misses"] for r in final),
        "medians": medians,
        "medians_meet_targets": bool(final)
        and not misses(
            {**final[0], **medians, "failed_requests": 0, "problems": 0, "webhook_missing": 0}
        ),  # fmt: skip
        "loads": [(r["load_before"][0], r["load_after"][0]) for r in final],
        "runs": runs,
    }
    print(json.dumps({k: v for k, v in summary.items() if k != "runs"}, indent=2), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2))
    return 0 if best else 1


if __name__ == "__main__":
    sys.exit(main())
