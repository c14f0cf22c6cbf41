"""Every game's table in a real headless Chromium against the real service: a whole deal
played against the bots in English and Arabic, at 1280 px and on a 390x844 phone, by
clicking and with the keyboard alone (Tab, Shift+Tab, the arrow keys along the hand, Enter,
Escape: never a focus set by the test), each page checked by axe-core (no serious or
critical violation), with no console message of any kind on any page (table, spectator,
invitation, review, replay, not-found). The deal's end shows its itemised score until
dismissed, and the bots wait for it. A screenshot of each game's table goes to the
artefacts (MAJLIS_BROWSER_ARTEFACTS=docs/img writes the README's)."""

from __future__ import annotations

import json
import random
import re
import urllib.request
import uuid

import pytest

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
ACCEPT = {"en": "en-GB,en;q=0.9", "ar": "ar-SA,ar;q=0.9"}
# each language at each size, by clicking and with the keyboard; the screenshots: English
# on a desktop, Arabic (right to left) on a phone
RUNS = {
    "en-desktop": ("en", DESKTOP, "click"),
    "ar-phone": ("ar", PHONE, "click"),
    "en-phone": ("en", PHONE, "keyboard"),
    "ar-desktop": ("ar", DESKTOP, "keyboard"),
}
SCREENSHOTS = ("en-desktop", "ar-phone")
SETUP = {
    "ronda": {"players": "2", "options": {}},
    "baloot": {"players": "4", "options": {}},
    "trex": {"players": "4", "options": {}},
    "porrazo": {"players": "2", "options": {}},
    "marriage": {"players": "2", "options": {"deals": "1"}},
}
MAX_MOVES = 400
SHOT_AT = 4  # the screenshot, a few of my moves into the deal

# What the table script knows now (its globals).
SNAPSHOT = """() => current && {
  version: current.version, finished: current.finished, mine: current.to_act === current.seat,
  to_act: current.to_act, seats: current.seats, phase: current.view.phase,
  legal: current.legal_actions, hand: handOf(current.view, current.seat), deal_no: current.view.deal_no,
  summary: summaryOpen }"""
READY = """() => current && !busy && !rendering && (summaryOpen || current.finished ||
  (current.to_act === current.seat && current.legal_actions.length > 0))"""
TOO_WIDE = """() => [...document.querySelectorAll('body *')]
  .filter((e) => e.getBoundingClientRect().right > innerWidth + 1)
  .slice(-5).map((e) => e.outerHTML.slice(0, 120))"""
AXE_RUN = """async () => (await axe.run(document, { resultTypes: ['violations'] })).violations
  .filter((v) => v.impact === 'serious' || v.impact === 'critical')
  .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }))"""


class Watched:
    """A page with every console message and script error it produced."""

    def __init__(self, browser, viewport, language: str | None = None) -> None:
        headers = {"Accept-Language": language} if language else {}
        self.context = browser.new_context(viewport=viewport, extra_http_headers=headers)
        self.page = self.context.new_page()
        self.messages: list[str] = []
        self.urls: list[str] = []
        self.page.on("console", lambda message: self.messages.append(f"{message.type}: {message.text}"))
        self.page.on("pageerror", lambda error: self.messages.append(f"error: {error}"))
        self.page.on("request", lambda request: self.urls.append(request.url))

    def close(self) -> None:
        assert self.messages == []
        self.context.close()


