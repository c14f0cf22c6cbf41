"""Languages: error messages and action labels in English, Arabic, Spanish and Nepali,
chosen by Accept-Language (service/i18n.py, service/translations/*.po)."""

from __future__ import annotations

import random
import re

import pytest

from engine import GAME_IDS, get_game
from engine.games.baloot import codec as baloot_codec
from engine.games.marriage import codec as marriage_codec
from engine.games.porrazo import codec as porrazo_codec
from engine.games.ronda import codec as ronda_codec
from engine.labels import ENGLISH, FIELD_WORDS, FLAG_WORDS, label, label_parts
from service import i18n
from tests.clients.test_errors import answered_codes
from tests.problems import error_code, extensions

LANGUAGES = i18n.LANGUAGES
OTHERS = [language for language in LANGUAGES if language != i18n.DEFAULT]
NAME = re.compile(r"\{(\w+)\}")
ARABIC = re.compile(r"[\u0600-\u06ff]")
ARABIC_PLEASE = {"Accept-Language": "ar"}


def entries(language: str, context: str) -> dict[str, str]:
    return {key: text for (ctx, key), text in i18n.catalogue(language).items() if ctx == context}


def action_types() -> set[str]:
    """Every action type of the five games: the codecs' tables, and the types met along
    seeded playouts (Trex's table lives inside its parser)."""
    types = set()
    for declared in (baloot_codec, marriage_codec, porrazo_codec, ronda_codec):
        types |= set(declared.VERBS.verbs)
    for game_id in GAME_IDS:
        game = get_game(game_id)
        rng = random.Random(1)
        players = min(game.player_counts)
        state = game.new_state(players, game.parse_options({}, players), 0, seed=1)
        for _ in range(200):
            if game.to_act(state) is None:
                break
            actions = game.legal_actions(state)
            types |= {game.action_to_json(state, a)["type"] for a in actions}
            state, _ = game.apply(state, game.to_act(state), rng.choice(actions))
    return types


# --------------------------------------------------------------------------- the catalogues


def test_the_catalogues_are_read():
    """A guard on the tests below: the loader must not come back empty."""
    assert i18n.catalogue("ar")[("error", "not_your_turn")].startswith("ليس دورك")
    assert len(entries("en", "error")) >= 30 and len(entries("en", "verb")) >= 20


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_code_the_service_answers_has_a_message_in_every_language(language):
    codes = {code for _, code in answered_codes()}
    messages = entries(language, "error")
    missing = sorted(code for code in codes if not messages.get(code))
    assert not missing, missing


@pytest.mark.parametrize("language", OTHERS)
def test_every_catalogue_has_the_english_keys_and_placeholders(language):
    english, other = i18n.catalogue("en"), i18n.catalogue(language)
    assert set(other) == set(english)
    for key, text in english.items():
        assert text and other[key], (language, key)
        assert set(NAME.findall(other[key])) == set(NAME.findall(text)), (language, key)
        assert other[key].count("[") == text.count("["), (language, key)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_placeholder_of_a_message_is_optional_so_none_is_left_unfilled(language):
    for code, template in entries(language, "error").items():
        outside = i18n._OPTIONAL.sub("", template)
        assert not NAME.search(outside), (language, code, template)
        for details in ({}, {name: 3 for name in NAME.findall(template)}):
            text = i18n.fill(template, details)
            assert text and not re.search(r"[{}\[\]]", text), (language, code, text)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_label_verb_field_and_flag_has_a_translation(language):
    verbs, fields, flags = entries(language, "verb"), entries(language, "field"), entries(language, "flag")
    assert not sorted(action_types() - set(verbs))
    assert {key for key, words in FIELD_WORDS.items() if words} == set(fields)
    assert set(FLAG_WORDS) == set(flags) and all(text.count("|") == 1 for text in flags.values())
    assert {"joker", "cards"} == set(entries(language, "word"))


