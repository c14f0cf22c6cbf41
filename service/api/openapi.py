"""The typed parts of the OpenAPI document: security schemes, and each game's state, view,
action and options schemas, generated from the engine's own declarations.

A game that declares its JSON shape (``Game.json_schemas()``, engine/codec.py) gives four
JSON Schemas (draft 2020-12, which OpenAPI 3.1 takes as they are). Each becomes a
component (``RondaState``, ``RondaView``, ``RondaAction``, ``RondaOptions``): its ``$defs``
become components too (named after the game and the definition, one component for
definitions that are the same), and the variants of an action ``oneOf`` become
``RondaPlayAction``... with a ``type`` discriminator. The unions over the games are
``GameState`` and ``GameView`` (``oneOf`` discriminated by ``game``), ``GameAction`` and
``GameOptions`` (``anyOf``: the games share action types and option names). A ``const``
that is not a string is written as the equal one-value ``enum`` (see :func:`for_openapi`).
A game that declares nothing yet gets a placeholder naming only its ``game`` (any other
member allowed), so the unions hold every game and a generated client keeps its
documents whole.

The fields of the request and response schemas that carry these documents are
:class:`GameDocument` fields; :func:`game_document_ref` makes the spec reference the
union instead of a free-form object."""

from __future__ import annotations

import copy
import functools
from typing import Any

from apispec import BasePlugin
from apispec.ext.marshmallow import MarshmallowPlugin
from marshmallow import fields

from engine import GAME_IDS, get_game

JSON = dict[str, Any]
DOCUMENTS = ("state", "view", "action", "options")
DOCUMENTS_IN_ORDER = ("action", "state", "view", "options")
"""The action first: the state's and the view's actions are the same schema (or a view's
variant of it), named after the action then."""
COMPONENTS = "#/components/schemas/"

API_KEY = "ApiKey"
SEAT_TOKEN = "SeatToken"
SECURITY_SCHEMES: dict[str, JSON] = {
    API_KEY: {
        "type": "apiKey",
        "in": "header",
        "name": "X-API-Key",
        "description": "a client's API key, when the server requires keys (MAJLIS_API_KEYS)",
    },
    SEAT_TOKEN: {
        "type": "http",
        "scheme": "bearer",
        "description": "a session's seat token (or spectator token), from the session's creation",
    },
}
SEAT_TOKEN_PATHS = "/v1/sessions/{session_id}"
"""Every operation under this path acts for the seat (or spectator) of a token."""


class GameDocument(fields.Dict):
    """A game's state, view, action or options: a JSON object here (the engine reads it),
    the union of the games' schemas in the spec."""

    def __init__(self, document: str, **kwargs: Any) -> None:
        if document not in DOCUMENTS:
            raise ValueError(f"not a game document: {document!r}")
        super().__init__(**kwargs)
        self.document = document


def union_name(document: str) -> str:
    return "Game" + document.capitalize()


def game_document_ref(_converter: Any, field: fields.Field, ret: JSON, **_: Any) -> JSON:
    """apispec attribute function (a method of its FieldConverter): a :class:`GameDocument`
    is a reference to its union (``null`` allowed where the field allows it); its
    description is kept."""
    if not isinstance(field, GameDocument):
        return {}
    description = ret.get("description")
    ret.clear()
    ref: JSON = {"$ref": COMPONENTS + union_name(field.document)}
    out: JSON = {"anyOf": [ref, {"type": "null"}]} if field.allow_none else ref
    if description:
        out["description"] = description
    return out


class GameDocumentsPlugin(MarshmallowPlugin):
    """apispec's marshmallow plugin, writing a :class:`GameDocument` as a reference."""

    def init_spec(self, spec: Any) -> None:
        super().init_spec(spec)
        self.converter.add_attribute_function(game_document_ref)  # type: ignore[union-attr]


class SecurityPlugin(BasePlugin):
    """Names on each operation the credentials it takes: the seat token on a session's
    operations; the API key on every ``/v1`` operation (required when the server has
    keys on, else optional)."""

    def __init__(self, api_keys: bool) -> None:
        self.api_keys = api_keys

    def operation_helper(self, path: str | None = None, operations: dict | None = None, **_: Any) -> None:
        if not path or not operations or not path.startswith("/v1/"):
            return
        seat = path.startswith(SEAT_TOKEN_PATHS)
        for operation in operations.values():
            operation["security"] = self.requirements(seat)

    def requirements(self, seat: bool) -> list[JSON]:
        need: JSON = {SEAT_TOKEN: []} if seat else {}
        with_key = {**need, API_KEY: []}
        return [with_key] if self.api_keys else [with_key, need]


# --------------------------------------------------------------------------- game schemas


def declared_schemas(game_id: str) -> dict[str, JSON] | None:
    """The game's four JSON Schemas, or None while it declares none."""
    game = get_game(game_id)
    hook = getattr(game, "json_schemas", None)
    if hook is None:
        return None
    try:
        return dict(hook())
    except NotImplementedError:
        return None


def title(game_id: str) -> str:
    return game_id.capitalize()


