"""The five games as OpenSpiel Python games, ``majlis_<game>``, wrapping the Game protocol.

Importing this module needs ``open-spiel`` (``pip install -e '.[openspiel]'``) and registers
``majlis_ronda``, ``majlis_baloot``, ``majlis_trex``, ``majlis_porrazo`` and
``majlis_marriage`` with pyspiel::

    import engine.openspiel  # registers the games
    game = pyspiel.load_game("majlis_trex", {"players": 4, "doubling": False})

No rule is written here: every legal action, step, view, sample and reward comes from the
engine's :class:`~engine.protocol.Game`. What this module adds is the mapping (see
docs/openspiel.md):

* an episode is **one deal** of a match (in Porrazo a hand, its whole deck): a chance
  node draws the match's seed among ``seeds`` outcomes (the engine deals from it), the
  players play until ``game.is_playout_over`` says the deal (or the match) has ended,
  and ``returns`` are
  ``game.outcome(start, end)``: 1/0 for a match won/lost in the deal, else the deal's
  score difference mapped into (0, 1), counted from the state the episode started at;
* action ids are the engine's own integer actions (a card's index for a play, the game's
  tables for bids, declarations, doubles...); an action that is not an int (Marriage's
  ``show`` / ``finish`` meld lists) gets ``int_actions + k``, k its rank among the state's
  such legal actions in the engine's canonical order. Those legal actions depend only
  on what the seat to act knows, so an id means the same action throughout an
  information state (which is what ISMCTS keys on), though not across them;
* ``information_state_string`` and ``observation_string`` are the seat's engine view as
  canonical JSON (so they hide exactly what the view hides); ``resample_from_infostate``
  deals a world with the engine's sampler for that view;
* ``observation_tensor`` and ``information_state_tensor`` are that view encoded as a
  fixed-length vector (engine/tensors: named pieces per game, seats relative to the
  viewer, values in [-1, 1]), served through :class:`ViewObserver`.

A state can also start from any engine state of a match (:meth:`MajlisGame.state_from`):
that is how the arena hands its match to OpenSpiel's ISMCTS (ai/openspiel_bot.py).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel

from engine import GAME_IDS, get_game
from engine.protocol import Game
from engine.tensors import Layout, Tensors

DEFAULT_SEEDS = 1000
"""Chance outcomes of the deal: the match's seed is drawn uniformly from 0..seeds-1."""

COMPOSITE_SLOTS = {"marriage": 1 << 14}
"""Ids kept for actions that are not ints, per game (Marriage's meld lists; 4,830 at most
were legal at once over 240 random deals). A state with more raises an error."""

ACTIONS_PER_CARD = 4
"""max_game_length of a deal, for games whose deal is played card by card: this many
actions per card of the pack (a bound; the most measured over 300 random deals of each
game and table size is 80, for Trex's 52 cards)."""


def _int_actions(game_id: str, players: int, pack_size: int) -> int:
    """One more than the largest integer action the engine's tables can produce for this
    table (the engine's own encodings; ids of composite actions start here)."""
    if game_id == "ronda":
        from engine.games.ronda import tables as ronda

        return ronda.CHALLENGE_BASE + players
    if game_id == "baloot":
        from engine.games.baloot import tables as baloot

        return baloot.PASS_PROJECT + 1
    if game_id == "trex":
        from engine.games.trex import tables as trex

        return trex.CHOOSE_BASE + len(trex.CONTRACT_NAMES)
    if game_id == "porrazo":
        from engine.games.porrazo import tables as porrazo

        return porrazo.CLAIM + players
    if game_id == "marriage":
        from engine.games.marriage import tables as marriage

        return marriage.PICK_BASE + pack_size  # pick_tiplu takes an index into the stock
    raise ValueError(f"no action table for {game_id}")


