"""A hint lists every legal action (docs/api.md), also where a game's policy narrows the
search to a few candidates (Marriage's discards: 3): the others come last, with no visits
and no value. The table page draws one bar per listed action."""

from __future__ import annotations

from tests.service.conftest import post


def test_a_hint_lists_every_legal_action_even_those_the_search_skipped(client):
    state = post(client, "/v1/games/marriage/deals", {"players": 2, "seed": 3})["state"]
    for _ in range(40):  # to the first discard of more than 3 cards
        legal = post(client, "/v1/games/marriage/legal-moves", {"state": state})
        if {a["type"] for a in legal["actions"]} == {"discard"} and len(legal["actions"]) > 3:
            break
        move = {"state": state, "seat": legal["to_act"], "action": legal["actions"][0]}
        state = post(client, "/v1/games/marriage/moves", move)["state"]
    else:
        raise AssertionError("no discard decision within 40 moves")
    hint = post(client, "/v1/games/marriage/hint", {"state": state, "budget": {"iterations": 50}, "seed": 1})
    listed = [ranked["action"] for ranked in hint["actions"]]
    assert sorted(map(str, listed)) == sorted(map(str, legal["actions"]))
    searched = [ranked for ranked in hint["actions"] if ranked["visits"]]
    skipped = hint["actions"][len(searched) :]
    assert searched and skipped  # the search looked at some: the rest come after them
    assert all(r["visits"] == 0 and r["value"] is None and r["share"] == 0 for r in skipped)
