"""Marriage: the options, the compact internal state and its action encoding."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.protocol import OptionSpec

POINTS_MAX = 10_000
"""Largest payment or card value an option may set; with TURN_LIMIT_MAX and DEALS_MAX it
keeps every score far below 2**53, where a client reading JSON numbers as doubles would
round them."""
TURN_LIMIT_MAX = 100_000
DEALS_MAX = 10_000

OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "max_wild_per_set",
        "choice",
        2,
        "most wild cards one 3-card set may use (R6)",
        choices=(1, 2),
    ),
    OptionSpec("unseen_take_discard", "bool", True, "an unseen player may take the top discard (R10)"),
    OptionSpec(
        "seen_payment",
        "int",
        3,
        "payment of each seen non-winner to the winner (R31)",
        minimum=0,
        maximum=POINTS_MAX,
        test_values=(3, 0),
    ),
    OptionSpec(
        "unseen_payment",
        "int",
        10,
        "payment of each unseen non-winner to the winner (R31)",
        minimum=0,
        maximum=POINTS_MAX,
        test_values=(10,),
    ),
    OptionSpec(
        "dublee_bonus",
        "int",
        5,
        "extra payment after a dublee finish (R31)",
        minimum=0,
        maximum=POINTS_MAX,
        test_values=(5, 0),
    ),
    OptionSpec(
        "unseen_maal",
        "choice",
        "count",
        "maal of unseen non-winners: count, murder or kidnap (R29)",
        choices=("count", "murder", "kidnap"),
    ),
    OptionSpec("alter_points", "choice", 0, "maal value of each alter card (R27)", choices=(0, 5)),
    OptionSpec("man_cards", "choice", 0, "printed jokers XX in the pack", choices=(0, 3)),
    OptionSpec(
        "man_points",
        "int",
        5,
        "maal value of each man held (R27)",
        minimum=0,
        maximum=POINTS_MAX,
        test_values=(5,),
    ),
    OptionSpec(
        "reshuffle",
        "choice",
        "random",
        "order of recycled discards when the stock is rebuilt (R22)",
        choices=("random", "none"),
    ),
    OptionSpec(
        "turn_limit",
        "int",
        1000,
        "completed turns after which a deal is void (R33)",
        minimum=1,
        maximum=TURN_LIMIT_MAX,
        test_values=(30, 120),
    ),
    OptionSpec(
        "deals",
        "int",
        1,
        "deals in a match; 0 = open-ended (R34)",
        minimum=0,
        maximum=DEALS_MAX,
        test_values=(1, 2),
    ),
)


@dataclass(frozen=True)
class Options:
    """The option values of a match (read once from the options dict)."""

    max_wild_per_set: int
    unseen_take_discard: bool
    seen_payment: int
    unseen_payment: int
    dublee_bonus: int
    unseen_maal: str
    alter_points: int
    man_cards: int
    man_points: int
    reshuffle: str
    turn_limit: int
    deals: int

    @classmethod
    def of(cls, options: dict[str, Any]) -> Options:
        return cls(**{spec.name: options[spec.name] for spec in OPTION_SPECS})


# ---- phases
EXPOSE, DRAW, ACT, PICK, OVER = range(5)
PHASES = ("expose", "draw", "act", "pick_tiplu", "deal_over")
PHASE_RULE = ("R9", "R10", "R11", "R14", "R33")

# ---- routes
UNSEEN, SETS, DUBLEES = 0, 1, 2
ROUTES = (None, "sets", "dublees")

# ---- actions (internal, hashable)
# discard C      -> C (0..52)
DRAW_STOCK = 60
TAKE_DISCARD = 61
PASS = 62
EXPOSE_BASE = 100  # expose_tunnela C -> 100 + C
PICK_BASE = 1000  # pick_tiplu i -> 1000 + i
SHOW = "show"  # ("show", sets)
SHOW_DUBLEES = "show_dublees"  # ("show_dublees", pairs)
FINISH = "finish"  # ("finish", sets, discard)
FINISH_DUBLEES = "finish_dublees"  # ("finish_dublees", pair, discard)
DEAL = "deal"  # ("deal", deck tuple) or ("deal", count) in a view's history


# ---- discard entries: card | (by + 1) << 6 | by_unseen << 10
def entry(card: int, by: int, by_unseen: bool) -> int:
    return card | (by + 1) << 6 | (1024 if by_unseen else 0)


def entry_card(e: int) -> int:
    return e & 63


def entry_by(e: int) -> int:
    return ((e >> 6) & 15) - 1


def entry_unseen(e: int) -> bool:
    return bool(e & 1024)


class MState:
    """A Marriage match. Hands are count lists (53 codes); the stock is kept
    bottom-first internally (top = last element, so a draw is ``pop()``)."""

    __slots__ = (
        "n",
        "options",
        "opts",
        "dealer",
        "phase",
        "cur",
        "hands",
        "tunnelas",
        "shown",
        "route",
        "stock",
        "tiplu",
        "men_rev",
        "discard",
        "drew",
        "took",
        "tws",
        "turns",
        "winner",
        "fkind",
        "maal",
        "delta",
        "result_deal",
        "totals",
        "deal_no",
        "hist",
        "hkey",
        "rng_state",
        "caller",
        "recycled",
        "taken",
        "over",
        "hlen",
        "deal_start",
    )

    n: int
    options: dict[str, Any]
    opts: Options
    dealer: int
    phase: int
    cur: int | None
    hands: list[list[int]]
    tunnelas: list[list[int]]
    shown: list[list[Any]]
    route: list[int]
    stock: list[int]
    tiplu: int
    men_rev: int
    discard: list[int]
    drew: int
    took: int
    tws: bool
    turns: int
    winner: int
    fkind: int
    maal: list[int] | None
    delta: list[int] | None
    result_deal: int
    totals: list[int]
    deal_no: int
    hist: Any
    hkey: int
    rng_state: int | None
    caller: bool
    recycled: tuple[int, ...]
    taken: list[tuple[int, ...]]
    over: bool
    hlen: int
    deal_start: int

    def copy(self) -> MState:
        new = MState.__new__(MState)
        new.n = self.n
        new.options = self.options
        new.opts = self.opts
        new.dealer = self.dealer
        new.phase = self.phase
        new.cur = self.cur
        new.hands = [h[:] for h in self.hands]
        new.tunnelas = self.tunnelas[:]  # inner lists are replaced, never mutated
        new.shown = self.shown[:]
        new.route = self.route[:]
        new.stock = self.stock[:]
        new.tiplu = self.tiplu
        new.men_rev = self.men_rev
        new.discard = self.discard[:]
        new.drew = self.drew
        new.took = self.took
        new.tws = self.tws
        new.turns = self.turns
        new.winner = self.winner
        new.fkind = self.fkind
        new.maal = self.maal
        new.delta = self.delta
        new.result_deal = self.result_deal
        new.totals = self.totals[:]
        new.deal_no = self.deal_no
        new.hist = self.hist
        new.hkey = self.hkey
        new.rng_state = self.rng_state
        new.caller = self.caller
        new.recycled = self.recycled
        new.taken = self.taken[:]
        new.over = self.over
        new.hlen = self.hlen
        new.deal_start = self.deal_start
        return new

    def seen(self, seat: int) -> bool:
        return self.route[seat] != UNSEEN

    def drawable(self) -> int:
        return len(self.stock) - (1 if self.tiplu >= 0 else 0)


def public_action(action: Any) -> Any:
    """The part of an action the whole table sees (a dealt deck is only its size)."""
    if isinstance(action, tuple) and action[0] == DEAL and not isinstance(action[1], int):
        return (DEAL, len(action[1]))
    return action
