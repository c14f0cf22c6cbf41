"""The typed OpenAPI document (service/api/openapi.py): it validates, names its
credentials on every operation that takes them, and types each game's state, view,
action and options from the engine's own declarations (``Game.json_schemas()``)."""

from __future__ import annotations

import random

import pytest
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from engine import GAME_IDS, get_game
from service import create_app
from service import settings as service_settings
from service.api import openapi

DECLARED = [game_id for game_id in GAME_IDS if openapi.declared_schemas(game_id) is not None]
"""The games with a declared codec on this branch (every game once they all declare one)."""
PARTIAL_STATE = {("DealRequest", "layout")}
"""The one free-form object left: a layout is any part of a state."""


@pytest.fixture(scope="module")
def spec(app):
    return app.test_client().get("/openapi.json").get_json()


def validator(spec, name: str) -> Draft202012Validator:
    """A JSON Schema validator of component ``name``, its references resolved in ``spec``."""
    root = {"components": spec["components"], "$ref": openapi.COMPONENTS + name}
    return Draft202012Validator(root)


def test_the_spec_is_valid_openapi_3_1(spec):
    validate(spec)
    assert spec["openapi"] == "3.1.0"


def test_at_least_one_game_declares_its_schemas():
    """A guard on the per-game tests below: they run over the games that declare."""
    assert "ronda" in DECLARED


# --------------------------------------------------------------------------- credentials


def operations(spec):
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method in ("get", "post", "put", "delete", "patch"):
                yield path, method, operation


def test_every_session_operation_takes_the_seat_token_and_every_operation_the_key(spec):
    assert spec["components"]["securitySchemes"] == openapi.SECURITY_SCHEMES
    for path, method, operation in operations(spec):
        needs_seat = path.startswith("/v1/sessions/{session_id}")
        alternatives = operation["security"]
        assert {"ApiKey": []} | ({"SeatToken": []} if needs_seat else {}) in alternatives, (path, method)
        assert all(("SeatToken" in one) == needs_seat for one in alternatives), (path, method)
        assert {} in alternatives or {"SeatToken": []} in alternatives  # keys are off by default


def test_with_api_keys_on_the_key_is_required_everywhere():
    settings = service_settings.TestSettings()
    settings.API_KEYS = True
    spec = create_app(settings).test_client().get("/openapi.json").get_json()
    for path, method, operation in operations(spec):
        assert all("ApiKey" in one for one in operation["security"]), (path, method)


# --------------------------------------------------------------------------- the games' shapes


def test_the_games_documents_are_unions_of_every_game(spec):
    schemas = spec["components"]["schemas"]
    for document in ("state", "view"):
        union = schemas[openapi.union_name(document)]
        assert union["discriminator"]["propertyName"] == "game"
        assert set(union["discriminator"]["mapping"]) == set(GAME_IDS)
    for document in ("action", "options"):
        assert len(schemas[openapi.union_name(document)]["anyOf"]) == len(GAME_IDS)


def test_the_fields_that_carry_a_game_document_reference_its_union(spec):
    schemas = spec["components"]["schemas"]
    assert schemas["MoveRequest"]["properties"]["state"]["$ref"].endswith("/GameState")
    assert schemas["MoveRequest"]["properties"]["action"]["$ref"].endswith("/GameAction")
    assert schemas["Session"]["properties"]["view"]["$ref"].endswith("/GameView")
    assert schemas["LabelledAction"]["properties"]["action"]["$ref"].endswith("/GameAction")
    assert schemas["DealRequest"]["properties"]["options"]["$ref"].endswith("/GameOptions")
    nullable = schemas["StateOrViewRequest"]["properties"]["view"]["anyOf"]
    assert nullable == [{"$ref": openapi.COMPONENTS + "GameView"}, {"type": "null"}]
    assert schemas["Session"]["properties"]["seats"]["items"]["$ref"].endswith("/SeatSpec")


def free_form_objects(name: str, schema, where: str = ""):
    """(schema, property) of every object with no declared members."""
    if isinstance(schema, dict):
        kinds = schema.get("type")
        is_object = kinds == "object" or (isinstance(kinds, list) and "object" in kinds)
        if is_object and "properties" not in schema:
            if schema.get("additionalProperties") in (None, True, {}):
                yield name, where
        for key, value in schema.items():
            yield from free_form_objects(name, value, key if key not in ("items", "properties") else where)
    elif isinstance(schema, list):
        for item in schema:
            yield from free_form_objects(name, item, where)


def test_no_free_form_object_of_the_service_is_left_but_a_layout(spec):
    """The service's own schemas; the games' (``Ronda...``) are the engine's declarations."""
    games = tuple(openapi.title(game_id) for game_id in GAME_IDS)
    found = {
        place
        for name, schema in spec["components"]["schemas"].items()
        if not name.startswith(games)
        for place in free_form_objects(name, schema)
    }
    assert found == PARTIAL_STATE


