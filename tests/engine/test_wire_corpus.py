"""Nothing changes on the wire: today's documents, read back and written again, byte for byte.

``tests/data/corpus/<game>.jsonl.gz`` holds states, views, spectator views and legal
actions that the codecs wrote when the corpus was made (``make_corpus.py`` says how).
Every state is loaded and written again; its views, its spectator view and its legal
actions are computed again; each must serialise to exactly the recorded bytes (key order
included). Views also go through the sampler, which must give back a world with the
same view.
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path
from typing import Any

import pytest

from engine import GAME_IDS, get_game

CORPUS = Path(__file__).parents[1] / "data" / "corpus"
SAMPLE_EVERY = 5
"""Sample a world for one recorded view in this many (the sampler is the slow part)."""


def read_corpus(game_id: str) -> list[dict[str, Any]]:
    with gzip.open(CORPUS / f"{game_id}.jsonl.gz", "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def dumps(doc: Any) -> str:
    return json.dumps(doc)


@pytest.mark.parametrize("game_id", GAME_IDS)
@pytest.mark.slow
def test_every_recorded_document_is_written_again_byte_for_byte(game_id: str) -> None:
    game = get_game(game_id)
    records = read_corpus(game_id)
    kinds = {record["kind"] for record in records}
    assert kinds == {"state", "view", "public_view", "actions"}, kinds
    state = None
    views_seen = 0
    for record in records:
        where = f"{record['match']} step {record['step']} {record['kind']}"
        doc = record["doc"]
        if record["kind"] == "state":
            state = game.from_json(doc)
            assert dumps(game.to_json(state)) == dumps(doc), where
        elif record["kind"] == "view":
            assert dumps(game.view(state, record["seat"])) == dumps(doc), where
            views_seen += 1
            if views_seen % SAMPLE_EVERY == 0:
                world = game.sampler(doc)(random.Random(views_seen))
                assert dumps(game.view(world, record["seat"])) == dumps(doc), where
        elif record["kind"] == "public_view":
            assert dumps(game.public_view(state)) == dumps(doc), where
        else:
            actions = game.legal_actions(state)
            assert dumps([game.action_to_json(state, a) for a in actions]) == dumps(doc), where
            assert [game.parse_action(state, a) for a in doc] == actions, where
