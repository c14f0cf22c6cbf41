"""A finished deal's summary writes every score item in the page's language: in Arabic
(and in Nepali for Marriage) no item shows a Latin letter, each is written from its key
(docs/api.md, Score items), in a real Chromium against the real service."""

from __future__ import annotations

import re

import pytest

from tests.browser.test_table import (
    DESKTOP,
    MAX_MOVES,
    READY,
    SNAPSHOT,
    Watched,
    play_legal,
    start_match,
)

LATIN = re.compile(r"[A-Za-z]")
ITEMS = """() => [...document.querySelectorAll('#summary-body table.items td.item')]
  .map((cell) => ({ text: cell.innerText, key: cell.querySelector('[data-key]')?.dataset.key || null }))"""
RUNS = [
    (language, game) for game in ("ronda", "baloot", "trex", "porrazo", "marriage") for language in ("ar",)
]
RUNS.append(("ne", "marriage"))
ACCEPT = {"ar": "ar-SA,ar;q=0.9", "ne": "ne-NP,ne;q=0.9"}


@pytest.mark.parametrize(("language", "game"), RUNS)
def test_a_finished_deals_items_are_in_the_pages_language(browser, server, axe_source, language, game):
    watched = Watched(browser, DESKTOP, ACCEPT[language])
    page = watched.page
    start_match(page, server, game, "keyboard", axe_source)
    assert page.get_attribute("html", "lang") == language
    for _ in range(MAX_MOVES):
        page.wait_for_function(READY, timeout=60_000)
        snapshot = page.evaluate(SNAPSHOT)
        if snapshot["summary"]:
            break
        assert not snapshot["finished"], "the match ended without a deal summary"
        play_legal(page, snapshot, "keyboard")  # focus and Enter: a fanned card never hides another
    else:
        pytest.fail(f"{game}: no deal end after {MAX_MOVES} of my moves")
    items = page.evaluate(ITEMS)
    assert items, "the deal's summary lists no item"
    unkeyed = [item["text"] for item in items if item["key"] is None]
    assert unkeyed == [], f"items not written from a key: {unkeyed}"
    latin = [item["text"] for item in items if LATIN.search(item["text"])]
    assert latin == [], f"{language} items with Latin letters: {latin}"
    page.keyboard.press("Enter")  # the summary's button has the focus
    page.locator("#summary").wait_for(state="hidden")
    watched.close()
