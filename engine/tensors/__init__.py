"""Observation and information-state tensors: a seat's view of a game as a fixed-length
list of floats, for learned players (OpenSpiel's ``observation_tensor`` /
``information_state_tensor``, engine/openspiel.py; docs/openspiel.md lists the layouts).

The encoders read a **view** only (``game.view(state, seat)``, or ``game.public_view``
for the public part), never a state: a view already hides every card the seat may not
see, so no hidden card can reach a tensor, and no rule is written here. Each game's
encoder (``engine/tensors/<game>.py``) declares its *pieces*, named blocks of the
tensor with a shape, and fills them from the view's fields through a :class:`Writer`,
which turns seats into seats *relative to the viewer* (0 = the viewer, 1 = the next seat
in seat order...), sides into sides relative to the viewer's side, cards into one-hot
positions in the game's pack and numbers into [-1, 1].

Two kinds of tensor per game and table:

* ``observation``: the pieces read from the view's current fields (hand, table, cards
  each seat has played or captured, counts of hidden cards, phase, contract, scores...);
* ``information_state``: the observation plus the *recall* pieces, read from the view's
  history of the current deal (who played which card and in which order, and the deal's
  calls: bids, passes, declarations, doubles, challenges, in order). Marriage's discards
  repeat cards (three packs), so its recall counts them per seat instead of ordering them.

Every value is in [-1, 1]: one-hots and flags are 0/1, counts are divided by a bound
(the pack, a hand), scores are divided by a scale and clipped (only scores can be
negative). A piece is *private* when it holds what only the viewer knows (its own hand):
OpenSpiel's public-only observers leave those out and read the public view.
"""

from __future__ import annotations

import functools
import importlib
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.protocol import JSON, Game


@dataclass(frozen=True)
class Piece:
    """A named block of the tensor. ``private``: the viewer's own secret (left out of a
    public-only tensor); ``recall``: read from the deal's history (information state only)."""

    name: str
    shape: tuple[int, ...]
    private: bool = False
    recall: bool = False

    @property
    def size(self) -> int:
        return math.prod(self.shape)


@dataclass(frozen=True)
class Table:
    """What a layout depends on: the game, the players, the options, the distinct cards of
    the pack (in pack order) and the sides (seats per side, as the engine's score gives them)."""

    game_id: str
    players: int
    options: JSON
    cards: tuple[str, ...]
    copies: int
    sides: tuple[tuple[int, ...], ...]
    card_index: dict[str, int] = field(compare=False, hash=False, repr=False)

    @property
    def n_cards(self) -> int:
        return len(self.cards)

    @property
    def n_sides(self) -> int:
        return len(self.sides)


class Encoder(Protocol):
    """A game's encoder module (engine/tensors/<game>.py)."""

    def pieces(self, table: Table) -> list[Piece]: ...

    def fill(self, view: JSON, w: Writer) -> None: ...


def table_of(game: Game[Any], players: int, options: JSON) -> Table:
    """The :class:`Table` of a game at ``players`` seats with parsed ``options`` (the pack
    and the sides are the engine's, read from a new match)."""
    state = game.new_state(players, options, 0, seed=0)
    pack = game.pack(state)
    cards = tuple(dict.fromkeys(pack))
    copies = max(pack.count(c) for c in cards)
    sides = tuple(tuple(side) for side in game.score(state).sides)
    return Table(
        game_id=game.id,
        players=players,
        options=dict(options),
        cards=cards,
        copies=copies,
        sides=sides,
        card_index={c: i for i, c in enumerate(cards)},
    )


def encoder(game_id: str) -> Encoder:
    """The encoder module of ``game_id``."""
    module: Encoder = importlib.import_module(f"engine.tensors.{game_id}")  # type: ignore[assignment]
    return module


# --------------------------------------------------------------------------- layouts


