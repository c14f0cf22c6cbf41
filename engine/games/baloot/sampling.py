"""Section 7: dealing the unseen cards of a view at random, respecting every exact
deduction (voids and trump duties shown by plays, the taken candidate, declared and
shown projects, a kawesh hand); and the information-set key of what a seat knows."""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from typing import Any

from engine.codec import TEMPLATE, refuse
from engine.games.baloot import checks, rules
from engine.games.baloot.codec import CODEC
from engine.games.baloot.projects import candidate_groups, project_set
from engine.games.baloot.state import State, history_list
from engine.games.baloot.tables import DOUBLING, NSLOTS, PASS_PROJECT, PLAY
from engine.protocol import InvalidState
from engine.sampling import assign_cards, shuffle

MAX_TRIES = 3000


def template_of_view(data: Any) -> tuple[State, int, list[int], int]:
    """A seat's view as a state (a sampler's template): the unseen cards dealt first-fit
    to the other hands (their counts) and the stock. Returns (template, seat, hand sizes,
    stock size)."""
    opts, seat, values = CODEC.read_view(data)
    if seat is None:
        raise refuse("seat", "a spectator's view has no hand to sample around: give a seat's view")
    hands = values["hands"]
    hidden = [s for s, hand in enumerate(hands) if type(hand) is not int]
    if hidden != [s for s in range(4) if s != seat]:
        raise refuse("hands", "a view shows its own hand and counts the others")
    counts = [hand.count if s in hidden else hand.bit_count() for s, hand in enumerate(hands)]
    seen = hands[seat]
    if values["candidate"] >= 0 and not values["candidate_taken"]:
        seen |= 1 << values["candidate"]
    plays = [p for _, p in values["table"]] + [p for p, _ in values["played_by"]]
    plays += [p for trick in values["tricks"] for p in trick.get("cards", ())]
    for p in plays:
        seen |= 1 << p
    missing = [p for p in range(NSLOTS) if not seen >> p & 1]
    stock = values["stock"]
    checks.check_hidden_counts(sum(counts[s] for s in hidden) + stock, missing)
    values["hands"] = hands = list(hands)
    for s in hidden:
        hands[s] = sum(1 << p for p in missing[: counts[s]])
        missing = missing[counts[s] :]
    values["stock"] = missing
    values["rng_state"] = 0 if values["engine_dealt"] else None
    projects = values["projects"]
    if projects.get("declare_done", False) is None:  # another seat's view: what its declaration shows
        to_act = values["to_act"]
        declared = to_act is not None and projects.get("declared", [0] * 4)[to_act]
        done = values["phase"] == PLAY and values["trick_no"] == 1 and bool(declared)
        values["projects"] = dict(projects, declare_done=done)
    try:
        st = CODEC.build_state(values, opts, TEMPLATE)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as err:
        raise InvalidState(f"malformed view: {type(err).__name__}: {err}", field=None) from None
    checks.check_cards(st, values, False)
    checks.check_loaded(st, values, history_list(st, True), hidden_seats=hidden, exact=False)
    return st, seat, counts, stock


def forbidden_masks(st: State) -> list[int]:
    """The cards each seat cannot hold now, from every recorded play (section 7)."""
    out = [0, 0, 0, 0]
    if not st.kind:
        return out
    for leader, cards, _, ekka in st.tricks:
        for k, p in enumerate(cards):
            seat = (leader + k) & 3
            tiers = rules.play_tiers(st.kind, st.trump, st.locked, st.opts, cards[:k], leader, ekka, seat)
            out[seat] |= rules.inferred_void(tiers, p)
    table = st.table
    for k, p in enumerate(table):
        seat = (st.leader + k) & 3
        tiers = rules.play_tiers(
            st.kind, st.trump, st.locked, st.opts, table[:k], st.leader, st.lead_ekka, seat
        )
        out[seat] |= rules.inferred_void(tiers, p)
    return out


def make_sampler(data: Any) -> Callable[[random.Random], State]:
    """Validate ``data`` (a view) once; return ``f(rng) -> State`` consistent with it.
    Raises InvalidState for anything that is not a consistent view."""
    try:
        return _make_sampler(data)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as err:
        raise InvalidState(f"malformed view: {type(err).__name__}: {err}", field=None) from None


