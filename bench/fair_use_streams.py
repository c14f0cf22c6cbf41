"""Fair use of the event streams (issue 30): can one client starve the others' streams,
and what does an idle stream cost?

Starts ``python -m service.run`` (bench/session_streams.py's ``System``: embedded Redis,
a worker, the API and the stream server, on free loopback ports), then:

(a) ``flood``: one address (127.0.0.1) opens idle streams, with the tokens of one session
    (its seats and 30 spectators), one after another until one is refused (any answer
    but 200) or gets no answer within ``--wait`` seconds (starved), at most ``--flood``;
    meanwhile-after, another token of another session, from another address
    (127.0.0.2), opens a new stream ``--samples`` times: the time to its first byte.
(b) ``hold``: ``--hold`` idle streams (default 10,000) against the one stream process,
    opened ``--concurrency`` at a time, each until its first event; then the RSS of the
    stream server's worker process and the first-byte time of a new stream meanwhile.
    The quotas and the process's cap are raised for this run through the environment
    (``MAJLIS_QUOTA_STREAMS_PER_* = 0``, ``MAJLIS_STREAM_MAX_CONNECTIONS``).

Raw asyncio sockets, loopback only, every wait bounded. Prints the load (uptime) before
and after each part. Run from a checkout (its code is what gets measured):

    python bench/fair_use_streams.py flood [--flood 1200] [--samples 5]
    python bench/fair_use_streams.py hold [--hold 10000] [--samples 5]

To measure another checkout (e.g. main before issue 30) with this script:
``cd <checkout> && PYTHONPATH=$PWD python /path/to/bench/fair_use_streams.py ...``
(``bench.session_streams`` and ``service`` are then that checkout's).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script: bench/ is not installed

from bench.session_streams import System, call  # noqa: E402

FIRST_BYTE_TIMEOUT = 20.0


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def raise_open_files() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def new_session(system: System, spectators: int = 0) -> tuple[str, list[str]]:
    """A session made from 127.0.0.1; its id and tokens (seats, then spectators)."""
    _, _, raw = call(system.api, "POST", "/v1/sessions", {"game": "ronda", "players": 2})
    body = json.loads(raw)
    tokens = list(body["tokens"])
    for _ in range(spectators):
        status, _, raw = call(
            system.api,
            "POST",
            f"/v1/sessions/{body['id']}/spectators",
            headers={"Authorization": f"Bearer {tokens[0]}"},
        )
        if status == 201:
            tokens.append(json.loads(raw)["token"])
    return body["id"], tokens


class Opened:
    """One stream's connection: its status (None: no answer in time), the time to its
    first byte, and the writer to close it."""

    def __init__(self, status: int | None, first_byte: float | None, writer=None, retry_after=None) -> None:
        self.status, self.first_byte, self.writer, self.retry_after = status, first_byte, writer, retry_after

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def open_stream(port: int, session_id: str, token: str, src: str, wait: float) -> Opened:
    """Connect from ``src``, ask for the stream, read its head (and, for a 200, up to its
    first event); a stream that is answered is kept open."""
    started = time.monotonic()
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", port, local_addr=(src, 0)), wait
        )
    except (TimeoutError, OSError):
        return Opened(None, None)
    writer.write(
        (
            f"GET /v1/sessions/{session_id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n"
        ).encode()
    )
    try:
        first = await asyncio.wait_for(reader.read(1), wait)
        first_byte = time.monotonic() - started
        head = first + await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), wait)
    except (TimeoutError, OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        writer.close()
        return Opened(None, None)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1]) if lines[0].startswith("HTTP/") else 0
    retry_after = next(
        (line.split(":", 1)[1].strip() for line in lines if line.lower().startswith("retry-after:")), None
    )
    if status != 200:
        writer.close()
        return Opened(status, first_byte, None, retry_after)
    return Opened(status, first_byte, writer)


async def first_byte_samples(system: System, samples: int, src: str = "127.0.0.2") -> list[float | None]:
    """A new stream of a fresh session's token from ``src``, ``samples`` times (each closed
    after its head): seconds to the first byte, None for none within the timeout."""
    session_id, tokens = new_session(system)
    times: list[float | None] = []
    for i in range(samples):
        opened = await open_stream(system.streams, session_id, tokens[i % 2], src, FIRST_BYTE_TIMEOUT)
        times.append(opened.first_byte if opened.status == 200 else None)
        opened.close()
        await asyncio.sleep(0.2)
    return times


def shown(times: list[float | None]) -> str:
    got = [t for t in times if t is not None]
    text = ", ".join("none" if t is None else f"{t * 1000:.1f}" for t in times)
    median = f"median {statistics.median(got) * 1000:.1f} ms" if got else "no first byte at all"
    missing = (
        f", {len(times) - len(got)} without a first byte in {FIRST_BYTE_TIMEOUT:g} s"
        if len(got) < len(times)
        else ""
    )
    return f"{median}{missing} [{text} ms]"


async def flood(system: System, args: argparse.Namespace) -> None:
    # 2 seats and 30 spectators: enough tokens that the per-address cap, not the
    # per-token one, is what stops this address
    session_id, tokens = new_session(system, spectators=30)
    opened: list[Opened] = []
    ended = "the limit of the run"
    started = time.monotonic()
    for i in range(args.flood):
        stream = await open_stream(
            system.streams, session_id, tokens[i % len(tokens)], "127.0.0.1", args.wait
        )
        if stream.status is None:
            ended = f"no answer within {args.wait:g} s (starved)"
            break
        if stream.status != 200:
            ended = f"refused: {stream.status}, Retry-After {stream.retry_after}"
            break
        opened.append(stream)
    took = time.monotonic() - started
    print(f"(a) one address opened {len(opened)} idle streams in {took:.1f} s; then {ended}")
    samples = shown(await first_byte_samples(system, args.samples))
    print(f"    another token's new stream (127.0.0.2), first byte: {samples}")
    print(f"    {load()}")
    for stream in opened:
        stream.close()


def stream_worker_pid(system: System) -> int | None:
    """The stream server's worker: a process of this run (a descendant of its
    ``service.run``) named majlis-streams whose parent is named so too."""
    parents, names = {}, {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                names[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue

    def ours(pid: int) -> bool:
        for _ in range(10):
            if pid == system.proc.pid:
                return True
            pid = parents.get(pid, 0)
        return False

    streams = {pid for pid, name in names.items() if "majlis-streams" in name and ours(pid)}
    workers = [pid for pid in streams if parents.get(pid) in streams]
    return workers[0] if len(workers) == 1 else None


def rss_mb(pid: int | None) -> str:
    if pid is None:
        return "unknown (no single stream worker found)"
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return f"{int(line.split()[1]) / 1024:.0f} MB"
    return "unknown"


async def hold(system: System, args: argparse.Namespace) -> None:
    session_id, tokens = new_session(system)
    pid = stream_worker_pid(system)
    print(f"    stream worker pid {pid}, RSS before {rss_mb(pid)}")
    gate = asyncio.Semaphore(args.concurrency)
    sources = [f"127.0.3.{i}" for i in range(1, 41)]  # spread over addresses: ports per source

    async def one(i: int) -> Opened:
        async with gate:
            return await open_stream(
                system.streams, session_id, tokens[i % 2], sources[i % len(sources)], args.wait
            )

    started = time.monotonic()
    opened = await asyncio.gather(*(one(i) for i in range(args.hold)))
    took = time.monotonic() - started
    held = [s for s in opened if s.status == 200]
    refused = collections.Counter(s.status for s in opened if s.status not in (200, None))
    starved = sum(1 for s in opened if s.status is None)
    print(
        f"(b) {len(held)} of {args.hold} idle streams held (answered otherwise: {dict(refused)},"
        f" {starved} without an answer in {args.wait:g} s), opened in {took:.1f} s"
    )
    await asyncio.sleep(2.0)
    print(f"    stream worker RSS with them open: {rss_mb(pid)}")
    print(f"    a new stream's first byte meanwhile: {shown(await first_byte_samples(system, args.samples))}")
    print(f"    {load()}")
    for stream in held:
        stream.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("part", choices=("flood", "hold"))
    parser.add_argument("--flood", type=int, default=1200, help="(a) most streams one address tries")
    parser.add_argument("--hold", type=int, default=10_000, help="(b) idle streams to hold")
    parser.add_argument("--concurrency", type=int, default=200, help="(b) connections opening at once")
    parser.add_argument("--wait", type=float, default=5.0, help="seconds for a stream's answer")
    parser.add_argument("--samples", type=int, default=5)
    args = parser.parse_args()
    print(f"open files: {raise_open_files()}; {load()}")
    env = {"MAJLIS_RUN_WORKER": "1"}
    if args.part == "hold":  # raise the caps for this run (each default is for a public deployment)
        env.update(
            MAJLIS_QUOTA_STREAMS_PER_TOKEN="0",
            MAJLIS_QUOTA_STREAMS_PER_SESSION="0",
            MAJLIS_QUOTA_STREAMS_PER_ADDRESS="0",
            MAJLIS_STREAM_MAX_CONNECTIONS=str(args.hold + 100),
        )
    system = System(**env)
    try:
        asyncio.run(flood(system, args) if args.part == "flood" else hold(system, args))
    finally:
        system.stop()


if __name__ == "__main__":
    main()