def test_the_english_catalogue_is_what_the_engine_says():
    """en.po is the reference the translators read: it must not drift from engine/labels.py."""
    for kind, verb in entries("en", "verb").items():
        assert label_parts({"type": kind})[0] == verb
    for key, words in entries("en", "field").items():
        assert FIELD_WORDS[key] == words
    for key, words in entries("en", "flag").items():
        assert "|".join(FLAG_WORDS[key]) == words
    assert i18n.label_words("en") is ENGLISH


def test_a_label_in_each_language_keeps_the_card_symbols():
    action = {"type": "play", "card": "KH", "ekka": True}
    with_deck = {"type": "deal", "deck": ["XX"] * 3}
    assert label(action, i18n.label_words("ar")) == "العب K♥ مع إعلان الأكة"
    assert label(action, i18n.label_words("es")) == "jugar K♥ cantando ekka"
    assert label(with_deck, i18n.label_words("ne")) == "बाँड्नुहोस् गड्डी 3 पत्ता"
    assert label({"type": "discard", "card": "XX"}, i18n.label_words("es")) == "descartar comodín"


def test_a_code_no_catalogue_knows_keeps_its_english_message_and_says_so(app):
    with app.test_request_context(headers={"Accept-Language": "ar"}):
        assert i18n.error_message("teapot", "I am a teapot", {}) == "I am a teapot"
        response = i18n.set_content_language(app.response_class())
        assert response.headers["Content-Language"] == "en"
    with app.test_request_context(headers={"Accept-Language": "ar"}):
        assert i18n.error_message("busy", "busy", {"retry_after": 1}).startswith("الخادم مشغول")
        assert i18n.set_content_language(app.response_class()).headers["Content-Language"] == "ar"


def test_the_po_loader_reads_continued_strings_escapes_and_contexts():
    text = '# a comment\nmsgid ""\nmsgstr ""\n"Language: es\\n"\n\nmsgctxt "error"\nmsgid "busy"\n'
    text += 'msgstr "uno "\n"\\"dos\\""\n\nmsgid "plain"\nmsgstr "x"\n'
    assert i18n.parse_po(text) == {("error", "busy"): 'uno "dos"', ("", "plain"): "x"}


# --------------------------------------------------------------------------- the choice


@pytest.mark.parametrize(
    ("header", "language"),
    [
        ("ar", "ar"),
        ("ar-SA", "ar"),
        ("es-MX,es;q=0.9", "es"),
        ("NE-np", "ne"),
        ("es;q=0.5, ne;q=0.9", "ne"),
        ("ar-SA, en;q=0.1", "ar"),  # werkzeug's best_match says en here
        ("fr, *;q=0.5, ar;q=0.4", "en"),  # any language (English) is preferred to Arabic
        ("ar;q=0, es", "es"),
        ("fr", "en"),
        ("", "en"),
        ("*", "en"),
    ],
)
def test_accept_language_chooses_by_quality_and_falls_back_to_english(client, header, language):
    response = client.post("/v1/games/ronda/deals", json={"players": 7}, headers={"Accept-Language": header})
    assert response.status_code == 422
    assert response.headers["Content-Language"] == language
    assert "Accept-Language" in response.headers["Vary"]
    assert error_code(response) == "invalid_setup"


# --------------------------------------------------------------------------- the answers


def test_an_error_in_arabic_keeps_its_code_and_details(client):
    english = client.post("/v1/games/ronda/deals", json={"players": 7}).get_json()
    arabic = client.post("/v1/games/ronda/deals", json={"players": 7}, headers={"Accept-Language": "ar"})
    error = arabic.get_json()
    assert arabic.status_code == 422 and arabic.headers["Content-Language"] == "ar"
    assert (error["code"], extensions(error)) == (english["code"], extensions(english))
    assert english["detail"] == "players must be one of 2, 3, 4"  # English is as it was
    assert error["title"] == english["title"] == "Invalid setup"
    assert error["detail"] == "اللاعبون أو الخيارات أو الموزّع أو الورق غير مقبول (الحقل players)"


