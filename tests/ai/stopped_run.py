"""A real command-line run (the arena's, the ladder's) stopped by a signal once it has
said ``marker`` on stderr: what the tests of a stopped run share."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path


def run_and_stop(
    command: list[str], tmp_path: Path, stop: signal.Signals, marker: str, pause: float = 0.0
) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``command`` sent ``stop`` ``pause`` seconds after
    ``marker`` first appears on its stderr (within 120 s)."""
    err_path = tmp_path / "err"
    with err_path.open("w") as err:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err, text=True)
        deadline = time.monotonic() + 120
        while marker not in err_path.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(pause)
        process.send_signal(stop)
        out, _ = process.communicate(timeout=120)
    return process.returncode, out, err_path.read_text()
