"""Every game played in a real headless Chromium against the bots, through the page that
the service serves: setup, clicking legal moves until a deal is scored, a refused move
with its rule, a hint, a short match to its end, the replay (and, for Ronda, the review).
A screenshot of each game's table goes to the test's artefacts."""

from __future__ import annotations

import time

import pytest

# Short matches (as in tests/clients): a low target, or the fewest deals the game allows.
SHORT = {
    "ronda": {"players": "2", "options": {"target_score": "5"}},
    "baloot": {"players": "4", "options": {"target_score": "1"}},
    "trex": {"players": "4", "options": {"trex_complex": True}},
    "porrazo": {"players": "2", "options": {"target_score": "15"}},
    "marriage": {"players": "2", "options": {"deals": "1"}},
}
MAX_MOVES = 400
SHOT_AT = 5  # the screenshot (with a hint open) on the first real choice after this many moves
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

# What the table script knows now (its globals `current`, `busy` and `rendering`).
SNAPSHOT = """() => current && {
  version: current.version, finished: current.finished, mine: current.to_act === current.seat,
  legal: current.legal_actions, hand: handOf(current.view, current.seat), deal_no: current.view.deal_no }"""
TOO_WIDE = """() => [...document.querySelectorAll('body *')]
  .filter((e) => e.getBoundingClientRect().right > innerWidth)
  .slice(-5).map((e) => e.outerHTML.slice(0, 120))"""
READY = """() => current && !busy && !rendering &&
  (current.finished || (current.to_act === current.seat && current.legal_actions.length > 0))"""


def start_match(page, base: str, game: str) -> None:
    page.goto(f"{base}/play/{game}")
    setup = SHORT[game]
    page.select_option("#players", setup["players"])
    page.click("#options >> xpath=..")  # open the options
    for name, value in setup["options"].items():
        field = page.locator(f"[data-option={name}]")
        if value is True:
            field.check()
        else:
            field.fill(value) if field.evaluate("e => e.tagName") == "INPUT" else field.select_option(value)
    page.click("#start")
    page.wait_for_url("**/play/table/*")
    page.wait_for_function(READY, timeout=60_000)


def one_card_actions(snapshot) -> dict[str, int]:
    """Hand cards that exactly one legal action plays (a click on them plays it)."""
    counts: dict[str, int] = {}
    for legal in snapshot["legal"]:
        for card in [legal["action"].get("card")] + list(legal["action"].get("cards", [])):
            if card:
                counts[card] = counts.get(card, 0) + 1
    return {card: n for card, n in counts.items() if n == 1 and card in snapshot["hand"]}


def click_and_wait(page, selector: str, version: int) -> None:
    page.click(selector)
    page.wait_for_function(
        f"() => (current.version !== {version} && !busy && !rendering)"
        " || !document.getElementById('refusal').hidden",
        timeout=30_000,
    )


def play_legal(page, snapshot) -> None:
    """One legal move by clicking: a card from the hand when one action plays it, else a button."""
    playable = sorted(one_card_actions(snapshot))
    if playable:
        click_and_wait(page, f"#hand button[data-card='{playable[0]}']", snapshot["version"])
    else:
        click_and_wait(page, "#actions .move >> nth=0", snapshot["version"])


def try_refused(page, snapshot) -> bool:
    """Click a hand card that no legal action plays: the page shows the refusal and its rule.
    True once a refusal named its rule."""
    legal_cards = set()
    for legal in snapshot["legal"]:
        legal_cards.update([legal["action"].get("card")] + list(legal["action"].get("cards", [])))
    unplayable = [card for card in snapshot["hand"] if card not in legal_cards]
    if not unplayable:
        return False
    page.click(f"#hand button[data-card='{unplayable[0]}'] >> nth=0")
    refusal = page.locator("#refusal")
    refusal.wait_for(state="visible", timeout=10_000)
    assert refusal.inner_text().startswith("Refused: ")
    assert page.evaluate("current.version") == snapshot["version"]  # nothing was played
    return bool(refusal.get_attribute("data-rule"))


