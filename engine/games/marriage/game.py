"""Marriage (Nepal) behind the engine's Game protocol."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from engine.protocol import (
    JSON,
    SPECTATOR,
    EngineError,
    Event,
    Game,
    IllegalAction,
    InvalidSetup,
    InvalidState,
    ScoreReport,
)

from . import codec, hand_eval
from . import play as P
from . import rules as R
from . import state as S
from .rules import ALL_CODES, NCODES, XX
from .state import OPTION_SPECS, OVER, UNSEEN, MState, Options, entry_card

PLAYOUT_TURNS = 4
"""A search playout (and the tree below the root) stops this many completed turns after
the searched position, or at the end of the deal if sooner; ``outcome`` then values the
hands with the fitted evaluation of :func:`hand_eval.leaf_value`. A Marriage deal played
out at random lasts hundreds of turns and rarely finishes: cut short, an iteration costs
tens of microseconds instead of milliseconds."""


class Marriage(Game[MState]):
    id = "marriage"
    title = "Marriage (Nepal)"
    player_counts = (2, 3, 4, 5)
    option_specs = OPTION_SPECS
    verbs = {
        "expose_tunnela": "R9: show a tunnela (three identical cards) at the deal",
        "pass": "R9: done exposing tunnelas",
        "draw_stock": "R10: take the top card of the stock",
        "take_discard": "R10: take the top card of the discard pile",
        "discard": "R18: end the turn by discarding a card",
        "show": "R12: show three pure sets (less exposed tunnelas) to see the joker",
        "show_dublees": "R13: show seven dublees (less exposed tunnelas) to see the joker",
        "pick_tiplu": "R14: the first seer picks the tiplu from the stock by index",
        "finish": "R15: lay down the remaining sets and discard one card",
        "finish_dublees": "R16: show the eighth dublee and discard one card",
        "deal": "R2: a caller-dealt match's next deck (top first)",
    }

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
    ) -> MState:
        n = self.check_players(players)
        opts = self.parse_options(options, n)
        self.check_dealer(n, dealer)
        if deck is not None and layout is not None:
            raise InvalidSetup("give a deck or a layout, not both", field="deck")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise InvalidSetup("seed must be a whole number", field="seed")
        if layout is not None:
            try:
                data = codec.layout_to_json(layout, self, n, opts, dealer, seed)
            except EngineError:
                raise
            except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
                raise InvalidState(f"not a Marriage layout: {exc}", field="layout") from None
            return self._load(data, canonical=False)
        st = MState.__new__(MState)
        st.n, st.options, st.opts = n, opts, Options.of(opts)
        st.totals, st.deal_no, st.hist, st.hkey, st.hlen = [0] * n, 1, None, 0, 0
        st.maal = st.delta = None
        st.result_deal = 0
        st.over = False
        if deck is not None:
            if seed is not None:
                raise InvalidSetup("give a seed or a deck, not both", field="seed")
            if not isinstance(deck, list):
                raise InvalidSetup("deck must be a list of card codes", field="deck")
            cards = []
            for i, code in enumerate(deck):
                card = R.CODE_TO_CARD.get(code) if isinstance(code, str) else None
                if card is None or (card == XX and not st.opts.man_cards):
                    raise InvalidSetup(
                        f"deck[{i}]: no such card in the Marriage pack: {code!r}", field="deck"
                    )
                cards.append(card)
            if sorted(cards) != R.pack_cards(st.opts.man_cards):
                raise InvalidSetup(
                    f"deck must hold every card of the {len(R.pack_cards(st.opts.man_cards))}"
                    "-card pack "
                    "exactly as often as the pack does",
                    field="deck",
                )
            st.rng_state, st.caller = None, True
        else:
            st.rng_state, st.caller = (0 if seed is None else seed), False
            cards = P.shuffled_deck(st)
        P.deal_deck(st, cards, dealer)
        return st

    # ---- the turn ------------------------------------------------------------

    def to_act(self, state: MState) -> int | None:
        return state.cur

    def phase(self, state: MState) -> str:
        return ("expose", "draw", "act", "pick_tiplu", "deal_over")[state.phase]

    def deal_no(self, state: MState) -> int:
        return state.deal_no

    def legal_actions(self, state: MState) -> list[Any]:
        return P.legal_actions(state)

    def check_action(self, state: MState, action: Any) -> None:
        if not _well_formed(action):
            raise IllegalAction("not a Marriage action", rule="R23")
        P.check_action(state, action, getattr(action, "raw", None))

    def clone(self, state: MState) -> MState:
        return state.copy()

    def step(self, state: MState, action: Any, events: list[Event] | None = None) -> None:
        P.step(state, action, events)

    # ---- actions as JSON -----------------------------------------------------

    def parse_action(self, state: MState, data: Any) -> Any:
        return codec.parse_action(data, state.opts.man_cards)[0]

    def action_to_json(self, state: MState, action: Any) -> JSON:
        return codec.action_to_json(action)

    # ---- scores, views, JSON ---------------------------------------------------

    def score(self, state: MState) -> ScoreReport:
        n = state.n
        items: list[JSON] = []
        extra: JSON = {"maal": state.maal, "void": False}
        deal_points = list(state.delta) if state.delta is not None else [0] * n
        deal_no = state.result_deal or state.deal_no
        finished_deal = state.phase == OVER and state.winner >= 0
        if finished_deal:
            maal, delta, maal_items = P.settle(state)
            total = sum(maal)
            g_total = 0
            for s in range(n):
                items.append(
                    {
                        "side": s,
                        "points": n * maal[s] - total,
                        "item": "maal exchange",
                        "rule": "R30",
                    }
                )
            for s in range(n):
                if s == state.winner:
                    continue
                g = delta[s] - (n * maal[s] - total)
                g_total -= g
                items.append(
                    {
                        "side": s,
                        "points": g,
                        "item": f"game payment to seat {state.winner}",
                        "rule": "R31",
                    }
                )
            items.append(
                {
                    "side": state.winner,
                    "points": g_total,
                    "item": "game payments received",
                    "rule": "R31",
                }
            )
            extra["maal_items"] = [[{"item": name, "points": v} for name, v in its] for its in maal_items]
            extra["finish_kind"] = ("sets", "dublees")[state.fkind - 1]
            deal_points = delta
        elif state.delta is not None:
            for s in range(n):
                items.append(
                    {
                        "side": s,
                        "points": state.delta[s],
                        "item": f"result of deal {deal_no}",
                        "rule": "R32",
                    }
                )
        extra["void"] = state.delta is not None and state.phase == OVER and state.winner < 0
        winner = None
        if state.over:
            best = max(state.totals)
            if state.totals.count(best) == 1:
                winner = state.totals.index(best)
        return ScoreReport(
            sides=[[s] for s in range(n)],
            scores=list(state.totals),
            deal_no=deal_no,
            deal_points=deal_points,
            items=items,
            finished=state.over,
            winner=winner,
            extra=extra,
        )

    def to_json(self, state: MState) -> JSON:
        return codec.to_json(state, self.id)

    def from_json(self, data: Any) -> MState:
        return self._load(data, canonical=True)

    def _load(self, data: Any, *, canonical: bool) -> MState:
        try:
            st, _ = codec.load(data, self, canonical=canonical)
        except EngineError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, RecursionError) as exc:
            raise InvalidState(f"not a Marriage state: {exc}", field="state") from None
        return st

    def view(self, state: MState, seat: int) -> JSON:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.n:
            raise InvalidState(f"seat must be a seat from 0 to {state.n - 1}", field="seat")
        return codec.view(state, seat, self.id)

    def public_view(self, state: MState) -> JSON:
        out = codec.view(state, SPECTATOR, self.id)  # every hand a count; the tiplu at the end only
        out["seat"] = None
        return out

    def sampler(self, view: JSON) -> Callable[[random.Random], MState]:
        try:
            return _sampler(self, view)
        except EngineError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, RecursionError) as exc:
            raise InvalidState(f"not a Marriage view: {exc}", field="view") from None

    def info_key(self, state: MState, seat: int) -> Hashable:
        over = state.phase == OVER
        hands = (
            tuple(tuple(h) for h in state.hands)
            if over
            else (tuple(state.hands[seat]), tuple(sum(h) for h in state.hands))
        )
        tiplu = state.tiplu if (over or state.route[seat] != UNSEEN) else state.tiplu >= 0
        return (
            seat,
            state.phase,
            state.cur,
            state.dealer,
            state.deal_no,
            hands,
            tuple(map(tuple, state.tunnelas)),
            tuple(map(tuple, state.shown)),
            tuple(state.route),
            len(state.stock),
            tiplu,
            state.men_rev,
            tuple(state.discard),
            state.drew,
            state.took,
            state.tws,
            state.turns,
            state.winner,
            state.fkind,
            tuple(state.totals),
            state.recycled,
            tuple(state.taken),
            state.hkey,
            None if state.maal is None else tuple(state.maal),
            None if state.delta is None else tuple(state.delta),
            state.result_deal,
            state.caller,
        )

    # ---- invariants ------------------------------------------------------------

    def pack(self, state: MState) -> list[str]:
        return R.codes(R.pack_cards(state.opts.man_cards))

    def cards_in_play(self, state: MState) -> list[str]:
        out: list[str] = []
        for s in range(state.n):
            out += R.codes([c for c in range(NCODES) for _ in range(state.hands[s][c])])
            out += R.codes([c for c in state.tunnelas[s] for _ in range(3)])
            for x in state.shown[s]:
                out += R.codes(x) if isinstance(x, tuple) else [ALL_CODES[x]] * 2
        out += R.codes(state.stock)
        out += [ALL_CODES[entry_card(e)] for e in state.discard]
        return out

    def hidden_cards(self, state: MState, seat: int) -> list[str]:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.n:
            raise InvalidState(f"seat must be a seat from 0 to {state.n - 1}", field="seat")
        return R.codes(_hidden(state, seat))

    # ---- search support ----------------------------------------------------------

    def is_playout_over(self, start: MState, state: MState) -> bool:
        """The protocol's end of the deal, or :data:`PLAYOUT_TURNS` completed turns after
        ``start`` (the search's horizon)."""
        if state.cur is None or state.phase == OVER or state.deal_no != start.deal_no:
            return True
        return state.turns - start.turns >= PLAYOUT_TURNS

    def outcome(self, start: MState, end: MState) -> list[float]:
        """The protocol's reward at the end of the deal or match; for a deal cut at the
        playout horizon (still in play), the fitted estimate of :func:`hand_eval.leaf_value`."""
        n = end.n
        if end.phase != OVER and end.cur is not None and end.deal_no == start.deal_no:
            return hand_eval.leaf_value(end)
        if end.over and not start.over:
            ranked = sorted(set(end.totals), reverse=True)
            if len(ranked) == 1:
                return [0.5] * n
            return [1.0 - ranked.index(t) / (len(ranked) - 1) for t in end.totals]
        return [0.5 + 0.5 * math.tanh((end.totals[s] - start.totals[s]) / 30.0) for s in range(n)]


def _well_formed(action: Any) -> bool:
    """An internal action's shape (anything else is refused before the rule checks)."""
    if isinstance(action, bool):
        return False
    if isinstance(action, int):
        return (
            0 <= action < NCODES
            or action in (S.DRAW_STOCK, S.TAKE_DISCARD, S.PASS)
            or S.EXPOSE_BASE <= action < S.EXPOSE_BASE + NCODES
            or action >= S.PICK_BASE
        )
    return (
        isinstance(action, tuple)
        and len(action) >= 2
        and action[0] in (S.SHOW, S.SHOW_DUBLEES, S.FINISH, S.FINISH_DUBLEES, S.DEAL)
    )


# --------------------------------------------------------------------------- hidden cards


def _hidden(state: MState, seat: int) -> list[int]:
    """§7: the cards ``seat`` cannot place: other hands and the stock, less the cards
    known to be in a hand (taken from the discard), the revealed men, the tiplu for a
    seen seat, and recycled discards (seen, only their order in the stock is hidden)."""
    counts = [0] * NCODES
    over = state.phase == OVER
    if not over:
        for s in range(state.n):
            if s != seat:
                for c in range(NCODES):
                    counts[c] += state.hands[s][c]
                for c in state.taken[s]:
                    counts[c] -= 1
    stock = state.stock
    skip = state.men_rev + (1 if state.tiplu >= 0 and (over or state.route[seat] != UNSEEN) else 0)
    if state.tiplu >= 0 and skip == state.men_rev:  # an unseen seat: the tiplu is hidden
        counts[stock[0]] += 1
    for c in stock[1 + state.men_rev :] if state.tiplu >= 0 else stock[state.men_rev :]:
        counts[c] += 1
    # Cards this deal's public history named (discards, shows...) or that were
    # recycled or taken were seen by everyone: only where they went may be unknown.
    seen_once = Counter(state.recycled)
    for item in codec._history(state, True):
        seen_once.update(R.CODE_TO_CARD[c] for c in _codes_in(item["action"]))
    for c, k in seen_once.items():
        counts[c] = max(0, counts[c] - k)
    return [c for c in range(NCODES) for _ in range(max(0, counts[c]))]


def _codes_in(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value in R.CODE_TO_CARD else []
    if isinstance(value, dict):
        return [c for v in value.values() for c in _codes_in(v)]
    if isinstance(value, list):
        return [c for v in value for c in _codes_in(v)]
    return []


# --------------------------------------------------------------------------- sampler


def _shuffled(cards: list[int], rng: random.Random) -> list[int]:
    """``cards`` shuffled in place (Fisher-Yates drawing with ``rng.random``: about twice
    as fast as ``rng.shuffle``, uniform up to the float's 53 bits) and returned."""
    rand = rng.random
    for i in range(len(cards) - 1, 0, -1):
        j = int(rand() * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def _sampler(game: Marriage, view: JSON) -> Callable[[random.Random], MState]:
    """§7: deal the unseen cards consistently with the view."""
    if not isinstance(view, Mapping):
        raise InvalidState("a view must be a JSON object", field="view")
    seat = view.get("seat")
    n = view.get("players")
    if isinstance(seat, bool) or not isinstance(seat, int) or not isinstance(n, int) or not 0 <= seat < n:
        raise InvalidState("seat: must be a seat of the view's table", field="seat")
    base, hidden = codec.load(view, game, view_seat=seat)
    over = base.phase == OVER
    pool = Counter(R.pack_cards(base.opts.man_cards))
    known: Counter[int] = Counter()
    for s in range(base.n):
        if s == seat or over:
            known.update({c: k for c, k in enumerate(base.hands[s]) if k})
        else:
            known.update(base.taken[s])
        for c in base.tunnelas[s]:
            known[c] += 3
        for x in base.shown[s]:
            known.update(x if isinstance(x, tuple) else (x, x))
    for e in base.discard:
        known[entry_card(e)] += 1
    tiplu_known = base.tiplu >= 0
    if tiplu_known:
        known[base.tiplu] += 1
    known[XX] += base.men_rev
    for c, k in known.items():
        if k > pool[c]:
            raise InvalidState(f"the view shows {k} copies of {ALL_CODES[c]}", field="cards")
    free = pool - known
    stock_size = hidden["stock_size"]
    chosen = base.tiplu != -1
    drawable = stock_size - (1 if chosen else 0) - base.men_rev
    if drawable < 0:
        raise InvalidState("stock: too small for the tiplu and the revealed men", field="stock")
    slots = [
        0 if (s == seat or over) else hidden["hand_sizes"][s] - len(base.taken[s]) for s in range(base.n)
    ]
    if any(x < 0 for x in slots):
        raise InvalidState("taken: more known cards than the hand holds", field="taken")
    need = sum(slots) + drawable + (1 if chosen and not tiplu_known else 0)
    free_list = sorted(free.elements())
    if chosen and not tiplu_known and all(c == XX for c in free_list):
        raise InvalidState("no hidden card can be the tiplu", field="tiplu")
    if need != len(free_list):
        raise InvalidState(
            f"the view hides {len(free_list)} cards but has {need} hidden places", field="cards"
        )
    recycled = Counter(base.recycled) & free
    if base.recycled and sum(recycled.values()) < drawable:
        raise InvalidState("stock: the recycled cards cannot fill the stock", field="stock")
    recycled_list = sorted(recycled.elements())

    def sample(rng: random.Random) -> MState:
        st = base.copy()
        st.hands = [h[:] for h in base.hands]
        if base.recycled:
            rest = Counter(free_list)
            stock_cards = rng.sample(recycled_list, drawable)
            rest.subtract(stock_cards)
            remaining = _shuffled(sorted(rest.elements()), rng)
        else:  # one shuffle: the first cards are the stock, the rest (in random order) the hands
            remaining = _shuffled(free_list[:], rng)
            stock_cards = remaining[:drawable]
            del remaining[:drawable]
        if chosen:
            if tiplu_known:
                tiplu = base.tiplu
            else:  # R4: any hidden card but a man (the first seer picked blind)
                i = next(i for i in range(len(remaining) - 1, -1, -1) if remaining[i] != XX)
                tiplu = remaining.pop(i)
            st.tiplu = tiplu
            st.stock = [tiplu] + [XX] * base.men_rev + stock_cards
        else:  # men shown during the pick lie at the bottom
            st.stock = [XX] * base.men_rev + stock_cards
        for s in range(base.n):
            if slots[s]:
                counts = [0] * NCODES
                for c in base.taken[s]:
                    counts[c] += 1
                for _ in range(slots[s]):
                    counts[remaining.pop()] += 1
                st.hands[s] = counts
        st.rng_state = None if st.caller else rng.getrandbits(63)
        return st

    return sample


GAME = Marriage()