def check_axe(page, axe_source: str) -> None:
    """axe-core finds no serious or critical violation on the page as it is now."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(content=axe_source)
    assert page.evaluate(AXE_RUN) == []


def press(page, selector: str, how: str) -> int:
    """Activate a control: a click, or with the keyboard alone (Tab or Shift+Tab to it,
    the arrow keys along the hand, then Enter). A hand card is clicked where it shows in
    the fan: its start side (the next card covers the rest). How many Tab presses it took."""
    if how == "click" and selector.startswith("#hand"):
        box = page.locator(selector).first.bounding_box()
        right_to_left = page.get_attribute("html", "dir") == "rtl"
        page.locator(selector).first.click(
            position={"x": box["width"] - 6 if right_to_left else 6, "y": box["height"] / 2}
        )
        return 0
    if how == "click":
        page.click(selector)
        return 0
    selector = selector.removesuffix(" >> nth=0")  # the first match: querySelector's
    if selector.startswith("#hand"):
        tabs = tab_to(page, HAND)
        arrow_to_card(page, selector)
    else:
        tabs = tab_to(page, selector)
    page.keyboard.press("Enter")
    return tabs


TAB_MOST = 60  # more stops than any page has: a control not reached by then is unreachable
HAND = "#hand .card[tabindex='0']"  # the hand's one Tab stop
FOCUSED = "(target) => document.activeElement === target"
# where the focus is: on the control (for the hand: anywhere in it), or after or before it
# in the page's order (Shift+Tab or Tab goes to it); the control is found again at each
# press, since a render (a bot's move) may replace it meanwhile
WHERE = """(selector) => {
  const target = document.querySelector(selector);
  const focused = document.activeElement;
  if (!target) return 'none';
  if (focused === target || (selector.startsWith('#hand') && focused.closest('#hand'))) return 'here';
  return target.compareDocumentPosition(focused) & Node.DOCUMENT_POSITION_FOLLOWING ? 'after' : 'before';
}"""
ACTIVE = """() => { const e = document.activeElement;
  return e === document.body ? 'body' : e.id ? '#' + e.id : e.closest('#hand') ? 'hand'
    : e.closest('#actions') ? 'move' : e.closest('#hint') ? 'hint' : e.tagName.toLowerCase(); }"""


def tab_to(page, selector: str) -> int:
    """Tab (Shift+Tab when the control comes before the focus) until the control has
    the focus; how many presses it took. A control not on the page (a render replacing
    it) is waited for first: pressing Tab with nothing to reach would only wander."""
    if page.evaluate(WHERE, selector) == "none":
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        try:
            page.wait_for_selector(selector, state="attached", timeout=10_000)
        except PlaywrightTimeout:
            raise AssertionError(f"no {selector} on the page: {page.evaluate(PAGE_STATE)}") from None
    key = "Shift+Tab" if page.evaluate(WHERE, selector) == "after" else "Tab"
    passed = []  # where each press left the focus, and where the control was from it
    for presses in range(TAB_MOST):
        where = page.evaluate(WHERE, selector)
        if where == "here":
            return presses
        passed.append((page.evaluate(ACTIVE), where))
        page.keyboard.press(key)
    raise AssertionError(f"{key} never reached {selector}: {passed}; {page.evaluate(PAGE_STATE)}")


# what a failed keyboard step reports of the page, to tell a page's fault from a test's
PAGE_STATE = """() => ({version: current && current.version, to_act: current && current.to_act,
  seat: current && current.seat, legal: current && current.legal_actions.map((a) => a.action),
  actions: document.getElementById('actions').innerHTML.slice(0, 800), busy, rendering, summaryOpen,
  open: [...document.querySelectorAll('dialog[open]')].map((d) => d.id),
  refusal: ((r) => (r.hidden ? null : r.textContent))(document.getElementById('refusal'))})"""


ARROW_TO = """([selector, onward, back]) => {
  const cards = [...document.querySelectorAll('#hand .card')];
  const at = cards.indexOf(document.activeElement), wanted = cards.indexOf(document.querySelector(selector));
  return at < 0 || wanted < 0 ? null : at === wanted ? '' : wanted > at ? onward : back;
}"""


def arrow_to_card(page, selector: str) -> None:
    """Along the hand (one Tab stop) with the arrow keys: the right arrow goes on in
    English, the left one in Arabic (the fan runs right to left)."""
    right_to_left = page.get_attribute("html", "dir") == "rtl"
    keys = ["ArrowLeft", "ArrowRight"] if right_to_left else ["ArrowRight", "ArrowLeft"]
    for _ in range(TAB_MOST):
        key = page.evaluate(ARROW_TO, [selector, *keys])
        assert key is not None, (selector, page.evaluate(ACTIVE))
        if key == "":
            return
        page.keyboard.press(key)
    raise AssertionError(f"the arrow keys never reached {selector}")


HEADER_STOPS = 4  # the page's header: three links and the language picker


def tab_stops_before(page) -> int:
    """The most Tab presses the next move may take: the hand, the move buttons and the
    hint (plus the header's stops when the focus is at the top of the page, a page
    just loaded)."""
    stops = page.locator("#actions .move").count() + 2
    return stops + (HEADER_STOPS if page.evaluate(ACTIVE) == "body" else 0)


def check_tab_order(page) -> None:
    """From the hand, Tab goes to the moves no card stands for, then the hint; Shift+Tab
    comes back the same way; the arrow keys stay in the hand."""
    from_the_top = page.evaluate(ACTIVE) == "body"
    reached = tab_to(page, HAND)
    if from_the_top:  # the header's three links and language picker, then the hand
        assert reached == HEADER_STOPS + 1, reached
    moves = page.locator("#actions .move").count()
    order = ["hand"]
    for _ in range(moves + 1):
        page.keyboard.press("Tab")
        order.append(page.evaluate(ACTIVE))
    assert order == ["hand"] + ["move"] * moves + ["#hint-button"], order
    for _ in range(moves + 1):
        page.keyboard.press("Shift+Tab")
    assert page.evaluate(ACTIVE) == "hand"
    if page.locator("#hand .card").count() > 1:
        page.keyboard.press("End")
        page.keyboard.press("Home")
        assert page.evaluate(ACTIVE) == "hand"


def start_match(page, base: str, game: str, how: str, axe_source: str, seats: dict[int, str] | None = None):
    """The setup form: players, seats, options; the invitations; then my seat's table."""
    page.goto(f"{base}/play/{game}")
    check_axe(page, axe_source)
    setup = SETUP[game]
    page.select_option("#players", setup["players"])
    for seat, kind in (seats or {}).items():
        page.select_option(f"[data-seat='{seat}']", kind)
    if setup["options"]:
        page.click("#options >> xpath=..")
    for name, value in setup["options"].items():
        field = page.locator(f"[data-option={name}]")
        field.fill(value) if field.evaluate("e => e.tagName") == "INPUT" else field.select_option(value)
    press(page, "#start", how)
    page.wait_for_selector("#invitations:not([hidden])")
    check_axe(page, axe_source)
    links = {
        link.get_attribute("data-link"): link.input_value() for link in page.locator("#links input").all()
    }
    press(page, "#my-seat", how)
    page.wait_for_url("**/play/table/*")
    page.wait_for_function("() => current && !rendering", timeout=60_000)
    return links


