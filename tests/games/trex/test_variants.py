"""The house rules of docs/rules/trex.md, section 11 ("Variants"): each value's worked
example (the numbers of the document), a whole seeded match and a bot game under every
non-default value, and the refusals."""

from __future__ import annotations

import random

import pytest
from trex_helpers import GAME, kh_deal, layout, legal, play

from engine.protocol import InvalidSetup

OWN = "doubler_leads_and_takes"
OTHER = "doubled_card_taken_by_other"
AFTER = "doubler_takes_after_other_lead"
START = "trex_layout_start"


def run(state, *moves):
    for seat, short in moves:
        state = play(state, seat, short)
    return state


def deal_scores(state) -> list[int]:
    """The finished deal's scores (the deal ends at once when the doubled king is taken)."""
    return GAME.to_json(state)["deal_results"][-1]["scores"]


def items(state) -> list[tuple[int, int, str, list[str]]]:
    """The score report's items as (seat, points, item, the options it names)."""
    return [(i["seat"], i["points"], i["item"], i.get("options", [])) for i in GAME.score(state).items]


# ---------------------------------------------------------------- V1: another seat takes it (S5)


def example_4(options):
    """Example 4: seat 1 doubles KH; seat 3 wins it with QS on seat 0's spade lead."""
    s = kh_deal({"doubling": True, **options}, phase="doubling")
    s = run(s, (0, "pass"), (1, "double KH"), (1, "pass"), (2, "pass"), (3, "pass"))
    return run(s, (0, "2S"), (1, "KH"), (2, "9S"), (3, "QS"))


def test_v1_default_the_doubler_gains():
    s = example_4({})
    assert deal_scores(s) == [0, 75, 0, -150]


def test_v1_no_gain_only_the_taker_pays():
    s = example_4({OTHER: "no_gain"})
    assert deal_scores(s) == [0, 0, 0, -150]
    assert items(s)[-1] == (3, -150, "doubled KH", [OTHER])
    assert GAME.to_json(s)["match_scores"] == [0, 0, 0, -150]


@pytest.mark.parametrize(("options", "named"), [({}, []), ({OTHER: "no_gain"}, [OTHER])])
def test_the_points_event_names_the_option_as_the_score_does(options, named):
    """The move's ``points`` events and the score report's items are the same items: with
    the default no ``options`` key at all (the wire as before), else the option's name."""
    s = kh_deal({"doubling": True, **options}, phase="doubling")
    s = run(s, (0, "pass"), (1, "double KH"), (1, "pass"), (2, "pass"), (3, "pass"))
    s = run(s, (0, "2S"), (1, "KH"), (2, "9S"))
    s, events = GAME.apply(s, 3, GAME.parse_action(s, {"type": "play", "card": "QS"}))
    points = [e for e in events if e["type"] == "points"]
    taker = next(e for e in points if e["seat"] == 3)
    assert taker["item"] == "doubled KH" and taker.get("options", []) == named
    assert ("options" in taker) == bool(named)
    reported = [i for i in GAME.score(s).items if i["item"] == "doubled KH"]
    assert [i.get("options", []) for i in reported] == [named]


# ---------------------------------------------------------------- V2: the doubler takes it on another's lead


def example_5(options):
    """Example 5: seat 1 doubled KH and must follow seat 2's heart lead with it."""
    s = layout(
        options,
        deal_no=6,
        first_owner=3,
        dealer=0,
        contract="king_of_hearts",
        contracts_used=["king_of_hearts"],
        hands=[["7S", "8S", "9S"], ["KH", "5D", "6D"], ["4H", "6H", "9H"], ["2C", "3C", "4C"]],
        phase="tricks",
        doubled={"KH": 1},
        tricks_played=10,
        trick_leader=2,
    )
    return run(s, (2, "9H"), (3, "2C"), (0, "7S"), (1, "KH"))


def test_v2_default_the_leader_gains():
    assert deal_scores(example_5({})) == [0, -150, 75, 0]


def test_v2_no_gain_only_the_doubler_pays():
    s = example_5({AFTER: "no_gain"})
    assert deal_scores(s) == [0, -150, 0, 0]
    assert items(s)[-1] == (1, -150, "doubled KH taken by its doubler", [AFTER])


# ---------------------------------------------------------------- V3: the doubler leads it and takes it


