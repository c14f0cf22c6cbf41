"""Nepali Marriage: the easy policy (draws, discards, shows, finishes) and the search's
playout hook."""

from __future__ import annotations

import random
from typing import Any

from ai.policies.base import (
    PLAYOUT_FACTORIES,
    Action,
    PlayoutHook,
    PlayoutPolicy,
    register,
    register_candidates,
)
from engine.games.marriage import hand_eval as H
from engine.games.marriage import melds, scoring
from engine.games.marriage import tables as T
from engine.protocol import Game

_CARD = T.CODE_TO_CARD
_SHOW_W = 6.0
"""Weight of a card missing for the first show (pure sets)."""
_FINISH_W = 3.0
"""Weight of a card missing for the finish (before seeing)."""
_SEEN_W = 10.0
"""Weight of a card missing for the finish once seen."""
_OUTS_W = 0.2
"""Weight of one live card that completes a partial set."""
_DUBLEE_W = 1.5
"""A missing dublee needs one exact card (two live copies at most): worth more than a
missing card of a partial sequence, which several cards complete."""
_MAAL_W = 0.5
"""Weight of a maal point kept in hand (it counts at settlement)."""
_TAKE_GAIN = 2.5
"""Take the top discard (unseen) when it improves the hand's value by this much."""


class _Ctx:
    """What the seat knows, read from its view: hand counts, live counts, route, needs."""

    __slots__ = ("hand", "live", "route", "tunnelas", "need_total", "tiplu", "wild")

    def __init__(self, view: dict[str, Any], seat: int) -> None:
        hands = view.get("hands") or []
        own = hands[seat] if seat < len(hands) and isinstance(hands[seat], list) else []
        hand = [0] * T.NCODES
        for code in own:
            hand[_CARD[code]] += 1
        visible = hand[:]
        self.tunnelas = 0
        for s, tuns in enumerate(view.get("tunnelas") or []):
            for code in tuns:
                visible[_CARD[code]] += 3
            if s == seat:
                self.tunnelas = len(tuns)
        for shown in view.get("shown") or []:
            for item in shown:
                if isinstance(item, list):
                    for code in item:
                        visible[_CARD[code]] += 1
                else:
                    visible[_CARD[item]] += 2
        for entry in view.get("discard") or []:
            visible[_CARD[entry["card"]]] += 1
        for s, taken in enumerate(view.get("taken") or []):
            if s != seat:
                for code in taken:
                    visible[_CARD[code]] += 1
        tiplu = view.get("tiplu")
        self.tiplu = _CARD[tiplu] if isinstance(tiplu, str) else -1
        if self.tiplu >= 0:
            visible[self.tiplu] += 1  # one copy lies at the bottom of the stock, never drawn
        self.live = [max(0, 3 - v) for v in visible]
        self.live[T.XX] = 0
        self.hand = hand
        route = (view.get("route") or [None] * (seat + 1))[seat]
        self.route = route
        shown_own = (view.get("shown") or [[]] * (seat + 1))[seat]
        self.need_total = max(0, T.SETS_TO_FINISH - self.tunnelas - len(shown_own))
        self.wild = melds.joker_family(self.tiplu).wild if self.tiplu >= 0 and route is not None else 0

    def value(self, hand: list[int]) -> float:
        """How good ``hand`` (after a discard) is for this seat: higher is better."""
        if self.route is None:
            need_pure = max(0, T.SETS_TO_SEE - self.tunnelas)
            show_def, fin_def, outs, _ = H.deficiency(
                hand, self.live, need_pure=need_pure, need_total=self.need_total
            )
            v_sets = -(_SHOW_W * show_def + _FINISH_W * fin_def) + _OUTS_W * outs
            d = H.dublee_count(hand, self.tunnelas)
            missing_show = max(0, T.DUBLEES_TO_SEE - d)
            missing_fin = max(0, T.DUBLEES_TO_FINISH - d)
            v_dub = -_DUBLEE_W * (_SHOW_W * missing_show + _FINISH_W * missing_fin)
            v_dub += 0.5 * _OUTS_W * H.single_outs(hand, self.live)
            return max(v_sets, v_dub)
        maal = scoring.maal(hand, [], self.tiplu, 0, 0)[0] if self.tiplu >= 0 else 0
        if self.route == "dublees":
            return _OUTS_W * H.single_outs(hand, self.live) + _MAAL_W * maal
        _, fin_def, outs, wilds = H.deficiency(
            hand, self.live, need_pure=0, need_total=self.need_total, wild=self.wild
        )
        return -_SEEN_W * fin_def + _OUTS_W * outs + 0.3 * wilds + _MAAL_W * maal

    def best_discard(self, hand: list[int], candidates: list[int]) -> tuple[float, int]:
        """(value, card) of the best card to discard from ``hand`` among ``candidates``;
        ties: the card with fewer live completions, then the higher rank."""
        best: tuple[float, float, int] | None = None
        for c in candidates:
            hand[c] -= 1
            v = self.value(hand)
            hand[c] += 1
            key = (round(v, 6), -_links(c, hand, self.live), c >> 2 if c != T.XX else -1)
            if best is None or key > best[:3]:
                best = (key[0], key[1], key[2])
                chosen = c
        assert best is not None
        return best[0], chosen


