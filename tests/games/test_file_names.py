"""One naming scheme for the game test files (as tests/engine/test_layout.py enforces the
games' own layout): in tests/games/<game>/ a test file is ``test_<topic>.py`` and the folder
names the game, so the topic never repeats a game's id (``test_rules.py``, not
``test_trex_rules.py``); a helper module is ``<game>_helpers.py``.

Why the helpers carry the game's name: tests/conftest.py puts every game folder on
``sys.path`` so that a helper is imported by its bare name (``from ronda_helpers import
...``); two games' helpers of one name would shadow each other. Test modules are imported
by their package path (every folder is a package), so two games may both have
``test_rules.py``."""

from __future__ import annotations

import re
from pathlib import Path

from engine import GAME_IDS

HERE = Path(__file__).parent
TEST_FILE = re.compile(r"test_[a-z0-9_]+\.py")


def game_folders() -> list[Path]:
    return sorted(p for p in HERE.iterdir() if p.is_dir() and p.name != "__pycache__")


def test_one_folder_per_game() -> None:
    assert [p.name for p in game_folders()] == sorted(GAME_IDS)


def test_every_file_follows_the_scheme() -> None:
    wrong = []
    for folder in game_folders():
        for path in sorted(folder.glob("*.py")):
            name = path.name
            if name in ("__init__.py", f"{folder.name}_helpers.py"):
                continue
            topic = name.removeprefix("test_").removesuffix(".py")
            if not TEST_FILE.fullmatch(name) or any(
                topic == g or topic.startswith(f"{g}_") for g in GAME_IDS
            ):
                wrong.append(f"{folder.name}/{name}")
    assert wrong == [], "name a game test file test_<topic>.py (the folder names the game)"