def test_an_illegal_move_is_translated_and_its_reason_stays_the_rule_text(client):
    state = client.post("/v1/games/ronda/deals", json={"players": 2, "seed": 42}).get_json()["state"]
    body = {"state": state, "seat": 1, "action": {"type": "play", "card": state["hands"][1][0]}}
    english = client.post("/v1/games/ronda/moves", json=body).get_json()
    for language, words in (("es", "esta jugada va contra las reglas"), ("ne", "यो चाल नियमविरुद्ध छ")):
        answer = client.post("/v1/games/ronda/moves", json=body, headers={"Accept-Language": language})
        error = answer.get_json()
        assert error["code"] == "illegal_move" and extensions(error) == extensions(english)
        assert error["detail"].startswith(words) and english["rule"] in error["detail"]
        assert "{" not in error["detail"] and "[" not in error["detail"]


def test_not_your_turn_names_the_seat_to_act_in_every_language(client):
    state = client.post("/v1/games/ronda/deals", json={"players": 2, "seed": 42}).get_json()["state"]
    body = {"state": state, "seat": 0, "action": {"type": "pass"}}
    answers = {}
    for language in LANGUAGES:
        response = client.post("/v1/games/ronda/moves", json=body, headers={"Accept-Language": language})
        assert response.headers["Content-Language"] == language
        answers[language] = response.get_json()
    assert answers["en"]["detail"] == "not your turn: seat 1 is to act"
    assert answers["ar"]["detail"] == "ليس دورك: الدور للمقعد 1"
    assert answers["es"]["detail"] == "no es tu turno: juega el asiento 1"
    assert answers["ne"]["detail"] == "तपाईंको पालो होइन: सिट 1 को पालो हो"
    assert len({(a["code"], str(extensions(a))) for a in answers.values()}) == 1


def test_a_malformed_body_and_an_unknown_path_are_translated_too(client):
    headers = {"Accept-Language": "es", "Content-Type": "application/json"}
    bad = client.post("/v1/games/ronda/deals", data=b"{", headers=headers)
    assert bad.status_code == 400 and error_code(bad) == "invalid_json"
    assert bad.get_json()["detail"] == "el cuerpo de la petición no es JSON válido"
    missing = client.get("/v1/nowhere", headers={"Accept-Language": "ne"})
    assert missing.status_code == 404 and missing.headers["Content-Language"] == "ne"
    assert missing.get_json()["detail"] == "यो ठेगानामा केही छैन"
    shape = client.post("/v1/games/ronda/deals", json={"seed": -1}, headers={"Accept-Language": "ar"})
    assert shape.get_json()["detail"] == "حقل غير صالح: seed"


def test_legal_move_labels_follow_the_language(client):
    state = client.post("/v1/games/ronda/deals", json={"players": 2, "seed": 42}).get_json()["state"]
    english = client.post("/v1/games/ronda/legal-moves", json={"state": state})
    arabic = client.post("/v1/games/ronda/legal-moves", json={"state": state}, headers=ARABIC_PLEASE)
    assert english.get_json()["labels"] == [label(a) for a in english.get_json()["actions"]]
    assert english.headers["Content-Language"] == "en"
    assert arabic.headers["Content-Language"] == "ar"
    assert arabic.get_json()["actions"] == english.get_json()["actions"]
    labels = arabic.get_json()["labels"]
    assert labels[0] == "بس" and all(ARABIC.search(text) for text in labels), labels


def test_an_answer_without_words_has_no_content_language(client):
    response = client.post("/v1/games/ronda/deals", json={"players": 2, "seed": 1}, headers=ARABIC_PLEASE)
    assert response.status_code == 200 and "Content-Language" not in response.headers
