"""The table page's HTML routes and the API docs' local assets (no Redis needed)."""

from __future__ import annotations

import json
import re

import pytest

from engine import all_games
from service import create_app, i18n
from service.page import events_url
from service.settings import TestSettings as SettingsForTests
from tests.problems import error_code


def test_setup_page_offers_every_game(client):
    answer = client.get("/play")
    assert answer.status_code == 200 and answer.mimetype == "text/html"
    html = answer.get_data(as_text=True)
    for game in all_games():
        assert f'<option value="{game.id}"' in html


def test_setup_page_of_one_game_has_it_chosen(client):
    html = client.get("/play/trex").get_data(as_text=True)
    assert '<option value="trex" selected>' in html


def test_unknown_game_page_is_a_json_404(client):
    answer = client.get("/play/chess")
    assert answer.status_code == 404
    assert error_code(answer) == "not_found"


@pytest.mark.parametrize("path", ["/play/table/abc", "/play/replay/abc", "/play/table/" + "0" * 33])
def test_a_session_id_the_service_never_issues_is_a_404_page(client, path):
    """A program gets 404; a browser's page load (Sec-Fetch-Mode: navigate) gets the same
    page with 200, so that Chromium logs nothing (service.page.not_found_page says why)."""
    program = client.get(path)
    browser = client.get(path, headers={"Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"})
    fetched = client.get(path, headers={"Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty"})
    assert (program.status_code, browser.status_code, fetched.status_code) == (404, 200, 404)
    for answer in (program, browser):
        assert answer.mimetype == "text/html"
        html = answer.get_data(as_text=True)
        assert 'id="missing"' in html and "<title>No such match" in html and "No such match</h1>" in html
        assert "table.js" not in html and "replay.js" not in html  # nothing left to poll
        assert answer.headers["X-Robots-Tag"] == "noindex" and answer.headers["Cache-Control"] == "no-store"
        assert "Sec-Fetch-Mode" in answer.headers["Vary"]
    assert program.data == browser.data


@pytest.mark.parametrize(
    "header, lang, word",
    [
        ("ar-SA,ar;q=0.9", "ar", "ابدأ مباراة"),
        ("es-MX", "es", "Empezar una partida"),
        ("ne", "ne", "खेल सुरु"),
        ("fr", "en", "Start a match"),
    ],
)
def test_the_setup_page_speaks_the_accept_language(client, header, lang, word):
    answer = client.get("/play", headers={"Accept-Language": header})
    html = answer.get_data(as_text=True)
    assert f'<html lang="{lang}" dir="{"rtl" if lang == "ar" else "ltr"}">' in html
    assert word in html and answer.headers["Content-Language"] == lang


def test_the_language_picker_cookie_and_query_win_over_accept_language(client):
    client.set_cookie("majlis-lang", "es")
    assert '<html lang="es"' in client.get("/play", headers={"Accept-Language": "ar"}).get_data(as_text=True)
    assert '<html lang="ne"' in client.get("/play?lang=ne").get_data(as_text=True)
    assert '<html lang="es"' in client.get("/play?lang=xx").get_data(as_text=True)  # unknown: ignored


def test_every_page_catalogue_has_the_english_page_words():
    english = i18n.page_catalogue("en")
    for language in i18n.LANGUAGES:
        catalogue = i18n.page_catalogue(language)
        missing = [
            key for (context, key) in english if context == "page" and not catalogue.get(("page", key))
        ]
        assert missing == [], (language, missing)
        for (context, key), text in catalogue.items():  # the same {names} as the English word
            assert set(re.findall(r"\{(\w+)\}", text)) == set(
                re.findall(r"\{(\w+)\}", english[(context, key)])
            ), key


@pytest.mark.parametrize(
    "language, game, key, word",
    [
        ("ar", "baloot", "pass_1", "بس"),
        ("ar", "baloot", "pass_2", "ولا"),
        ("ar", "baloot", "double", "دبل"),
        ("ar", "baloot", "triple", "ثري"),
        ("ar", "baloot", "four", "فور"),
        ("ar", "trex", "king_of_hearts", "شيخ الكبة"),
        ("ar", "trex", "suit_H", "كبة"),
        ("es", "porrazo", "tendido", "dar el tendido"),
        ("es", "ronda", "pass", "paso"),
        ("ne", "marriage", "tunnela", "टनेला"),
        ("es", "baloot", "hokm", "Hokm"),  # no Spanish Baloot word: English
    ],
)
def test_the_table_words_are_the_players_own(language, game, key, word):
    assert i18n.page_words(language)[game][key] == word