class Layout:
    """The selected pieces of one kind of tensor, with their offsets in the flat vector."""

    def __init__(self, pieces: Sequence[Piece]) -> None:
        names = [p.name for p in pieces]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate piece names in {names}")
        self.pieces = tuple(pieces)
        self.offsets: dict[str, int] = {}
        offset = 0
        for p in self.pieces:
            self.offsets[p.name] = offset
            offset += p.size
        self.size = offset
        self.by_name = {p.name: p for p in self.pieces}

    def describe(self) -> list[tuple[str, tuple[int, ...]]]:
        """(name, shape) of each piece, in tensor order."""
        return [(p.name, p.shape) for p in self.pieces]


def select(
    pieces: Iterable[Piece], *, recall: bool = False, public: bool = True, private: bool = True
) -> Layout:
    """The pieces of a tensor: recall pieces only for an information state; private
    pieces only with ``private``; the others (public) only with ``public``."""
    chosen = [p for p in pieces if (recall or not p.recall) and (private if p.private else public)]
    return Layout(chosen)


# --------------------------------------------------------------------------- writing


class Writer:
    """Fills a flat vector laid out by ``layout`` from the view of seat ``me`` (the
    perspective: a public view has no seat of its own). Writes to pieces the layout
    left out are dropped, so an encoder fills every piece it declares."""

    def __init__(self, table: Table, layout: Layout, me: int) -> None:
        self.table = table
        self.layout = layout
        self.me = me
        self.n = table.players
        self.values = [0.0] * layout.size
        side_of = {seat: k for k, side in enumerate(table.sides) for seat in side}
        self._side_of = side_of
        # sides relative to the viewer: ordered by the nearest seat of each, counted from me
        order = sorted(range(table.n_sides), key=lambda k: min((s - me) % self.n for s in table.sides[k]))
        self._rel_side = {k: i for i, k in enumerate(order)}

    # ---- seats and sides

    def rel(self, seat: int) -> int:
        """``seat`` counted from the viewer (0 = the viewer)."""
        return (seat - self.me) % self.n

    def rel_side(self, side: int) -> int:
        """``side`` counted from the viewer's side (0 = the viewer's side)."""
        return self._rel_side[side]

    # ---- primitives

    def _index(self, name: str, index: Sequence[int]) -> int | None:
        offset = self.layout.offsets.get(name)
        if offset is None:
            return None
        shape = self.layout.by_name[name].shape
        if len(index) != len(shape):
            raise ValueError(f"{name}: index {tuple(index)} for shape {shape}")
        flat = 0
        for i, dim in zip(index, shape, strict=True):
            if not 0 <= i < dim:
                raise ValueError(f"{name}: index {tuple(index)} outside shape {shape}")
            flat = flat * dim + i
        return offset + flat

    def set(self, name: str, *index: int, value: float = 1.0) -> None:
        """Write ``value`` (clipped to [-1, 1]) at ``index`` of piece ``name``."""
        at = self._index(name, index)
        if at is not None:
            self.values[at] = max(-1.0, min(1.0, float(value)))

    def add(self, name: str, *index: int, value: float = 1.0) -> None:
        """Add ``value`` at ``index`` (the sum clipped to [-1, 1])."""
        at = self._index(name, index)
        if at is not None:
            self.values[at] = max(-1.0, min(1.0, self.values[at] + float(value)))

    # ---- helpers the encoders share

    def scaled(self, name: str, value: float | None, scale: float, *index: int) -> None:
        """``value / scale`` (clipped to [-1, 1]); nothing for None."""
        if value is not None:
            self.set(name, *index, value=value / scale)

    def seat(self, name: str, seat: int | None, *prefix: int) -> None:
        """A one-hot of ``seat`` relative to the viewer; nothing for None."""
        if seat is not None:
            self.set(name, *prefix, self.rel(seat))

    def side(self, name: str, side: int | None, *prefix: int) -> None:
        """A one-hot of ``side`` relative to the viewer's side; nothing for None."""
        if side is not None:
            self.set(name, *prefix, self.rel_side(side))

    def choice(self, name: str, value: Any, choices: Sequence[Any], *prefix: int) -> None:
        """A one-hot of ``value``'s position in ``choices`` (which may include None)."""
        self.set(name, *prefix, list(choices).index(value))

    def cards(self, name: str, codes: Iterable[str], *prefix: int) -> None:
        """Each card of ``codes`` at its pack position, counted in copies of the pack
        (1 per card for one pack; 1/3 per copy for Marriage's three packs)."""
        step = 1.0 / self.table.copies
        for code in codes:
            self.add(name, *prefix, self.table.card_index[code], value=step)

    def per_seat_cards(self, name: str, hands: Sequence[Any]) -> None:
        """Row ``rel(seat)`` of piece ``name`` holds each seat's cards where the view
        lists them (a count where it hides them writes nothing)."""
        for seat, cards in enumerate(hands):
            if isinstance(cards, list):
                self.cards(name, cards, self.rel(seat))

    def hand_counts(self, name: str, hands: Sequence[Any], bound: int) -> None:
        """Each seat's number of cards (listed or counted) over ``bound``."""
        for seat, cards in enumerate(hands):
            count = len(cards) if isinstance(cards, list) else int(cards)
            self.scaled(name, count, bound, self.rel(seat))

    def per_side(self, name: str, values: Sequence[float], scale: float) -> None:
        """Each side's number over ``scale``, in sides relative to the viewer's."""
        for side, value in enumerate(values):
            self.scaled(name, value, scale, self.rel_side(side))

    def per_seat(self, name: str, values: Sequence[float], scale: float) -> None:
        """Each seat's number over ``scale``, in seats relative to the viewer."""
        for seat, value in enumerate(values):
            self.scaled(name, value, scale, self.rel(seat))

    def item_points(self, name: str, items: Iterable[JSON], scale: float) -> None:
        """The points of score items ``{side, points}`` summed per side, over ``scale``."""
        totals = [0.0] * self.table.n_sides
        for item in items:
            totals[int(item["side"])] += float(item["points"])
        self.per_side(name, totals, scale)


