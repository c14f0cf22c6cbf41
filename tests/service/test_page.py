"""The table page's HTML routes and the API docs' local assets (no Redis needed)."""

from __future__ import annotations

import re

import pytest

from engine import all_games
from service import create_app
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


def test_table_page_says_which_verb_a_hand_card_sends(client):
    html = client.get("/play/table/abc").get_data(as_text=True)
    assert '"marriage": "discard"' in html and '"ronda": "play"' in html


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


def events_url_of(html: str) -> str:
    found = re.search(r'data-events="([^"]*)"', html)
    assert found, html
    return found.group(1)


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
    answer = create_app(settings).test_client().get("/play/table/abc", headers={"Host": host})
    html = answer.get_data(as_text=True)
    assert events_url_of(html) == expected
    assert "/static/page/stream.js" in html