def example_v3(options):
    """Seat 1 doubled KH, holds only hearts, leads KH on trick 11 and wins it."""
    s = layout(
        options,
        deal_no=6,
        first_owner=3,
        dealer=0,
        contract="king_of_hearts",
        contracts_used=["king_of_hearts"],
        hands=[["7S", "8S", "9S"], ["5H", "6H", "KH"], ["2C", "3C", "4C"], ["2D", "3D", "4D"]],
        phase="tricks",
        doubled={"KH": 1},
        tricks_played=10,
        trick_leader=1,
    )
    return run(s, (1, "KH"), (2, "2C"), (3, "2D"), (0, "7S"))


@pytest.mark.parametrize(
    ("value", "scores", "last"),
    [
        (None, [0, -75, 0, 0], [(1, -75, "doubled KH taken by its doubler", [])]),
        ("double_penalty", [0, -150, 0, 0], [(1, -150, "doubled KH led and taken by its doubler", [OWN])]),
        (
            "double_penalty_opponent_gains",
            [0, -150, 75, 0],
            [
                (1, -150, "doubled KH led and taken by its doubler", [OWN]),
                (2, 75, "doubled KH: bonus to the seat after the doubler", [OWN]),
            ],
        ),
    ],
)
def test_v3_doubler_leads_and_takes(value, scores, last):
    s = example_v3({} if value is None else {OWN: value})
    assert deal_scores(s) == scores
    assert items(s)[-len(last) :] == last


def test_v3_partnership_the_opposing_team_gains():
    s = example_v3({OWN: "double_penalty_opponent_gains", "partnership": True})
    report = GAME.score(s)
    assert report.scores == [75, -150]  # team {0,2}: seat 2 gains 75; team {1,3}: seat 1 loses 150


def test_v3_queen_led_and_taken_by_its_doubler():
    """Example 6's first trick (seat 2 leads its doubled QS and wins it): -25 / -50 / -50 +25."""
    hands = [
        ["4S", "5S", "8H", "9H", "TH", "JH", "KH", "AH", "4D", "7D", "8D", "9D", "QC"],
        ["6S", "7S", "8S", "9S", "TS", "JS", "4H", "AD", "9C", "TC", "JC", "KC", "AC"],
        ["QS", "KS", "AS", "2H", "5H", "TD", "JD", "QD", "KD", "2C", "6C", "7C", "8C"],
        ["2S", "3S", "3H", "6H", "7H", "QH", "2D", "3D", "5D", "6D", "3C", "4C", "5C"],
    ]
    got = []
    for value in (None, "double_penalty", "double_penalty_opponent_gains"):
        s = layout(
            {} if value is None else {OWN: value},
            deal_no=6,
            first_owner=1,
            dealer=2,
            contract="queens",
            contracts_used=["queens"],
            hands=hands,
            phase="doubling",
        )
        s = run(s, (2, "double QS"), (2, "pass"), (3, "pass"), (0, "pass"), (1, "pass"))
        s = run(s, (2, "QS"), (3, "2S"), (0, "4S"), (1, "6S"))
        got.append(GAME.to_json(s)["deal_scores"])
    assert got == [[0, 0, -25, 0], [0, 0, -50, 0], [0, 0, -50, 25]]


# ---------------------------------------------------------------- V4: the layout from the sevens (R14-R17)

E1_DECK = [r + s for s in "SHDC" for r in "23456789TJQKA"]


def example_1(options):
    s = GAME.new_state(4, options, 2, deck=E1_DECK)
    return play(s, 1, "choose trex")


def test_v4_default_builds_from_the_jacks():
    s = example_1({})
    assert legal(s) == [{"type": "play", "card": "JH"}]


def test_v4_sevens_the_seven_of_hearts_opens_then_the_other_sevens():
    s = example_1({START: "sevens"})
    assert legal(s) == [{"type": "play", "card": "7H"}]
    s = play(s, 1, "7H")
    assert legal(s) == [{"type": "play", "card": "8H"}, {"type": "play", "card": "7D"}]
    s = play(s, 2, "8H")
    assert legal(s) == [{"type": "play", "card": "9H"}, {"type": "play", "card": "7C"}]
    s = play(s, 3, "7C")
    assert legal(s) == [{"type": "play", "card": c} for c in ("7S", "6H", "8C")]
    s = play(s, 0, "6H")
    assert legal(s) == [{"type": "pass"}]  # seat 1: no seven, no 5H / 9H, no 6C / 8C
    js = GAME.to_json(s)
    assert js["layout"] == {
        "S": None,
        "H": {"low": "6", "high": "8"},
        "D": None,
        "C": {"low": "7", "high": "7"},
    }
    with pytest.raises(Exception, match="does not fit the layout"):
        play(s, 1, "JH")
    assert GAME.to_json(GAME.from_json(js)) == js


