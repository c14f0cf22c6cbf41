"""The stream server's gunicorn settings (deploy/gunicorn.conf.py with
MAJLIS_STREAM_SERVER=1): an async worker, a connection cap above the app's stream cap,
the app imported after gevent's patching, and room for its sockets."""

from __future__ import annotations

import resource
import runpy
from pathlib import Path

CONF = Path(__file__).resolve().parents[2] / "deploy" / "gunicorn.conf.py"


def test_the_stream_server_runs_gevent_with_room_above_its_stream_cap(monkeypatch):
    monkeypatch.setenv("MAJLIS_STREAM_SERVER", "1")
    monkeypatch.setenv("MAJLIS_STREAM_MAX_CONNECTIONS", "300")
    conf = runpy.run_path(str(CONF))
    assert conf["worker_class"] == "gevent"
    assert conf["worker_connections"] == 300 + 1000  # a refusal past the cap is always answered
    assert conf["preload_app"] is False  # the app's locks made after gevent patches threading
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert soft >= min(hard, conf["worker_connections"])


def test_the_api_keeps_its_threads_and_preloads(monkeypatch):
    monkeypatch.delenv("MAJLIS_STREAM_SERVER", raising=False)
    conf = runpy.run_path(str(CONF))
    assert conf["worker_class"] == "gthread" and conf["preload_app"] is True


def test_raising_the_open_files_limit_never_passes_the_hard_limit():
    conf = runpy.run_path(str(CONF))
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    got = conf["raise_open_files_limit"](10**9)
    assert got <= hard or hard == resource.RLIM_INFINITY