def _max_deal_length(game_id: str, players: int, options: dict[str, Any], pack_size: int) -> int:
    """An upper bound on the actions of one deal."""
    if game_id == "marriage":
        # the turn limit ends the deal; a turn is a draw and a discard, and each seat may
        # add a show and the prelude (pick the tiplu, expose up to 7 tunnelas and pass)
        return 2 * int(options["turn_limit"]) + 16 * players + 8
    return ACTIONS_PER_CARD * pack_size


# --------------------------------------------------------------------------- game


class Table:
    """One loaded ``majlis_<game>``: the engine game, the table and the action space.
    Shared by every state of the game (copying a state does not copy it)."""

    def __init__(
        self,
        game_id: str,
        players: int,
        options: dict[str, Any],
        dealer: int,
        seeds: int,
        int_actions: int,
        composite_slots: int,
    ) -> None:
        self.game_id = game_id
        self.game: Game[Any] = get_game(game_id)
        self.players = players
        self.options = options
        self.dealer = dealer
        self.seeds = seeds
        self.int_actions = int_actions
        self.composite_slots = composite_slots
        self._tensors: Tensors | None = None

    @property
    def tensors(self) -> Tensors:
        """The table's tensor layouts and encoders (engine/tensors), built on first use."""
        if self._tensors is None:
            self._tensors = Tensors(self.game, self.players, self.options)
        return self._tensors

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            Table,
            (
                self.game_id,
                self.players,
                self.options,
                self.dealer,
                self.seeds,
                self.int_actions,
                self.composite_slots,
            ),
        )

    def to_id(self, state: Any, action: Any) -> int:
        """The OpenSpiel id of the engine ``action`` legal in ``state``."""
        if type(action) is int:
            return action
        composite = [a for a in self.game.legal_actions(state) if type(a) is not int]
        return self.int_actions + composite.index(action)

    def to_action(self, state: Any, action_id: int) -> Any:
        """The engine action of ``action_id`` in ``state`` (an error if it is not legal)."""
        if action_id < self.int_actions:
            return action_id
        composite = [a for a in self.game.legal_actions(state) if type(a) is not int]
        return composite[action_id - self.int_actions]


def _parameter_spec(game: Game[Any]) -> dict[str, Any]:
    """OpenSpiel parameters: ``players``, ``dealer``, ``seeds`` and every game option
    (OpenSpiel takes bool, int, float and str values: every option's default is one)."""
    spec: dict[str, Any] = {"players": min(game.player_counts), "dealer": 0, "seeds": DEFAULT_SEEDS}
    for option in game.option_specs:
        spec[option.name] = option.default
    return spec


def _game_type(game: Game[Any]) -> Any:
    return pyspiel.GameType(
        short_name=f"majlis_{game.id}",
        long_name=f"Majlis {game.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(game.player_counts),
        min_num_players=min(game.player_counts),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_parameter_spec(game),
    )


class MajlisGame(pyspiel.Game):
    """``majlis_<game>`` for one table: players, dealer of the first deal, options."""

    def __init__(self, game_id: str, params: dict[str, Any] | None = None) -> None:
        game = get_game(game_id)
        params = dict(params or {})
        players = game.check_players(int(params.pop("players", min(game.player_counts))))
        dealer = game.check_dealer(players, int(params.pop("dealer", 0)))
        seeds = int(params.pop("seeds", DEFAULT_SEEDS))
        if seeds < 1:
            raise ValueError("seeds must be at least 1")
        options = game.parse_options(params, players)
        pack_size = len(game.pack(game.new_state(players, options, dealer, seed=0)))
        self.table = Table(
            game_id=game_id,
            players=players,
            options=options,
            dealer=dealer,
            seeds=seeds,
            int_actions=_int_actions(game_id, players, pack_size),
            composite_slots=COMPOSITE_SLOTS.get(game_id, 0),
        )
        info = pyspiel.GameInfo(
            num_distinct_actions=self.table.int_actions + self.table.composite_slots,
            max_chance_outcomes=seeds,
            num_players=players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=_max_deal_length(game_id, players, options, pack_size),
        )
        super().__init__(
            _game_type(game), info, {"players": players, "dealer": dealer, "seeds": seeds, **options}
        )

    def new_initial_state(self) -> MajlisState:
        """The chance node that draws the match's seed."""
        return MajlisState(self)

    def state_from(self, engine_state: Any) -> MajlisState:
        """An episode that starts at ``engine_state`` (a copy) and ends with its deal."""
        state = MajlisState(self)
        state._begin(self.table.game.clone(engine_state))
        return state

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> ViewObserver:
        """An observer of ``iig_obs_type`` (default: the observation): perfect recall gives
        the information state tensor, else the observation tensor; ``public_info`` /
        ``private_info`` keep the public pieces (read from the public view) and the seat's
        private pieces (its hand; Marriage's tiplu once seen)."""
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        return ViewObserver(self.table, iig_obs_type)


