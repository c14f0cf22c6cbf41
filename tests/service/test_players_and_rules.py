"""The players default and its error on POST /v1/games/{game}/deals, and the rules
reference served at GET /v1/games/{game}/rules (where each game's `rules` field points)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from engine import all_games, get_game
from service.api import games as games_api
from tests.engine.test_players import DEFAULT_PLAYERS
from tests.problems import extensions
from tests.service.conftest import assert_error, post

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("game_id", DEFAULT_PLAYERS)
def test_deal_without_players_seats_the_default_count(client, game_id):
    state = post(client, f"/v1/games/{game_id}/deals", {"seed": 3})["state"]
    assert state["players"] == DEFAULT_PLAYERS[game_id]


@pytest.mark.parametrize("game_id", DEFAULT_PLAYERS)
def test_deal_with_a_wrong_count_names_the_field_and_the_allowed_counts(client, game_id):
    allowed = list(get_game(game_id).player_counts)
    answer = post(client, f"/v1/games/{game_id}/deals", {"players": 7, "seed": 3}, 422)
    assert_error(answer, "invalid_setup")
    assert extensions(answer) == {"field": "players", "allowed": allowed}
    assert ", ".join(map(str, allowed)) in answer["detail"]


def test_each_game_points_at_its_rules_and_the_service_serves_them(client):
    for game in client.get("/v1/games").get_json()["games"]:
        assert game["rules"] == f"/v1/games/{game['id']}/rules"
        assert client.get(f"/v1/games/{game['id']}").get_json()["rules"] == game["rules"]
        response = client.get(game["rules"])
        assert response.status_code == 200
        assert response.mimetype == "text/markdown"
        text = response.get_data(as_text=True)
        assert text.startswith("# ") and "R1" in text


def test_rules_of_an_unknown_game_is_404_json(client):
    response = client.get("/v1/games/chess/rules")
    assert response.status_code == 404
    assert_error(response.get_json(), "unknown_game")


def test_the_served_rules_are_the_repository_reference(client):
    for game in all_games():
        served = client.get(f"/v1/games/{game.id}/rules").get_data(as_text=True)
        assert served == (ROOT / "docs" / "rules" / f"{game.id}.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("game_id", DEFAULT_PLAYERS)
def test_the_rules_say_how_the_service_names_every_action_type(game_id):
    text = (ROOT / "docs" / "rules" / f"{game_id}.md").read_text(encoding="utf-8")
    note = text.split("## How this service names things\n", 1)[1].split("\n## ", 1)[0]
    for verb in get_game(game_id).verbs:
        assert f'{{"type": "{verb}"' in note, verb


def test_an_install_without_the_checkout_serves_the_installed_copy(client, monkeypatch, tmp_path):
    (tmp_path / "ronda.md").write_text("# Ronda, installed copy\n", encoding="utf-8")
    monkeypatch.setattr(games_api, "RULES_DIRS", (tmp_path / "no-checkout", tmp_path))
    assert client.get("/v1/games/ronda/rules").get_data(as_text=True) == "# Ronda, installed copy\n"
    response = client.get("/v1/games/trex/rules")
    assert response.status_code == 404
    assert_error(response.get_json(), "rules_not_installed")


def test_the_package_installs_the_rules_and_the_image_has_them():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    (pattern,) = pyproject["tool"]["setuptools"]["data-files"]["share/majlis/rules"]
    assert sorted(p.stem for p in ROOT.glob(pattern)) == sorted(DEFAULT_PLAYERS)
    assert Path(games_api.RULES_DIRS[1]).parts[-3:] == ("share", "majlis", "rules")
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert dockerfile.index("COPY docs/rules ./docs/rules") < dockerfile.index("pip install")
