"""The speed-ups of issue 8 change nothing a client sees.

* The fast body loaders (service.api.blueprint) accept only bodies marshmallow accepts,
  and load them exactly as marshmallow does; anything else goes the webargs way.
* The direct JSON access line has the fields, in the order, JsonFormatter writes.
* The shared codec's fast card reading (engine/codec.py: one dict look-up per code) loads
  Ronda's states the same and refuses tampered ones with the same error as the checked
  path alone."""

from __future__ import annotations

import copy
import importlib
import io
import json
import logging
import random

import marshmallow as ma
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import get_game
from engine.codec import Pack
from engine.games.ronda import codec as ronda_codec
from engine.protocol import EngineError
from service import create_app
from service.api.blueprint import FAST_LOADERS
from service.settings import TestSettings as Settings

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 20) | st.floats(allow_nan=False) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)
field_names = st.sampled_from(["state", "view", "seat", "action", "level", "extra"])
bodies = st.dictionaries(field_names, json_values | st.just({"phase": "play"}), max_size=4)


@pytest.mark.parametrize("schema_class", list(FAST_LOADERS), ids=lambda c: c.__name__)
@given(body=bodies)
def test_fast_loaders_agree_with_marshmallow(schema_class, body):
    fast = FAST_LOADERS[schema_class](copy.deepcopy(body))
    try:
        slow = schema_class().load(copy.deepcopy(body))
    except ma.ValidationError:
        assert fast is None
    else:
        assert fast is None or fast == slow


def test_fast_path_errors_keep_their_shape(client):
    bad = [
        ({"state": 5}, 422, "invalid_request"),
        ({"state": {}, "extra": 1}, 422, "invalid_request"),
        ({}, 422, "invalid_request"),
        ({"state": None, "view": None}, 422, "invalid_request"),
    ]
    for body, status, code in bad:
        answer = client.post("/v1/games/ronda/legal-moves", json=body)
        assert answer.status_code == status and answer.get_json()["error"]["code"] == code
    for data in (b"{bad", b"\xff\xfe", b"[1, 2]", b""):
        answer = client.post("/v1/games/ronda/legal-moves", data=data, content_type="application/json")
        assert answer.status_code in (400, 422) and "error" in answer.get_json()
    answer = client.post("/v1/games/ronda/moves", json={"state": {}, "seat": True, "action": {}})
    assert answer.get_json()["error"]["details"]["fields"] == {"seat": "Not a valid integer."}


def test_direct_access_line_is_what_the_formatter_writes():
    settings = Settings()
    settings.LOG_REQUESTS = True
    app = create_app(settings)
    handler = logging.getLogger("service").handlers[0]
    stream = io.StringIO()
    old = handler.setStream(stream)
    try:
        app.test_client().get("/healthz", headers={"X-Request-ID": "req-1"})
    finally:
        handler.setStream(old)
    line = json.loads(stream.getvalue().splitlines()[-1])
    assert list(line) == ["ts", "level", "logger", "msg", "request_id", "method", "path", "status", "ms"]
    assert line["request_id"] == "req-1" and line["path"] == "/healthz" and line["status"] == 200


RONDA = get_game("ronda")


def _ronda_states(count: int = 12) -> list[dict]:
    out = []
    for seed in range(count):
        players = (2, 3, 4)[seed % 3]
        state = RONDA.new_state(players, RONDA.parse_options({}, players), 0, seed=seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(1, 80)):
            if RONDA.to_act(state) is None:
                break
            RONDA.step(state, rng.choice(RONDA.legal_actions(state)))
        out.append(RONDA.to_json(state))
    return out


def _outcome(data, codec=ronda_codec.CODEC):
    try:
        return ("ok", codec.dump(codec.load(data)))
    except EngineError as error:
        return (type(error).__name__, error.message, error.details)


def _checked_path_codec():
    """Ronda's codec compiled again with no fast look-up table: every card code takes the
    checked path (``Pack.read``)."""
    fast_table = Pack.card_of_code
    Pack.card_of_code = lambda self: {}  # type: ignore[method-assign]
    try:
        return importlib.reload(ronda_codec).CODEC
    finally:
        Pack.card_of_code = fast_table  # type: ignore[method-assign]
        importlib.reload(ronda_codec)


def _mutate(state: dict, rng: random.Random) -> dict:
    """Swap, duplicate or corrupt a card code, or tamper with a history entry."""
    data = copy.deepcopy(state)
    where = rng.choice(["hands", "table", "stock", "piles", "history", "history"])
    if where == "history" and data["history"]:
        entry = rng.choice(data["history"])
        entry["action"] = rng.choice(
            [
                {"type": "play", "card": "1X"},
                {"type": "play"},
                {"type": "pass", "x": 1},
                {"type": "play", "card": ["5H"]},
                {"type": "play", "card": "5H"},
            ]
        )
        entry["seat"] = rng.choice([entry["seat"], 7, True, "0"])
    else:
        lists = data[where] if where in ("hands", "piles") else [data[where]]
        lists = [x for x in lists if isinstance(x, list)]
        if lists:
            cards = rng.choice(lists)
            cards.append(rng.choice(["5H", "KS", "8H", 5, None, ["AS"], "as"]))
    return data


def test_ronda_fast_reading_agrees_with_the_checked_path():
    states = _ronda_states()
    rng = random.Random(8)
    cases = states + [_mutate(rng.choice(states), rng) for _ in range(150)]
    fast = [_outcome(data) for data in cases]
    checked = _checked_path_codec()
    slow = [_outcome(data, checked) for data in cases]
    assert fast == slow
    assert sum(1 for o in fast if o[0] == "ok") >= len(states)
    assert sum(1 for o in fast if o[0] != "ok") > 50


def test_ronda_options_read_once_still_refuse_a_changed_option():
    state = _ronda_states(1)[0]
    RONDA.from_json(state)  # its options are now remembered
    for name, bad in (("challenges", 1), ("target_score", True), ("deal_style", None)):
        tampered = copy.deepcopy(state)
        tampered["options"][name] = bad
        with pytest.raises(EngineError) as caught:
            RONDA.from_json(tampered)
        assert caught.value.details.get("field", "") or caught.value.message
    assert _outcome(copy.deepcopy(state))[0] == "ok"