def ready_snapshot(page) -> dict:
    """SNAPSHOT of the page at a moment it is READY, read in the same step (a render that
    started between a wait and a second read would hand the test a state it cannot act on)."""
    return page.wait_for_function(f"() => ({READY})() && ({SNAPSHOT})()", timeout=60_000).json_value()


def one_card_actions(snapshot) -> list[str]:
    """Hand cards that exactly one legal action plays (a click on them plays it)."""
    counts: dict[str, int] = {}
    for legal in snapshot["legal"]:
        for card in [legal["action"].get("card")] + list(legal["action"].get("cards", [])):
            if card:
                counts[card] = counts.get(card, 0) + 1
    return sorted(card for card, n in counts.items() if n == 1 and card in snapshot["hand"])


def wait_moved(page, version: int) -> None:
    page.wait_for_function(
        f"() => (current.version !== {version} && !busy && !rendering)"
        " || !document.getElementById('refusal').hidden",
        timeout=30_000,
    )


def play_legal(page, snapshot, how: str = "click") -> int:
    """One legal move: a hand card when one action plays it, else the first move button
    (never a challenge: that ends a Ronda match when the declaration is true). How many
    Tab presses it took (with the keyboard)."""
    playable = one_card_actions(snapshot)
    if playable:
        tabs = press(page, f"#hand button[data-card='{playable[0]}']", how)
    else:
        tabs = press(page, "#actions .move:not([data-type=challenge]) >> nth=0", how)
    wait_moved(page, snapshot["version"])
    return tabs


def try_unplayable(page, snapshot, language: str) -> bool:
    """Click a hand card that no legal action plays: the page says so and sends nothing."""
    legal_cards = set()
    for legal in snapshot["legal"]:
        legal_cards.update([legal["action"].get("card")] + list(legal["action"].get("cards", [])))
    unplayable = [card for card in snapshot["hand"] if card not in legal_cards]
    if not unplayable:
        return False
    press(page, f"#hand button[data-card='{unplayable[0]}']", "click")
    refusal = page.locator("#refusal")
    refusal.wait_for(state="visible", timeout=10_000)
    if language == "en":
        assert refusal.inner_text().startswith("That card cannot be played now")
    assert page.evaluate("current.version") == snapshot["version"]  # nothing was played
    return True


def open_hint(page, snapshot) -> None:
    page.click("#hint-button")
    page.wait_for_selector("#hint .bars li", timeout=30_000)
    assert page.locator("#hint .bars li").count() == len(snapshot["legal"])


def cancel_a_challenge(page, snapshot, how: str) -> None:
    """Ronda's challenge asks first, saying what R13 does; cancelling plays nothing. The
    dialog keeps the keyboard (Tab and Shift+Tab go round its two buttons) and gives the
    focus back to the challenge when it closes."""
    challenge = page.locator("#actions .move[data-type=challenge]").first.element_handle()  # not redrawn
    press(page, "#actions .move[data-type=challenge] >> nth=0", how)
    dialog = page.locator("#confirm")
    dialog.wait_for(state="visible")
    assert "R13" in page.inner_text("#confirm-body")
    assert page.evaluate(ACTIVE) == "#confirm-no"  # the safe choice has the focus
    if how == "keyboard":
        went = []
        for key in ("Tab", "Tab", "Shift+Tab", "Shift+Tab", "Shift+Tab"):
            page.keyboard.press(key)
            went.append(page.evaluate(ACTIVE))
        assert went == ["#confirm-yes", "#confirm-no", "#confirm-yes", "#confirm-no", "#confirm-yes"]
        page.keyboard.press("Shift+Tab")
    page.keyboard.press("Escape")
    dialog.wait_for(state="hidden")
    assert page.evaluate(FOCUSED, challenge)
    assert page.evaluate("current.version") == snapshot["version"]


