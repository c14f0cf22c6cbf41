"""Heuristic policies: the "easy" level and optional cheap playout hooks.

A policy is ``choose(game, state, seat, rng) -> action`` for the seat to act. It must
look only at what ``seat`` may see: the per-game policies read ``game.view(state, seat)``
(the JSON view of the rules file's State section) and nothing else of the state, so they
behave the same on the real state and on any world sampled from the seat's view.

Games without a policy of their own use :func:`greedy_policy` (one step of look-ahead
valued by ``game.outcome``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable
from typing import Any

from engine.protocol import Game

Action = Hashable
Policy = Callable[[Game[Any], Any, int, random.Random], Action]

POLICIES: dict[str, Policy] = {}
"""Game id -> its heuristic policy (the "easy" level)."""

PlayoutPolicy = Callable[[Game[Any], Any, random.Random], Action]

PLAYOUTS: dict[str, PlayoutPolicy | None] = {}
"""Game id -> a cheap playout policy for ISMCTS (None: uniformly random playouts); filled
on first use from PLAYOUT_FACTORIES."""

PLAYOUT_FACTORIES: dict[str, Callable[[], PlayoutPolicy | None]] = {}
"""Game id -> a function building its playout policy (it may import the game's internals,
so it runs lazily; a failure means random playouts)."""


def register(game_id: str) -> Callable[[Policy], Policy]:
    """Decorator: make ``fn`` the heuristic policy of ``game_id``."""

    def deco(fn: Policy) -> Policy:
        POLICIES[game_id] = fn
        return fn

    return deco


def greedy_policy(game: Game[Any], state: Any, seat: int, rng: random.Random) -> Action:
    """The generic heuristic: one step of look-ahead on a world sampled from the seat's
    view, valued by ``game.outcome(state, after)[seat]`` (a won match is 1, else the
    game's mapping of the score change); ties broken at random."""
    actions = game.legal_actions(state)
    best: list[Action] = []
    best_value = -math.inf
    for action in actions:
        nxt = game.clone(state)
        game.step(nxt, action)
        value = game.outcome(state, nxt)[seat]
        if value > best_value:
            best, best_value = [action], value
        elif value == best_value:
            best.append(action)
    return best[int(rng.random() * len(best))]


def choose(game: Game[Any], state: Any, seat: int, rng: random.Random) -> Action:
    """The easy level's action for ``seat`` (to act in ``state``)."""
    policy = POLICIES.get(game.id, greedy_policy)
    return policy(game, state, seat, rng)


def playout_policy(game: Game[Any]) -> PlayoutPolicy | None:
    """The game's cheap playout policy, or None for uniformly random playouts."""
    if game.id not in PLAYOUTS:
        factory = PLAYOUT_FACTORIES.get(game.id)
        hook = None
        if factory is not None:
            try:
                hook = factory()
            except Exception:  # noqa: BLE001 - a game's internals changed: play at random
                hook = None
        PLAYOUTS[game.id] = hook
    return PLAYOUTS[game.id]


# --------------------------------------------------------------------------- Ronda

_RONDA_RANKS = "A234567JQK"


def _ronda_holding(cards: list[str]) -> str:
    """R8 table: the holding of a hand's dealt cards ("none", "ronda", "tringa", "double_ronda")."""
    counts: dict[str, int] = {}
    for code in cards:
        counts[code[0]] = counts.get(code[0], 0) + 1
    most = max(counts.values(), default=0)
    pairs = sum(1 for n in counts.values() if n == 2)
    if most == 4:
        return "double_ronda"
    if most == 3:
        return "tringa"
    if pairs == 2:
        return "double_ronda"
    if pairs == 1:
        return "ronda"
    return "none"


def _ronda_play_value(card: str, view: dict[str, Any], players: int) -> float:
    """How good playing ``card`` looks from the view: captured cards count 1 each, este,
    missa and chain bonuses their points (weighted up); a drop is scored by the risk that
    an opponent matches it (unseen cards of its rank)."""
    rank = card[0]
    table: list[str] = list(view.get("table") or [])
    table_ranks = {c[0] for c in table}
    chain = view.get("chain")
    if isinstance(chain, dict) and players >= 3 and view.get("options", {}).get("chain_bonuses", True):
        chain_rank = chain.get("rank")
        if isinstance(chain_rank, int) and 0 <= chain_rank < len(_RONDA_RANKS):
            chain_rank = _RONDA_RANKS[chain_rank]
        if chain_rank == rank:
            return 100.0
    if rank in table_ranks:
        taken = 1
        index = _RONDA_RANKS.index(rank) + 1
        while index < len(_RONDA_RANKS) and _RONDA_RANKS[index] in table_ranks:
            taken += 1
            index += 1
        value = 2.0 + taken
        last_drop = view.get("last_drop")
        if isinstance(last_drop, str) and last_drop[0] == rank:
            value += 3.0  # este
        if taken == len(table):
            value += 3.0  # missa (ignoring the last-play exception)
        return value
    # a drop: fewer unseen cards of this rank = less risk of an este against us
    seen = [c for c in table]
    for pile in view.get("piles") or []:
        if isinstance(pile, list):
            seen.extend(pile)
    hands = view.get("hands") or []
    seat = view.get("seat")
    own = hands[seat] if isinstance(seat, int) and seat < len(hands) and isinstance(hands[seat], list) else []
    seen.extend(own)
    unseen = 4 - sum(1 for c in seen if c[0] == rank)
    # dropping next to a table rank also feeds a run capture
    index = _RONDA_RANKS.index(rank)
    feeds_run = index + 1 < len(_RONDA_RANKS) and _RONDA_RANKS[index + 1] in table_ranks
    return -1.0 * unseen - (0.5 if feeds_run else 0.0)


@register("ronda")
def ronda_policy(game: Game[Any], state: Any, seat: int, rng: random.Random) -> Action:
    """Easy Ronda: declare the true holding, never challenge (a genuine declaration
    challenged wins the match for its side), capture the most valuable packet (este and
    missa count extra), otherwise drop the card least likely to be matched."""
    view = game.view(state, seat)
    actions = game.legal_actions(state)
    as_json = [game.action_to_json(state, a) for a in actions]
    phase = view.get("phase")
    if phase == "declare":
        dealt = view.get("dealt")
        own = dealt[seat] if isinstance(dealt, list) and isinstance(dealt[seat], list) else view["hands"][seat]
        holding = _ronda_holding(own)
        for action, data in zip(actions, as_json):
            if holding == "none" and data.get("type") == "pass":
                return action
            if data.get("type") == "declare" and data.get("combo") == holding:
                return action
    if phase == "challenge":
        for action, data in zip(actions, as_json):
            if data.get("type") == "pass":
                return action
    players = int(view.get("players", 2))
    best: list[Action] = []
    best_value = -math.inf
    for action, data in zip(actions, as_json):
        card = data.get("card")
        if not isinstance(card, str):
            continue
        value = _ronda_play_value(card, view, players)
        if value > best_value:
            best, best_value = [action], value
        elif value == best_value:
            best.append(action)
    if not best:
        return greedy_policy(game, state, seat, rng)
    return best[int(rng.random() * len(best))]


# --------------------------------------------------------------------------- Trex

_TREX_ORDER = "23456789TJQKA"  # low to high


def _trex_strength(code: str) -> int:
    return _TREX_ORDER.index(code[0])


def _trex_penalty_cards(contract: str, hand: list[str]) -> list[str]:
    """Cards that cost points when taken in ``contract`` (R11's penalty cards)."""
    if contract == "king_of_hearts":
        return [c for c in hand if c == "KH"]
    if contract == "queens":
        return [c for c in hand if c[0] == "Q"]
    if contract == "diamonds":
        return [c for c in hand if c[1] == "D"]
    if contract == "complex":
        return [c for c in hand if c == "KH" or c[0] == "Q" or c[1] == "D"]
    return []


def _trex_contract_risk(contract: str, hand: list[str]) -> float:
    """A rough cost of choosing ``contract`` with ``hand`` (lower is better)."""
    suits = {s: [c for c in hand if c[1] == s] for s in "SHDC"}
    high = sum(1 for c in hand if c[0] in "AKQ")
    if contract == "king_of_hearts":
        return 75.0 if "KH" in hand and len(suits["H"]) <= 3 else 10.0
    if contract == "queens":
        return sum(25.0 for c in hand if c[0] == "Q" and len(suits[c[1]]) <= 3) + 5.0
    if contract == "diamonds":
        return 10.0 * sum(1 for c in suits["D"] if _trex_strength(c) >= 7)
    if contract == "collections":
        return 15.0 * high / 2
    if contract == "trex":
        return 40.0 - 20.0 * sum(1 for c in hand if c[0] == "J")
    return 60.0  # complex


@register("trex")
def trex_policy(game: Game[Any], state: Any, seat: int, rng: random.Random) -> Action:
    """Easy Trex: choose the contract the hand fears least, never double, duck tricks
    (play the highest card that still loses, else the highest), dump penalty cards when
    void, lead low; in the layout prefer cards that unlock the seat's own other cards."""
    view = game.view(state, seat)
    actions = game.legal_actions(state)
    as_json = [game.action_to_json(state, a) for a in actions]
    hands = view.get("hands") or []
    hand: list[str] = hands[seat] if seat < len(hands) and isinstance(hands[seat], list) else []
    phase = view.get("phase")
    if phase == "choose_contract":
        scored = [
            (_trex_contract_risk(str(d.get("contract")), hand), i) for i, d in enumerate(as_json)
        ]
        return actions[min(scored)[1]]
    if phase == "doubling":
        for action, data in zip(actions, as_json):
            if data.get("type") == "pass":
                return action
    cards: list[tuple[str, Action]] = [
        (d["card"], a) for d, a in zip(as_json, actions) if isinstance(d.get("card"), str)
    ]
    if not cards:
        return actions[int(rng.random() * len(actions))]
    if phase == "layout":
        # unlock own cards: prefer a card whose neighbour in rank (same suit) we also hold
        def unlocks(code: str) -> int:
            i = _trex_strength(code)
            return sum(
                1
                for j in (i - 1, i + 1)
                if 0 <= j < len(_TREX_ORDER) and _TREX_ORDER[j] + code[1] in hand
            )

        best = max(unlocks(c) for c, _ in cards)
        pool = [a for c, a in cards if unlocks(c) == best]
        return pool[int(rng.random() * len(pool))]
    contract = str(view.get("contract"))
    trick: list[str] = [
        t["card"] for t in (view.get("trick") or []) if isinstance(t, dict) and isinstance(t.get("card"), str)
    ]
    codes = [c for c, _ in cards]
    by_code = dict(cards)
    if not trick:  # lead the lowest card
        return by_code[min(codes, key=_trex_strength)]
    led = trick[0][1]
    winning = max((c for c in trick if c[1] == led), key=_trex_strength)
    following = [c for c in codes if c[1] == led]
    if following:
        ducks = [c for c in following if _trex_strength(c) < _trex_strength(winning)]
        if ducks:
            return by_code[max(ducks, key=_trex_strength)]
        return by_code[max(following, key=_trex_strength)]
    penalties = [c for c in _trex_penalty_cards(contract, codes)]
    if penalties:
        return by_code[max(penalties, key=_trex_strength)]
    return by_code[max(codes, key=_trex_strength)]


def _ronda_playout_hook() -> PlayoutPolicy | None:
    """A cheap Ronda playout policy for the search: every seat declares its true holding
    and never challenges; capturing cards are preferred. Random declarations and challenges
    would make most playouts end in a penalty or in a challenged genuine declaration (a
    match won at once), which drowns the signal of the card play. It reads the sampled
    world's internal state (a playout runs in a world sampled from the view, so this sees
    nothing the searching seat does not), hence the imports of Ronda's internals. A card
    that captures is always preferred, the biggest packet first (an este or a missa counts
3 cards more), else a random card."""
    try:
        from engine.games.ronda import rules as ronda_rules
        from engine.games.ronda import tables as ronda_tables
    except ImportError:  # pragma: no cover - Ronda not installed
        return None
    declare_p = ronda_tables.DECLARE_P
    challenge_p = ronda_tables.CHALLENGE_P
    pass_action = ronda_tables.PASS
    declare_base = ronda_tables.DECLARE_BASE
    play_p = ronda_tables.PLAY_P
    holding = ronda_rules.holding
    rank_bit = ronda_tables.RBIT

    def playout(game: Game[Any], state: Any, rng: random.Random) -> Action:
        phase = state.phase
        if phase == challenge_p:
            return pass_action
        actions = game.legal_actions(state)
        if phase == play_p:
            table = state.trank
            if table:
                best = -1
                pool: list[Action] = []
                last = state.last_drop
                este_bit = rank_bit[last] if last >= 0 else 0
                for c in actions:
                    assert isinstance(c, int)
                    bit = rank_bit[c]
                    if table & bit:
                        m = table // bit  # ranks from the matched one up
                        run = ((m ^ (m + 1)) >> 1) * bit
                        value = bin(run).count("1")
                        if bit == este_bit:
                            value += 3
                        if run == table:
                            value += 3
                        if value > best:
                            best, pool = value, [c]
                        elif value == best:
                            pool.append(c)
                if pool:
                    actions = pool
        elif phase == declare_p:
            wanted = declare_base + holding(state.dealt[state.to_act])[0]
            if wanted in actions:
                return wanted
        return actions[int(rng.random() * len(actions))]

    return playout


PLAYOUT_FACTORIES["ronda"] = _ronda_playout_hook


# --------------------------------------------------------------------------- Baloot

_BALOOT_PLAIN = "789JQKTA"  # non-trump order, low to high
_BALOOT_TRUMP = "78QKTA9J"  # trump order, low to high
_BALOOT_POINTS_PLAIN = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}
_BALOOT_POINTS_TRUMP = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3}


