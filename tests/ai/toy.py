"""A tiny hidden-card trick game implementing the Game protocol, for testing the bots.

Pack: two suits (spades, hearts) of four ranks each (2 3 4 5, 5 high) = 8 cards.
Two seats, HAND cards each, the rest lie face down and are never seen. Seat
``(dealer + 1) % 2`` leads the first trick; the other seat must follow suit when able;
the higher card of the led suit wins, and the winner leads the next trick. The match is
a single deal: one point per trick, the reward of a seat is its share of the tricks.

Worked position (used by the tests): seat 0 holds 5S and 2H and leads. Leading 5S wins
1 + P(seat 1 has no heart) = 1 + 3/15 = 1.2 tricks on average; leading 2H wins only
(3 * 2 + 9 * 1 + 3 * 0) / 15 = 1.0 trick. Best: 5S.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from engine.cards import card_code, parse_card, suit_of
from engine.protocol import (
    BadAction,
    Game,
    IllegalAction,
    InvalidState,
    OptionSpec,
    ScoreReport,
)

PACK: tuple[int, ...] = tuple(r * 4 + s for r in (1, 2, 3, 4) for s in (0, 1))
HAND = 2


class ToyState:
    __slots__ = ("hands", "hidden", "trick", "leader", "to_act", "tricks", "history", "dealer")

    def __init__(self) -> None:
        self.hands: list[list[int]] = [[], []]
        self.hidden: list[int] = []
        self.trick: list[int] = []  # cards of the current trick, leader first
        self.leader = 0
        self.to_act: int | None = 0
        self.tricks = [0, 0]
        self.history: list[tuple[int, int]] = []
        self.dealer = 0


class ToyGame(Game[ToyState]):
    id = "toy"
    title = "Toy tricks"
    player_counts = (2,)
    option_specs: tuple[OptionSpec, ...] = ()
    verbs = {"play": "play a card"}

    def __init__(self, suits: int = 2, ranks: int = 4, hand: int = HAND) -> None:
        """The default is the 8-card game of the module doc; bigger packs give the arena
        test a game where skill shows (ranks from 2 upwards, suits S H D C)."""
        self.cards: tuple[int, ...] = tuple(r * 4 + s for r in range(1, ranks + 1) for s in range(suits))
        self.hand = hand

    # ---- setup
    def new_state(
        self,
        players: int,
        options: Mapping[str, Any] | None = None,
        dealer: int = 0,
        *,
        seed: int | None = None,
        deck: list[str] | None = None,
        layout: dict[str, Any] | None = None,
    ) -> ToyState:
        self.check_players(players)
        if deck is not None:
            cards = [parse_card(c) for c in deck]
        else:
            cards = list(self.cards)
            random.Random(seed).shuffle(cards)
        st = ToyState()
        st.dealer = dealer
        n = self.hand
        st.hands = [sorted(cards[0:n]), sorted(cards[n : 2 * n])]
        st.hidden = sorted(cards[2 * n :])
        st.leader = st.to_act = (dealer + 1) % 2
        return st

    # ---- turn
    def to_act(self, state: ToyState) -> int | None:
        return state.to_act

    def phase(self, state: ToyState) -> str:
        return "play" if state.to_act is not None else "over"

    def deal_no(self, state: ToyState) -> int:
        return 1

    def legal_actions(self, state: ToyState) -> list[Hashable]:
        if state.to_act is None:
            return []
        hand = state.hands[state.to_act]
        if state.trick:
            led = suit_of(state.trick[0])
            follow = [c for c in hand if suit_of(c) == led]
            if follow:
                return list(follow)
        return list(hand)

    def check_action(self, state: ToyState, action: Hashable) -> None:
        if action not in self.legal_actions(state):
            raise IllegalAction("you must follow suit with a card you hold", rule="T1")

    def clone(self, state: ToyState) -> ToyState:
        st = ToyState()
        st.hands = [state.hands[0][:], state.hands[1][:]]
        st.hidden = state.hidden
        st.trick = state.trick[:]
        st.leader = state.leader
        st.to_act = state.to_act
        st.tricks = state.tricks[:]
        st.history = state.history[:]
        st.dealer = state.dealer
        return st

    def step(self, state: ToyState, action: Hashable, events: list[dict[str, Any]] | None = None) -> None:
        seat = state.to_act
        assert seat is not None and isinstance(action, int)
        state.hands[seat].remove(action)
        state.trick.append(action)
        state.history.append((seat, action))
        if len(state.trick) == 1:
            state.to_act = 1 - seat
            return
        lead, follow = state.trick
        winner = state.leader
        if suit_of(follow) == suit_of(lead) and follow > lead:
            winner = 1 - state.leader
        state.tricks[winner] += 1
        state.trick = []
        state.leader = winner
        state.to_act = winner if state.hands[winner] else None
        if events is not None:
            events.append({"type": "trick", "winner": winner})

    # ---- actions as JSON
    def parse_action(self, state: ToyState, data: Any) -> Hashable:
        if not isinstance(data, dict) or data.get("type") != "play":
            raise BadAction("expected {type: play, card}")
        try:
            card = parse_card(data.get("card"))
        except Exception as exc:  # noqa: BLE001
            raise BadAction(str(exc), field="card") from None
        if card not in self.cards:
            raise BadAction(f"no such card in the toy pack: {data.get('card')}", field="card")
        return card

    def action_to_json(self, state: ToyState, action: Hashable) -> dict[str, Any]:
        assert isinstance(action, int)
        return {"type": "play", "card": card_code(action)}

    # ---- scores and JSON
    def score(self, state: ToyState) -> ScoreReport:
        over = state.to_act is None
        winner = None
        if over and state.tricks[0] != state.tricks[1]:
            winner = 0 if state.tricks[0] > state.tricks[1] else 1
        return ScoreReport(
            sides=[[0], [1]],
            scores=list(state.tricks),
            deal_no=1,
            deal_points=list(state.tricks),
            items=[{"side": s, "points": state.tricks[s], "item": "tricks", "rule": "T2"} for s in (0, 1)],
            finished=over,
            winner=winner,
        )

    def to_json(self, state: ToyState) -> dict[str, Any]:
        return {
            "game": "toy",
            "version": 1,
            "options": {},
            "players": 2,
            "dealer": state.dealer,
            "phase": self.phase(state),
            "to_act": state.to_act,
            "scores": list(state.tricks),
            "deal_no": 1,
            "history": [{"seat": s, "action": self.action_to_json(state, c)} for s, c in state.history],
            "rng_state": None,
            "hands": [[card_code(c) for c in h] for h in state.hands],
            "hidden": [card_code(c) for c in state.hidden],
            "trick": [card_code(c) for c in state.trick],
            "leader": state.leader,
        }

    def from_json(self, data: Any) -> ToyState:
        try:
            st = ToyState()
            st.dealer = data["dealer"]
            st.to_act = data["to_act"]
            st.tricks = list(data["scores"])
            st.leader = data["leader"]
            st.hands = [sorted(parse_card(c) for c in h) for h in data["hands"]]
            st.hidden = sorted(parse_card(c) for c in data["hidden"])
            st.trick = [parse_card(c) for c in data["trick"]]
            st.history = [(e["seat"], parse_card(e["action"]["card"])) for e in data["history"]]
        except Exception as exc:  # noqa: BLE001
            raise InvalidState(f"bad toy state: {exc}") from None
        return st

    def view(self, state: ToyState, seat: int) -> dict[str, Any]:
        data = self.to_json(state)
        del data["rng_state"]
        data["seat"] = seat
        data["hands"] = [h if i == seat else len(h) for i, h in enumerate(data["hands"])]
        data["hidden"] = len(data["hidden"])
        return data

    def sampler(self, view: dict[str, Any]) -> Callable[[random.Random], ToyState]:
        """Deal the unseen cards so that a seat that failed to follow a suit holds none of it."""
        try:
            seat = view["seat"]
            other = 1 - seat
            own = sorted(parse_card(c) for c in view["hands"][seat])
            other_count = view["hands"][other]
            played = [parse_card(e["action"]["card"]) for e in view["history"]]
            base = self.from_json({**view, "hands": [[], []], "hidden": []})
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            raise InvalidState(f"bad toy view: {exc}") from None
        # voids: the follower of a trick who played another suit than the led one
        voids: set[int] = set()
        hist = view["history"]
        for i in range(0, len(hist) - 1, 2):
            lead = parse_card(hist[i]["action"]["card"])
            follow = parse_card(hist[i + 1]["action"]["card"])
            if suit_of(follow) != suit_of(lead) and hist[i + 1]["seat"] == other:
                voids.add(suit_of(lead))
        unseen = [c for c in self.cards if c not in own and c not in played]

        def sample(rng: random.Random) -> ToyState:
            while True:
                cards = unseen[:]
                rng.shuffle(cards)
                theirs = cards[:other_count]
                if all(suit_of(c) not in voids for c in theirs):
                    break
            st = self.clone(base)
            st.hands = [[], []]
            st.hands[seat] = own[:]
            st.hands[other] = sorted(theirs)
            st.hidden = sorted(cards[other_count:])
            return st

        return sample

    def info_key(self, state: ToyState, seat: int) -> Hashable:
        return (seat, tuple(state.hands[seat]), tuple(state.history))

    def pack(self, state: ToyState) -> list[str]:
        return [card_code(c) for c in self.cards]

    def cards_in_play(self, state: ToyState) -> list[str]:
        cards = state.hands[0] + state.hands[1] + state.hidden + [c for _, c in state.history]
        return [card_code(c) for c in cards]

    def hidden_cards(self, state: ToyState, seat: int) -> list[str]:
        return [card_code(c) for c in state.hands[1 - seat] + state.hidden]

    def outcome(self, start: ToyState, end: ToyState) -> list[float]:
        gained = [end.tricks[s] - start.tricks[s] for s in (0, 1)]
        total = sum(gained) or 1
        return [gained[0] / total, gained[1] / total]


GAME = ToyGame()


def position(
    own: list[str], theirs: list[str], seat: int = 0, history: list[tuple[int, str]] = ()
) -> ToyState:  # type: ignore[assignment]
    """A state where ``seat`` holds ``own`` and the other seat ``theirs`` (after replaying
    ``history``: (seat, card) pairs that were held before and are played now)."""
    st = ToyState()
    st.dealer = 1 - seat if not history else 1 - history[0][0]
    st.leader = st.to_act = (st.dealer + 1) % 2
    hands: list[list[int]] = [[], []]
    hands[seat] = [parse_card(c) for c in own]
    hands[1 - seat] = [parse_card(c) for c in theirs]
    for s, c in history:
        hands[s].append(parse_card(c))
    st.hands = [sorted(h) for h in hands]
    used = set(st.hands[0]) | set(st.hands[1])
    st.hidden = [c for c in PACK if c not in used]
    for s, c in history:
        assert GAME.to_act(st) == s
        GAME.step(st, parse_card(c))
    return st
