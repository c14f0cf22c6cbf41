"""Sessions played under a house rule (issue 31), on a real Redis and a real worker: a
session of each game created with non-default house rules echoes them, its legal moves
are the engine's on the stored state at every turn of the human seat, bot seats play the
rest to the end of the first deal, and the deal's score items on the session's sheet carry
the option's name where it applied: exactly the items of the engine's own replay of the
session's log, and (checked against each game's rules, not the engine) the items the
option changes.

Seat 0 is the test's human seat; it steers the deal towards the option where the game
lets it (Trex: the owner of seed 6 holds KH, picks King of Hearts and doubles it, so the
doubled KH is taken under one of the three S5 house rules; Ronda: seed 5 and seat 0's
este-first play make an este in the first deal whatever the bot plays)."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Any

import pytest

from engine import get_game
from engine.items import item_templates, keyed_items
from service.redis_conn import Keys
from tests.integration.conftest import wait_for

pytestmark = pytest.mark.integration

DEAL_SECONDS = 150.0
"""The most one deal may take (bots on the worker, the test's seat inline)."""


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def stored(redis_client, prefix: str, session_id: str, field: str = "state") -> Any:
    return json.loads(redis_client.hget(Keys(prefix).session(session_id), field))


Policy = Callable[[list[dict[str, Any]], random.Random, Any], dict[str, Any]]
"""Seat 0's choice among its legal actions (JSON), given a seeded generator and the state."""


def prefer(*wanted: dict[str, Any]) -> Policy:
    """Seat 0's policy: the first of ``wanted`` that is legal, else a random legal action."""

    def choose(legal: list[dict[str, Any]], rng: random.Random, _state: Any) -> dict[str, Any]:
        for action in wanted:
            if action in legal:
                return action
        return rng.choice(legal)

    return choose


def play_first_deal(
    client, redis_client, prefix, game_id, players, options, seed, bot_level, choose, deals=1
):
    """Create the session, check the echo, play seat 0 (checking its legal moves against
    the engine's) until the first deal is over (with ``deals`` > 1: until a finished
    deal's items on the sheet name an option, at most ``deals`` deals); answers (session id, token 0,
    game)."""
    game = get_game(game_id)
    seats: list[Any] = ["human"] + [{"type": "bot", "level": bot_level}] * (players - 1)
    body = {"game": game_id, "players": players, "seed": seed, "options": options, "seats": seats}
    answer = client.post("/v1/sessions", json=body)
    assert answer.status_code == 201, answer.get_json()
    sid, token = answer.get_json()["id"], answer.get_json()["tokens"][0]
    got = client.get(f"/v1/sessions/{sid}", headers=auth(token)).get_json()
    for name, value in options.items():  # echoed in the session's view and its stored state
        assert got["view"]["options"][name] == value
        assert stored(redis_client, prefix, sid)["options"][name] == value
    rng = random.Random(seed)
    seen: dict[int, bool] = {}

    def option_named(deal_no: int) -> bool:
        """A finished deal's items on the sheet name an option (read once per deal)."""
        if deal_no not in seen:
            seen[deal_no] = any(named(items) for items in sheet_deals(client, sid, token))
        return seen[deal_no]

    deadline = time.monotonic() + DEAL_SECONDS * deals
    checked = 0
    while time.monotonic() < deadline:

        def seat0_or_over():
            summary = client.get(f"/v1/sessions/{sid}", headers=auth(token)).get_json()
            state = game.from_json(stored(redis_client, prefix, sid))
            over = game.to_act(state) is None or game.deal_no(state) > deals
            if not over and game.deal_no(state) > 1 and deals > 1:
                over = option_named(game.deal_no(state))
            return (summary, state, over) if over or summary["to_act"] == 0 else None

        summary, state, over = wait_for(seat0_or_over, max(1.0, deadline - time.monotonic()))
        if over:
            break
        engine_legal = [game.action_to_json(state, a) for a in game.legal_actions(state)]
        assert [entry["action"] for entry in summary["legal_actions"]] == engine_legal
        checked += 1
        if choose is None:  # seat 0 asks the session's easy bot for its move (inline)
            move = client.post(
                f"/v1/sessions/{sid}/bot-move",
                json={"level": "easy", "seed": checked, "expected_version": summary["version"]},
                headers=auth(token),
            )
        else:
            move = client.post(
                f"/v1/sessions/{sid}/moves",
                json={"action": choose(engine_legal, rng, state), "expected_version": summary["version"]},
                headers=auth(token),
            )
        assert move.status_code == 200, move.get_json()
    else:
        raise AssertionError(f"{game_id}: the deals did not end within {DEAL_SECONDS * deals} s")
    assert checked > 0
    return sid, token, game


def engine_replay_deals(client, redis_client, prefix, sid, token, game) -> list[list[dict[str, Any]]]:
    """Each finished deal's items from the engine's own replay of the session's log: the
    deal's score report before its last move, and the points that move scored (the
    sheet's reading)."""
    log = client.get(f"/v1/sessions/{sid}/log", headers=auth(token)).get_json()
    state = game.from_json(stored(redis_client, prefix, sid, "initial"))
    deals: list[list[dict[str, Any]]] = []
    for entry in log["entries"]:
        before = game.score(state).to_json()
        actor = entry["seat"] if entry["seat"] is not None else game.to_act(state)
        state, events = game.apply(state, actor, game.parse_action(state, entry["action"]))
        if game.deal_no(state) != before["deal_no"] or (
            game.to_act(state) is None and len(deals) < before["deal_no"]
        ):
            items = list(before["items"])
            for event in events:
                if event.get("type") == "points":
                    items += event.get("items") or ([strip_type(event)] if "item" in event else [])
            deals.append(items)
    return deals


def strip_type(event: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in event.items() if key != "type"}


def sheet_deals(client, sid, token) -> list[list[dict[str, Any]]]:
    """Each finished deal's items on the session's score sheet."""
    sheet = client.get(f"/play/api/sessions/{sid}/sheet", headers=auth(token))
    assert sheet.status_code == 200, sheet.get_json()
    deals = sheet.get_json()["deals"]
    assert [deal["deal_no"] for deal in deals] == list(range(1, len(deals) + 1)) and deals
    return [deal["items"] for deal in deals]


def sheet_items(client, redis_client, prefix, sid, token, game) -> list[dict[str, Any]]:
    """The first deal's items on the sheet, checked against the engine's replay (every
    finished deal's)."""
    deals = sheet_deals(client, sid, token)
    replay = engine_replay_deals(client, redis_client, prefix, sid, token, game)
    assert len(deals) == len(replay)
    for mine, theirs in zip(deals, replay, strict=True):
        same_items(mine, theirs)
        for item in mine:  # served with its key and params (docs/api.md, Score items)
            if "hidden" in item["params"].values():  # a card this seat may not see now (redacted)
                found = item_templates(game.id).parse(item["item"])  # None: the text is that card
                assert (found[0] if found else item["item"]) in (item["key"], "hidden"), item
            else:
                assert item_templates(game.id).text(item["key"], **item["params"]) == item["item"], item
    return deals[0]


def named(items: list[dict[str, Any]]) -> set[str]:
    return {name for item in items for name in item.get("options", [])}


def same_items(sheet: list[dict[str, Any]], replay: list[dict[str, Any]]) -> None:
    """The sheet's items are the replay's (the sheet may say ``side`` where an event said ``seat``)."""
    assert len(sheet) == len(replay)
    for mine, theirs in zip(sheet, replay, strict=True):
        assert (mine["points"], mine["item"], mine["rule"]) == (
            theirs["points"],
            theirs["item"],
            theirs["rule"],
        )
        assert mine.get("options") == theirs.get("options"), (mine, theirs)


RONDA = {"este_capturing_card": "stays_on_table", "chain_bonus_players": "any"}
RONDA_SEED = 5


def scores_este(events: list[dict[str, Any]]) -> bool:
    return any(event.get("type") == "points" and event.get("rule") == "R21" for event in events)


def este_first(legal: list[dict[str, Any]], _rng: random.Random, state: Any) -> dict[str, Any]:
    """Seat 0's Ronda policy: a play the engine scores as an este (R21) when there is one;
    else a pass (no declaration, so the bot has no one to challenge, and no challenge: a
    challenge ends the match, R13); else its first legal play."""
    ronda = get_game("ronda")
    for action in legal:
        _after, events = ronda.apply(state, 0, ronda.parse_action(state, action))
        if scores_este(events):
            return action
    return next(action for action in legal if action["type"] in ("pass", "play"))


def este_whatever_the_bot_plays(state: Any, seen: dict[str, bool]) -> bool:
    """Every line of seat 1's play from ``state``, seat 0 playing :func:`este_first`,
    scores an este before the first deal ends."""
    ronda = get_game("ronda")
    seat = ronda.to_act(state)
    if seat is None or ronda.deal_no(state) > 1:
        return False
    key = json.dumps(ronda.to_json(state), sort_keys=True)
    if key not in seen:
        legal = [ronda.action_to_json(state, action) for action in ronda.legal_actions(state)]
        choices = [este_first(legal, random.Random(0), state)] if seat == 0 else legal
        seen[key] = all(
            scores_este(events) or este_whatever_the_bot_plays(after, seen)
            for after, events in (ronda.apply(state, seat, ronda.parse_action(state, a)) for a in choices)
        )
    return seen[key]


def test_ronda_seed_makes_an_este_in_the_first_deal_whatever_the_bot_plays():
    """The premise of the session test below, checked on the engine over every line of
    the bot's play (a few dozen positions): seed 5's first hand and seat 0's este-first
    play score an este in the first deal."""
    ronda = get_game("ronda")
    options = ronda.parse_options(RONDA, 2)
    assert este_whatever_the_bot_plays(ronda.new_from_seed(2, options, 0, RONDA_SEED), {})


def test_ronda_este_stays_on_table(client, redis_client, prefix):
    """R21 stays_on_table: every este item names the option (the capturing card stayed),
    nothing else does; two players, so `chain_bonus_players: any` names a claim if any.
    Seed 5 and seat 0's este-first play make an este in the first deal whatever the
    random bot plays (the test above)."""
    sid, token, game = play_first_deal(
        client, redis_client, prefix, "ronda", 2, RONDA, RONDA_SEED, "random", este_first
    )
    sheet_items(client, redis_client, prefix, sid, token, game)  # every deal's = the engine's
    items = [item for deal in sheet_deals(client, sid, token) for item in deal]
    for item in items:
        if item["rule"] == "R21":
            assert item["item"] == "este" and item["options"] == ["este_capturing_card"]
        elif item["rule"] == "R24":  # with 2 players every chain claim exists only by the option
            assert "chain_bonus_players" in item["options"]
        else:
            assert "options" not in item, item
    assert any(item["rule"] == "R21" for item in items), "no este in the first deal"


TREX_S5 = {
    "doubled_card_taken_by_other": "no_gain",
    "doubler_takes_after_other_lead": "no_gain",
    "doubler_leads_and_takes": "double_penalty",
}


def test_trex_doubled_king_under_the_s5_house_rules(client, redis_client, prefix):
    """Seed 6: seat 0 owns the first kingdom and holds KH; it picks King of Hearts and
    doubles KH. Whoever takes it, one of the three house rules scores it: the doubled KH
    costs its taker 150 and nobody gains (S5 under the options), the item naming the rule."""
    choose = prefer(
        {"type": "choose", "contract": "king_of_hearts"}, {"type": "double", "card": "KH"}, {"type": "pass"}
    )
    sid, token, game = play_first_deal(client, redis_client, prefix, "trex", 4, TREX_S5, 6, "random", choose)
    items = sheet_items(client, redis_client, prefix, sid, token, game)
    doubled = [item for item in items if item["item"].startswith("doubled KH")]
    assert len(doubled) == 1 and doubled[0]["points"] == -150
    assert len(doubled[0]["options"]) == 1 and doubled[0]["options"][0] in TREX_S5
    assert all("options" not in item for item in items if item not in doubled)
    assert sum(item["points"] for item in items) == -150  # nobody gained the 75


BALOOT = {
    "hokm_rounding": "both_sides",
    "doubled_award": "each_keeps_own",
    "doubled_kaboot": "flat",
    "projects_when_doubled": "times_multiplier",
    "projects_in_kaboot": "not_added",
}


def baloot_awards(client, redis_client, prefix, sid, token, game) -> list[dict[str, Any]]:
    """Each finished deal's award (``last_deal``) from the engine's replay of the log."""
    log = client.get(f"/v1/sessions/{sid}/log", headers=auth(token)).get_json()
    state = game.from_json(stored(redis_client, prefix, sid, "initial"))
    awards = []
    for entry in log["entries"]:
        actor = entry["seat"] if entry["seat"] is not None else game.to_act(state)
        state, events = game.apply(state, actor, game.parse_action(state, entry["action"]))
        if any(event["type"] == "points" for event in events):
            awards.append(game.to_json(state)["last_deal"])
    return awards


def test_baloot_award_under_the_house_rules(client, redis_client, prefix):
    """Seat 0 passes the bidding and doubles whenever it may; deals are played until an
    award names an option (at most 8; an award names one in about one deal in nine with
    these bots, so a run may end with none: the bots' bids are not seeded). Every deal's
    items on the sheet are the engine's replay's, only these options are ever named, and
    (S7 under `doubled_award: each_keeps_own`) a doubled deal the declarers win names
    `doubled_award` on every item. The named items' numbers are section 5a's worked
    examples, tested in tests/games/baloot/test_variants.py and over HTTP in
    tests/service/test_baloot_house_rules.py."""
    choose = prefer({"type": "double"}, {"type": "pass"})  # a bot buys, seat 0 doubles it
    options = {**BALOOT, "target_score": 1000}
    sid, token, game = play_first_deal(
        client, redis_client, prefix, "baloot", 4, options, 9, "random", choose, deals=8
    )
    sheet_items(client, redis_client, prefix, sid, token, game)  # every deal's = the engine's
    deals = sheet_deals(client, sid, token)
    assert all(named(items) <= set(BALOOT) for items in deals)
    awards = baloot_awards(client, redis_client, prefix, sid, token, game)
    assert [keyed_items("baloot", award["items"]) for award in awards[: len(deals)]] == deals
    for award in awards:
        made = award["multiplier"] >= 2 and award["winner"] == award["declarer_team"]
        if made and not award["kaboot"] and not award["gahwa"]:
            assert all("doubled_award" in item.get("options", []) for item in award["items"]), award


MARRIAGE = {"seen_payment": 4, "unseen_payment": 7, "dublee_bonus": 0, "unseen_maal": "kidnap"}


def test_marriage_settlement_names_the_money_options(client, redis_client, prefix):
    """Two players, both easy bots (seat 0's through its token), one deal: the session's
    score report after it is the engine's on the replayed log; the loser's game payment
    (seen or unseen) is 4 or 7, not 3 or 10 (dublee_bonus 0), and its item and the
    winner's receipt name the option behind it (R31). (Marriage itemises its settlement
    in the score report of the finished deal, not in a move's points events.)"""
    sid, token, game = play_first_deal(client, redis_client, prefix, "marriage", 2, MARRIAGE, 4, "easy", None)
    score = client.get(f"/play/api/sessions/{sid}/score", headers=auth(token))
    assert score.status_code == 200, score.get_json()
    items = score.get_json()["score"]["items"]
    log = client.get(f"/v1/sessions/{sid}/log", headers=auth(token)).get_json()
    state = game.from_json(stored(redis_client, prefix, sid, "initial"))
    for entry in log["entries"]:
        actor = entry["seat"] if entry["seat"] is not None else game.to_act(state)
        state, _ = game.apply(state, actor, game.parse_action(state, entry["action"]))
    same_items(items, game.score(state).items)
    (sheet,) = sheet_deals(client, sid, token)  # the match's one deal, on the sheet too
    same_items(sheet, items)
    payments = [item for item in items if item["item"].startswith("game payment to seat")]
    assert payments, f"the deal was void (turn limit): {items}"
    (payment,) = payments
    route = "seen_payment" if payment["points"] == -MARRIAGE["seen_payment"] else "unseen_payment"
    assert payment["points"] == -MARRIAGE[route]
    assert route in payment["options"]
    received = next(item for item in items if item["item"] == "game payments received")
    assert received["points"] == MARRIAGE[route] and route in received["options"]
    exchange = [item for item in items if item["item"] == "maal exchange"]
    assert len(exchange) == 2
    for item in exchange:  # kidnap is named exactly when the loser ended unseen (R29)
        assert ("unseen_maal" in item.get("options", [])) == (route == "unseen_payment")