def test_the_arabic_labels_use_the_table_words():
    words = i18n.label_words("ar")
    assert words.verbs["pass"] == "بس"
    assert (words.verbs["double"], words.verbs["triple"], words.verbs["four"]) == ("دبل", "ثري", "فور")


def test_the_favicon_is_served(client):
    answer = client.get("/static/page/favicon.svg")
    assert answer.status_code == 200 and b"<svg" in answer.data


@pytest.mark.parametrize("path", ["/play", "/play/table/abc", "/play/replay/abc", "/docs"])
def test_pages_load_nothing_from_another_host(client, path):
    html = client.get(path).get_data(as_text=True)
    assert not re.search(r'(src|href)="(https?:)?//', html), html
    for asset in re.findall(r'(?:src|href)="(/static/[^"]+)"', html):
        assert client.get(asset).status_code == 200, asset


def test_docs_use_the_vendored_swagger_ui_and_its_licence(client):
    assert "/static/swagger-ui/swagger-ui-bundle.js" in client.get("/docs").get_data(as_text=True)
    assert "Apache License" in client.get("/static/swagger-ui/LICENSE").get_data(as_text=True)


@pytest.mark.parametrize("route", ["score", "positions"])
def test_page_json_routes_need_a_token(client, route):
    answer = client.get(f"/play/api/sessions/abc/{route}")
    assert answer.status_code == 401
    assert error_code(answer) == "unauthorized"


@pytest.mark.parametrize(
    "stream_url, host, expected",
    [
        # no stream server: this origin serves the stream (or a proxy in front routes it)
        (None, "localhost", "/v1/sessions/abc/events"),
        ("http://127.0.0.1:8001", "localhost:8000", "http://127.0.0.1:8001/v1/sessions/abc/events"),
        ("https://streams.example/", "play.example", "https://streams.example/v1/sessions/abc/events"),
        # listening on every interface: the host this page was reached by, the stream's port
        ("http://0.0.0.0:8001", "192.168.1.5:8000", "http://192.168.1.5:8001/v1/sessions/abc/events"),
        ("http://[::]:8001", "[::1]:8000", "http://[::1]:8001/v1/sessions/abc/events"),
    ],
)
def test_table_page_names_the_event_stream_it_follows(stream_url, host, expected):
    """The table reads the stream where it is served: the API's 307 to the stream server
    would drop the seat token (a browser drops Authorization on a cross-origin redirect)."""
    settings = SettingsForTests()
    settings.STREAM_URL = stream_url
    with create_app(settings).test_request_context("/play/table/abc", headers={"Host": host}):
        assert events_url("abc") == expected


def script_block(html: str, block: str) -> str:
    return re.search(rf'<script type="application/json" id="{block}">(.*?)</script>', html, re.S).group(1)


@pytest.mark.parametrize("path", ["/play/ronda", "/play/table/abc"])
def test_the_pages_words_are_written_as_letters_not_escapes(client, path):
    """The words' JSON keeps Arabic letters as UTF-8 (2 bytes each, not the 6 of \\u0627)
    and reads back as the catalogue's words."""
    html = client.get(path, headers={"Accept-Language": "ar"}).get_data(as_text=True)
    words = script_block(html, "words")
    assert "\\u06" not in words and "ابدأ" in words
    assert json.loads(words)["page"] == i18n.page_words("ar")["page"]


def test_script_json_cannot_end_its_script_block():
    from service.page import script_json

    text = str(script_json({"word": "</script><b>'&'</b>", "ar": "بس"}))
    assert "<" not in text and ">" not in text and "&" not in text and "'" not in text
    assert json.loads(text) == {"word": "</script><b>'&'</b>", "ar": "بس"}


def test_the_setup_form_offers_hard_only_where_it_beat_normal(client):
    # issue 32: a level that does not beat the one below it is not offered as a higher level
    levels = json.loads(script_block(client.get("/play").get_data(as_text=True), "levels"))
    for game in ("baloot", "porrazo"):
        assert levels[game] == ["easy", "normal", "hard"], game
    for game in ("ronda", "trex", "marriage"):
        assert levels[game] == ["easy", "normal"], game
