"""Small builders for Porrazo rule tests: layouts with the stock filled in."""

from __future__ import annotations

from engine import get_game
from engine.cards import CODES
from engine.games.porrazo.tables import deals_per_hand

GAME = get_game("porrazo")


def layout(
    players,
    dealer,
    hands,
    *,
    deal_no=1,
    table=(),
    tendido_done=True,
    phase="play",
    piles=None,
    options=None,
    seed=None,
    **extra,
):
    """A state from a layout: cards not placed go to the stock (as many as deal_no leaves,
    in code order) and the rest to the piles, dealt round the seats."""
    D = deals_per_hand(players)
    stock_size = 0 if deal_no == D else 52 - 3 * players * deal_no - 4 * tendido_done
    placed = set(table) | {c for h in hands for c in h} | {c for p in (piles or []) for c in p}
    rest = [c for c in CODES if c not in placed]
    stock, extra_cards = rest[:stock_size], rest[stock_size:]
    piles = [list(p) for p in piles] if piles else [[] for _ in range(players)]
    for i, c in enumerate(extra_cards):
        piles[i % players].append(c)
    data = {
        "players": players,
        "dealer": dealer,
        "deal_no": deal_no,
        "tendido_done": tendido_done,
        "phase": phase,
        "hands": [list(h) for h in hands],
        "table": list(table),
        "stock": stock,
        "piles": piles,
        **extra,
    }
    return GAME.new_state(players, options, dealer, layout=data, seed=seed)


def play(state, *moves):
    """Apply JSON-ish moves: a card code plays it, a dict is sent as is; returns (state, events)."""
    events = []
    for move in moves:
        data = {"type": "play", "card": move} if isinstance(move, str) else move
        seat = GAME.to_act(state)
        state, evs = GAME.apply(state, seat, GAME.parse_action(state, data))
        events += evs
    return state, events


def legal_json(state):
    return [GAME.action_to_json(state, a) for a in GAME.legal_actions(state)]
