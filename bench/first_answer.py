"""Fresh clone to first answer: ``git clone`` a checkout, ``make run`` in it, time the first
answered request and the longest silence in make run's output before it.

    python bench/first_answer.py [--repo PATH] [--runs 3] [--port 18800]

Each run clones ``--repo`` (default: this checkout's committed HEAD) into a new temporary
directory, starts ``make run`` there in its own process group (``MAJLIS_BIND`` on a free
loopback port, ``MAJLIS_DATA_DIR`` in the temporary directory), reads its output (stdout
and stderr) line by line with timestamps, and asks ``GET /v1/games`` every 0.25 s until it
answers 200. Printed per run: seconds from the clone's start to the first answer, the
longest gap between two output lines (or the start) before that answer and the line that
ended it; then the medians, and the load (``uptime``) before and after. pip's cache is
whatever the machine has (warm after a first run). The server is stopped (its process
group, SIGTERM then SIGKILL) and the clone deleted after each run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def one_run(repo: str, timeout: float) -> tuple[float, float, str]:
    tmp = Path(tempfile.mkdtemp(prefix="majlis-first-answer-"))
    port = free_port()
    stream_port = free_port()
    env = dict(os.environ, MAJLIS_BIND=f"127.0.0.1:{port}", MAJLIS_STREAM_BIND=f"127.0.0.1:{stream_port}")
    env["MAJLIS_DATA_DIR"] = str(tmp / "data")
    env.pop("PYTHONPATH", None)
    env.pop("VIRTUAL_ENV", None)
    lines: list[tuple[float, str]] = []
    start = time.monotonic()
    subprocess.run(["git", "clone", "-q", repo, str(tmp / "clone")], check=True)
    proc = subprocess.Popen(
        ["make", "run"],
        cwd=tmp / "clone",
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
        start_new_session=True,
    )

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append((time.monotonic(), line.rstrip()))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    first = None
    try:
        while time.monotonic() - start < timeout:
            if answers(f"http://127.0.0.1:{port}/v1/games"):
                first = time.monotonic()
                break
            if proc.poll() is not None:
                break
            time.sleep(0.25)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        shutil.rmtree(tmp, ignore_errors=True)
    if first is None:
        tail = "\n".join(text for _, text in lines[-20:])
        raise SystemExit(f"no answer within {timeout:.0f} s; make run said:\n{tail}")
    gap, after, last = 0.0, "(start)", start
    for at, text in lines:
        if at > first:
            break
        if at - last > gap:
            gap, after = at - last, text
        last = at
    if first - last > gap:
        gap, after = first - last, "(the first answer)"
    return first - start, gap, after


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", default=str(ROOT))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=900)
    args = parser.parse_args()
    print(f"repo {args.repo}; load before: {load()}", flush=True)
    firsts, gaps = [], []
    for run in range(1, args.runs + 1):
        first, gap, after = one_run(args.repo, args.timeout)
        firsts.append(first)
        gaps.append(gap)
        print(f"run {run}: first answer {first:.1f} s; longest silence {gap:.1f} s, ended by: {after[:90]}")
        print(f"  load: {load()}", flush=True)
    print(
        f"median: first answer {statistics.median(firsts):.1f} s, "
        f"longest silence {statistics.median(gaps):.1f} s"
    )


if __name__ == "__main__":
    sys.exit(main())
