"""The README's commands work as written: serve with its run path, then run its curl block."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.problems import error_code

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = free_port()
    data_dir = str(tmp_path_factory.mktemp("data"))  # not the user's: tests may run side by side
    env = dict(os.environ, MAJLIS_BIND=f"127.0.0.1:{port}", MAJLIS_WEB_WORKERS="1", MAJLIS_DATA_DIR=data_dir)
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.run"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("server did not start: " + proc.stderr.read().decode()[-2000:]) from None
            time.sleep(0.2)
    yield base
    proc.terminate()
    proc.wait(timeout=20)


def readme_blocks(lang: str) -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S)


def test_readme_gives_exactly_two_setup_commands():
    (block,) = readme_blocks("sh")
    commands = [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]
    assert commands == ["make run", "make test"]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in ci


def test_readme_curl_examples_work(server, tmp_path):
    (block,) = readme_blocks("bash")
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block],
        cwd=tmp_path,
        env=dict(os.environ, BASE=server),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    games = json.loads(lines[0])
    assert [g["id"] for g in games] == ["ronda", "baloot", "trex", "porrazo", "marriage"]
    legal = json.loads(lines[1])
    assert legal["to_act"] == 1 and {"type": "pass"} in legal["actions"]
    moved = json.loads(lines[2])
    assert moved["to_act"] == 0
    hands = json.loads(lines[3])
    assert isinstance(hands[0], list) and hands[1] == 3
    action = json.loads(lines[4])
    assert action["type"] in {"pass", "declare", "challenge"}
    error = json.loads(lines[5])
    assert error_code(error) == "illegal_move" and error["rule"] == "R8"  # not "no such card"
    assert {"type": "pass"} in error["legal_actions"]