# --------------------------------------------------------------------------- recall


@dataclass(frozen=True)
class Recall:
    """How a game's history of the deal becomes recall pieces.

    ``play_verbs``: the verbs that play a card (field ``card``), recorded as who played
    which card and, with ``ordered``, when (for Marriage's discards of a three-pack
    multiset, ``ordered`` is False: counts only). Every other verb is a *call*: the last
    ``calls`` of them in order, each as (seat, verb, value, target) one-hots, where
    ``values`` are the string or boolean argument values a call may carry (``"hokm"``,
    ``"tringa"``, ``"locked"``...) and a seat argument (``target``, ``seat``) is a target."""

    play_verbs: tuple[str, ...]
    call_verbs: tuple[str, ...]
    values: tuple[str, ...]
    calls: int
    ordered: bool = True
    max_plays: int = 0
    """The bound the play order is scaled by (0: the pack's distinct cards)."""


def opening_pieces(table: Table, phases: Sequence[str]) -> list[Piece]:
    """The pieces most games' tensors open with: the seat's own hand (private), the
    phase, the seat to act and the dealer (the last two counted from the viewer)."""
    n = table.players
    return [
        Piece("hand", (table.n_cards,), private=True),
        Piece("phase", (len(phases),)),
        Piece("to_act", (n,)),
        Piece("dealer", (n,)),
    ]


def fill_opening(view: JSON, w: Writer, phases: Sequence[str]) -> None:
    """:func:`opening_pieces` from ``view``: the hand only when the view is the seat's own."""
    hands = view["hands"]
    if view.get("seat") == w.me and isinstance(hands[w.me], list):
        w.cards("hand", hands[w.me])
    w.choice("phase", view["phase"], phases)
    w.seat("to_act", view["to_act"])
    w.seat("dealer", view["dealer"])


