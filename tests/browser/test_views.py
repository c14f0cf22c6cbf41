"""Every part of the table page draws every position seeded random play reaches, each game
at its smallest and largest table, for the seat to act, the next seat and a spectator, in
a real Chromium: no part throws.

A whole deal at the table (test_table.py) meets the positions its deal happens to reach;
a rarer one (a Marriage seat's shown dublees, a Trex layout, a Baloot project) can wait many
runs to come up, and a part of the page that throws on it leaves the player without the
rest of that render. Here the engine deals and plays at random, and the page's own drawing
functions are handed each position as the API answers it (the seat's view, its labelled
legal actions on its turn), one part at a time, so that a fault names the part and the
position. Marriage's middle is also checked against the view: every exposed tunnela and
every shown set or dublee, under its seat's heading. And the end-of-deal summary writes
every item of every deal of whole random matches (a fault there would leave a deal's
summary unshown, and the bots wait for it)."""

from __future__ import annotations

import json
import random

import pytest

from engine import get_game
from service.api.sessions import position_answer
from service.page import score_sheet
from tests.browser.test_table import DESKTOP, Watched, new_session

# (game, players, options): each game at its smallest and largest table
TABLES = [
    ("ronda", 2, {}),
    ("ronda", 4, {}),
    ("baloot", 4, {}),
    ("trex", 4, {}),
    ("porrazo", 2, {}),
    ("porrazo", 8, {}),
    ("marriage", 2, {"deals": 1}),
    ("marriage", 5, {"deals": 1}),
]
SEEDS = range(1, 4)
STEPS = 200  # moves of each seed's random play looked at
MATCH_MOVES = 3_000  # the most moves of a whole match played for its score sheet
CHUNK = 200  # answers handed to the page at a time

# Each answer through each part of the page's render (table.js), a fault noted with its
# part; the page is a real table page of the same game, so its words and cards are loaded.
# The answers go to the page as one JSON text: Playwright hands an object over value by
# value, and 200 whole answers took it 3-4 s where the page draws them in 0.5 s.
DRAW_ALL = """(text) => {
  const answers = JSON.parse(text);
  const faults = [];
  const view = document.getElementById("view");
  const parts = {
    turn: (a) => renderTurn(a), chips: (a) => renderChips(a.view), seats: (a) => renderSeats(a),
    middle: (a) => renderMiddle(a.view), hand: (a) => renderHand(a), actions: (a) => renderActions(a),
    details: (a) => renderView(view, a.view),
  };
  answers.forEach((answer, i) => {
    for (const [name, part] of Object.entries(parts)) {
      try { part(answer); } catch (error) { faults.push([i, name, String(error)]); }
    }
  });
  return faults;
}"""


def random_by_kind(legal: list[dict], rng: random.Random) -> int:
    """A random kind of move, then a random move of that kind: a rare kind (a show, a
    declaration, a finish) comes up as often as the many discards or plays (the index)."""
    kinds = sorted({action["type"] for action in legal})
    kind = rng.choice(kinds)
    return rng.choice([i for i, action in enumerate(legal) if action["type"] == kind])


def answers_of_random_play(game_id: str, players: int, options: dict, seed: int) -> list[dict]:
    """The API's answer (as GET /v1/sessions/{id} writes it) after each move of a seeded
    random playout, to the seat to act, to the next seat and to a spectator."""
    game = get_game(game_id)
    state = game.new_from_seed(players, game.parse_options(options, players), 0, seed)
    rng = random.Random(seed)
    seats = [{"type": "human"}] * players
    answers = []
    for version in range(STEPS):
        to_act = game.to_act(state)
        for seat in ({0, 1} if to_act is None else {to_act, (to_act + 1) % players}) | {None}:
            position = position_answer(game, state, seat)
            answers.append(
                {"seat": seat, "version": version, "seats": seats, "turn_deadline": None, **position}
            )
        if to_act is None:
            break
        legal = [game.action_to_json(state, a) for a in game.legal_actions(state)]
        state, _ = game.apply(state, to_act, game.legal_actions(state)[random_by_kind(legal, rng)])
    return json.loads(json.dumps(answers))  # as the page receives them


def open_table(browser, base: str, game: str, players: int, options: dict) -> Watched:
    created = new_session(base, {"game": game, "players": players, "options": options, "seed": 1})
    watched = Watched(browser, DESKTOP, "en-GB,en;q=0.9")
    watched.page.goto(f"{base}/play/table/{created['id']}#token={created['tokens'][0]}")
    watched.page.wait_for_function("() => current && !rendering", timeout=60_000)
    return watched


