"""Settings, read once from ``MAJLIS_*`` environment variables (plus ``REDIS_URL``).

Defaults run on one machine with nothing else installed."""

from __future__ import annotations

import os
from typing import Any


def _env(name: str, default: Any, cast: type = str) -> Any:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    if cast is bool:
        return raw.strip().lower() in {"1", "true", "yes", "on"}
    return cast(raw)


class Settings:
    """Production-ish defaults; every value can be overridden from the environment."""

    def __init__(self) -> None:
        # Largest request body accepted (a Marriage state with a long history is ~60 KB).
        self.MAX_CONTENT_LENGTH: int = _env("MAJLIS_MAX_BODY_BYTES", 1_000_000, int)
        # Bot budgets: the most any request may ask for, and what the levels use.
        self.BOT_MAX_ITERATIONS: int = _env("MAJLIS_BOT_MAX_ITERATIONS", 200_000, int)
        self.BOT_MAX_MS: float = _env("MAJLIS_BOT_MAX_MS", 10_000.0, float)
        # Redis: a real deployment sets REDIS_URL; without it an embedded server is started.
        self.REDIS_URL: str | None = _env("REDIS_URL", None)
        self.LOG_LEVEL: str = _env("MAJLIS_LOG_LEVEL", "INFO")

    def as_flask_config(self) -> dict[str, Any]:
        return {k: v for k, v in vars(self).items() if k.isupper()}


class TestSettings(Settings):
    """Settings for the test suite: small caps so a test can never run long."""

    def __init__(self) -> None:
        super().__init__()
        self.TESTING = True
        self.BOT_MAX_ITERATIONS = 5_000
        self.BOT_MAX_MS = 2_000.0