def recall_pieces(table: Table, recall: Recall) -> list[Piece]:
    n, c = table.players, table.n_cards
    row = n + len(recall.call_verbs) + len(recall.values) + n
    pieces = [Piece("deal_plays", (n, c), recall=True)]
    if recall.ordered:
        pieces.append(Piece("deal_play_order", (c,), recall=True))
    pieces += [
        Piece("deal_calls", (recall.calls, row), recall=True),
        Piece("deal_call_count", (1,), recall=True),
    ]
    return pieces


def fill_recall(w: Writer, history: Sequence[JSON], recall: Recall) -> None:
    """The recall pieces from the deal's history entries ``{"seat", "action"}``."""
    n = w.n
    bound = recall.max_plays or w.table.n_cards
    calls: list[tuple[int, JSON]] = []
    plays = 0
    for entry in history:
        seat, action = int(entry["seat"]), entry["action"]
        verb = action["type"]
        if verb in recall.play_verbs:
            card = action.get("card") or action.get("discard")
            if isinstance(card, str):
                w.cards("deal_plays", [card], w.rel(seat))
                plays += 1
                if recall.ordered:
                    w.set("deal_play_order", w.table.card_index[card], value=plays / bound)
        elif verb in recall.call_verbs:
            calls.append((seat, action))
    w.scaled("deal_call_count", len(calls), 4 * recall.calls, 0)
    verbs_at = n
    values_at = verbs_at + len(recall.call_verbs)
    target_at = values_at + len(recall.values)
    for k, (seat, action) in enumerate(calls[-recall.calls :]):
        w.set("deal_calls", k, w.rel(seat))
        w.set("deal_calls", k, verbs_at + recall.call_verbs.index(action["type"]))
        for key, value in action.items():
            if key == "type":
                continue
            if isinstance(value, bool):
                value = key if value else None
            if isinstance(value, str) and value in recall.values:
                w.set("deal_calls", k, values_at + recall.values.index(value))
            elif key in ("target", "seat") and isinstance(value, int):
                w.set("deal_calls", k, target_at + w.rel(value))


# --------------------------------------------------------------------------- the whole


class Tensors:
    """The tensors of one game at one table: layouts per kind and the encoding of views."""

    def __init__(self, game: Game[Any], players: int, options: JSON) -> None:
        self.table = table_of(game, players, options)
        self.encoder = encoder(game.id)
        self.pieces = self.encoder.pieces(self.table)
        self._layouts: dict[tuple[bool, bool, bool], Layout] = {}

    def layout(self, *, recall: bool, public: bool = True, private: bool = True) -> Layout:
        """The layout of the information state (``recall``) or the observation, with the
        public and / or the private pieces."""
        key = (recall, public, private)
        if key not in self._layouts:
            self._layouts[key] = select(self.pieces, recall=recall, public=public, private=private)
        return self._layouts[key]

    def encode(self, view: JSON | None, me: int, layout: Layout) -> list[float]:
        """The tensor of ``view`` (a seat's, or the public view) seen from seat ``me``;
        all zeros for no view (OpenSpiel's chance node before the deal)."""
        w = Writer(self.table, layout, me)
        if view is not None:
            self.encoder.fill(view, w)
        return w.values


def observation(game: Game[Any], state: Any, seat: int) -> list[float]:
    """``seat``'s observation tensor of an engine ``state`` (for learned parts outside
    OpenSpiel)."""
    t = tensors_of(game, state)
    return t.encode(game.view(state, seat), seat, t.layout(recall=False))


def information_state(game: Game[Any], state: Any, seat: int) -> list[float]:
    """``seat``'s information state tensor of an engine ``state``."""
    t = tensors_of(game, state)
    return t.encode(game.view(state, seat), seat, t.layout(recall=True))


def tensors_of(game: Game[Any], state: Any) -> Tensors:
    """The :class:`Tensors` of ``state``'s table (kept per game, players and options)."""
    options = game.public_view(state)["options"]
    return _tensors(game.id, game.players(state), json.dumps(options, sort_keys=True))


@functools.lru_cache(maxsize=64)
def _tensors(game_id: str, players: int, options: str) -> Tensors:
    from engine import get_game

    return Tensors(get_game(game_id), players, json.loads(options))