def _baloot_power(code: str, trump: str | None) -> int:
    if code[1] == trump:
        return 10 + _BALOOT_TRUMP.index(code[0])
    return _BALOOT_PLAIN.index(code[0])


def _baloot_points(code: str, trump: str | None) -> int:
    table = _BALOOT_POINTS_TRUMP if code[1] == trump else _BALOOT_POINTS_PLAIN
    return table.get(code[0], 0)


def _baloot_bid_value(hand: list[str], suit: str | None) -> float:
    """Rough trick strength of ``hand`` with ``suit`` as trumps (None: Sun)."""
    value = 0.0
    for code in hand:
        if suit is not None and code[1] == suit:
            value += {"J": 3.0, "9": 2.5, "A": 1.5, "T": 1.0}.get(code[0], 0.6)
        else:
            value += {"A": 1.5, "T": 0.7}.get(code[0], 0.0)
    return value


@register("baloot")
def baloot_policy(game: Game[Any], state: Any, seat: int, rng: random.Random) -> Action:
    """Easy Baloot: bid Hokm with a strong candidate suit and Sun with many aces, never
    double, always declare a project, choose the longest strong trump suit; in play win
    the trick as cheaply as possible unless the partner is winning (then give points when
    it is safe, else play low), lead aces, else low cards."""
    view = game.view(state, seat)
    actions = game.legal_actions(state)
    as_json = [game.action_to_json(state, a) for a in actions]
    hands = view.get("hands") or []
    hand: list[str] = hands[seat] if seat < len(hands) and isinstance(hands[seat], list) else []

    def find(**fields: Any) -> Action | None:
        for action, data in zip(actions, as_json):
            if all(data.get(k) == v for k, v in fields.items()):
                return action
        return None

    phase = view.get("phase")
    if phase == "bidding":
        candidate = view.get("candidate")
        cand_suit = candidate[1] if isinstance(candidate, str) else None
        full = hand + ([candidate] if isinstance(candidate, str) else [])
        sun = find(type="bid", bid="sun")
        if sun is not None and _baloot_bid_value(full, None) >= 4.5:
            return sun
        hokm = find(type="bid", bid="hokm")
        if hokm is not None:
            bidding = view.get("bidding") or {}
            if bidding.get("round", 1) == 1 and cand_suit is not None:
                if _baloot_bid_value(full, cand_suit) - _baloot_bid_value(full, None) >= 3.0:
                    return hokm
            elif max(
                _baloot_bid_value(hand, s) - _baloot_bid_value(hand, None) for s in "SHDC" if s != cand_suit
            ) >= 3.5:
                return hokm
        passing = find(type="pass")
        if passing is not None:
            return passing
    if phase == "choose_trump":
        scored = [
            (_baloot_bid_value(hand, d.get("suit")), i) for i, d in enumerate(as_json) if d.get("suit")
        ]
        if scored:
            return actions[max(scored)[1]]
    if phase == "doubling":
        passing = find(type="pass")
        if passing is not None:
            return passing
    declare = find(type="declare")
    if declare is not None:
        return declare
    cards = [(d["card"], a) for d, a in zip(as_json, actions) if isinstance(d.get("card"), str)]
    if not cards:
        return actions[int(rng.random() * len(actions))]
    contract = view.get("contract") or {}
    trump = contract.get("trump") if isinstance(contract, dict) else None
    if not isinstance(trump, str) or len(trump) != 1:
        trump = trump[1] if isinstance(trump, str) and len(trump) == 2 else None
    table = [t for t in (view.get("table") or []) if isinstance(t, dict)]
    codes = [c for c, _ in cards]
    by_code: dict[str, Action] = {}
    for c, a in cards:
        by_code.setdefault(c, a)  # the plain play first (an ekka variant comes later)
    low = min(codes, key=lambda c: (_baloot_points(c, trump), _baloot_power(c, trump)))
    if not table:
        aces = [c for c in codes if c[0] == "A" and c[1] != trump]
        if aces:
            return by_code[aces[0]]
        return by_code[low]
    led = table[0]["card"][1]

    def power_in_trick(code: str) -> int:
        if code[1] == trump:
            return 100 + _baloot_power(code, trump)
        if code[1] == led:
            return _baloot_power(code, trump)
        return -1

    winner = max(table, key=lambda t: power_in_trick(t["card"]))
    partner_winning = winner.get("seat") == (seat + 2) % 4
    last_to_play = len(table) == 3
    if partner_winning:
        if last_to_play:
            return by_code[max(codes, key=lambda c: (_baloot_points(c, trump), -_baloot_power(c, trump)))]
        return by_code[low]
    beating = [c for c in codes if power_in_trick(c) > power_in_trick(winner["card"])]
    if beating:
        return by_code[min(beating, key=lambda c: power_in_trick(c))]
    return by_code[low]


