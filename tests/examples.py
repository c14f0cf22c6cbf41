"""Test ids for the rules files' worked examples: the example id, then the rules it
exercises (``E7-R21-R24-R23``), so a failing example names the rules at stake."""

from __future__ import annotations

import json
import re
from pathlib import Path


def rules_id(example: dict) -> str:
    """``E7-R21-R24-R23`` from an example's ``id`` and ``rules`` (words squeezed out)."""
    rules = [re.sub(r"[^A-Za-z0-9.]+", "", str(rule)) for rule in example.get("rules", [])]
    return "-".join([example["id"], *rules])


def rules_id_of_file(path: Path | str) -> str:
    return rules_id(json.loads(Path(path).read_text()))