def documents(game_id: str, seed: int = 3):
    """A few real documents of the game along a playout: its states, the views of the seat
    to act and of a spectator, and the legal actions."""
    game = get_game(game_id)
    players = min(game.player_counts)
    state = game.new_state(players, game.parse_options({}, players), 0, seed=seed)
    rng = random.Random(seed)
    for _ in range(30):
        seat = game.to_act(state)
        if seat is None:
            return
        actions = game.legal_actions(state)
        yield (
            game.to_json(state),
            [game.view(state, seat), game.public_view(state)],
            [game.action_to_json(state, a) for a in actions],
        )
        state, _ = game.apply(state, seat, rng.choice(actions))


@pytest.mark.parametrize("game_id", DECLARED)
def test_the_games_documents_validate_against_the_spec(spec, game_id):
    prefix = openapi.title(game_id)
    checks = {name: validator(spec, name) for name in ("GameState", "GameView", "GameAction", "GameOptions")}
    own = {name: validator(spec, prefix + name) for name in ("State", "View", "Action")}
    game = get_game(game_id)
    checks["GameOptions"].validate(game.parse_options({}, min(game.player_counts)))
    count = 0
    for state, views, actions in documents(game_id):
        checks["GameState"].validate(state)
        own["State"].validate(state)
        for view in views:
            checks["GameView"].validate(view)
            own["View"].validate(view)
        for action in actions:
            checks["GameAction"].validate(action)
            own["Action"].validate(action)
        count += 1
    assert count >= 5


@pytest.mark.parametrize("game_id", DECLARED)
def test_a_document_of_another_game_is_not_the_games(spec, game_id):
    other = next(g for g in GAME_IDS if g != game_id)
    state = next(documents(other))[0]
    assert not validator(spec, openapi.title(game_id) + "State").is_valid(state)


@pytest.mark.parametrize("game_id", DECLARED)
def test_the_games_actions_are_discriminated_by_type(spec, game_id):
    action = spec["components"]["schemas"][openapi.title(game_id) + "Action"]
    mapping = action["discriminator"]["mapping"]
    assert action["discriminator"]["propertyName"] == "type"
    assert [{"$ref": ref} for ref in mapping.values()] == action["oneOf"]
    for verb, ref in mapping.items():
        variant = spec["components"]["schemas"][ref.removeprefix(openapi.COMPONENTS)]
        assert variant["properties"]["type"] == {"const": verb}


# --------------------------------------------------------------------------- the building blocks


TOY = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "game": {"const": "toy"},
        "history": {"type": "array", "items": {"$ref": "#/$defs/action"}},
    },
    "$defs": {
        "action": {
            "oneOf": [
                {"type": "object", "properties": {"type": {"const": "pass"}}},
                {
                    "type": "object",
                    "properties": {"type": {"const": "play_card"}, "card": {"type": "string"}},
                },
            ]
        }
    },
}


def test_defs_become_components_and_action_variants_get_a_discriminator():
    components = openapi.Components()
    ref = openapi.add_document("toy", "state", TOY, components)
    assert ref == openapi.COMPONENTS + "ToyState"
    state = components.schemas["ToyState"]
    assert "$defs" not in state and "$schema" not in state
    assert state["properties"]["history"]["items"] == {"$ref": openapi.COMPONENTS + "ToyStateAction"}
    action = components.schemas["ToyStateAction"]
    assert action["discriminator"]["mapping"] == {
        "pass": openapi.COMPONENTS + "ToyStatePassAction",
        "play_card": openapi.COMPONENTS + "ToyStatePlayCardAction",
    }
    again = openapi.add_document("toy", "view", TOY, components)  # the same definitions: reused
    assert components.schemas[again.removeprefix(openapi.COMPONENTS)]["properties"]["history"] == {
        "type": "array",
        "items": {"$ref": openapi.COMPONENTS + "ToyStateAction"},
    }


def test_a_game_without_declarations_gets_a_placeholder_naming_its_game():
    state = openapi.placeholder("toy", "state")
    assert state["properties"] == {"game": {"const": "toy"}} and state["additionalProperties"] is True
    assert openapi.placeholder("toy", "action")["required"] == ["type"]


def test_a_const_that_is_not_a_string_becomes_a_one_value_enum_a_generator_can_write():
    """openapi-python-client wrote Baloot's optional ``{"const": true}`` as
    ``if project != Trueand ...``: a generated client that did not import."""
    schema = {"properties": {"project": {"const": True}, "version": {"const": 1}, "type": {"const": "play"}}}
    assert openapi.for_openapi(schema, {})["properties"] == {
        "project": {"type": "boolean", "enum": [True]},
        "version": {"type": "integer", "enum": [1]},
        "type": {"const": "play"},
    }