# --------------------------------------------------------------------------- Porrazo

_PORRAZO_RANKS = "A23456789TJQK"
_PORRAZO_VALUE = {"K": 4, "Q": 3, "J": 2}


def _porrazo_play_value(data: dict[str, Any], view: dict[str, Any], seat: int) -> float:
    """How good a play looks from the view (R11 order): San Benito wins the match, a
    counter-porrazo scores 3 v(r), a capture takes its cards (a porrazo and a limpia score
    extra), a discard risks a porrazo by whoever holds the rank."""
    card = data["card"]
    rank = card[0]
    value_r = _PORRAZO_VALUE.get(rank, 1)
    chain = view.get("chain")
    stage = chain.get("stage") if isinstance(chain, dict) else None
    chain_rank = chain.get("rank") if isinstance(chain, dict) else None
    if isinstance(chain_rank, str) and len(chain_rank) == 2:
        chain_rank = chain_rank[0]
    if stage == "counter" and chain_rank == rank:
        return 1000.0
    if stage == "porrazo" and chain_rank == rank:
        return 50.0 + 3 * value_r
    table: list[str] = [c for c in (view.get("table") or []) if isinstance(c, str)]
    table_ranks = [c[0] for c in table]
    if rank in table_ranks and data.get("capture", True) is not False:
        taken = 1
        i = _PORRAZO_RANKS.index(rank)
        for k in range(1, 13):
            if _PORRAZO_RANKS[(i + k) % 13] in table_ranks:
                taken += 1
            else:
                break
        value = 2.0 + taken
        if stage == "discard" and chain_rank == rank:
            value += 3 * value_r
        if taken >= len(table):
            value += 3.0
        return value
    seen = list(table)
    for pile in view.get("piles") or []:
        if isinstance(pile, list):
            seen.extend(c for c in pile if isinstance(c, str))
    for played in view.get("played") or []:
        if isinstance(played, list):
            seen.extend(c for c in played if isinstance(c, str))
    hands = view.get("hands") or []
    if seat < len(hands) and isinstance(hands[seat], list):
        seen.extend(hands[seat])
    unseen = 4 - sum(1 for c in seen if c[0] == rank)
    bonus = 0.0
    if rank in "A234" and len(table) + 1 == _PORRAZO_RANKS.index(rank) + 1:
        bonus = 2.0 * (_PORRAZO_RANKS.index(rank) + 1)  # en su lugar (R13)
    return bonus - unseen * value_r


