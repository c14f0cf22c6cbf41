"""Shared helpers for the Ronda tests: build a match from an example's setup, check facts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine import get_game
from engine.cards import card_code
from engine.games.ronda.tables import PACK

GAME = get_game("ronda")
DATA = Path(__file__).resolve().parents[2] / "data" / "ronda"
ALL_CODES = [card_code(c) for c in PACK]


def L(codes: str) -> list[str]:
    return codes.split()


def fill_rest(layout: dict[str, Any], players: int) -> dict[str, Any]:
    """``piles: "rest"`` (the spec's *rest, any split*): every card not placed elsewhere goes
    to side 0's pile. No checked fact depends on the split."""
    layout = dict(layout)
    if layout.get("piles") == "rest":
        placed = {c for h in layout["hands"] for c in h}
        placed |= set(layout.get("table", [])) | set(layout.get("stock", []))
        sides = 2 if players == 4 else players
        layout["piles"] = [[c for c in ALL_CODES if c not in placed]] + [[] for _ in range(sides - 1)]
    return layout


def new_match(setup: dict[str, Any]):
    players = setup["players"]
    if "deck" in setup:
        return GAME.new_state(players, setup.get("options"), setup["dealer"], deck=setup["deck"])
    return GAME.new_state(
        players, setup.get("options"), setup["dealer"], layout=fill_rest(setup["layout"], players)
    )


def check_facts(state, facts: dict[str, Any], where: str) -> None:
    """Assert each named fact about ``state`` (a full state)."""
    js = GAME.to_json(state)
    for key, want in facts.items():
        if key == "hands":
            got: Any = [sorted(h) for h in js["hands"]]
            want = [sorted(h) for h in want]
        elif key == "legal":
            got = [GAME.action_to_json(state, a) for a in GAME.legal_actions(state)]
        elif key == "stock_count":
            got = len(js["stock"])
        elif key == "stock_top":
            got = js["stock"][: len(want)]
        elif key == "stock_bottom":
            got = js["stock"][-len(want) :]
        elif key == "pile_counts":
            got = [len(p) for p in js["piles"]]
        elif key == "pile_has":
            for side, cards in want.items():
                missing = set(cards) - set(js["piles"][int(side)])
                assert not missing, f"{where}: side {side}'s pile lacks {sorted(missing)}"
            continue
        else:
            got = js[key]
        assert got == want, f"{where}: {key} is {got!r}, expected {want!r}"


def load_example(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def lay(
    players: int,
    dealer: int,
    hands: list[str],
    table: str = "",
    stock: str = "",
    piles: Any = "rest",
    options: dict[str, Any] | None = None,
    **fields: Any,
):
    """A state from a layout in the spec's shorthand (hands/table/stock as code strings)."""
    layout: dict[str, Any] = {"hands": [L(h) for h in hands], "table": L(table), "stock": L(stock)}
    layout["piles"] = piles if piles == "rest" else [L(p) for p in piles]
    layout.update(fields)
    opts = {"shuffle_returned_cards": False, **(options or {})}
    return GAME.new_state(players, opts, dealer, layout=fill_rest(layout, players))


def act(state, seat: int, action: dict[str, Any]):
    """Apply a JSON action through the checked path; returns the new state and events."""
    return GAME.apply(state, seat, GAME.parse_action(state, action))


def run(state, *moves: tuple[int, Any]):
    """Apply moves ``(seat, action)``; an action is a JSON object, or a card code to play,
    or 'pass'."""
    events: list[dict[str, Any]] = []
    for seat, a in moves:
        if a == "pass":
            a = {"type": "pass"}
        elif isinstance(a, str):
            a = {"type": "play", "card": a}
        state, evs = act(state, seat, a)
        events += evs
    return state, events


def facts(state) -> dict[str, Any]:
    return GAME.to_json(state)