def _links(card: int, hand: list[int], live: list[int]) -> float:
    """Live cards that would pair ``card`` with another card of the hand or complete it."""
    if card == T.XX:
        return 100.0
    rank, suit = card >> 2, card & 3
    total = 0.0
    for r in range(max(0, rank - 2), min(12, rank + 2) + 1):
        c = r * 4 + suit
        total += live[c] + (2 * hand[c] if c != card else 2 * (hand[c] - 1))
    for s in range(4):
        c = rank * 4 + s
        if s != suit:
            total += 0.5 * (live[c] + 2 * hand[c])
    return total


@register("marriage")
def marriage_policy(game: Game[Any], state: Any, seat: int, rng: random.Random) -> Action:
    """Easy Marriage: expose every tunnela; show as soon as the rules allow (the sets whose
    rest of the hand is best, dublees when that is all there is); finish at once (keeping
    the most maal); take the discard when seen (it is only legal to finish) or when it
    improves the hand; discard the card whose loss hurts the hand least, valued by
    :func:`engine.games.marriage.hand_eval.deficiency` (cards missing for the show and the
    finish, live outs of the partial sets, wild cards and maal once seen) or, on the
    dublee route, by the number of dublees."""
    view = game.view(state, seat)
    actions = game.legal_actions(state)
    as_json = [game.action_to_json(state, a) for a in actions]
    types = [d.get("type") for d in as_json]
    phase = view.get("phase")
    if phase == "expose":
        return actions[types.index("expose_tunnela")] if "expose_tunnela" in types else actions[-1]
    if phase == "pick_tiplu":
        return actions[int(rng.random() * len(actions))]
    ctx = _Ctx(view, seat)
    hand = ctx.hand
    if phase == "draw":
        if "take_discard" not in types:
            return actions[0]
        if ctx.route is not None:
            return actions[types.index("take_discard")]  # legal only when it finishes
        top = _CARD[view["discard"][-1]["card"]]
        now = ctx.value(hand)
        hand[top] += 1
        after, _ = ctx.best_discard(hand, [c for c in range(T.NCODES) if hand[c] and c != top])
        hand[top] -= 1
        if after >= now + _TAKE_GAIN:
            return actions[types.index("take_discard")]
        return actions[types.index("draw_stock")]
    # act
    finishes = [i for i, t in enumerate(types) if t in ("finish", "finish_dublees")]
    if finishes:
        return actions[max(finishes, key=lambda i: (_kept_maal(ctx, view, seat, as_json[i]), -i))]
    shows = [i for i, t in enumerate(types) if t == "show"]
    if shows:
        return actions[max(shows, key=lambda i: (_after_show(ctx, as_json[i]), -i))]
    if "show_dublees" in types:
        return actions[types.index("show_dublees")]
    discards = [
        (_CARD[d["card"]], a) for d, a in zip(as_json, actions, strict=True) if d.get("type") == "discard"
    ]
    if discards:
        _, card = ctx.best_discard(hand, [c for c, _ in discards])
        return next(a for c, a in discards if c == card)
    return actions[int(rng.random() * len(actions))]