class _World:
    """An engine state in a MajlisState's attributes. OpenSpiel copies a Python state by
    deep-copying its attributes and serializes it by pickling them: a copy is the
    engine's ``clone`` (``shared``: the same object, for a state never mutated again),
    a pickle is the state's JSON."""

    __slots__ = ("game_id", "value", "shared")

    def __init__(self, game_id: str, value: Any, *, shared: bool = False) -> None:
        self.game_id = game_id
        self.value = value
        self.shared = shared

    def __deepcopy__(self, memo: dict[int, Any]) -> _World:
        if self.shared:
            return self
        return _World(self.game_id, get_game(self.game_id).clone(self.value))

    def __reduce__(self) -> tuple[Any, ...]:
        return (_world_from_json, (self.game_id, get_game(self.game_id).to_json(self.value), self.shared))


def _world_from_json(game_id: str, data: Any, shared: bool) -> _World:
    return _World(game_id, get_game(game_id).from_json(data), shared=shared)


class _Memo:
    """What a state's world decides, each computed on first use: whether the episode is
    over, the seat to act, each seat's information state string and each seat's sampler
    of worlds. OpenSpiel's searches ask these several times a step (ISMCTS reads a node's
    key three times, and resamples the same root state once a simulation; a rollout asks
    ``is_terminal`` and ``current_player`` at every step), and each is a walk over the
    engine state: memoized, OpenSpiel's ISMCTS on these games runs about 1.5 times as many
    simulations a second (bench/openspiel_adapter.py). A state replaces its memo whenever
    its world changes, never clears it, so a copy of the state may share it."""

    __slots__ = ("terminal", "to_act", "strings", "samplers")

    def __init__(self) -> None:
        self.terminal: bool | None = None
        self.to_act: int | None = None
        self.strings: dict[int, str] = {}
        self.samplers: dict[int, Callable[[random.Random], Any]] = {}

    def __deepcopy__(self, memo: dict[int, Any]) -> _Memo:
        return self  # the copy's world is equal to this state's until one of them moves

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), ())


class _KeepsNothing(dict):  # type: ignore[type-arg]
    def __setitem__(self, key: Any, value: Any) -> None:
        pass


class _Forgetful(_Memo):
    """A memo that keeps nothing: every answer is worked out afresh (the adapter before
    the memo), for the bench and the test that show both decide alike."""

    __slots__ = ()

    def __init__(self) -> None:
        for name in ("terminal", "to_act"):
            object.__setattr__(self, name, None)
        for name in ("strings", "samplers"):
            object.__setattr__(self, name, _KeepsNothing())

    def __setattr__(self, name: str, value: Any) -> None:
        pass


_memo_class: type[_Memo] = _Memo


def keep_memos(keep: bool) -> None:
    """Whether states made from now on keep what they work out of their world (the
    default) or work it out afresh every time (for measuring what the memo saves)."""
    global _memo_class
    _memo_class = _Memo if keep else _Forgetful


# --------------------------------------------------------------------------- state