def play_a_hint(page, snapshot) -> int:
    """The hint with the keyboard: Tab to its button, Enter; its first move is the next
    Tab stop, and Enter plays it."""
    tabs = tab_to(page, "#hint-button")
    page.keyboard.press("Enter")
    page.wait_for_selector("#hint .bars li", timeout=30_000)
    assert page.locator("#hint .bars li").count() == len(snapshot["legal"])
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement === document.querySelector('#hint .bars button')")
    page.keyboard.press("Enter")
    wait_moved(page, snapshot["version"])
    return tabs + 1


def inside_the_screen(page, selector: str) -> bool:
    box = page.locator(selector).first.bounding_box()
    if box is None or box["width"] == 0:
        return False
    return box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]


def check_phone_layout(page) -> None:
    """The hand, the trick (or Trex's layout) and the scores, all without scrolling."""
    page.evaluate("window.scrollTo(0, 0)")
    middle = "#middle .layout" if page.locator("#middle .layout").count() else "#middle .trick"
    for selector in ("#hand", middle, "#scores table"):
        assert inside_the_screen(page, selector), (selector, page.locator(selector).first.bounding_box())
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], page.evaluate(TOO_WIDE)


def finish_the_deal(page, snapshot, axe_source: str, how: str) -> None:
    """The deal's summary: its items and totals stay until dismissed; the bots wait for
    it (a bot to act does not play meanwhile), and go on once it is dismissed."""
    summary = page.locator("#summary")
    assert summary.is_visible()
    assert page.locator("#summary-body table.scores tr").count() >= 3  # header and one row per side
    check_axe(page, axe_source)
    bot_to_act = not snapshot["finished"] and snapshot["seats"][snapshot["to_act"]]["type"] == "bot"
    if bot_to_act:
        page.wait_for_timeout(1_500)
        assert page.evaluate("current.version") == snapshot["version"]  # the bot waits
    assert page.evaluate(ACTIVE) == "#summary-close"
    if how == "click":
        page.click("#summary-close")
    else:
        for key in ("Tab", "Shift+Tab"):  # its one control keeps the focus
            page.keyboard.press(key)
            assert page.evaluate(ACTIVE) == "#summary-close"
        page.keyboard.press("Enter")
    summary.wait_for(state="hidden")
    if how == "keyboard" and not snapshot["finished"]:
        assert page.evaluate(ACTIVE) in ("hand", "move")  # back to the play
    if bot_to_act:
        page.wait_for_function(f"() => current.version > {snapshot['version']}", timeout=30_000)