def marriage_candidates(game: Game[Any], state: Any, seat: int, k: int = 3) -> list[Action]:
    """The actions the normal bot searches, the easy choice first: only a discard is
    searched, among the ``k`` discards the easy policy values most; every other decision
    (draws, shows, finishes, exposing, the tiplu pick) is the easy choice alone. Measured
    (100 deals, 60 iterations, seed 1): searching all ~22 discards and the draws won 27%
    against easy, searching both draws and 3 discards 45.5%, discards only 54.5%: the
    normal budget buys a few dozen playouts, which can rank three discards but not twenty.
    Reads only the view (like the policy)."""
    choice = marriage_policy(game, state, seat, random.Random(0))
    actions = game.legal_actions(state)
    types = [game.action_to_json(state, a).get("type") for a in actions]
    only_discards = all(t == "discard" for t in types)
    if game.phase(state) != "act" or not only_discards or len(actions) <= 1:
        return [choice]  # a draw, or a show / finish on offer: the policy's call
    ctx = _Ctx(game.view(state, seat), seat)
    hand = ctx.hand
    scored = []
    for a, t in zip(actions, types, strict=True):
        if t == "discard":
            card = _CARD[game.action_to_json(state, a)["card"]]
            hand[card] -= 1
            scored.append((ctx.value(hand), -_links(card, hand, ctx.live), a))
            hand[card] += 1
    scored.sort(key=lambda x: (x[0], x[1]), reverse=True)
    return [choice] + [a for _, _, a in scored if a != choice][: max(0, k - 1)]


def _kept_maal(ctx: _Ctx, view: dict[str, Any], seat: int, finish: dict[str, Any]) -> int:
    """R27/R28: the maal the seat keeps after a finish that throws ``finish["discard"]``."""
    if ctx.tiplu < 0:
        return 0
    holding = ctx.hand[:]
    for code in (view.get("tunnelas") or [[]] * (seat + 1))[seat]:
        holding[_CARD[code]] += 3
    for item in (view.get("shown") or [[]] * (seat + 1))[seat]:
        for code in item if isinstance(item, list) else [item, item]:
            holding[_CARD[code]] += 1
    holding[_CARD[finish["discard"]]] -= 1
    exposed = [_CARD[c] for c in (view.get("tunnelas") or [[]] * (seat + 1))[seat]]
    options = view.get("options") or {}
    return scoring.maal(
        holding,
        exposed,
        ctx.tiplu,
        int(options.get("alter_points", 0)),
        int(options.get("man_points", 5)),
    )[0]


def _after_show(ctx: _Ctx, show: dict[str, Any]) -> float:
    """The finish deficiency of what a show leaves in hand (lower is better, negated)."""
    rest = ctx.hand[:]
    for s in show["sets"]:
        for code in s:
            rest[_CARD[code]] -= 1
    need = max(0, ctx.need_total - len(show["sets"]))
    best = -1e9
    for c in range(T.NCODES):
        if rest[c]:
            rest[c] -= 1
            _, fin_def, outs, _ = H.deficiency(rest, ctx.live, need_pure=0, need_total=need)
            rest[c] += 1
            best = max(best, -_FINISH_W * fin_def + _OUTS_W * outs)
    return best


def _marriage_playout_hook() -> PlayoutPolicy | None:
    """A cheap greedy Marriage playout for the search, so that playouts reach the end of the
    deal in tens of turns instead of hundreds (a search stops them anyway at
    ``PLAYOUT_TURNS`` turns and values the hands there: ``Marriage.outcome``). It reads the
    sampled world's internal state (a playout runs in a world sampled from the searching
    seat's view, so this sees nothing that seat may not know) and chooses only among
    ``rules.legal_actions(state)``: expose every tunnela; finish, then show, whenever the
    engine offers it; when seen, take the discard whenever the engine allows it (only to
    finish); when unseen, take it when it completes a pure set of the hand; otherwise draw;
    discard the card with the fewest links (identical cards, same-suit neighbours, same
    rank; wild cards are kept once seen), ties at random; with probability ``epsilon`` a
    uniformly random legal action instead of the discard, so that playouts differ. The
    code is :mod:`ai.playouts.marriage`, compiled with the engine."""
    from ai.playouts import marriage

    return PlayoutHook(marriage.choose, marriage.play_out)


PLAYOUT_FACTORIES["marriage"] = _marriage_playout_hook


register_candidates("marriage", levels=("normal", "hard"))(marriage_candidates)
