"""Issue 31 for Marriage: every option that changes money is named in the settlement's
itemised output when it is not at its default (docs/rules/marriage.md, section 11); with
the defaults the items read as before. The numbers are the worked examples' (E9, E10,
E11, E14) under each value."""

from __future__ import annotations

import pytest

from engine.games.marriage import scoring
from tests.games.marriage.test_examples import GAME, setup_state


def settle(base: str, options: dict):
    st = setup_state({"setup": {"continue": base, "options": options}})
    report = GAME.score(st)
    assert sum(i["points"] for i in report.items) == sum(report.deal_points) == 0
    return report


def items(report) -> list[tuple]:
    """(side, points, item), with the options the item names (``options``) as a fourth
    member when it names any."""
    return [
        (i["side"], i["points"], i["item"]) + ((i["options"],) if "options" in i else ())
        for i in report.items
    ]


def test_defaults_name_no_option():
    report = settle("E9", {})
    assert items(report) == [
        (0, -12, "maal exchange"),
        (1, 12, "maal exchange"),
        (1, -10, "game payment to seat 0"),
        (0, 10, "game payments received"),
    ]


@pytest.mark.parametrize(("value", "delta"), [("murder", [10, -10]), ("kidnap", [22, -22])])
def test_unseen_maal_is_named_in_the_exchange(value, delta):
    """Example 10: seat 1 ends unseen with maal 12."""
    report = settle("E9", {"unseen_maal": value})
    assert report.deal_points == delta
    exchange = [i for i in items(report) if i[2] == "maal exchange"]
    assert len(exchange) == 2 and all(i[3] == ["unseen_maal"] for i in exchange)


def test_payments_are_named():
    """E9 with unseen_payment 7: the unseen loser pays 7, not 10: deltas [-5, +5]."""
    report = settle("E9", {"unseen_payment": 7})
    assert report.deal_points == [-5, 5]
    assert items(report)[2:] == [
        (1, -7, "game payment to seat 0", ["unseen_payment"]),
        (0, 7, "game payments received", ["unseen_payment"]),
    ]


def test_seen_payment_is_named():
    """Example 14 (n = 4, M' = [8, 12, 15, 0], T = 35, seat 2 unseen) with seen_payment 4:
    g = [-, 4, 10, 4]; deltas 32 - 35 + 18 = 15, 48 - 35 - 4 = 9, 60 - 35 - 10 = 15,
    0 - 35 - 4 = -39."""
    report = settle("E14", {"seen_payment": 4})
    assert report.deal_points == [15, 9, 15, -39]
    payments = items(report)[4:]
    assert payments == [
        (1, -4, "game payment to seat 0", ["seen_payment"]),
        (2, -10, "game payment to seat 0"),
        (3, -4, "game payment to seat 0", ["seen_payment"]),
        (0, 18, "game payments received", ["seen_payment"]),
    ]


def test_dublee_bonus_is_named():
    """Example 11 (dublee finish) with dublee_bonus 0: deltas [1, -1, 0]."""
    report = settle("E11", {"dublee_bonus": 0})
    assert report.deal_points == [1, -1, 0]
    assert [i[2:] for i in items(report)[3:]] == [
        ("game payment to seat 0", ["dublee_bonus"]),
        ("game payment to seat 0", ["dublee_bonus"]),
        ("game payments received", ["dublee_bonus"]),
    ]


def test_alter_points_are_named_in_the_maal_items_and_the_exchange():
    """Example 14 with alter_points 5: seat 3 holds an alter: M' = [8, 12, 15, 5], T = 40;
    deltas 32 - 40 + 16 = 8, 48 - 40 - 3 = 5, 60 - 40 - 10 = 10, 20 - 40 - 3 = -23."""
    report = settle("E14", {"alter_points": 5})
    assert report.deal_points == [8, 5, 10, -23]
    assert report.to_json()["maal_items"][3] == [
        {"item": "1 alter", "points": 5, "options": ["alter_points"]}
    ]
    assert [i[2:] for i in items(report)[:4]] == [("maal exchange", ["alter_points"])] * 4


def test_men_are_named_by_their_options():
    st = GAME.new_state(3, {"man_cards": 3, "man_points": 7}, 0, seed=1)
    assert scoring.maal_item_notes(st, "2 man") == ["man_cards", "man_points"]
    st = GAME.new_state(3, {"man_cards": 3}, 0, seed=1)
    assert scoring.maal_item_notes(st, "1 man") == ["man_cards"]
    assert scoring.maal_item_notes(st, "1 tiplu") == []