@pytest.mark.parametrize("run", list(RUNS))
@pytest.mark.parametrize("game", list(SETUP))
def test_a_whole_deal_at_the_table(browser, server, artefacts, axe_source, game, run):
    language, size, how = RUNS[run]
    watched = Watched(browser, size, ACCEPT[language])
    page = watched.page
    start_match(page, server, game, how, axe_source)
    assert page.get_attribute("html", "lang") == language
    assert page.get_attribute("html", "dir") == ("rtl" if language == "ar" else "ltr")
    assert page.inner_text("#title").endswith("1")  # the heading says which deal: the first
    check_axe(page, axe_source)

    refused = hinted = shot = laid_out = challenged = ordered = False
    seen: list[tuple[str, int]] = []  # (phase, number of legal moves) at each of my turns
    tabs: list[tuple[int, int]] = []  # Tab presses per move, and the most it may take (keyboard)
    for moves in range(MAX_MOVES):
        snapshot = ready_snapshot(page)
        seen.append((snapshot["phase"], len(snapshot["legal"] or [])))
        if snapshot["summary"]:
            finish_the_deal(page, snapshot, axe_source, how)
            break
        assert not snapshot["finished"], "the match ended without a deal summary"
        playing = snapshot["phase"] in ("play", "tricks", "layout")
        if size == PHONE and game in ("baloot", "trex") and not laid_out and playing:
            check_phone_layout(page)
            laid_out = True
        if how == "click" and not refused:
            refused = try_unplayable(page, snapshot, language)
        if how == "click" and not hinted and len(snapshot["legal"]) > 1:
            open_hint(page, snapshot)
            hinted = True
        if page.locator("#actions .move[data-type=challenge]").count() and not challenged:
            cancel_a_challenge(page, snapshot, how)
            challenged = True
        if how == "keyboard" and not ordered and snapshot["hand"]:
            check_tab_order(page)
            ordered = True
        if not shot and moves >= SHOT_AT:
            if run in SCREENSHOTS:
                page.screenshot(path=str(artefacts / f"table-{game}-{language}.png"))
            check_axe(page, axe_source)
            shot = True
        no_challenge = all(legal["action"]["type"] != "challenge" for legal in snapshot["legal"])
        if how == "keyboard" and not hinted and len(snapshot["legal"]) > 1 and no_challenge:
            most = tab_stops_before(page)
            tabs.append((play_a_hint(page, snapshot), most))
            hinted = True
            continue
        most = tab_stops_before(page)
        tabs.append((play_legal(page, snapshot, how), most))
    else:
        pytest.fail(f"{game}: no deal end after {MAX_MOVES} of my moves")
    if how == "keyboard":
        # after each move the focus stays with the play (a render replaces the hand and
        # the moves): the next card or move, or the hint after the moves, is at most the
        # move buttons and two stops away, never back through the page's header
        assert tabs and all(presses <= most for presses, most in tabs), tabs
    if how == "click":
        assert refused, "no unplayable card was tried"
    # a hint is asked at my first turn with a choice; a deal that ended before I had one
    # (a bot going out early) leaves nothing to hint: the turns say which it was
    assert hinted or all(legal <= 1 for _phase, legal in seen), seen
    if size == PHONE and game in ("baloot", "trex"):
        # checked at my first turn of card play; a Baloot deal thrown in when all pass
        # twice (R7) ends in the bidding, before any: the turns say which it was
        assert laid_out or all(phase not in ("play", "tricks", "layout") for phase, _legal in seen), seen

    # the score sheet lists the finished deal; both sizes pass the accessibility check
    page.click("#sheet-box summary")
    page.wait_for_selector("#sheet table.sheet")
    assert page.locator("#sheet table.sheet tr").count() >= 2
    for viewport in (DESKTOP, PHONE):
        page.set_viewport_size(viewport)
        page.wait_for_function("() => !rendering && !summaryOpen", timeout=30_000)
        check_axe(page, axe_source)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], page.evaluate(TOO_WIDE)
    page.click("#view >> xpath=..")  # the raw state, behind its toggle
    assert page.locator("#view dt").count() > 5
    if how == "click" and game == "marriage":  # a one-deal match: over
        assert page.evaluate("current.finished")
        check_the_review_and_the_replay(page, len(snapshot["seats"]), axe_source)
    watched.close()  # no console message on the table, the review or the replay


def check_the_review_and_the_replay(page, players: int, axe_source: str) -> None:
    """A finished match: the review's accuracy per seat, then the replay from its link."""
    page.click("#review-button")
    page.wait_for_selector("#review table.review", timeout=180_000)
    assert page.locator("#review table.review tr").count() == 1 + players
    check_axe(page, axe_source)
    page.click("#replay-link")
    page.wait_for_url("**/play/replay/*")
    page.wait_for_selector("#moves li")
    page.click("#last")
    assert page.get_attribute("#replay", "data-position") == page.get_attribute("#step", "max")
    check_axe(page, axe_source)


def new_session(base: str, body: dict) -> dict:
    """POST /v1/sessions, as an app creates a match: the answer (id, tokens...)."""
    return seat_api(base, "POST", "/v1/sessions", None, body)


def seat_api(base: str, method: str, path: str, token: str | None, body: dict | None = None) -> dict:
    """The public API, as another person's app calls it with its seat token (None: no
    token, as when creating a match)."""
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    with urllib.request.urlopen(urllib.request.Request(base + path, data, headers, method=method)) as answer:
        return json.load(answer)


def test_ronda_by_the_keyboard_alone_through_challenges(browser, server, axe_source):
    """A whole Ronda deal on the Arabic phone page with Tab, Shift+Tab, the arrow keys,
    Enter and Escape only. Seat 2 is another person (played here through the API with its
    invitation's token) who declares a ronda at every hand, so that each challenge round
    offers me a challenge: its confirmation keeps the keyboard, Escape cancels it and the
    focus comes back; the deal's summary is dismissed from the keyboard too."""
    watched = Watched(browser, PHONE, ACCEPT["ar"])
    page = watched.page
    links = start_match(page, server, "ronda", "keyboard", axe_source, seats={1: "human"})
    guest = links["seat-1"].split("#token=")[1]
    session = f"/v1/sessions/{page.evaluate('SESSION')}"
    challenged = 0
    tabs: list[tuple[int, int]] = []  # Tab presses per move, and the most it may take
    for _ in range(MAX_MOVES):
        other = seat_api(server, "GET", session, guest)
        assert not other["finished"]
        if other["to_act"] == 1 and other["view"]["deal_no"] == 1:
            legal = [entry["action"] for entry in other["legal_actions"]]
            declare = [a for a in legal if a.get("combo") == "ronda"]
            action = (declare or [a for a in legal if a["type"] != "challenge"])[0]
            move = {"action": action, "expected_version": other["version"]}
            seat_api(server, "POST", f"{session}/moves", guest, move)
            continue
        snapshot = ready_snapshot(page)
        if snapshot["summary"]:
            break
        if not tabs:
            check_tab_order(page)
        if page.locator("#actions .move[data-type=challenge]").count():
            if not challenged:
                check_axe(page, axe_source)
            cancel_a_challenge(page, snapshot, "keyboard")
            challenged += 1
        most = tab_stops_before(page)
        tabs.append((play_legal(page, snapshot, "keyboard"), most))
    else:
        pytest.fail(f"no deal end after {MAX_MOVES} moves")
    assert challenged >= 1
    assert all(presses <= most for presses, most in tabs), tabs
    finish_the_deal(page, page.evaluate(SNAPSHOT), axe_source, "keyboard")
    watched.close()


