"""A finished deal's summary writes every score item in the page's language: in Arabic
(and in Nepali for Marriage) no item shows a Latin letter, each is written from its key
(docs/api.md, Score items), in a real Chromium against the real service.

A deal may score nothing and so list no item (Baloot's deal thrown in when all pass twice,
R7; a Ronda or Porrazo deal whose cards split evenly with no other point): its summary says
so in the page's language, the sheet confirms it, and the test plays on to the next deal
(the deals are random and the bots' choices too, so which deal first lists items is not
fixed)."""

from __future__ import annotations

import re

import pytest

from tests.browser.test_table import (
    DESKTOP,
    MAX_MOVES,
    Watched,
    play_legal,
    ready_snapshot,
    start_match,
)

LATIN = re.compile(r"[A-Za-z]")
ITEMS = """() => [...document.querySelectorAll('#summary-body table.items td.item')]
  .map((cell) => ({ text: cell.innerText, key: cell.querySelector('[data-key]')?.dataset.key || null }))"""
NO_ITEMS = "() => [...document.querySelectorAll('#summary-body > p')].map((p) => p.innerText)"
# the sheet's line of the deal the open summary is about, as the page's own API helper reads it
SUMMARISED = """async () => {
  const answer = await api('GET', `/play/api/sessions/${SESSION}/sheet`, seat.token);
  return answer.deals.find((deal) => deal.deal_no === Number(TABLE.dataset.summary)) || null;
}"""
RUNS = [
    (language, game) for game in ("ronda", "baloot", "trex", "porrazo", "marriage") for language in ("ar",)
]
RUNS.append(("ne", "marriage"))
ACCEPT = {"ar": "ar-SA,ar;q=0.9", "ne": "ne-NP,ne;q=0.9"}


def check_a_deal_that_scored_nothing(page, language: str) -> None:
    """A summary without items: the sheet says the deal has no item and moved no score,
    and the page says so in its language."""
    deal = page.evaluate(SUMMARISED)
    assert deal is not None and deal["items"] == [] and not any(deal["points"]), deal
    said = page.evaluate(NO_ITEMS)
    assert len(said) == 1 and said[0].strip(), said
    assert not LATIN.search(said[0]), f"{language}: {said[0]}"


@pytest.mark.parametrize(("language", "game"), RUNS)
def test_a_finished_deals_items_are_in_the_pages_language(browser, server, axe_source, language, game):
    watched = Watched(browser, DESKTOP, ACCEPT[language])
    page = watched.page
    start_match(page, server, game, "keyboard", axe_source)
    assert page.get_attribute("html", "lang") == language
    for _ in range(MAX_MOVES):
        snapshot = ready_snapshot(page)
        if snapshot["summary"]:
            if page.evaluate(ITEMS):
                break
            check_a_deal_that_scored_nothing(page, language)
            page.keyboard.press("Enter")  # dismissed: the next deal
            page.locator("#summary").wait_for(state="hidden")
            continue
        assert not snapshot["finished"], "the match ended without a deal summary that lists an item"
        play_legal(page, snapshot, "keyboard")  # focus and Enter: a fanned card never hides another
    else:
        pytest.fail(f"{game}: no deal with items after {MAX_MOVES} of my moves")
    items = page.evaluate(ITEMS)
    assert items, "the deal's summary lists no item"
    unkeyed = [item["text"] for item in items if item["key"] is None]
    assert unkeyed == [], f"items not written from a key: {unkeyed}"
    latin = [item["text"] for item in items if LATIN.search(item["text"])]
    assert latin == [], f"{language} items with Latin letters: {latin}"
    page.keyboard.press("Enter")  # the summary's button has the focus
    page.locator("#summary").wait_for(state="hidden")
    watched.close()
