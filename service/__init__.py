"""The Majlis HTTP service: ``create_app(settings=None)``."""

from __future__ import annotations

from flask import Flask
from flask_smorest import Api  # type: ignore[import-untyped]  # flask-smorest ships no type information

from service import errors, i18n, page
from service.settings import Settings

API_TITLE = "Majlis rules and bots"
API_VERSION = "v1"

BLUEPRINT_MODULES = ("games", "play", "bots", "hints", "jobs", "sessions", "review")


class MajlisApi(Api):
    """flask-smorest's Api with our one error shape (problem details) for every HTTP error."""

    from service.api.schemas import ProblemSchema as ERROR_SCHEMA

    def handle_http_exception(self, error):  # type: ignore[override]
        return errors.handle_http_exception(error)


def create_app(settings: Settings | None = None) -> Flask:
    """Build the app. ``settings`` defaults to :class:`Settings` read from the environment."""
    import importlib

    settings = settings or Settings()
    app = Flask(__name__)
    app.config.update(settings.as_config())
    app.config.update(
        API_TITLE=API_TITLE,
        API_VERSION=API_VERSION,
        OPENAPI_VERSION="3.1.0",  # JSON Schema 2020-12: the engine's schemas as they are
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="/docs",
        # swagger-ui-dist's files are served from service/static (offline, behind a firewall)
        OPENAPI_SWAGGER_UI_URL="/static/swagger-ui/",
        JSON_SORT_KEYS=False,
    )
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.json.compact = True  # type: ignore[attr-defined]

    from service.api import openapi

    security = openapi.SecurityPlugin(api_keys=bool(app.config.get("API_KEYS")))
    spec_kwargs = {
        "info": {"description": _DESCRIPTION},
        "marshmallow_plugin": openapi.GameDocumentsPlugin(),
        "extra_plugins": [security],
    }
    api = MajlisApi(app, spec_kwargs=spec_kwargs)
    openapi.document(api)
    for name in BLUEPRINT_MODULES:
        api.register_blueprint(importlib.import_module(f"service.api.{name}").blp)
    errors.init_app(app)
    i18n.init_app(app)
    _init_extensions(app)
    page.init_app(app)

    @app.get("/healthz")
    def healthz():
        """The process is up."""
        return {"status": "ok"}

    return app


def _init_extensions(app: Flask) -> None:
    """The runtime (Redis, Celery), JSON logs with request ids, metrics, CORS, API keys and the ops endpoints.
    Nothing here connects to Redis: the stateless endpoints work without it."""
    from service import cors, ops, ratelimit
    from service.celery_app import make_celery
    from service.runtime import RUNTIME_EXTENSION
    from service.tasks import runtime_of_app

    celery = make_celery(app.config)
    app.extensions["celery"] = celery
    # the domain's settings, Redis and Celery: the blueprints hand it to the domain
    app.extensions[RUNTIME_EXTENSION] = runtime_of_app(celery)
    ops.init_app(app)
    cors.init_app(app)  # before the API-key check: a preflight carries no key
    ratelimit.init_app(app)


_DESCRIPTION = (
    "Rules and bots for Ronda, Baloot, Trex, Porrazo and Nepali Marriage. "
    "Every error is RFC 9457 problem details (`application/problem+json`: `type`, `title`, "
    "`status`, `detail`, `instance`, `code` and the error's details as further members; the "
    'deprecated `MAJLIS_ERROR_FORMAT=legacy` answers `{"error": {"code", "message", "details"}}`). '
    "Request bodies are JSON "
    "(`Content-Type: application/json`, or none): another type is refused with 415, a body "
    "that does not parse (or is nested too deep) with 400 `invalid_json`."
)