SHOWN_SETS = """() => [...document.querySelectorAll('#middle .group')]
  .filter((g) => g.querySelector('.cards.set'))
  .map((g) => [...g.querySelectorAll('.cards.set')]
    .map((set) => [...set.children].map((c) => c.dataset.card)))"""


def reach_shown_dublees(base: str, seed: int) -> tuple[str, list[str], dict] | None:
    """A two-seat Marriage session (both seats people, played here through the API with
    their tokens, at random but showing dublees whenever legal) up to a turn of seat 0 to
    draw after seat 1 has shown seven dublees: the session's id, tokens and seat 0's answer
    (None when this seed's play never gets there)."""
    created = new_session(base, {"game": "marriage", "players": 2, "options": {"deals": 1}, "seed": seed})
    session, tokens = f"/v1/sessions/{created['id']}", created["tokens"]
    rng = random.Random(seed)
    for _ in range(MAX_MOVES):
        to_act = seat_api(base, "GET", session, tokens[0])["to_act"]
        if to_act is None:
            return None
        state = seat_api(base, "GET", session, tokens[to_act])
        shown = state["view"]["shown"][1]
        legal = [entry["action"] for entry in state["legal_actions"]]
        if to_act == 0 and shown and isinstance(shown[0], str) and {"type": "draw_stock"} in legal:
            return created["id"], tokens, state
        dublees = [action for action in legal if action["type"] == "show_dublees"]
        action = dublees[0] if dublees else rng.choice(legal)
        move = {"action": action, "expected_version": state["version"]}
        seat_api(base, "POST", f"{session}/moves", tokens[to_act], move)
    return None


def test_a_marriage_table_shows_dublees_as_pairs_and_still_offers_the_draw(browser, server, axe_source):
    """On the dublee route a seat's shown items are pair codes, not sets (docs/rules/marriage.md,
    ``shown[s]``): the table draws each as its two cards, and the move box offers the draw.
    (The page once took the codes for sets, threw, and left the move box empty: the player
    could not draw.)"""
    reached = next(filter(None, (reach_shown_dublees(server, seed) for seed in (11, 36, 9, 22))), None)
    assert reached is not None, "no seed's play reached shown dublees"
    session_id, tokens, state = reached
    pairs = state["view"]["shown"][1]
    watched = Watched(browser, DESKTOP, ACCEPT["en"])
    page = watched.page
    page.goto(f"{server}/play/table/{session_id}#token={tokens[0]}")
    snapshot = ready_snapshot(page)
    assert snapshot["version"] == state["version"] and snapshot["mine"]
    assert page.evaluate(SHOWN_SETS) == [[[code, code] for code in pairs]]
    assert page.locator("#middle .group h3").filter(has_text="Shown dublees · Seat 2").count() == 1
    moves = page.locator("#actions .move")
    legal_types = sorted(entry["action"]["type"] for entry in state["legal_actions"])
    assert sorted(moves.evaluate_all("(ms) => ms.map((m) => m.dataset.type)")) == legal_types
    check_axe(page, axe_source)
    version = snapshot["version"]
    page.click("#actions .move[data-type=draw_stock]")
    wait_moved(page, version)
    assert page.evaluate("current.version") > version
    watched.close()