def test_v4_sevens_only_the_seven_of_hearts_while_the_layout_is_empty():
    """An owner without the seven of hearts passes; a jack never opens a suit."""
    s = example_1({START: "sevens"})
    js = GAME.to_json(s)
    assert js["to_act"] == 1
    for seat in (0, 2, 3):
        hand = js["hands"][seat]
        assert "7H" not in hand
    state = layout(
        {START: "sevens"},
        deal_no=6,
        first_owner=3,
        dealer=0,
        contract="trex",
        contracts_used=["trex"],
        hands=[E1_DECK[0:13], E1_DECK[13:26], E1_DECK[26:39], E1_DECK[39:52]],
    )
    assert legal(state) == [{"type": "pass"}]  # seat 0 (spades) to act: 7H is seat 1's
    state = play(state, 0, "pass")
    assert legal(state) == [{"type": "play", "card": "7H"}]


def test_v4_a_layout_without_the_seven_of_hearts_is_refused():
    with pytest.raises(Exception, match="seven of hearts opens"):
        layout(
            {START: "sevens"},
            deal_no=6,
            first_owner=3,
            dealer=0,
            contract="trex",
            contracts_used=["trex"],
            hands=[[c for c in E1_DECK[0:13] if c != "7S"], E1_DECK[13:26], E1_DECK[26:39], E1_DECK[39:52]],
            layout={"S": {"low": "7", "high": "7"}, "H": None, "D": None, "C": None},
        )


# ---------------------------------------------------------------- validation


@pytest.mark.parametrize("name", [OTHER, AFTER, OWN, START])
def test_unknown_value_is_refused_naming_the_allowed_ones(name):
    with pytest.raises(InvalidSetup) as err:
        GAME.new_state(4, {name: "nonsense"}, 0, seed=1)
    spec = next(o for o in GAME.option_specs if o.name == name)
    assert err.value.field == f"options.{name}"
    for choice in spec.choices:
        assert repr(choice) in err.value.message


@pytest.mark.parametrize("name", [AFTER, OWN])
def test_self_capture_house_rules_need_leader_bonus(name):
    value = next(o for o in GAME.option_specs if o.name == name).choices[1]
    with pytest.raises(InvalidSetup, match="needs self_capture_scoring leader_bonus"):
        GAME.new_state(4, {"self_capture_scoring": "single_penalty", name: value}, 0, seed=1)


def test_default_house_rules_are_not_written():
    js = GAME.to_json(GAME.new_state(4, None, 0, seed=3))
    assert not {OTHER, AFTER, OWN, START} & set(js["options"])
    js = GAME.to_json(GAME.new_state(4, {START: "sevens"}, 0, seed=3))
    assert js["options"][START] == "sevens" and OWN not in js["options"]


# ---------------------------------------------------------------- whole matches

TOTALS = {
    "king_of_hearts": -75,
    "queens": -100,
    "diamonds": -130,
    "collections": -195,
    "trex": 500,
    "complex": -500,
}
VALUES = {"KH": 75, "QS": 25, "QH": 25, "QD": 25, "QC": 25}
NON_DEFAULT = [
    {OTHER: "no_gain"},
    {AFTER: "no_gain"},
    {OWN: "double_penalty"},
    {OWN: "double_penalty_opponent_gains"},
    {START: "sevens"},
    {OTHER: "no_gain", AFTER: "no_gain", OWN: "double_penalty", "trex_complex": True},
]


def doubled_net(options: dict, v: int, d: int, w: int, leader: int) -> int:
    """What a doubled card of value ``v`` costs the table under ``options`` (section 11)."""
    if w != d:
        return -2 * v + (v if options.get(OTHER, "doubler_gains") == "doubler_gains" else 0)
    if leader != d:
        return -2 * v + (v if options.get(AFTER, "leader_gains") == "leader_gains" else 0)
    return {"single_penalty": -v, "double_penalty": -2 * v, "double_penalty_opponent_gains": -v}[
        options.get(OWN, "single_penalty")
    ]