class MajlisState(pyspiel.State):
    """A chance node (no world yet) or an engine state, ``world``, of the episode that
    started at ``start`` (both held in :class:`_World` boxes, which OpenSpiel's copies and
    pickles go through; the start is shared by every copy)."""

    def __init__(self, game: MajlisGame) -> None:
        super().__init__(game)
        self.table = game.table
        self._world: _World | None = None
        self._start: _World | None = None
        self._memo = _memo_class()

    def _begin(self, world: Any) -> None:
        """Start the episode at ``world`` (owned by this state from now on)."""
        game = self.table.game
        self._world = _World(self.table.game_id, world)
        self._start = _World(self.table.game_id, game.clone(world), shared=True)
        self._memo = _memo_class()

    @property
    def world(self) -> Any:
        """The engine state (None at the chance node). Read it, do not change it: the
        state moves only by ``apply_action`` (what it has worked out of the world is kept
        until then)."""
        return self._world.value if self._world is not None else None

    # ---- the turn ------------------------------------------------------------

    def current_player(self) -> int:
        if self._world is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        seat = self._memo.to_act
        if seat is None:
            seat = self._memo.to_act = self.table.game.to_act(self._world.value)
            assert seat is not None  # not terminal
        return seat

    def is_terminal(self) -> bool:
        if self._world is None or self._start is None:
            return False
        over = self._memo.terminal
        if over is None:
            over = self._memo.terminal = self.table.game.is_playout_over(self._start.value, self._world.value)
        return over

    def _legal_actions(self, player: int) -> list[int]:
        actions = self.table.game.legal_actions(self.world)
        ids = sorted(a for a in actions if type(a) is int)
        composite = len(actions) - len(ids)
        if composite > self.table.composite_slots:
            raise ValueError(f"{composite} composite actions, {self.table.composite_slots} ids for them")
        ids.extend(range(self.table.int_actions, self.table.int_actions + composite))
        return ids

    def chance_outcomes(self) -> list[tuple[int, float]]:
        p = 1.0 / self.table.seeds
        return [(seed, p) for seed in range(self.table.seeds)]

    def _apply_action(self, action: int) -> None:
        table = self.table
        self._memo = _memo_class()
        if self._world is None:
            self._begin(table.game.new_state(table.players, table.options, table.dealer, seed=action))
            return
        world = self._world.value
        table.game.step(world, table.to_action(world, action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal from seed {action}"
        world = self.world
        if action >= self.table.int_actions and (world is None or action not in self._legal_actions(player)):
            return f"composite action {action - self.table.int_actions}"  # names nothing here
        engine_action = self.table.to_action(world, action)
        return json.dumps(self.table.game.action_to_json(world, engine_action), sort_keys=True)

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.table.players
        assert self._start is not None
        return list(self.table.game.outcome(self._start.value, self.world))

    # ---- what a seat knows ---------------------------------------------------

    def information_state_string(self, player: int | None = None) -> str:
        """The seat's engine view as canonical JSON ("" before the deal)."""
        if player is None:
            player = self.current_player()
        strings = self._memo.strings
        text = strings.get(player)
        if text is None:
            text = strings[player] = view_string(self.table.game, self.world, player)
        return text

    def observation_string(self, player: int | None = None) -> str:
        """The same as the information state: a view already holds all a seat remembers."""
        return self.information_state_string(player)

    def resample_from_infostate(
        self, player_id: int, probability_sampler: Callable[[], float]
    ) -> MajlisState:
        """A state dealt by the engine's sampler from ``player_id``'s view: its
        information state for that seat is this one's. The sampler's first number seeds
        the deal (OpenSpiel's ISMCTS passes a uniform sampler)."""
        return self.resample(player_id, random.Random(int(probability_sampler() * (1 << 53))))

    def resample(self, player_id: int, rng: random.Random) -> MajlisState:
        """:meth:`resample_from_infostate` with an explicit generator. The world's
        episode starts at the world itself (as the bots' own search counts rewards)."""
        if self._world is None:
            return self.clone()  # type: ignore[no-any-return]
        game = self.table.game
        samplers = self._memo.samplers
        sample = samplers.get(player_id)
        if sample is None:
            sample = samplers[player_id] = game.sampler(game.view(self.world, player_id))
        state = MajlisState(self.get_game())
        state._begin(sample(rng))
        return state

    def __str__(self) -> str:
        if self._world is None:
            return "deal pending"
        return json.dumps(self.table.game.to_json(self.world), sort_keys=True)


def view_string(game: Game[Any], world: Any, seat: int) -> str:
    """``seat``'s view of ``world`` as canonical JSON, "" when there is no world yet."""
    if world is None:
        return ""
    return json.dumps(game.view(world, seat), sort_keys=True, separators=(",", ":"))


class ViewObserver:
    """OpenSpiel's observer (``make_py_observer``): the seat's view as a tensor and a string.

    ``tensor`` is the flat float32 vector of the layout the observation type selects
    (engine/tensors; docs/openspiel.md lists the pieces), ``dict`` its named pieces
    (views into ``tensor``, shaped). Perfect recall adds the recall pieces (the information
    state); a public-only observer reads ``game.public_view`` (every hand a count) from the
    seat's perspective; a private-only one keeps the private pieces. Showing every seat's
    private information (``PrivateInfoType.ALL_PLAYERS``) is refused: no view shows it."""

    def __init__(self, table: Table, iig_obs_type: Any = None) -> None:
        obs_type = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        if obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("private_info ALL_PLAYERS is not supported: no seat's view shows every hand")
        self.table = table
        self.private = obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.public = bool(obs_type.public_info)
        self.layout: Layout = table.tensors.layout(
            recall=bool(obs_type.perfect_recall), public=self.public, private=self.private
        )
        self.tensor = np.zeros(self.layout.size, np.float32)
        self.dict: dict[str, Any] = {}
        for piece in self.layout.pieces:
            start = self.layout.offsets[piece.name]
            self.dict[piece.name] = self.tensor[start : start + piece.size].reshape(piece.shape)

    def _view(self, state: MajlisState, player: int) -> Any:
        game = self.table.game
        if state.world is None:
            return None
        return game.view(state.world, player) if self.private else game.public_view(state.world)

    def set_from(self, state: MajlisState, player: int) -> None:
        values = self.table.tensors.encode(self._view(state, player), player, self.layout)
        self.tensor[:] = values

    def string_from(self, state: MajlisState, player: int) -> str:
        """The view (or the public view) as canonical JSON; a private-only observer names
        the cards of its private pieces."""
        view = self._view(state, player)
        if view is None:
            return ""
        if not self.public:
            tensors = self.table.tensors
            values = tensors.encode(view, player, self.layout)
            private = {
                piece.name: [
                    code
                    for k, code in enumerate(tensors.table.cards)
                    for _ in range(round(values[self.layout.offsets[piece.name] + k] * tensors.table.copies))
                ]
                for piece in self.layout.pieces
            }
            return json.dumps(private, sort_keys=True, separators=(",", ":"))
        return json.dumps(view, sort_keys=True, separators=(",", ":"))


def _register(game_id: str) -> type[MajlisGame]:
    """Register ``majlis_<game_id>`` with a MajlisGame subclass as its factory (a class,
    as OpenSpiel's own Python games do: pyspiel keeps the factory until the interpreter
    has shut down, and a closure freed then aborts the process)."""

    def __init__(self: MajlisGame, params: dict[str, Any] | None = None) -> None:
        MajlisGame.__init__(self, game_id, params)

    cls = type(f"Majlis{game_id.title()}Game", (MajlisGame,), {"__init__": __init__})
    pyspiel.register_game(_game_type(get_game(game_id)), cls)
    return cls


GAME_CLASSES = {game_id: _register(game_id) for game_id in GAME_IDS}
"""``majlis_<game>``'s class per game id (what ``pyspiel.load_game`` instantiates)."""
