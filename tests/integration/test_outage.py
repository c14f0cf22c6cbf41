"""Redis stops: /readyz and everything that needs Redis answer 503 with a clear error,
the stateless endpoints keep working; Redis comes back: the service and the worker
recover by themselves. Uses its own Redis server and worker (it stops that server)."""

from __future__ import annotations

import pytest

from engine import get_game
from service import create_app
from service.redis_conn import EmbeddedRedis, free_port
from tests.integration.conftest import GAME, IntegrationSettings, Worker, assert_error, wait_for

pytestmark = pytest.mark.integration


def test_redis_down_503_then_recovery(tmp_path):
    port = free_port()
    server = EmbeddedRedis(port=port, directory=str(tmp_path))
    url = server.start()
    worker = Worker(url, "majlis-outage", tmp_path / "worker.log", concurrency=1)
    try:
        worker.wait_ready()
        client = create_app(IntegrationSettings(url, "majlis-outage")).test_client()
        wait_for(lambda: client.get("/readyz").status_code == 200, 20)
        game = get_game(GAME)
        state = game.new_state(2, game.parse_options({}, 2), 0, seed=1)
        seat = game.to_act(state)

        server.stop()
        error = assert_error(client.get("/readyz"), 503, "unavailable")
        assert "Redis is unreachable" in error["detail"]
        assert error["checks"]["redis"] == "down"
        error = assert_error(
            client.post("/v1/sessions", json={"game": GAME, "players": 2}), 503, "unavailable"
        )
        assert "Redis" in error["detail"]
        assert_error(client.get("/v1/jobs/" + "0" * 32), 503, "unavailable")
        assert_error(
            client.post(
                f"/v1/games/{GAME}/bot-move", json={"state": game.to_json(state), "seat": seat, "async": True}
            ),
            503,
        )
        # the stateless endpoints do not need Redis
        assert (
            client.post(f"/v1/games/{GAME}/legal-moves", json={"state": game.to_json(state)}).status_code
            == 200
        )
        assert client.get("/healthz").status_code == 200
        text = client.get("/metrics").get_data(as_text=True)
        assert "majlis_redis_up 0.0" in text

        server = EmbeddedRedis(port=port, directory=str(tmp_path))
        server.start()
        wait_for(lambda: client.get("/readyz").status_code == 200, 60, 0.5)
        created = client.post("/v1/sessions", json={"game": GAME, "players": 2})
        assert created.status_code == 201
        job = client.post(
            f"/v1/games/{GAME}/bot-move",
            json={
                "state": game.to_json(state),
                "seat": seat,
                "async": True,
                "budget": {"iterations": 100},
                "seed": 2,
            },
        ).get_json()["job"]

        def finished():
            body = client.get(job["url"]).get_json()
            return body if body["status"] in ("done", "failed") else None

        assert wait_for(finished, 60, 0.2)["status"] == "done"
    finally:
        worker.stop()
        server.stop()
