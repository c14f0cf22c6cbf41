"""The table page writes every score item in its language: each language's page catalogue
(service/translations/page-<lang>.po) has the words of every item key of every game
(context the game, msgid ``item:<key>``, engine/games/<game>/items.py), using exactly the
template's parameters, and the words of every game term a parameter may take (Ronda's
``tringa``...); and what the service serves carries the keys (docs/api.md, Score items)."""

from __future__ import annotations

import re

import pytest

from engine import GAME_IDS, get_game
from engine.items import item_templates
from service import i18n

PARAM = re.compile(r"\{(\w+)\}")


@pytest.mark.parametrize("language", i18n.LANGUAGES)
@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_item_key_has_words_in_every_language(language: str, game_id: str) -> None:
    catalogue = i18n.page_catalogue(language)  # the language's own file: no English fallback
    templates = item_templates(game_id)
    missing = [key for key in templates.templates if not catalogue.get((game_id, f"item:{key}"))]
    assert missing == [], f"page-{language}.po has no words for {game_id} items {missing}"
    for key in templates.templates:
        words = catalogue[(game_id, f"item:{key}")]
        assert sorted(PARAM.findall(words)) == sorted(templates.params_of(key)), (language, key, words)
    for name, values in templates.words.items():
        lacking = [value for value in values if not catalogue.get((game_id, value))]
        assert lacking == [], f"page-{language}.po has no {game_id} words for the {name} {lacking}"


@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_every_house_rule_an_item_names_has_words_in_every_language(language: str) -> None:
    catalogue = i18n.page_catalogue(language)
    assert catalogue.get(("page", "house_rules")), "no words around the house rules' names"
    for game_id in GAME_IDS:
        missing = [
            name for name in item_templates(game_id).options if not catalogue.get((game_id, f"option:{name}"))
        ]
        assert missing == [], f"page-{language}.po has no {game_id} words for the house rules {missing}"


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_no_catalogue_has_an_item_key_the_game_does_not_declare(game_id: str) -> None:
    """Item keys here; an ``option:<name>`` is the setup form's word for the option too, so
    tests/service/test_option_words.py finds the stale ones among every option's."""
    declared = {f"item:{key}" for key in item_templates(game_id).templates}
    for language in i18n.LANGUAGES:
        written = {key for (context, key) in i18n.page_catalogue(language) if context == game_id}
        stale = sorted(key for key in written if key.startswith("item:") and key not in declared)
        assert stale == [], f"page-{language}.po: {stale}"


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_house_rule_an_item_names_is_an_option_of_the_game(game_id: str) -> None:
    options = {option["name"] for option in get_game(game_id).metadata()["options"]}
    assert set(item_templates(game_id).options) <= options


def test_the_served_score_and_events_carry_keys(client) -> None:
    """The stateless score and moves endpoints: a Ronda deal played to its end, every
    item served has its key and parameters."""
    game = get_game("ronda")
    state = game.to_json(game.new_state(2, {}, 0, seed=5))
    seen = 0
    for _ in range(200):
        legal = client.post("/v1/games/ronda/legal-moves", json={"state": state}).get_json()
        if legal["to_act"] is None:
            break
        moved = client.post(
            "/v1/games/ronda/moves",
            json={"state": state, "seat": legal["to_act"], "action": legal["actions"][0]},
        ).get_json()
        state = moved["state"]
        for event in moved["events"]:
            if event["type"] == "points":
                assert item_templates("ronda").text(event["key"], **event["params"]) == event["item"]
                seen += 1
        score = client.post("/v1/games/ronda/score", json={"state": state}).get_json()
        for item in score["items"]:
            assert item_templates("ronda").text(item["key"], **item["params"]) == item["item"]
        if score["deal_no"] > 1:
            break
    assert seen > 0
    assert all("key" not in item for item in state["deal_items"])  # the state keeps the text alone


def test_the_openapi_schema_names_every_item_parameter() -> None:
    """ScoreItemParams declares each parameter a game's templates use, with the words a
    game's word parameter may take."""
    from service.api.schemas import ScoreItemParamsSchema

    declared = ScoreItemParamsSchema().fields
    for game_id in GAME_IDS:
        templates = item_templates(game_id)
        for key in templates.templates:
            for name in templates.params_of(key):
                assert name in declared, f"{game_id} {key}: parameter {name} is not in ScoreItemParamsSchema"
        for name, values in templates.words.items():
            assert declared[name].metadata["enum"] == list(values), name