@pytest.mark.parametrize("options", NON_DEFAULT, ids=lambda o: "-".join(str(v) for v in o.values()))
def test_seeded_match_keeps_the_invariants(options):
    """A whole random match: every deal sums to its contract's total plus what the doubled
    cards cost beyond their single value (worked out here from the tricks); the match
    totals are the deals' sums; the Trex deal pays 500 by finishing order; every state
    reads back as written; every seat owns one kingdom."""
    rng = random.Random(len(str(options)))
    s = GAME.new_state(4, options, 1, seed=7)
    doubled: dict[str, int] = {}
    extra = 0
    sums: list[int] = []
    for _ in range(5000):
        if GAME.to_act(s) is None:
            break
        js = GAME.to_json(s)
        assert GAME.to_json(GAME.from_json(js)) == js
        action = rng.choice(GAME.legal_actions(s))
        s, events = GAME.apply(s, GAME.to_act(s), action)
        for e in events:
            if e["type"] == "double":
                doubled[e["card"]] = e["seat"]
            elif e["type"] == "trick":
                for card in e["cards"]:
                    if card in doubled:
                        v = VALUES[card]
                        extra += doubled_net(options, v, doubled[card], e["winner"], e["leader"]) + v
            elif e["type"] == "deal_over":
                assert sum(e["scores"]) == TOTALS[e["contract"]] + extra
                if e["contract"] == "trex":
                    assert sorted(e["scores"]) == [50, 100, 150, 200]
                sums.append(sum(e["scores"]))
                doubled, extra = {}, 0
    js = GAME.to_json(s)
    assert js["phase"] == "match_over"
    assert sum(js["match_scores"]) == sum(sums)
    assert sorted({r["owner"] for r in js["deal_results"]}) == [0, 1, 2, 3]


@pytest.mark.parametrize("options", NON_DEFAULT[:5], ids=lambda o: "-".join(str(v) for v in o.values()))
def test_sampler_keeps_the_view_under_the_option(options):
    rng = random.Random(3)
    s = GAME.new_state(4, options, 0, seed=5)
    for _ in range(60):
        if GAME.to_act(s) is None:
            break
        s, _ = GAME.apply(s, GAME.to_act(s), rng.choice(GAME.legal_actions(s)))
        seat = GAME.to_act(s)
        if seat is not None:
            view = GAME.view(s, seat)
            world = GAME.sampler(view)(rng)
            assert GAME.view(world, seat) == view


@pytest.mark.parametrize(
    "options", [{START: "sevens"}, {OWN: "double_penalty_opponent_gains", OTHER: "no_gain"}]
)
def test_bot_game_under_the_option(options):
    """Easy and normal bots (small search budget) play the deals of one kingdom."""
    from ai.bots import decide  # noqa: PLC0415 (the engine's tests import the bots only here)

    s = GAME.new_state(4, {**options, "trex_complex": True}, 0, seed=11)
    for turn in range(400):
        seat = GAME.to_act(s)
        if seat is None or GAME.to_json(s)["deal_no"] > 2:
            break
        level = "easy" if seat % 2 else "normal"
        decision = decide(GAME, GAME.view(s, seat), level=level, seed=turn, max_iterations=20)
        s, _ = GAME.apply(s, seat, decision.action)
    assert GAME.to_json(s)["deal_no"] > 2


SEQ = "23456789TJQKA"


def _fitting_from_sevens(layout: dict) -> set[str]:
    """V4 from the JSON layout (this test's own reading): the seven of hearts alone while
    the layout is empty; then each closed suit's seven and the cards next to the open ranges."""
    if all(run is None for run in layout.values()):
        return {"7H"}
    out = set()
    for suit, run in layout.items():
        if run is None:
            out.add("7" + suit)
            continue
        lo, hi = SEQ.index(run["low"]), SEQ.index(run["high"])
        if lo > 0:
            out.add(SEQ[lo - 1] + suit)
        if hi < 12:
            out.add(SEQ[hi + 1] + suit)
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_v4_sevens_legal_moves_and_the_sampler_follow_the_passes(seed):
    """Every turn's legal plays are the held cards that fit (this test's reading of V4), a
    pass only when none fits; a sampled world never gives a seat a card that fitted when it
    passed (section 7)."""
    rng = random.Random(seed)
    state = GAME.new_state(4, {START: "sevens"}, 0, seed=seed)
    state = play(state, GAME.to_act(state), "choose trex")
    excluded: list[set[str]] = [set(), set(), set(), set()]
    for _ in range(40):
        if GAME.phase(state) != "layout":
            break
        js = GAME.to_json(state)
        seat = GAME.to_act(state)
        fits = _fitting_from_sevens(js["layout"]) & set(js["hands"][seat])
        got = legal(state)
        if fits:
            assert sorted(a["card"] for a in got) == sorted(fits)
        else:
            assert got == [{"type": "pass"}]
            excluded[seat] |= _fitting_from_sevens(js["layout"])
        state = play(state, seat, got[int(rng.random() * len(got))])
    assert any(excluded)
    for seat in range(4):
        sample = GAME.sampler(GAME.view(state, seat))
        for _ in range(3):
            hands = GAME.to_json(sample(rng))["hands"]
            for other in range(4):
                if other != seat:
                    assert not set(hands[other]) & excluded[other]
