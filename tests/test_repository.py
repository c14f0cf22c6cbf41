"""The repository stands on its own: no tracked file refers to a file outside it.

A clone of this repository is all a user has, so every tracked text file (``git ls-files``)
is scanned for references that only resolve on the machine it was written on:

1. the team's shared folder next to the checkout (its rules, API, style and design
   files), which a clone does not have;
2. a relative path that climbs out of the repository (two parent steps from a top-level file);
3. an absolute path into a home or work folder (top-level ``work``, ``home``, ``root``,
   ``Users``, ``mnt``, ``media``);
4. a *file* under the temporary folder (``spec.md`` there): a scratch folder a program creates, such
   as the metrics folder ``/tmp/majlis-metrics``, is not a reference and passes;
5. a document (``.md``, ``.txt``) named by path (``docs/rules/trex.md``) or a Markdown link
   (``[x](docs/deploy.md)``) that does not exist, relative to the file's folder or to
   the repository root (a bare name such as ``trex.md`` may be anywhere in it).

URL paths (``/v1/games/{game}/deals``, ``/healthz``) are not file references: they are
not under the folders of rule 3 and rule 5 looks only at document names and link targets.
This file is left out of the scan: its examples of bad references are bad on purpose; so
are the vendored third-party files (``VENDORED``), kept exactly as published.
"""

from __future__ import annotations

import functools
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
THIS = Path(__file__).resolve().relative_to(ROOT).as_posix()
# Third-party files vendored as published (minified): their text is not ours to cite from.
VENDORED = ("service/static/swagger-ui/",)

# The samples below are built from these parts rather than written out.
UP, SHARED, WORK, HOME, TMP = "..", "shared", "work", "home", "tmp"

SHARED_FOLDER = re.compile(r"\.\./shared\b|\bshared/(?:rules|API|STYLE|design|hooks)\b")
CLIMBING = re.compile(r"(?<![\w.])(?:\.\./)+[\w.-][\w./-]*")
PRIVATE_ABSOLUTE = re.compile(r"(?<![\w.~-])/(?:work|home|root|Users|mnt|media)/[\w.-]+")
TMP_FILE = re.compile(r"(?<![\w.~-])/tmp/[\w./-]*\.(?:md|json|txt|csv|py|ya?ml|toml|log)\b")
DOCUMENT_NAME = re.compile(r"(?<![\w./<{-])[\w-][\w./-]*\.(?:md|txt)\b")
MARKDOWN_LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")


def exists_from(folder: Path, target: str) -> bool:
    """Whether ``target`` names a file or folder of the repository, read from ``folder``
    or from the repository root; a bare file name may be anywhere in it."""
    if "/" not in target and target in {name.rsplit("/", 1)[-1] for name in tracked_files()}:
        return True
    for base in (folder, ROOT):
        path = (base / target).resolve()
        if path.is_relative_to(ROOT) and path.exists():
            return True
    return False


def outside_references(text: str, relpath: str) -> list[str]:
    """Every reference in ``text`` (the content of ``relpath``) to a file outside the
    repository or missing from it, as ``"line N: what (why)"``."""
    folder = (ROOT / relpath).parent
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        problems = [(m.group(), "the shared folder") for m in SHARED_FOLDER.finditer(line)]
        problems += [(m.group(), "an absolute private path") for m in PRIVATE_ABSOLUTE.finditer(line)]
        problems += [(m.group(), "a file in /tmp") for m in TMP_FILE.finditer(line)]
        problems += [
            (m.group(), "climbs out of the repository")
            for m in CLIMBING.finditer(line)
            if not (folder / m.group()).resolve().is_relative_to(ROOT)
        ]
        problems += [
            (m.group(), "no such document")
            for m in DOCUMENT_NAME.finditer(line)
            if "://" not in line[max(0, m.start() - 80) : m.start()] and not exists_from(folder, m.group())
        ]
        if relpath.endswith(".md"):
            problems += [
                (m.group(1), "a broken link")
                for m in MARKDOWN_LINK.finditer(line)
                if "://" not in m.group(1)
                and not m.group(1).startswith(("/", "mailto:"))
                and not exists_from(folder, m.group(1))
            ]
        found += [f"line {number}: {what} ({why})" for what, why in dict.fromkeys(problems)]
    return found


@functools.cache
def tracked_files() -> tuple[str, ...]:
    listing = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, text=True
    ).stdout
    return tuple(filter(None, listing.split("\0")))


def tracked_text_files() -> dict[str, str]:
    texts = {}
    for name in tracked_files():
        path = ROOT / name
        if name == THIS or name.startswith(VENDORED) or not path.is_file():  # deleted, not yet committed
            continue
        try:
            texts[name] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:  # a binary file: it cites no path
            continue
    return texts


def test_no_tracked_file_refers_outside_the_repository():
    texts = tracked_text_files()
    assert "README.md" in texts and "engine/protocol.py" in texts  # the scan sees the repository
    problems = {name: found for name, text in texts.items() if (found := outside_references(text, name))}
    assert problems == {}


@pytest.mark.parametrize(
    "line",
    [
        # composed, so that this file itself names no place outside the repository
        f"The rules are in `{UP}/{SHARED}/rules/<game>.md`.",
        f"the contract in {SHARED}/API.md",
        f'spec = Path("/{WORK}/{SHARED}/rules/trex.md")',
        f"see /{HOME}/someone/notes.txt",
        f"open('/{TMP}/trex-spec.md')",
        f"[deploy]({UP}/{UP}/outside/deploy.md)",
        "rules/trex.md section 10",
        "[guide](docs/no-such-guide.md)",
        "the seed file (001_124d669e35ad93db.txt) says",
    ],
)
def test_the_scan_finds_references_outside_the_repository(line):
    assert outside_references(line, "README.md")


@pytest.mark.parametrize(
    "line",
    [
        "POST /v1/games/{game}/deals with `players`",
        "GET /healthz, /readyz, /metrics, /openapi.json",
        "PROMETHEUS_MULTIPROC_DIR=/tmp/majlis-metrics",
        "with tempfile.TemporaryDirectory() as tmp:",
        "Baloot (docs/rules/baloot.md): the Saudi game",
        "[the deployment guide](docs/deploy.md#speed) and [rules](docs/rules)",
        "`docs/rules/<game>.md` for each game; f'{game.id}.md'",
        "from https://www.pagat.com/fishing/ronda.md and https://example.org/x.md",
        "RUN useradd --home-dir /app --shell /usr/sbin/nologin majlis",
    ],
)
def test_the_scan_lets_legitimate_paths_pass(line):
    assert outside_references(line, "README.md") == []


BENCH = ROOT / "bench"


@pytest.mark.parametrize(
    "script",
    sorted(p.name for p in BENCH.glob("*.py") if "from bench." in p.read_text(encoding="utf-8")),
)
def test_a_bench_script_that_imports_another_runs_as_documented(script):
    """The docs run benchmarks as ``python bench/<script>.py``: bench/ is not an installed
    package, so a script that imports another must find the repository root itself."""
    run = subprocess.run(
        [sys.executable, str(BENCH / script), "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert "usage:" in run.stdout