def _make_sampler(data: Any) -> Callable[[random.Random], State]:
    if not isinstance(data, dict) or "seat" not in data:
        raise InvalidState("a view must be an object with a seat", field="seat")
    template, seat, counts, stock_count = template_of_view(data)
    visible = template.hands[seat] | template.played
    for p in template.table:
        visible |= 1 << p
    if template.candidate >= 0 and not template.cand_taken:
        visible |= 1 << template.candidate
    unseen = ((1 << NSLOTS) - 1) & ~visible
    others = [s for s in range(4) if s != seat]
    pinned = {s: 0 for s in others}
    cand = template.candidate
    if template.cand_taken and cand >= 0 and unseen >> cand & 1 and template.taker in pinned:
        pinned[template.taker] |= 1 << cand
    for s in others:
        g = template.shown[s]
        if g:
            for m in g:
                pinned[s] |= m & unseen
        if template.kawesh is not None and template.kawesh[0] == s:
            pinned[s] |= template.kawesh[1] & unseen
    free = unseen
    for s in others:
        free &= ~pinned[s]
    need = {s: counts[s] - pinned[s].bit_count() for s in others}
    if any(n < 0 for n in need.values()):
        raise InvalidState("a seat is known to hold more cards than it has", field="hands")
    forbidden = forbidden_masks(template)
    for s in others:
        if pinned[s] & forbidden[s]:
            raise InvalidState(f"seat {s} holds a card its plays rule out", field="tricks")
    in_play = template.phase == PLAY
    kind = template.kind
    constrained = [s for s in others if in_play and (template.declared[s] or template.shown[s] is not None)]
    rules.slots_of(free)
    any_forbidden = any(forbidden[s] & free for s in others)
    engine_dealt = template.rng_state is not None
    declared_view = template.decided

    def ok(hands: list[int]) -> bool:
        for s in constrained:
            pset = project_set(hands[s] | template.seat_played[s], kind)
            if template.shown[s] is not None and template.shown[s] != tuple(m for _, m in pset[0]):
                return False
            if template.declared[s]:
                if not pset[0]:
                    return False
                key = pset[0][0][0]
                if key[0] != template.declared[s]:
                    return False
                r = template.revealed[s]
                if r is not None and (key[1], key[2]) != r:
                    return False
        return True

    def force_groups(rng: random.Random, pins: dict[int, int], pool: int) -> int:
        for s in constrained:
            if template.shown[s] is not None or not template.declared[s]:
                continue
            universe = pins[s] | template.seat_played[s] | (pool & ~forbidden[s])
            r = template.revealed[s]
            groups = [
                m
                for key, m in candidate_groups(universe, kind)
                if key[0] == template.declared[s]
                and (r is None or (key[1], key[2]) == r)
                and (m & pool).bit_count() <= counts[s] - pins[s].bit_count()
            ]
            if groups:
                m = rng.choice(groups) & pool
                pins[s] |= m
                pool &= ~m
        return pool

    # Without forced project groups the pins, and so the room left in each hand, are the
    # same for every sample: worked out once here (``need``: never negative).
    fixed_caps = dict(need)
    fixed_caps[4] = stock_count

    def sample(rng: random.Random) -> State:
        for _ in range(MAX_TRIES):
            pins = pinned
            pool = free
            caps = fixed_caps
            if constrained:
                pins = dict(pinned)
                pool = force_groups(rng, pins, pool)
                caps = {s: counts[s] - pins[s].bit_count() for s in others}
                if any(c < 0 for c in caps.values()):
                    continue
                caps[4] = stock_count
            cards = rules.slots_of(pool)
            hands = [0, 0, 0, 0]
            for s in others:
                hands[s] = pins[s]
            stock: list[int] = []
            if not any_forbidden:
                shuffle(cards, rng)  # rng.shuffle, natively in the compiled build
                i = 0
                for s in others:
                    # built in a local (a C integer when compiled), stored once
                    hand: int = hands[s]
                    for p in cards[i : i + caps[s]]:
                        hand |= 1 << p
                    hands[s] = hand
                    i += caps[s]
                stock = cards[i:]
            else:
                allowed = {p: [b for b in caps if b == 4 or not forbidden[b] >> p & 1] for p in cards}
                content = assign_cards(cards, caps, allowed, rng)
                if content is None:
                    continue
                for s in others:
                    for p in content[s]:
                        hands[s] |= 1 << p
                stock = content[4]
                shuffle(stock, rng)
            if constrained and not ok(hands):
                continue
            st = template.clone()
            for s in others:
                st.hands[s] = hands[s]
            st.stock = tuple(stock)
            if in_play:
                st.psets = [project_set(st.hands[s] | st.seat_played[s], kind) for s in range(4)]
                if st.to_act != seat:
                    st.decided = bool(st.declared[st.to_act])  # type: ignore[index]
                else:
                    st.decided = bool(declared_view)
            st.rng_state = rng.getrandbits(63) if engine_dealt else None
            return st
        raise InvalidState("no deal of the unseen cards matches this view", field="hands")

    return sample


def info_key(state: State, seat: int) -> Hashable:
    """What ``seat`` knows of ``state``: equal keys for the states of one information set
    (the other hands, the stock and the other seats' project passes left out)."""
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