def open_hint(page, snapshot) -> None:
    page.click("#hint-button")
    page.wait_for_selector("#hint .bars li", timeout=30_000)
    assert page.locator("#hint .bars li").count() == len(snapshot["legal"])
    assert page.locator("#hint .bar").first.get_attribute("style").startswith("width:")


@pytest.mark.parametrize("game", list(SHORT))
def test_play_a_short_match_in_the_browser(browser, server, artefacts, game):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    start_match(page, server, game)

    refused = hinted = scored = shot = False
    screenshot = artefacts / f"table-{game}.png"
    for moves in range(MAX_MOVES):
        page.wait_for_function(READY, timeout=60_000)
        snapshot = page.evaluate(SNAPSHOT)
        if snapshot["finished"]:
            break
        if not scored and snapshot["deal_no"] > 1:
            scored = True  # the first deal is scored: its items are on the page
            assert page.locator("#scores table.scores").count() == 1
        if not refused:
            refused = try_refused(page, snapshot)
        if len(snapshot["legal"]) > 1 and (not hinted or (not shot and moves >= SHOT_AT)):
            open_hint(page, snapshot)
            hinted = True
            if moves >= SHOT_AT:  # a few moves in: the table has cards on it
                page.screenshot(path=str(screenshot), full_page=True)
                shot = True
        play_legal(page, snapshot)
    else:
        pytest.fail(f"{game}: no end after {MAX_MOVES} of my moves")
    if not shot:
        page.screenshot(path=str(screenshot), full_page=True)
    assert refused, "no refused move showed its rule"
    assert hinted
    assert page.locator("#after").is_visible()
    assert page.locator("#scores").inner_text().count("Match over") == 1

    if game == "ronda":  # the review: accuracy per seat, each big mistake opens the replay there
        page.click("#review-button")
        page.wait_for_selector("#review table.review", timeout=180_000)
        assert page.locator("#review table.review tr").count() == 3  # header + 2 seats
        mistakes = page.locator("#review a.mistake")
        if mistakes.count():
            target = mistakes.first.get_attribute("href").split("#")[1]
            mistakes.first.click()
            page.wait_for_selector("#moves li")
            assert page.get_attribute("#replay", "data-position") == target
            page.go_back()
            page.wait_for_function(READY, timeout=30_000)

    page.set_viewport_size(PHONE)  # a phone: nothing wider than the screen
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], page.evaluate(TOO_WIDE)
    page.set_viewport_size(DESKTOP)

    page.click("#replay-link")
    page.wait_for_selector("#moves li")
    positions = int(page.get_attribute("#step", "max"))
    assert positions == page.locator("#moves li").count() > 0
    assert page.get_attribute("#replay", "data-position") == "0"
    page.click("#forward")
    assert page.get_attribute("#replay", "data-position") == "1"
    page.keyboard.press("ArrowRight")
    assert page.get_attribute("#replay", "data-position") == "2"
    page.click("#back")
    assert page.get_attribute("#replay", "data-position") == "1"
    page.click("#last")
    assert page.get_attribute("#replay", "data-position") == str(positions)
    assert "The match is over" in page.inner_text("#where")
    assert errors == []
    context.close()


def test_pages_and_docs_load_nothing_from_another_host(browser, server):
    """Every request of the setup page, the table and /docs goes to the service itself."""
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(f"{server}/play")
    page.goto(f"{server}/docs")
    page.wait_for_selector(".swagger-ui .info", timeout=30_000)
    assert requested and all(url.startswith(server) for url in requested), requested
    context.close()


def test_keyboard_starts_a_match_and_plays(browser, server):
    """The setup and the table work from the keyboard alone: Tab to a control, Enter."""
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(f"{server}/play/ronda")
    page.focus("#start")
    page.keyboard.press("Enter")
    page.wait_for_url("**/play/table/*")
    page.wait_for_function(READY, timeout=60_000)
    version = page.evaluate("current.version")
    page.focus("#actions .move")
    page.keyboard.press("Enter")
    deadline = time.monotonic() + 30
    while page.evaluate("current.version") == version and time.monotonic() < deadline:
        time.sleep(0.1)
    assert page.evaluate("current.version") > version
    context.close()
