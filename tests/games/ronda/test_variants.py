"""The house rules of docs/rules/ronda.md, "Variants": each value's worked example, a
seeded match and a bot game under every non-default value, and the refusals."""

from __future__ import annotations

import random

import pytest
from ronda_helpers import GAME, L, facts, lay, run

from engine.protocol import InvalidSetup

PASS = "pass"
RONDA = {"type": "declare", "combo": "ronda"}


STAYS = ["este_capturing_card"]
ANY = ["chain_bonus_players"]
VALUES = ["chain_bonus_values"]


def items(state) -> list[tuple]:
    """The score report's items as (side, points, item), with the options an item names
    (its ``options``) as a fourth member when it names any."""
    return [
        (i["side"], i["points"], i["item"]) + ((i["options"],) if "options" in i else ())
        for i in GAME.score(state).items
    ]


def points_events(events) -> list[tuple]:
    """The ``points`` events of moves in the same shape as ``items``."""
    return [
        (e["side"], e["points"], e["item"]) + ((e["options"],) if "options" in e else ())
        for e in events
        if e["type"] == "points"
    ]


# ---------------------------------------------------------------- V1: este_capturing_card (R21, R23, R24)


def este_that_empties_the_table(value: str | None):
    """Example V1: seat 1 drops QH on KD; seat 0's QS takes QH (este) and KD (run)."""
    options = {} if value is None else {"este_capturing_card": value}
    s = lay(2, 0, ["QS 4C 7H", "QH 2C 6S"], "KD", "3S 3H 4D 6C JH JD", options=options)
    s, _ = run(s, (1, PASS), (0, PASS), (1, "QH"), (0, "QS"))
    return s


def test_v1_default_both_cards_taken_and_the_emptied_table_is_a_missa():
    s = este_that_empties_the_table(None)
    js = facts(s)
    assert js["scores"] == [2, 0] and js["table"] == []
    assert set(L("QS QH KD")) <= set(js["piles"][0])
    assert items(s) == [(0, 1, "este"), (0, 1, "missa")]


def test_v1_stays_on_table_the_capturing_card_stays_so_no_missa():
    s = este_that_empties_the_table("stays_on_table")
    js = facts(s)
    assert js["scores"] == [1, 0] and js["table"] == ["QS"]
    assert "QS" not in js["piles"][0] and set(L("QH KD")) <= set(js["piles"][0])
    assert js["last_drop"] is None  # the card that stayed is no drop: matching it is no este
    assert items(s) == [(0, 1, "este", STAYS)]
    assert js["options"]["este_capturing_card"] == "stays_on_table"


@pytest.mark.parametrize("value", ["taken", "stays_on_table"])
def test_v1_a_bkhamsa_claims_the_card_that_stayed(value):
    """Three players: 0 drops QS, 1's QH takes it (este) with KD, 2's QD claims b'khamsa."""
    s = lay(3, 2, ["QS 4C 7H", "QH 2C 6S", "QD 3D JS"], "KD 4S", "", options={"este_capturing_card": value})
    s, _ = run(s, (0, PASS), (1, PASS), (2, PASS), (0, "QS"), (1, "QH"))
    assert facts(s)["table"] == (L("4S QH") if value == "stays_on_table" else L("4S"))
    s, _ = run(s, (2, "QD"))
    js = facts(s)
    assert js["scores"] == [0, 1, 5] and js["table"] == ["4S"] and js["chain"]["level"] == 2
    assert set(L("QS QH KD QD")) <= set(js["piles"][2])


# ---------------------------------------------------------------- V2/V3: the chain bonuses (R24)


def two_player_chain(options: dict):
    """Example V2: two players, each holding a pair of queens (both declare ronda)."""
    s = lay(2, 0, ["QS QC 7H", "QH QD 6S"], "KD 2S", "3S 3H 4D 6C JH JD", options=options)
    return run(s, (1, RONDA), (0, RONDA), (1, PASS), (0, PASS), (1, "QH"), (0, "QS"), (1, "QD"), (0, "QC"))


def test_v2_default_two_players_have_no_chain():
    s, _ = two_player_chain({})
    js = facts(s)
    # 1: QH drop; 0: QS este (+KD); 1: QD an ordinary drop; 0: QC este again
    assert js["scores"] == [2, 0] and js["table"] == ["2S"]


@pytest.mark.parametrize(("values", "achra"), [("5_then_10", 10), ("5_then_11", 11)])
def test_v2_any_players_two_player_bkhamsa_then_bachra(values, achra):
    s, events = two_player_chain({"chain_bonus_players": "any", "chain_bonus_values": values})
    js = facts(s)
    assert js["scores"] == [1 + achra, 5] and js["table"] == ["2S"] and js["chain"]["level"] == 3
    want = [
        (0, 1, "este"),
        (1, 5, "b'khamsa", ANY),
        (0, achra, "b'achra", ANY + VALUES * (achra == 11)),
    ]
    assert items(s) == want
    assert points_events(events)[-3:] == want  # the moves' events name them as the score does


def four_player_chain(values: str | None):
    """Example V3: four players, este on an empty table, then b'khamsa and b'achra."""
    options = {} if values is None else {"chain_bonus_values": values}
    s = lay(4, 3, ["QS 2C 3D", "QH 4C 5D", "QD 5C 6D", "QC 7C 7D"], "", "", options=options)
    s, _ = run(s, *[(t, PASS) for t in range(4)], (0, "QS"), (1, "QH"), (2, "QD"), (3, "QC"))
    return s


