"""Baloot behind the engine's Game protocol."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from engine.checks import RNG_STATE_LIMIT
from engine.games.baloot import playout, rules
from engine.games.baloot.jsonio import VERBS, Loader, action_to_json, parse_action, to_json, view
from engine.games.baloot.options import OPTION_SPECS, compact
from engine.games.baloot.projects import project_set
from engine.games.baloot.sampling import make_sampler
from engine.games.baloot.state import State, blank, deal, engine_deal, project_pending, step
from engine.games.baloot.tables import (
    BIDDING,
    CHOOSE,
    CHOOSE_TRUMP,
    CODE,
    DEAL_OVER,
    DECLARE,
    DOUBLE,
    DOUBLE_LOCKED,
    DOUBLE_OPEN,
    DOUBLING,
    EKKA,
    FOUR,
    FOUR_LOCKED,
    FOUR_OPEN,
    GAHWA,
    HOKM,
    MATCH_OVER,
    NSLOTS,
    PASS,
    PASS_PROJECT,
    PHASE_NAMES,
    PLAY,
    SLOT,
    SUIT_OF,
    SUN,
    TRIPLE,
)
from engine.protocol import (
    JSON,
    SPECTATOR,
    Action,
    BadAction,
    Event,
    Game,
    IllegalAction,
    InvalidSetup,
    InvalidState,
    ScoreReport,
)

PACK_CODES = tuple(CODE)
_DOUBLING_TYPES = (DOUBLE_OPEN, DOUBLE_LOCKED, DOUBLE, TRIPLE, FOUR_OPEN, FOUR_LOCKED, FOUR, GAHWA)


class Baloot(Game[State]):
    """The Saudi partnership game (docs/rules/baloot.md)."""

    id = "baloot"
    title = "Baloot"
    player_counts = (4,)
    option_specs = OPTION_SPECS
    verbs = VERBS

    # ---- setup ---------------------------------------------------------------

    def new_state(
        self,
        players: int,
        options: Mapping[str, Any] | None = None,
        dealer: int = 0,
        *,
        seed: int | None = None,
        deck: list[str] | None = None,
        layout: JSON | None = None,
    ) -> State:
        self.check_players(players)
        self.check_dealer(4, dealer)
        if deck is not None and layout is not None:
            raise InvalidSetup("give a deck or a layout, not both", field="deck")
        if seed is not None and (
            isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < RNG_STATE_LIMIT
        ):
            # The seed is kept as the generator state, which the state JSON carries (engine.checks).
            raise InvalidSetup("seed must be a whole number from 0 to 2**63 - 1", field="seed")
        if layout is not None:
            if not isinstance(layout, Mapping):
                raise InvalidSetup("layout must be an object", field="layout")
            data = dict(layout)
            if options is not None:
                data.setdefault("options", dict(options))
            data.setdefault("dealer", dealer)
            st = Loader(self, data, layout=True, rng_state=seed).load()
            settle_layout(st)
            return st
        opts = compact(self.parse_options(options, players))
        if deck is not None:
            st = blank(opts, dealer, [0, 0], seed)
            deal(st, self.read_deck(deck, "deck", InvalidSetup))
            return st
        st = blank(opts, dealer, [0, 0], seed if seed is not None else random.Random().getrandbits(63))
        engine_deal(st)
        return st

    @staticmethod
    def read_deck(deck: Any, where: str, error: type) -> list[int]:
        """R1: a deck of the 32 cards, each once (codes, top first)."""
        if not isinstance(deck, (list, tuple)) or len(deck) != NSLOTS:
            raise error(f"{where} must list the 32 cards of the Baloot pack", field=where)
        slots = []
        for code in deck:
            if not isinstance(code, str) or code not in SLOT:
                raise error(f"{where}: no such card in the Baloot pack: {code!r}", field=where)
            slots.append(SLOT[code])
        if len(set(slots)) != NSLOTS:
            dup = next(CODE[p] for p in slots if slots.count(p) > 1)
            raise error(f"{where}: card {dup} appears twice", field=where)
        return slots

    # ---- the turn ------------------------------------------------------------

    def to_act(self, state: State) -> int | None:
        return state.to_act

    def phase(self, state: State) -> str:
        return PHASE_NAMES[state.phase]

    def deal_no(self, state: State) -> int:
        return state.deal_no

    def legal_actions(self, state: State) -> list[Action]:
        phase = state.phase
        if phase == PLAY:
            seat: int = state.to_act  # type: ignore[assignment]  # never None while playing
            if (
                state.trick_no == 1
                and not state.decided
                and state.psets[seat][0]
                and not state.declared[seat]
            ):
                return [DECLARE, PASS_PROJECT]
            hand = state.hands[seat]
            if state.table:
                tiers = rules.duties(
                    state.kind,
                    state.trump,
                    state.locked,
                    state.opts,
                    state.led,
                    len(state.table),
                    (state.win_seat ^ seat) & 1 == 0,
                    state.top_trump,
                    state.lead_ekka,
                )
                return rules.slots_of(rules.legal_mask(hand, tiers))  # type: ignore[return-value]
            if state.kind == HOKM:
                if state.locked:
                    hand = rules.legal_mask(
                        hand,
                        rules.duties(HOKM, state.trump, True, state.opts, -1, 0, False, 0, False),
                    )
                return rules.lead_actions(hand, HOKM, state.trump, state.played)  # type: ignore[return-value]
            return rules.slots_of(hand)  # type: ignore[return-value]
        if phase == BIDDING:
            return [a for a in rules.BID_ACTIONS if self._bid_why(state, a) is None]
        if phase == DOUBLING:
            return [
                a
                for a in rules.DOUBLING_ACTIONS
                if rules.double_error(a, kind=state.kind, step=state.dstep, opts=state.opts) is None
            ]
        if phase == CHOOSE_TRUMP:
            return [CHOOSE + s for s in range(4) if rules.trump_error(CHOOSE + s, state.candidate) is None]
        return []

    def _bid_why(self, state: State, action: int) -> rules.Why:
        seat: int = state.to_act  # type: ignore[assignment]  # never None while bidding
        return rules.bid_error(
            action,
            seat=seat,
            dealer=state.dealer,
            round_=state.round,
            stage=state.stage,
            candidate=state.candidate,
            hand=state.hands[seat],
            opts=state.opts,
        )

    def check_action(self, state: State, action: Action) -> None:
        why = self._why(state, action)
        if why is not None:
            raise IllegalAction(why[0], rule=why[1])

    def _why(self, state: State, action: Any) -> rules.Why:
        phase = state.phase
        name = PHASE_NAMES[phase]
        if isinstance(action, tuple):
            if phase != DEAL_OVER:
                return (f"not allowed in phase {name}", "R1")
            try:
                self.read_deck([CODE[p] for p in action[1:]], "deck", BadAction)
            except BadAction as err:
                return (err.message, "R1")
            return None
        if not isinstance(action, int) or isinstance(action, bool):
            return ("unknown action", "action")
        if phase == DEAL_OVER:
            return ("the deal is over", "E1")
        if phase == MATCH_OVER:
            return ("the match is over", "E2")
        if phase == PLAY:
            return self._play_why(state, action)
        if phase == BIDDING:
            if action in rules.BID_ACTIONS:
                return self._bid_why(state, action)
            return (f"not allowed in phase {name}", "R2")
        if phase == DOUBLING:
            if action == PASS or action in _DOUBLING_TYPES:
                return rules.double_error(action, kind=state.kind, step=state.dstep, opts=state.opts)
            return (f"not allowed in phase {name}", "R11")
        if CHOOSE <= action < CHOOSE + 4:
            return rules.trump_error(action, state.candidate)
        return (f"not allowed in phase {name}", "R8")

    def _play_why(self, state: State, action: int) -> rules.Why:
        seat: int = state.to_act  # type: ignore[assignment]
        pending = project_pending(state)
        if action == DECLARE:
            if not pending:
                return ("no project to declare", "R20")
            return None
        if action == PASS_PROJECT:
            if not pending:
                return ("pass is only for a project decision in trick 1: play a card", "R20")
            return None
        if (
            action in _DOUBLING_TYPES
            and state.kind == SUN
            and state.trick_no == 1
            and not state.table
            and not rules.sun_double_allowed(state.scores, state.bidder & 1, state.opts)
        ):
            return (rules.sun_double_refusal(state.opts), "R12")
        if action >= 64:
            return ("not allowed in phase play", "R13")
        if pending:
            return ("declare your project or pass before playing", "R20")
        p = action & 31
        hand = state.hands[seat]
        if not hand >> p & 1:
            return (f"card not in hand: {CODE[p]}", "R13")
        if action >= EKKA:
            why = rules.ekka_error(
                p, kind=state.kind, trump=state.trump, leading=not state.table, played=state.played
            )
            if why is not None:
                return why
        tiers = rules.duties(
            state.kind,
            state.trump,
            state.locked,
            state.opts,
            state.led if state.table else -1,
            len(state.table),
            (state.win_seat ^ seat) & 1 == 0,
            state.top_trump,
            state.lead_ekka,
        )
        return rules.play_error(hand, p, tiers, state.trump)

    def clone(self, state: State) -> State:
        return state.clone()

    def random_playout(self, start: State, state: State, rng: random.Random) -> None:
        """The generic loop's plays without its wrappers (``playout``)."""
        playout.random_playout(self.legal_actions, start, state, rng)

    def step(self, state: State, action: Action, events: list[Event] | None = None) -> None:
        step(state, action, events)

    # ---- actions as JSON -----------------------------------------------------

    def parse_action(self, state: State, data: Any) -> Action:
        action: Action = parse_action(data, state.phase)
        # R14: an "ekka": true on a led non-trump Ace is accepted and changes nothing.
        if (
            isinstance(action, int)
            and EKKA <= action < 64
            and state.phase == PLAY
            and not state.table
            and state.kind == HOKM
            and CODE[action - EKKA][0] == "A"
            and SUIT_OF[action - EKKA] != state.trump
        ):
            return action - EKKA
        return action

    def action_to_json(self, state: State, action: Action) -> JSON:
        return action_to_json(action)

    # ---- scores, views, JSON ---------------------------------------------------

    def score(self, state: State) -> ScoreReport:
        res = state.result
        finished = state.phase == MATCH_OVER
        current = state.phase in (DEAL_OVER, MATCH_OVER) and res is not None
        items = list(res["items"]) if current and res else []
        deal_points = list(res["adds"]) if current and res else [0, 0]
        extra: JSON = {
            "card_points": list(state.card_points),
            "tricks_won": list(state.tricks_won),
            "last_deal": res,
        }
        return ScoreReport(
            sides=[[0, 2], [1, 3]],
            scores=list(state.scores),
            deal_no=state.deal_no,
            deal_points=deal_points,
            items=items,
            finished=finished,
            winner=state.match_winner if state.match_winner >= 0 else None,
            extra=extra,
        )

    def to_json(self, state: State) -> JSON:
        return to_json(state)

    def from_json(self, data: Any) -> State:
        return Loader(self, data).load()

    def view(self, state: State, seat: int) -> JSON:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3:
            raise InvalidState("seat must be 0-3", field="seat")
        return view(state, seat)

    def public_view(self, state: State) -> JSON:
        # no seat is -1: every hand a count, no seat's trick-1 project pass (R20)
        out = view(state, SPECTATOR)
        out["seat"] = None
        return out

    def sampler(self, view: JSON) -> Callable[[random.Random], State]:
        return make_sampler(self, view)

    def info_key(self, state: State, seat: int) -> Hashable:
        hist = []
        node = state.history
        base = state.hist_base
        while node is not None and node is not base:
            node, (s, a) = node
            if a == PASS_PROJECT and s != seat:
                continue
            hist.append((s, len(a) if isinstance(a, tuple) else a))
        key: Hashable = (
            seat,
            state.hands[seat],
            tuple(hist),
            state.phase,
            state.to_act,
            state.dealer,
            state.deal_no,
            tuple(state.scores),
            state.candidate,
            state.cand_taken,
            len(state.stock),
            state.round,
            state.stage,
            state.hokm_bidder,
            state.kind,
            state.trump,
            state.bidder,
            state.mult,
            state.locked,
            state.gahwa,
            state.dstep if state.phase == DOUBLING else None,
            state.trick_no,
            state.leader,
            tuple(state.table),
            state.lead_ekka,
            state.tricks,
            state.extra_played,
            tuple(state.tricks_won),
            tuple(state.card_points),
            tuple(state.declared),
            state.decided if state.to_act == seat else None,
            tuple(state.revealed),
            state.proj_team,
            tuple(state.shown),
            state.baloot,
            state.kawesh,
            state.match_winner,
            state.rng_state is not None,
            repr(state.result),
            state.opts.raw,
        )
        return key

    # ---- invariants -------------------------------------------------------------

    def pack(self, state: State) -> list[str]:
        return list(PACK_CODES)

    def cards_in_play(self, state: State) -> list[str]:
        mask = 0
        for h in state.hands:
            mask |= h
        for p in state.stock:
            mask |= 1 << p
        if state.candidate >= 0 and not state.cand_taken:
            mask |= 1 << state.candidate
        for p in state.table:
            mask |= 1 << p
        mask |= state.played
        out = [CODE[p] for p in rules.slots_of(mask)]
        extra = (
            len(state.stock)
            + sum(h.bit_count() for h in state.hands)
            + len(state.table)
            + state.played.bit_count()
            + (1 if state.candidate >= 0 and not state.cand_taken else 0)
        )
        if extra != len(out):  # a card counted twice shows as a conservation failure
            out.append(out[0])
        return out

    def hidden_cards(self, state: State, seat: int) -> list[str]:
        known = public_known(state)
        mask = 0
        for s in range(4):
            if s != seat:
                mask |= state.hands[s]
        for p in state.stock:
            mask |= 1 << p
        return [CODE[p] for p in rules.slots_of(mask & ~known)]

    # ---- search support ----------------------------------------------------------

    def outcome(self, start: State, end: State) -> list[float]:
        if end.phase == MATCH_OVER and end.match_winner >= 0:
            return [1.0 if s & 1 == end.match_winner else 0.0 for s in range(4)]
        diff = (end.scores[0] - start.scores[0]) - (end.scores[1] - start.scores[1])
        v = 0.5 + 0.5 * math.tanh(diff / 26.0)
        return [v, 1.0 - v, v, 1.0 - v]


def public_known(state: State) -> int:
    """Cards in hands that every seat knows (the taken candidate, shown projects, a kawesh hand)."""
    known = 0
    if state.cand_taken and state.candidate >= 0:
        known |= 1 << state.candidate
    for g in state.shown:
        if g:
            for m in g:
                known |= m
    if state.kawesh is not None:
        known |= state.kawesh[1]
    return known


def settle_layout(st: State) -> None:
    """A layout in phase doubling whose contract allows no call starts play (R9 -> R13)."""
    from engine.games.baloot.state import start_play

    if (
        st.phase == DOUBLING
        and st.kind == SUN
        and st.mult == 1
        and not rules.sun_double_allowed(st.scores, st.bidder & 1, st.opts)
    ):
        start_play(st)
    if st.phase == PLAY:
        st.psets = [project_set(st.hands[s] | st.seat_played[s], st.kind) for s in range(4)]


GAME = Baloot()
