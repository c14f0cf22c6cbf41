"""The TypeScript client (clients/typescript), run from pytest so that `make test` runs it
and CI judges it by pytest's summary: its committed types are what openapi-typescript
generates from the spec the app serves now (they cannot drift), and its Node tests
(`npm test`: tsc, then `node --test`) pass against ``python -m service.run``.

`make test` installs its packages first (`npm ci`). Without Node and those packages the
tests skip, saying how to get them, except in CI (CI=true), where they fail."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from tests.clients.conftest import ROOT

pytestmark = pytest.mark.integration

PACKAGE = ROOT / "clients" / "typescript"
HOW_TO_GET_THEM = (
    "the TypeScript client needs Node (>= 18) and npm (Debian: apt-get install -y nodejs npm) "
    "and its packages: npm --prefix clients/typescript ci"
)
NPM_TIMEOUT = 600  # seconds: a bound far above what the run takes (see the report of each run)


@pytest.fixture(scope="module")
def npm() -> str:
    """The npm executable, once the package's dependencies are installed."""
    found = shutil.which("npm")
    installed = (PACKAGE / "node_modules" / ".bin" / "tsc").exists()
    if found is None or shutil.which("node") is None or not installed:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(HOW_TO_GET_THEM)
        pytest.skip(HOW_TO_GET_THEM)
    return found


def run_npm(npm: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ, PYTHONPATH=str(ROOT), MAJLIS_PYTHON=sys.executable, **env)
    return subprocess.run(
        [npm, "--prefix", str(PACKAGE), "run", *args],
        cwd=PACKAGE,
        env=environment,
        capture_output=True,
        text=True,
        timeout=NPM_TIMEOUT,
    )


def test_the_committed_types_are_what_the_served_spec_generates(npm):
    done = run_npm(npm, "check-types")
    stale = "clients/typescript/src/schema.ts is not what openapi-typescript generates from the spec the app "
    stale += "serves now: run `npm --prefix clients/typescript run generate` and commit it\n"
    assert done.returncode == 0, stale + done.stdout + done.stderr


def test_the_typescript_client_passes_its_node_tests_against_the_service(npm, server):
    done = run_npm(npm, "test", MAJLIS_URL=server)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    passed = re.search(r"^[#ℹ] pass (\d+)$", output, flags=re.M)  # the TAP or the spec reporter's count
    assert passed is not None and int(passed.group(1)) >= 5, output
