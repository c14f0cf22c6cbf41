"""Small helpers shared by the Trex tests."""

from __future__ import annotations

from engine import get_game

GAME = get_game("trex")


def act(short) -> dict:
    """Spec shorthand -> JSON action: "2S" (play), "pass", "double KH", "choose trex"."""
    if isinstance(short, dict):
        return short
    if short == "pass":
        return {"type": "pass"}
    word, _, rest = short.partition(" ")
    if word == "choose":
        return {"type": "choose", "contract": rest}
    if word == "double":
        return {"type": "double", "card": rest}
    return {"type": "play", "card": short}


def legal(state) -> list[dict]:
    return [GAME.action_to_json(state, a) for a in GAME.legal_actions(state)]


def play(state, seat: int, short):
    """The checked path: returns the next state."""
    nxt, _ = GAME.apply(state, seat, GAME.parse_action(state, act(short)))
    return nxt


def layout(options=None, **fields):
    return GAME.new_state(4, options, fields.pop("dealer_arg", 0), layout=fields)


E3_HANDS = [
    ["2S", "3S", "KS", "AS", "2H", "3H", "4H", "4D", "5D", "6D", "7C", "8C", "9C"],
    ["5H", "6H", "7H", "KH", "8D", "9D", "TD", "JD", "2C", "JC", "QC", "KC", "AC"],
    ["4S", "5S", "6S", "7S", "8S", "9S", "8H", "9H", "2D", "3D", "3C", "4C", "TC"],
    ["TS", "JS", "QS", "TH", "JH", "QH", "AH", "7D", "QD", "KD", "AD", "5C", "6C"],
]


def kh_deal(options=None, **fields):
    """Example 3's position: deal 6, kingdom owner = dealer = seat 0, King of Hearts chosen."""
    base = {
        "deal_no": 6,
        "first_owner": 3,
        "dealer": 0,
        "contract": "king_of_hearts",
        "contracts_used": ["king_of_hearts"],
        "hands": E3_HANDS,
    }
    base.update(fields)
    return layout(options, **base)