@pytest.mark.parametrize("values", [None, "5_then_11"])
def test_v3_four_players_chain_values(values):
    s = four_player_chain(values)
    js = facts(s)
    achra = 11 if values == "5_then_11" else 10
    # este + missa = 2 (side 1), b'khamsa + missa = 6 (side 0), b'achra + missa (side 1)
    assert js["scores"] == [6, 2 + achra + 1]
    got = items(s)
    assert got[-2:] == [
        (1, achra, "b'achra", VALUES) if values else (1, achra, "b'achra"),
        (1, 1, "missa"),
    ]


def test_v3_three_players_any_allows_bachra():
    s = lay(3, 2, ["QS QC 7H", "QH 2C 6S", "QD 3D JS"], "KD 4S", "", options={"chain_bonus_players": "any"})
    s, _ = run(s, (0, RONDA), (1, PASS), (2, PASS), (0, "QS"), (1, "QH"), (2, "QD"), (0, "QC"))
    js = facts(s)
    # seat 0: its genuine ronda, alone declared (R15) 1, then b'achra 10; seat 1: este; seat 2: b'khamsa
    assert js["scores"] == [11, 1, 5] and js["chain"]["level"] == 3 and js["table"] == ["4S"]
    # three players: b'khamsa is the default's too, only b'achra needs chain_bonus_players
    assert items(s)[-3:] == [(1, 1, "este"), (2, 5, "b'khamsa"), (0, 10, "b'achra", ANY)]


# ---------------------------------------------------------------- validation, wire


@pytest.mark.parametrize("name", ["este_capturing_card", "chain_bonus_players", "chain_bonus_values"])
def test_unknown_value_is_refused_naming_the_allowed_ones(name):
    with pytest.raises(InvalidSetup) as err:
        GAME.new_state(3, {name: "nonsense"}, 0, seed=1)
    spec = next(o for o in GAME.option_specs if o.name == name)
    assert err.value.field == f"options.{name}"
    for choice in spec.choices:
        assert repr(choice) in err.value.message


def test_default_house_rules_are_not_written_but_other_values_are():
    s = GAME.new_state(2, None, 0, seed=3)
    assert "este_capturing_card" not in facts(s)["options"]
    s = GAME.new_state(2, {"chain_bonus_values": "5_then_11"}, 0, seed=3)
    assert facts(s)["options"]["chain_bonus_values"] == "5_then_11"
    again = GAME.from_json(facts(s))
    assert GAME.to_json(again) == facts(s)


# ---------------------------------------------------------------- whole matches

NON_DEFAULT = [
    {"este_capturing_card": "stays_on_table"},
    {"chain_bonus_players": "any"},
    {"chain_bonus_values": "5_then_11"},
]


@pytest.mark.parametrize("options", NON_DEFAULT, ids=lambda o: "-".join(map(str, o.values())))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_seeded_match_keeps_the_invariants(options, players):
    """A whole random match: every state loads back; 40 cards always; the deal's items add
    up to its points; the table never holds two cards of a rank; the match ends with a winner."""
    rng = random.Random(players * 7 + len(str(options)))
    s = GAME.new_state(players, {**options, "target_score": 11}, 0, seed=players)
    for _ in range(5000):
        if GAME.to_act(s) is None:
            break
        js = facts(s)
        cards = sum(len(h) if isinstance(h, list) else h for h in js["hands"]) + len(js["table"])
        cards += len(js["stock"]) + sum(len(p) for p in js["piles"])
        assert cards == 40
        assert len({c[0] for c in js["table"]}) == len(js["table"])  # R7/R19: one card per rank
        assert GAME.to_json(GAME.from_json(js)) == js
        acts = GAME.legal_actions(s)
        s, _ = GAME.apply(s, GAME.to_act(s), rng.choice(acts))
        report = GAME.score(s)
        for side, points in enumerate(report.deal_points):
            assert points == sum(i["points"] for i in report.items if i["side"] == side)
    assert GAME.to_act(s) is None and facts(s)["winner"] is not None  # R32, or a genuine challenge (R13)


@pytest.mark.parametrize("options", NON_DEFAULT, ids=lambda o: "-".join(map(str, o.values())))
def test_bot_game_under_the_option(options):
    """Easy and normal bots (small search budget) play a short match under the option."""
    from ai.bots import decide  # noqa: PLC0415 (the engine's tests import the bots only here)

    s = GAME.new_state(3, {**options, "target_score": 5}, 0, seed=11)
    for turn in range(400):
        seat = GAME.to_act(s)
        if seat is None:
            break
        level = "easy" if seat else "normal"
        decision = decide(GAME, GAME.view(s, seat), level=level, seed=turn, max_iterations=30)
        s, _ = GAME.apply(s, seat, decision.action)
    assert GAME.to_act(s) is None


@pytest.mark.parametrize("options", NON_DEFAULT, ids=lambda o: "-".join(map(str, o.values())))
def test_sampled_worlds_keep_the_view(options):
    rng = random.Random(9)
    s = GAME.new_state(3, {**options, "target_score": 11}, 0, seed=4)
    for _ in range(120):
        seat = GAME.to_act(s)
        if seat is None:
            break
        view = GAME.view(s, seat)
        world = GAME.sampler(view)(rng)
        assert GAME.view(world, seat) == view
        s, _ = GAME.apply(s, seat, rng.choice(GAME.legal_actions(s)))
