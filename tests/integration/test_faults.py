"""Faults of the one-machine system (``python -m service.run``): a crashed child (the
worker, Redis, gunicorn's master) is restarted with back-off, and no session is lost,
whether Redis alone or the whole service restarts. Real gunicorn, real embedded Redis,
real Celery worker; children are killed by PID with SIGKILL."""

from __future__ import annotations

import itertools
import json
import os
import random
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from engine import get_game
from service.redis_conn import free_port
from service.run import Backoff, Child
from service.settings import Settings
from tests.integration.conftest import GAME, ROOT, wait_for

BOT_SEATS = ["human", {"type": "bot", "level": "easy"}]
LONG_MATCH = {"target_score": 1000}


def test_data_dir_defaults_to_the_xdg_data_home(monkeypatch, tmp_path):
    monkeypatch.delenv("MAJLIS_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert Settings().DATA_DIR == str(tmp_path / "xdg" / "majlis")
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert Settings().DATA_DIR == str(tmp_path / ".local" / "share" / "majlis")
    monkeypatch.setenv("MAJLIS_DATA_DIR", "/srv/majlis")
    assert Settings().DATA_DIR == "/srv/majlis"


def test_backoff_doubles_up_to_the_cap_and_starts_over_after_a_steady_run():
    backoff = Backoff(first=1.0, most=30.0, steady=60.0)
    assert [backoff.after_crash(0.5) for _ in range(7)] == [1, 2, 4, 8, 16, 30, 30]
    assert backoff.after_crash(61.0) == 1.0
    assert backoff.after_crash(3.0) == 2.0


def test_a_child_that_keeps_crashing_is_restarted_less_and_less_often(capsys):
    starts: list[float] = []

    def start() -> subprocess.Popen:
        starts.append(time.monotonic())
        return subprocess.Popen(["sh", "-c", "exit 3"])

    child = Child("crasher", start, Backoff(first=0.2, most=0.8, steady=60.0))
    child.start()
    deadline = time.monotonic() + 30.0
    while len(starts) < 5 and time.monotonic() < deadline:
        child.watch()
        time.sleep(0.02)
    child.wait(5)
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    # each gap is the process's short life plus a delay of 0.2, 0.4, 0.8, 0.8 s
    assert all(gap >= delay for gap, delay in zip(gaps, [0.2, 0.4, 0.8, 0.8], strict=True)), gaps
    assert gaps[2] > gaps[0] + 0.4, gaps
    log = capsys.readouterr().err
    assert "majlis: crasher exited (3); restarting it in 0.2 s" in log
    assert "majlis: crasher exited (3); restarting it in 0.8 s" in log
    assert "majlis: crasher restarted (pid" in log


# --------------------------------------------------------------------------- the whole system


def call(base: str, method: str, path: str, body: dict | None = None, token: str | None = None):
    """(status, JSON body) of one HTTP request; (0, None) when nothing answers."""
    request = urllib.request.Request(base + path, method=method)
    if body is not None:
        request.data = json.dumps(body).encode()
        request.add_header("Content-Type", "application/json")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")
    except OSError:
        return 0, None


class Run:
    """``python -m service.run`` on a free port with its own data directory."""

    def __init__(self, data_dir: Path, log_path: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        env.update(
            PYTHONPATH=str(ROOT),
            MAJLIS_BIND=f"127.0.0.1:{self.port}",
            MAJLIS_DATA_DIR=str(data_dir),
            MAJLIS_WEB_WORKERS="1",
            MAJLIS_SEARCH_WORKERS="1",
            MAJLIS_SESSION_BOT_MS="100",
            MAJLIS_WORKER_HEARTBEAT="1",
            MAJLIS_WORKER_STALE="5",
            MAJLIS_LOG_LEVEL="WARNING",
            MAJLIS_LOG_REQUESTS="0",
        )
        self.log = open(log_path, "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "service.run"], cwd=ROOT, env=env, stdout=self.log, stderr=self.log
        )

    def text(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_ready(self, timeout: float = 90.0) -> None:
        def ready():
            if self.proc.poll() is not None:
                raise AssertionError("service.run exited:\n" + self.text()[-3000:])
            return call(self.base, "GET", "/readyz")[0] == 200

        wait_for(ready, timeout, 0.3)

    def child_pid(self, command: str) -> int:
        """The PID of the supervisor's child whose command line contains ``command``."""
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except (OSError, IndexError, ValueError):
                continue
            if ppid == self.proc.pid and command in cmdline:
                return int(entry.name)
        raise AssertionError(f"no child running {command!r}:\n" + self.text()[-3000:])

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(40)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.log.close()


class Player:
    """The human seat 0 of a session whose seat 1 is a bot played by the worker."""

    def __init__(self, run: Run, session_id: str, token: str) -> None:
        self.run, self.id, self.token = run, session_id, token
        self.game = get_game(GAME)

    def session(self) -> dict:
        status, body = call(self.run.base, "GET", f"/v1/sessions/{self.id}", token=self.token)
        assert status == 200, (status, body)
        return body

    def my_turn(self, timeout: float = 60.0) -> dict:
        """The session once seat 0 is to act (the bot has answered), bounded."""

        def mine():
            status, body = call(self.run.base, "GET", f"/v1/sessions/{self.id}", token=self.token)
            return body if status == 200 and body["to_act"] == 0 else None

        return wait_for(mine, timeout, 0.3)

    def move(self) -> dict:
        """Play a legal move of seat 0 once it is to act; the answer."""
        body = self.my_turn()
        world = self.game.sampler(body["view"])(random.Random(0))
        action = self.game.action_to_json(world, self.game.legal_actions(world)[0])
        status, moved = call(
            self.run.base,
            "POST",
            f"/v1/sessions/{self.id}/moves",
            {"action": action, "expected_version": body["version"]},
            self.token,
        )
        assert status == 200, (status, moved)
        return moved

    def bot_moves(self) -> int:
        status, body = call(self.run.base, "GET", f"/v1/sessions/{self.id}/log", token=self.token)
        assert status == 200, (status, body)
        return sum(1 for entry in body["entries"] if entry["by"] == "bot")

    def play_until_the_bot_answers(self) -> int:
        """Moves of seat 0 until the worker has played the bot seat; the version then."""
        bots = self.bot_moves()
        for _ in range(6):
            self.move()
            body = self.my_turn()
            if self.bot_moves() > bots:
                return int(body["version"])
        raise AssertionError("the bot seat was never played")


@pytest.mark.integration
def test_crashed_children_are_restarted_and_sessions_survive(tmp_path):
    data_dir = tmp_path / "data"
    run = Run(data_dir, tmp_path / "run-1.log")
    try:
        run.wait_ready()
        status, created = call(
            run.base,
            "POST",
            "/v1/sessions",
            {"game": GAME, "players": 2, "seats": BOT_SEATS, "options": LONG_MATCH, "seed": 5},
        )
        assert status == 201, created
        player = Player(run, created["id"], created["tokens"][0])
        player.play_until_the_bot_answers()

        # the worker dies: it is restarted, and the restarted worker plays the bot seat
        os.kill(run.child_pid("celery"), signal.SIGKILL)
        wait_for(lambda: "worker restarted" in run.text(), 30)
        version = player.play_until_the_bot_answers()

        # Redis dies: it comes back on the same port with its data, and the game goes on
        time.sleep(1.5)  # the append-only file is written to disk every second
        os.kill(run.child_pid("redis-server"), signal.SIGKILL)
        wait_for(lambda: "redis restarted" in run.text(), 30)
        run.wait_ready()
        assert player.session()["version"] == version
        version = player.play_until_the_bot_answers()

        # gunicorn's master dies: it is restarted too
        os.kill(run.child_pid("majlis-web"), signal.SIGKILL)  # the API's (not the stream server's)
        wait_for(lambda: "web restarted" in run.text(), 30)
        run.wait_ready()
        assert player.session()["version"] == version

        log = run.text()
        for name in ("worker", "redis", "web"):
            assert f"majlis: {name} exited (-9); restarting it in 1 s" in log, log[-3000:]
    finally:
        run.stop()
    assert run.proc.returncode == 0, run.text()[-3000:]

    # the whole service restarts on the same data directory: the session is still there
    again = Run(data_dir, tmp_path / "run-2.log")
    try:
        again.wait_ready()
        player.run = again
        assert player.session()["version"] == version
        player.play_until_the_bot_answers()
    finally:
        again.stop()


@pytest.mark.integration
def test_a_second_service_run_on_the_same_data_dir_is_refused(tmp_path):
    data_dir = tmp_path / "data"
    first = Run(data_dir, tmp_path / "first.log")
    try:
        wait_for(lambda: "embedded Redis at" in first.text(), 60)
        second = Run(data_dir, tmp_path / "second.log")
        assert second.proc.wait(60) != 0
        second.stop()
        assert "is in use by another `python -m service.run`" in second.text()
        assert first.proc.poll() is None
    finally:
        first.stop()
