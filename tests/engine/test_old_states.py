"""States written before a state held only the current deal (issue 33) still load.

``tests/data/corpus/before_issue33.jsonl.gz`` holds states whose ``history`` carries earlier
deals (or hands), with their views, spectator view and legal actions, as the codecs wrote
them before the change: taken from the wire corpus at commit a33b117 (Marriage's, whose
corpus matches never reach a second deal, from seeded short matches played by that
commit's engine). Each loads; the earlier deals are folded in (their effects were already in
the scores, dealer and match record), so the state written back holds this deal's entries
only, is the same position (same views, same legal actions) and loads again unchanged.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from engine import GAME_IDS, get_game

OLD = Path(__file__).parents[1] / "data" / "corpus" / "before_issue33.jsonl.gz"
START_FIELD = {
    "baloot": "deal_history_start",
    "marriage": "deal_start",
    "porrazo": "hand_start",
    "ronda": "deal_start",
}


def current_deal(game_id: str, doc: dict[str, Any]) -> list[Any]:
    """The entries of the old state's current deal."""
    if game_id == "trex":
        return doc["history"][len(doc["history"]) - len(doc["played"]) :]
    return doc["history"][doc[START_FIELD[game_id]] :]


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_an_old_state_with_earlier_deals_loads_as_its_current_deal(game_id: str) -> None:
    game = get_game(game_id)
    state = old = None
    checked = 0
    with gzip.open(OLD, "rt", encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines]
    for record in records:
        doc, where = record["doc"], f"{record['match']} step {record['step']} {record['kind']}"
        if record["kind"] == "state":
            if doc["game"] != game_id:
                state = None
                continue
            old = doc
            earlier = len(doc["history"]) - len(current_deal(game_id, doc))
            assert earlier > 0, f"{where}: the fixture must carry earlier deals"
            state = game.from_json(doc)
            new = game.to_json(state)
            assert new["history"] == current_deal(game_id, doc), where
            if game_id in START_FIELD:
                assert new[START_FIELD[game_id]] == 0, where
            assert {k: v for k, v in new.items() if k not in ("history", START_FIELD.get(game_id))} == {
                k: v for k, v in doc.items() if k not in ("history", START_FIELD.get(game_id))
            }, where
            assert game.to_json(game.from_json(json.loads(json.dumps(new)))) == new, where
            checked += 1
        elif state is None:
            continue
        elif record["kind"] == "view":
            want = {**doc, START_FIELD[game_id]: 0} if START_FIELD.get(game_id) in doc else doc
            assert game.view(state, record["seat"]) == want, where
        elif record["kind"] == "public_view":
            want = {**doc, START_FIELD[game_id]: 0} if START_FIELD.get(game_id) in doc else doc
            assert game.public_view(state) == want, where
        else:
            assert [game.action_to_json(state, a) for a in game.legal_actions(state)] == doc, where
    assert checked >= 5 and old is not None