@pytest.mark.parametrize("host_language, guest_language", [("en", "ar"), ("ar", "en")])
def test_an_invitation_link_plays_its_seat_and_a_spectator_watches(
    browser, server, server_data, axe_source, host_language, guest_language
):
    """Seat 2 is a person: its link (the token after #, never sent) opens its seat in a
    second browser; the two people play a whole deal; a third browser watches it live (in
    the guest's language). No page logs anything, in either language."""
    host = Watched(browser, DESKTOP, ACCEPT[host_language])
    links = start_match(host.page, server, "ronda", "click", axe_source, seats={1: "human"})
    invited, watching = links["seat-1"], links["spectator"]
    assert re.fullmatch(rf"{server}/play/table/[0-9a-f]{{32}}#token=[\w%-]+", invited)
    assert "?" not in invited and "?" not in watching
    tokens = [invited.split("#token=")[1], watching.split("#token=")[1]]

    guest = Watched(browser, PHONE, ACCEPT[guest_language])
    guest.page.goto(invited)
    guest.page.wait_for_function("() => current && !rendering")
    assert guest.page.evaluate("current.seat") == 1
    assert "#" not in guest.page.url  # the token left the address bar
    spectator = Watched(browser, PHONE, ACCEPT[guest_language])
    spectator.page.goto(watching)
    spectator.page.wait_for_function("() => current && !rendering")
    assert spectator.page.evaluate("current.seat") is None
    for watched, language in ((host, host_language), (guest, guest_language), (spectator, guest_language)):
        assert watched.page.get_attribute("html", "lang") == language
    assert spectator.page.locator("#hand button").count() == 0
    assert spectator.page.locator(".seat").count() == 2
    check_axe(spectator.page, axe_source)

    pages = [host.page, guest.page]
    for _ in range(MAX_MOVES):
        for page in pages:
            page.wait_for_function("() => current && !busy && !rendering", timeout=30_000)
        if all(page.evaluate("summaryOpen") for page in pages):
            break
        for page in pages:
            snapshot = page.evaluate(SNAPSHOT)
            if snapshot["mine"] and not snapshot["summary"] and snapshot["legal"]:
                play_legal(page, snapshot)
                break
        else:
            pages[0].wait_for_timeout(200)
    else:
        pytest.fail("no deal end")
    version = host.page.evaluate("current.version")
    spectator.page.wait_for_function(f"() => current.version === {version}", timeout=30_000)  # live
    assert spectator.page.evaluate("current.view.deal_no") == 2
    for page in pages:
        page.keyboard.press("Enter")
        page.wait_for_selector("#summary", state="hidden")

    requested = host.urls + guest.urls + spectator.urls
    assert not [url for url in requested if any(token in url for token in tokens)]
    log = (server_data / "server.log").read_text(errors="replace")
    assert not any(token in log for token in tokens)
    for watched in (host, guest, spectator):
        watched.close()


def test_an_unknown_match_is_a_404_page_that_asks_nothing_more(browser, server, axe_source):
    """The table and the replay of a session that does not exist: a not-found page that
    asks nothing more and logs nothing (a browser's page load gets it with 200, Chromium
    would log a 404 document; any other client gets 404: service.page.not_found_page)."""
    for language in ("en", "ar"):
        for kind in ("table", "replay"):
            watched = Watched(browser, PHONE, ACCEPT[language])
            url = f"{server}/play/{kind}/{uuid.uuid4().hex}"
            answer = watched.page.goto(url)
            assert answer.status == 200 and answer.request.all_headers()["sec-fetch-mode"] == "navigate"
            assert watched.context.request.get(url).status == 404  # a program, not a page load
            heading = watched.page.locator("#missing h1")
            assert heading.is_visible() and watched.page.title().startswith(heading.inner_text())
            if language == "en":
                assert heading.inner_text() == "No such match"
            assert watched.page.get_attribute("html", "lang") == language
            check_axe(watched.page, axe_source)
            before = len(watched.urls)
            watched.page.wait_for_timeout(1_500)
            assert watched.urls[before:] == []
            watched.close()  # no console message of any kind


def test_the_replay_steps_through_a_match(browser, server, axe_source):
    watched = Watched(browser, DESKTOP)
    page = watched.page
    start_match(page, server, "ronda", "click", axe_source)
    for _ in range(3):
        play_legal(page, ready_snapshot(page))
    session = page.evaluate("SESSION")
    page.goto(f"{server}/play/replay/{session}")
    page.wait_for_selector("#moves li")
    positions = int(page.get_attribute("#step", "max"))
    assert positions == page.locator("#moves li").count() > 0
    assert page.get_attribute("#replay", "data-position") == "0"
    page.click("#forward")
    assert page.get_attribute("#replay", "data-position") == "1"
    page.keyboard.press("ArrowRight")
    assert page.get_attribute("#replay", "data-position") == "2"
    page.click("#last")
    assert page.get_attribute("#replay", "data-position") == str(positions)
    check_axe(page, axe_source)
    watched.close()


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


def test_the_turn_timer_counts_down_at_the_table(browser, server, axe_source):
    """A turn timer chosen in the setup form: the seat to act shows its seconds left."""
    watched = Watched(browser, PHONE)
    page = watched.page
    page.goto(f"{server}/play/ronda")
    page.select_option("#timer", "30")
    page.click("#start")
    page.click("#my-seat")
    page.wait_for_url("**/play/table/*")
    page.wait_for_function(READY, timeout=60_000)
    assert page.evaluate("current.turn_timer.seconds") == 30
    assert page.evaluate("current.turn_deadline.seat") == 0
    page.wait_for_function("() => /^\\d+ s left$/.test(document.getElementById('clock').textContent)")
    first = int(page.inner_text("#clock").split()[0])
    page.wait_for_timeout(2_100)
    assert 0 < int(page.inner_text("#clock").split()[0]) < first <= 30
    assert page.inner_text(".seat.acting .clock") == page.inner_text("#clock")
    watched.close()