@pytest.mark.parametrize("game, players, options", TABLES, ids=[f"{g}-{n}" for g, n, _ in TABLES])
def test_every_part_of_the_table_draws_every_position_of_random_play(browser, server, game, players, options):
    watched = open_table(browser, server, game, players, options)
    faults = []
    for seed in SEEDS:
        answers = answers_of_random_play(game, players, options, seed)
        for start in range(0, len(answers), CHUNK):
            chunk = answers[start : start + CHUNK]
            for i, part, error in watched.page.evaluate(DRAW_ALL, json.dumps(chunk)):
                answer = chunk[i]
                faults.append(f"seed {seed} move {answer['version']} seat {answer['seat']}: {part}: {error}")
    assert faults[:5] == [], f"{len(faults)} faults"
    watched.close()


# The cards of each group of the middle, for each of a list of views: its heading and its
# sets' cards.
MIDDLE_GROUPS = """(text) => JSON.parse(text).map((view) => {
  renderMiddle(view);
  return [...document.querySelectorAll('#middle .group')].filter((g) => g.querySelector('.cards.set'))
    .map((g) => [g.querySelector('h3').textContent,
      [...g.querySelectorAll('.cards.set')].map((set) => [...set.children].map((c) => c.dataset.card))]);
})"""


def marriage_groups(view: dict) -> list:
    """What the middle should show of a Marriage view: each seat's exposed tunnelas (three
    cards each), then each seat's shown sets, or its dublees (two cards each), on seat 0's
    page (seat 0 is "You")."""
    groups = []
    name = ["You"] + [f"Seat {s + 1}" for s in range(1, len(view["shown"]))]
    for s, codes in enumerate(view["tunnelas"]):
        if codes:
            groups.append([f"Exposed tunnelas · {name[s]}", [[code] * 3 for code in codes]])
    for s, shown in enumerate(view["shown"]):
        if shown:
            dublees = all(isinstance(item, str) for item in shown)
            heading = "Shown dublees" if dublees else "Shown sets"
            groups.append([f"{heading} · {name[s]}", [[i, i] if isinstance(i, str) else i for i in shown]])
    return groups


def test_the_marriage_middle_shows_each_seats_tunnelas_and_shown_cards(browser, server):
    """A spectator's view along random play: every tunnela exposed at the deal and every set
    or dublee shown, each seat's under its own heading."""
    watched = open_table(browser, server, "marriage", 4, {"deals": 1})
    seen = {"tunnelas": 0, "sets": 0, "dublees": 0}
    for seed in SEEDS:
        answers = [a for a in answers_of_random_play("marriage", 4, {"deals": 1}, seed) if a["seat"] is None]
        drawn = watched.page.evaluate(MIDDLE_GROUPS, json.dumps([answer["view"] for answer in answers]))
        for answer, groups in zip(answers, drawn, strict=True):
            view = answer["view"]
            assert groups == marriage_groups(view), (seed, answer["version"])
            seen["tunnelas"] += any(view["tunnelas"])
            seen["sets"] += any(shown and not isinstance(shown[0], str) for shown in view["shown"])
            seen["dublees"] += any(shown and isinstance(shown[0], str) for shown in view["shown"])
    assert min(seen.values()) > 0, seen  # the play met all three
    watched.close()


# Each deal's lines of a score sheet as the end-of-deal summary writes them (common.js).
SUMMARY_ROWS = """(text) => { const [deals, sides] = JSON.parse(text); return deals.map((deal) => {
  try { return itemRows(deal.items, sides, 0, GAME).length; } catch (error) { return String(error); }
}); }"""


def random_match_log(game_id: str, players: int, options: dict, seed: int):
    """A whole match of random play (by kind, as above): its first state and its log."""
    game = get_game(game_id)
    first = state = game.new_from_seed(players, game.parse_options(options, players), 0, seed)
    rng = random.Random(seed)
    log = []
    for _ in range(MATCH_MOVES):
        to_act = game.to_act(state)
        if to_act is None:
            break
        legal = game.legal_actions(state)
        action = legal[random_by_kind([game.action_to_json(state, a) for a in legal], rng)]
        log.append({"seat": to_act, "action": game.action_to_json(state, action)})
        state, _ = game.apply(state, to_act, action)
    return first, log


@pytest.mark.parametrize("game, players, options", TABLES, ids=[f"{g}-{n}" for g, n, _ in TABLES])
def test_every_deals_summary_draws_its_items(browser, server, game, players, options):
    """The score sheet of whole matches of random play (service.page.score_sheet, as
    the sheet route replays a session's log): the summary writes one row per item of every
    deal, without a fault."""
    watched = open_table(browser, server, game, players, options)
    for seed in SEEDS:
        first, log = random_match_log(game, players, options, seed)
        deals, sides = score_sheet(get_game(game), first, log)
        assert deals, (seed, len(log))
        rows = watched.page.evaluate(SUMMARY_ROWS, json.dumps([deals, sides]))
        assert rows == [len(deal["items"]) for deal in deals], seed
    watched.close()