@register("porrazo")
def porrazo_policy(game: Game[Any], state: Any, seat: int, rng: random.Random) -> Action:
    """Easy Porrazo: take the tendido, declare combinations, claim whenever possible, and
    play the card whose capture is worth most (San Benito, counter-porrazo, porrazo,
    limpia), else discard the rank least likely to be matched."""
    view = game.view(state, seat)
    actions = game.legal_actions(state)
    as_json = [game.action_to_json(state, a) for a in actions]
    for wanted in ("tendido", "declare", "claim"):
        for action, data in zip(actions, as_json):
            if data.get("type") == wanted:
                return action
    best: list[Action] = []
    best_value = -math.inf
    for action, data in zip(actions, as_json):
        if not isinstance(data.get("card"), str):
            continue
        value = _porrazo_play_value(data, view, seat)
        if value > best_value:
            best, best_value = [action], value
        elif value == best_value:
            best.append(action)
    if not best:
        return greedy_policy(game, state, seat, rng)
    return best[int(rng.random() * len(best))]


# --------------------------------------------------------------------------- Marriage

_MARRIAGE_RANKS = "A23456789TJQK"


def _marriage_links(code: str, hand: list[str]) -> float:
    """How much ``code`` helps melds with the other cards of ``hand``: identical cards
    (tunnela), same rank (trial), same suit one or two ranks apart (sequence)."""
    r = _MARRIAGE_RANKS.index(code[0])
    links = 0.0
    skipped_self = False
    for other in hand:
        if other == code and not skipped_self:
            skipped_self = True
            continue
        if other == code:
            links += 3.0
            continue
        o = _MARRIAGE_RANKS.index(other[0])
        if o == r:
            links += 1.0
        elif other[1] == code[1]:
            gap = min((o - r) % 13, (r - o) % 13)
            if gap == 1:
                links += 2.0
            elif gap == 2:
                links += 1.0
    return links