REVIEW = """(summary) => {
  const box = document.body.appendChild(document.createElement('div'));
  renderReview(box, { summary });
  const rows = [...box.querySelectorAll('tr')].map((row) => row.innerText.replace(/\\s+/g, ' ').trim());
  box.remove();
  return rows;
}"""


def test_the_review_lists_no_mistake_for_a_seat_without_any(browser, server, axe_source):
    """The review's table, drawn by the page: a seat with 0 mistakes lists none (the review
    job still names its worst decisions), another lists as many as it made."""
    watched = Watched(browser, DESKTOP)
    page = watched.page
    start_match(page, server, "ronda", "click", axe_source)
    worst = {
        "n": 3,
        "played": {"type": "play", "card": "KH"},
        "best": {"type": "play", "card": "2S"},
        "loss": 0.25,
    }
    rows = page.evaluate(
        REVIEW,
        [
            {"seat": 0, "accuracy": 100, "mistakes": 0, "biggest_mistakes": [worst, worst, worst]},
            {"seat": 1, "accuracy": 80, "mistakes": 1, "biggest_mistakes": [worst, worst]},
        ],
    )
    assert rows[1].startswith("You") and rows[1].endswith("none"), rows
    assert "move 3" not in rows[1] and rows[2].count("move 3") == 1, rows  # seat 2's one mistake, once
    watched.close()


@pytest.mark.parametrize(
    "game, language, start, key, word",
    [
        ("porrazo", "es", "Empezar la partida", "tendido", "dar el tendido"),
        ("marriage", "ne", "खेल सुरु गर्नुहोस्", "tunnela", "टनेला"),
    ],
)
def test_spanish_and_nepali_tables(browser, server, axe_source, game, language, start, key, word):
    """Porrazo in Spanish and Marriage in Nepali: the players' words, and axe finds nothing."""
    watched = Watched(browser, PHONE, language)
    page = watched.page
    page.goto(f"{server}/play/{game}")
    assert page.inner_text("#start") == start
    check_axe(page, axe_source)
    page.click("#start")
    page.click("#my-seat")
    page.wait_for_url("**/play/table/*")
    page.wait_for_function(READY, timeout=60_000)
    assert page.get_attribute("html", "lang") == language
    assert page.evaluate("(key) => term(GAME, key)", key) == word
    check_axe(page, axe_source)
    watched.close()


RULE_ID = re.compile(r"\b[RSE]\d+[a-z]?\b")  # a rule's number in docs/rules/<game>.md


def test_the_arabic_setup_form_writes_every_game_s_options_in_arabic(browser, server, axe_source):
    """Every game's options in Arabic: names, what they do and their choices, with no Latin
    letter but the rule ids (R6, S5...) given as references; a chosen value is sent to the
    API as the API's value; axe finds nothing; no console message."""
    watched = Watched(browser, PHONE, ACCEPT["ar"])
    page = watched.page
    page.goto(f"{server}/play")
    page.click("#options >> xpath=..")
    games = page.eval_on_selector_all("#game option", "options => options.map((o) => o.value)")
    assert sorted(games) == ["baloot", "marriage", "porrazo", "ronda", "trex"]
    for game in games:
        page.select_option("#game", game)
        labels = page.locator("#options label.option")
        listed = json.loads(urllib.request.urlopen(f"{server}/v1/games/{game}").read())
        assert labels.count() == len(listed["options"])
        # a bot seat offers the game's own levels from easy up (hard only where it beat normal)
        offered = page.eval_on_selector_all("[data-seat='1'] option", "all => all.map((o) => o.value)")
        assert offered == [lv for lv in listed["levels"] if lv != "random"] + ["human"], game
        for text in labels.all_text_contents():
            left = RULE_ID.sub("", text)
            assert not re.search("[A-Za-z]", left), (game, text)
        check_axe(page, axe_source)
    page.select_option("#game", "baloot")
    assert page.locator("[data-option-label=hokm_rounding] .rules").text_content() == "(S2, S5)"
    rounding = page.locator("[data-option=hokm_rounding]")
    assert rounding.locator("option:checked").text_content() == "الفريق المحسوب فقط"
    rounding.select_option("both_sides")
    assert rounding.locator("option:checked").text_content() == "الطرفان"
    with page.expect_request(lambda request: request.url.endswith("/v1/sessions")) as created:
        page.click("#start")
    assert created.value.post_data_json["options"]["hokm_rounding"] == "both_sides"
    page.wait_for_selector("#invitations:not([hidden])")
    watched.close()
