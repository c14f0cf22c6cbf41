"""The table page's weight: files and bytes a browser loads for each page, per language.

    python bench/page_weight.py [--languages en,ar] [--chromium PATH]

Starts the service as ``make run`` does (``python -m service.run``, in a temporary data
directory), opens each page in a fresh headless Chromium context (empty cache) with that
``Accept-Language``: the setup form, a table (Ronda against a bot, seat 1), a spectator's
table, the replay and an unknown session's page. Counted: every answer the page received
that is not the API's data (the document, scripts, style sheet, favicon), as files and
bytes of body (the service sends them uncompressed: no Content-Encoding), then the data
requests (``/v1/...``, ``/play/api/...``, the event stream not counted) separately, until
the page is drawn and 1.5 s after. Bytes are the bodies' lengths as received.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.service_run import running_service  # noqa: E402

DATA = ("/v1/", "/play/api/")
REPLAY_READY = "() => document.getElementById('where').textContent"
HEADING = "page       lang files   bytes     KB   data requests (bytes)   encoding"


def create(base: str, body: dict) -> dict:
    headers = {"Content-Type": "application/json"}
    request = urllib.request.Request(f"{base}/v1/sessions", json.dumps(body).encode(), headers)
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)


def spectator_token(base: str, session: str, token: str) -> str:
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
    request = urllib.request.Request(f"{base}/v1/sessions/{session}/spectators", b"{}", headers)
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)["token"]


def weigh(browser, url: str, language: str, ready: str | None, seat: tuple[str, str] | None) -> dict:
    """One page in a fresh context (empty cache); ``seat``: (session, token) kept in the
    browser's localStorage beforehand, as the setup form or an invitation link leaves it."""
    context = browser.new_context(extra_http_headers={"Accept-Language": language})
    if seat:
        keep = json.dumps({"token": seat[1]})
        context.add_init_script(f"localStorage.setItem('majlis:{seat[0]}', {json.dumps(keep)})")
    page = context.new_page()
    answers: list = []
    page.on("response", lambda answer: answers.append(answer))
    page.goto(url)
    if ready:
        page.wait_for_function(ready, timeout=60_000)
    page.wait_for_timeout(1_500)  # the table's stream stays open: no "network idle"
    got = {"files": 0, "bytes": 0, "data": 0, "data_bytes": 0, "encodings": set()}
    for answer in answers:
        path = urlsplit(answer.url).path
        if path.endswith("/events"):  # the event stream stays open: not a file
            continue
        kind = "data" if path.startswith(DATA) else "files"
        got[kind] += 1
        got["data_bytes" if kind == "data" else "bytes"] += len(answer.body())
        got["encodings"].add(answer.headers.get("content-encoding", "none"))
    context.close()
    return got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--languages", default="en,ar")
    parser.add_argument("--chromium", default=shutil.which("chromium"))
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as data_dir, running_service(Path(data_dir)) as port:
        base = f"http://127.0.0.1:{port}"
        created = create(base, {"game": "ronda", "players": 2, "seats": ["human", "bot"]})
        session, token = created["id"], created["tokens"][0]
        watcher = spectator_token(base, session, token)
        table = "() => current && !rendering"
        pages = {
            "setup": (f"{base}/play/ronda", None, None),
            "table": (f"{base}/play/table/{session}", table, (session, token)),
            "spectator": (f"{base}/play/table/{session}", table, (session, watcher)),
            "replay": (f"{base}/play/replay/{session}", REPLAY_READY, (session, token)),
            "not found": (f"{base}/play/table/{'0' * 32}", None, None),
        }
        with sync_playwright() as playwright:
            launch = {"executable_path": args.chromium, "args": ["--headless", "--no-sandbox"]}
            browser = playwright.chromium.launch(**launch)
            print(HEADING)
            for language in args.languages.split(","):
                for name, (url, ready, seat) in pages.items():
                    got = weigh(browser, url, language, ready, seat)
                    weight = f"{got['files']:>5} {got['bytes']:>7} {got['bytes'] / 1024:>6.1f}"
                    data = f"{got['data']:>2} ({got['data_bytes']:>6})"
                    encodings = ",".join(sorted(got["encodings"]))
                    print(f"{name:<10} {language:<4} {weight}   {data}            {encodings}")
            browser.close()


if __name__ == "__main__":
    main()