@register("marriage")
def marriage_policy(game: Game[Any], state: Any, seat: int, rng: random.Random) -> Action:
    """Easy Marriage: expose tunnelas, take any show / finish action the rules offer,
    take the discard only when it links with two or more cards of the hand, and discard
    the card with the fewest links (ties: the higher rank)."""
    view = game.view(state, seat)
    actions = game.legal_actions(state)
    as_json = [game.action_to_json(state, a) for a in actions]
    hands = view.get("hands") or []
    hand: list[str] = hands[seat] if seat < len(hands) and isinstance(hands[seat], list) else []
    types = [d.get("type") for d in as_json]
    for wanted in ("expose_tunnela", "finish", "show"):
        if wanted in types:
            return actions[types.index(wanted)]
    if "take_discard" in types:
        pile = view.get("discard") or []
        top = pile[-1].get("card") if pile and isinstance(pile[-1], dict) else None
        if isinstance(top, str) and _marriage_links(top, hand + [top]) >= 4.0:
            return actions[types.index("take_discard")]
        if "draw_stock" in types:
            return actions[types.index("draw_stock")]
    discards = [
        (d["card"], a) for d, a in zip(as_json, actions) if d.get("type") == "discard" and isinstance(d.get("card"), str)
    ]
    if discards:
        scored = [
            (_marriage_links(c, hand), -_MARRIAGE_RANKS.index(c[0]), i) for i, (c, _) in enumerate(discards)
        ]
        return discards[min(scored)[2]][1]
    others = [a for a, t in zip(actions, types) if t != "pass"]
    pool = others or actions
    return pool[int(rng.random() * len(pool))]
