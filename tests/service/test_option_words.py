"""The setup form writes every game's options in the page's language: each language's page
catalogue (service/translations/page-<lang>.po, its own file, no English fallback) has, for
every option a game declares (GET /v1/games, ``options``), its name (``option:<name>``, the
key the score items' house rules use too), what it does (``option_about:<name>``) and the
words of every choice that is not a number (``option_value:<name>:<value>``); and no key of
those kinds names an option or a choice that no longer exists."""

from __future__ import annotations

import re

import pytest

from engine import GAME_IDS, get_game
from service import i18n
from service.page import OPTION_WORDS, option_words

RULE_ID = re.compile(r"\b[RSE]\d+[a-z]?\b")  # as setup.js's RULE_ID


def option_keys(game_id: str) -> set[str]:
    """Every key the form asks of the game's options, from the game's own metadata."""
    keys: set[str] = set()
    for option in get_game(game_id).metadata()["options"]:
        keys |= {f"option:{option['name']}", f"option_about:{option['name']}"}
        keys |= {
            f"option_value:{option['name']}:{value}"
            for value in option.get("choices", [])
            if not isinstance(value, int | float)  # numbers are written in the page's digits
        }
    return keys


def test_every_game_declares_options_with_words_to_write() -> None:
    """The keys come from the real metadata: 59 options, with choices that are words."""
    options = [option for game_id in GAME_IDS for option in get_game(game_id).metadata()["options"]]
    assert len(options) >= 59
    assert all(option["description"] for option in options)
    assert "option_value:hokm_rounding:counted_team" in option_keys("baloot")
    assert "option_value:chain_bonus_values:5_then_10" in option_keys("ronda")
    assert not any(key.startswith("option_value:max_wild_per_set:") for key in option_keys("marriage"))


@pytest.mark.parametrize("language", i18n.LANGUAGES)
@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_option_has_words_in_every_language(language: str, game_id: str) -> None:
    catalogue = i18n.page_catalogue(language)
    missing = sorted(key for key in option_keys(game_id) if not catalogue.get((game_id, key), "").strip())
    assert missing == [], f"page-{language}.po has no {game_id} words for {missing}"


@pytest.mark.parametrize("language", i18n.LANGUAGES)
@pytest.mark.parametrize("game_id", GAME_IDS)
def test_no_option_words_are_left_over(language: str, game_id: str) -> None:
    written = {key for (context, key) in i18n.page_catalogue(language) if context == game_id}
    stale = sorted(key for key in written if key.startswith(OPTION_WORDS) and key not in option_keys(game_id))
    assert stale == [], f"page-{language}.po: {game_id} {stale}"


@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_the_words_are_the_players_own_not_the_api_s(language: str) -> None:
    """No words keep a rule id (the form shows the API's beside them) or an API name with
    its underscores and, but in English, no entry is the raw option name or value."""
    catalogue = i18n.page_catalogue(language)
    for game_id in GAME_IDS:
        for key in option_keys(game_id):
            words = catalogue[(game_id, key)]
            assert not RULE_ID.search(words), (language, game_id, key, words)
            assert "_" not in words, (language, game_id, key, words)  # no API name or value
            raw = key.split(":")[-1]
            assert words != raw and words != raw.replace("_", " ") or language == "en" or raw == "kawesh", (
                language,
                key,
            )
            if language == "ar":
                assert not re.search("[A-Za-z]", words), (game_id, key, words)


def test_the_setup_page_serves_every_game_s_option_words(client) -> None:
    """The setup form may show any game's options: its script gets them all, in its language."""
    page = client.get("/play/ronda?lang=ar").get_data(as_text=True)
    served = option_words(i18n.page_words("ar"))
    for game_id in GAME_IDS:
        assert set(served[game_id]) == option_keys(game_id)
        first = get_game(game_id).metadata()["options"][0]["name"]
        assert served[game_id][f"option:{first}"] in page