def placeholder(game_id: str, document: str) -> JSON:
    """The schema of a game that declares none yet: any object (of the game, where the
    document names it)."""
    schema: JSON = {
        "type": "object",
        "additionalProperties": True,
        "description": f"a {game_id} {document} (its shape is not declared yet)",
    }
    if document in ("state", "view"):
        schema["properties"] = {"game": {"const": game_id}}
        schema["required"] = ["game"]
    if document == "action":
        schema["properties"] = {"type": {"type": "string"}}
        schema["required"] = ["type"]
    return schema


class Components:
    """The component schemas being built: one name per distinct schema."""

    def __init__(self) -> None:
        self.schemas: dict[str, JSON] = {}

    def add(self, name: str, schema: JSON) -> str:
        """Register ``schema`` under ``name`` (or the name of the same schema already
        there); its reference."""
        for known, existing in self.schemas.items():
            if existing == schema:
                return COMPONENTS + known
        unique, n = name, 2
        while unique in self.schemas:
            unique, n = f"{name}{n}", n + 1
        self.schemas[unique] = schema
        return COMPONENTS + unique


JSON_TYPES = {bool: "boolean", int: "integer", float: "number", type(None): "null"}


def for_openapi(node: Any, refs: dict[str, str]) -> Any:
    """``node`` with each ``{"$ref": "#/$defs/x"}`` pointing at its component instead, and
    each ``const`` that is not a string written as the same one-value ``enum`` with its
    type: openapi-python-client 0.29 writes an optional non-string const as
    ``x != Trueand ...``, a syntax error in the generated client."""
    if isinstance(node, dict):
        if "const" in node and type(node["const"]) in JSON_TYPES:
            node = {**node, "type": JSON_TYPES[type(node["const"])], "enum": [node["const"]]}
            del node["const"]
        return {
            key: refs.get(value, value) if key == "$ref" else for_openapi(value, refs)
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [for_openapi(item, refs) for item in node]
    return node


def verb_of(variant: JSON) -> str | None:
    """The ``type`` constant of an action variant, if it has one."""
    type_schema = variant.get("properties", {}).get("type", {})
    if "const" in type_schema:
        return str(type_schema["const"])
    if len(type_schema.get("enum", ())) == 1:
        return str(type_schema["enum"][0])
    return None


def discriminated_action(prefix: str, action: JSON, components: Components) -> JSON:
    """An action ``oneOf`` with each variant a component and ``type`` its discriminator
    (as it was when a variant has no ``type`` constant)."""
    variants = action.get("oneOf")
    if not isinstance(variants, list) or not all(isinstance(v, dict) and verb_of(v) for v in variants):
        return action
    mapping = {}
    for variant in variants:
        verb = str(verb_of(variant))
        name = prefix + "".join(part.capitalize() for part in verb.replace("-", "_").split("_")) + "Action"
        mapping[verb] = components.add(name, variant)
    rest = {key: value for key, value in action.items() if key != "oneOf"}
    return {
        **rest,
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }


def add_document(game_id: str, document: str, schema: JSON, components: Components) -> str:
    """One game document as components (its ``$defs`` lifted out, named after the game
    and the document unless the same schema is a component already); its reference."""
    prefix = title(game_id)
    inner = prefix if document == "action" else prefix + document.capitalize()
    schema = copy.deepcopy(schema)
    schema.pop("$schema", None)
    schema.pop("$id", None)
    definitions = schema.pop("$defs", {})
    refs: dict[str, str] = {}
    for name, definition in definitions.items():
        definition = for_openapi(definition, refs)
        if name == "action":
            definition = discriminated_action(inner, definition, components)
        component = inner + "".join(part.capitalize() for part in name.split("_"))
        refs[f"#/$defs/{name}"] = components.add(component, definition)
    schema = for_openapi(schema, refs)
    if document == "action":
        schema = discriminated_action(prefix, schema, components)
    return components.add(prefix + document.capitalize(), schema)


@functools.cache
def game_components() -> dict[str, JSON]:
    """Every component schema of the games' documents and their unions (built once: the
    declarations do not change while the process runs)."""
    components = Components()
    refs: dict[str, dict[str, str]] = {document: {} for document in DOCUMENTS}
    declared = {game_id: declared_schemas(game_id) for game_id in GAME_IDS}
    # declared games first: an anyOf reader tries them before the placeholders
    order = sorted(GAME_IDS, key=lambda game_id: declared[game_id] is None)
    for game_id in order:
        schemas = declared[game_id]
        for document in DOCUMENTS_IN_ORDER:
            schema = schemas[document] if schemas else placeholder(game_id, document)
            refs[document][game_id] = add_document(game_id, document, schema, components)
    for document in ("state", "view"):
        components.schemas[union_name(document)] = {
            "oneOf": [{"$ref": ref} for ref in refs[document].values()],
            "discriminator": {"propertyName": "game", "mapping": dict(refs[document])},
            "description": f"a game's {document}, by its `game`",
        }
    for document in ("action", "options"):
        components.schemas[union_name(document)] = {
            "anyOf": [{"$ref": ref} for ref in refs[document].values()],
            "description": f"a game's {document} (the game of the path or of the session)",
        }
    return components.schemas


def document(api: Any) -> None:
    """Add the security schemes and the games' schemas to ``api``'s spec (flask-smorest)."""
    for name, scheme in SECURITY_SCHEMES.items():
        api.spec.components.security_scheme(name, scheme)
    for name, schema in game_components().items():
        api.spec.components.schema(name, component=copy.deepcopy(schema))
