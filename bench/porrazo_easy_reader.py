"""Probe (session 54): what a perfect reading of the opponent's card play is worth in Porrazo.

    .venv/bin/python bench/porrazo_easy_reader.py --game porrazo --a normal --b easy \\
        --budget-iterations 500 --matches 400 --first 3500 --seed 5000 --duplicate --jobs 2

(``--trust 0.9 ... --b normal``: the same reading of an opponent that plays like easy nine
times in ten, a screen against the shipped normal.)

Seeing the opponent's hand is worth much (normal seeing it beats OpenSpiel's ISMCTS 0.867,
series 8131), but a seat sees only what the opponent did. How much of that worth can any
reading of its plays recover? Against an opponent whose play is known exactly the reading
can be perfect: the easy policy plays the best card by ``_porrazo_play_value`` (ties at
random), so a world in which easy would not have played what the opponent played this deal
is impossible, and one with a tie of k cards is 1/k as likely. Side A is the normal level
searching only such worlds (rejection from the game's sampler, weighted by that likelihood,
at most ``DRAWS`` draws, else the last one); side B is easy. Compared with normal against
easy on the same matches (``python -m ai.arena`` with the same arguments) and with normal
seeing the hand against easy (``bench/clairvoyant_bound.py --sees hands``), it says what
share of the hand's worth a perfect reader of the play gets.

``agreement`` first (``python bench/porrazo_easy_reader.py agreement --game porrazo --a normal
--b normal ... --jobs 1``): side A plays as shipped and counts how often the opponent's
play was one easy would have made with the opponent's true hand; a reading modelled on easy
can only be as good as that agreement against another opponent.

Side A reads only the opponent's plays it can pin down: the true state after A's own move,
one opponent action that is a play of a card, and the state A meets next (checked by
replaying that play). Declarations are the sampler's already.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ai import arena
from ai.bots import Budget, Decision, decide
from ai.policies.porrazo import _porrazo_play_value
from engine.games.porrazo.state import played_of
from engine.games.porrazo.tables import P_PLAY
from engine.protocol import Game

DRAWS = 100
"""Worlds drawn at most for one sample before the last is taken as it is."""

TRUST = 1.0
"""How far the reading trusts the model (``--trust``): a play's likelihood is ``TRUST`` times
easy's (1/k for one of its k best cards, else 0) plus ``1 - TRUST`` times a uniform choice
among the seat's plays. 1 reads easy exactly; below 1 it reads an opponent that plays like
easy that often (normal: 0.896 of its plays, OpenSpiel's ISMCTS 0.759, ``agreement``)."""


@dataclass
class Seen:
    """One play of the opponent: the true state it played in (its hand aside) and the action."""

    before: Any
    seat: int
    action_json: dict[str, Any]
    played_before: frozenset[int]
    odds: dict[tuple[int, ...], float] = field(default_factory=dict)


@dataclass
class Memory:
    """Side A's memory within one process: its state after its last move, and the plays seen
    this deal."""

    after: Any = None
    deal: tuple[int, int, int] | None = None
    seen: list[Seen] = field(default_factory=list)


MEMORY = Memory()


def hand_when(seen: Seen, dealt: tuple[int, ...]) -> list[int]:
    """The opponent's hand when it made ``seen``'s play, had it been dealt ``dealt``."""
    return [c for c in dealt if c not in seen.played_before]


def easy_odds(game: Game[Any], seen: Seen, hand: list[int], dealt: tuple[int, ...]) -> float:
    """How likely easy was to play ``seen``'s action holding ``hand`` (dealt ``dealt``)."""
    key = tuple(sorted(hand))
    if key in seen.odds:
        return seen.odds[key]
    st = seen.before.copy()
    st.hands[seen.seat] = list(key)
    st.dealt[seen.seat] = dealt
    view = game.view(st, seen.seat)
    actions = game.legal_actions(st)
    as_json = [game.action_to_json(st, a) for a in actions]
    odds = 0.0
    if not any(d.get("type") in ("tendido", "declare", "claim") for d in as_json):
        cards = [d for d in as_json if isinstance(d.get("card"), str)]
        plays = [(d, _porrazo_play_value(d, view, seen.seat)) for d in cards]
        if plays:
            top = max(v for _, v in plays)
            best = [d for d, v in plays if v == top]
            odds = (1.0 - TRUST) / len(plays)
            if seen.action_json in best:
                odds += TRUST / len(best)
    seen.odds[key] = odds
    return odds


def reading_sampler(
    game: Game[Any], view: dict[str, Any], seen: list[Seen]
) -> Callable[[random.Random], Any]:
    """The game's sampler, its worlds kept as likely as easy's plays this deal make them."""
    sample: Any = game.sampler(view)
    if not seen:
        return sample

    def draw(rng: random.Random) -> Any:
        world = sample(rng)
        for _ in range(DRAWS):
            odds = 1.0
            for s in seen:
                dealt = tuple(world.dealt[s.seat])
                odds *= easy_odds(game, s, hand_when(s, dealt), dealt)
                if odds == 0.0:
                    break
            if odds > 0.0 and rng.random() < odds:
                return world
            world = sample(rng)
        return world

    return draw


class ReadingGame:
    """``game`` unchanged but for its sampler (``reading_sampler``)."""

    def __init__(self, game: Game[Any], seen: list[Seen]) -> None:
        self._game = game
        self._seen = seen

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def sampler(self, view: dict[str, Any]) -> Callable[[random.Random], Any]:
        return reading_sampler(self._game, view, self._seen)


def observe(game: Game[Any], state: Any, seat: int) -> None:
    """Note the opponent's play between A's last move and ``state``, when it was one play."""
    after = MEMORY.after
    if after is None or after.phase != P_PLAY or after.to_act is None or after.to_act == seat:
        return
    opponent = after.to_act
    new = [c for c in played_of(state, opponent) if c not in played_of(after, opponent)]
    if len(new) != 1:
        return
    matches = []
    for action in game.legal_actions(after):
        data = game.action_to_json(after, action)
        if data.get("type") != "play":
            continue
        trial = after.copy()
        game.step(trial, action)
        if trial.table == state.table and trial.to_act == seat and trial.piles == state.piles:
            if played_of(trial, opponent) == played_of(state, opponent):
                matches.append(data)
    if len(matches) == 1:
        MEMORY.seen.append(Seen(after, opponent, matches[0], frozenset(played_of(after, opponent))))


def catch_up(game: Game[Any], state: Any, seat: int) -> list[Seen]:
    """Side A's memory brought to ``state`` (a new deal forgets the last one's plays): the
    opponent plays read since A's last move."""
    deal = (id(state), state.hand_no, state.deal_no)
    if deal != MEMORY.deal:
        MEMORY.deal, MEMORY.seen, MEMORY.after = deal, [], None
        return []
    known = len(MEMORY.seen)
    observe(game, state, seat)
    return MEMORY.seen[known:]


def remember(game: Game[Any], state: Any, action: Any) -> None:
    """Keep the true state after A's move, where the opponent's next play is read from."""
    after = state.copy()
    game.step(after, action)
    MEMORY.after = after


def reading_decider(
    game: Game[Any], state: Any, seat: int, level: str, budget: Budget | None, seed: int
) -> Decision:
    """Side A's move: ``level``'s search in the worlds easy's plays this deal allow."""
    catch_up(game, state, seat)
    reading: Any = ReadingGame(game, list(MEMORY.seen))
    decision = decide(
        reading, game.view(state, seat), level=level, budget=budget, seed=seed, max_ms=arena.OFFLINE_MAX_MS
    )
    remember(game, state, decision.action)
    return decision


AGREEMENT: list[tuple[int, int]] = []
"""Per opponent play read (``agreement`` mode): (1 if it was one of easy's best cards with
the opponent's true hand, else 0; how many cards tied for easy's best)."""


def agreement_decider(
    game: Game[Any], state: Any, seat: int, level: str, budget: Budget | None, seed: int
) -> Decision:
    """Side A plays ``level`` as shipped and notes whether each opponent play it can pin
    down is one easy would have made holding the opponent's true hand."""
    for seen in catch_up(game, state, seat):
        dealt = tuple(state.dealt[seen.seat])
        odds = easy_odds(game, seen, hand_when(seen, dealt), dealt)
        AGREEMENT.append((1 if odds > 0 else 0, round(1 / odds) if odds > 0 else 0))
    decision = arena.fair_decider(game, state, seat, level, budget, seed)
    remember(game, state, decision.action)
    return decision


def main(argv: list[str]) -> int:
    global TRUST
    if "--trust" in argv:  # this probe's own option, set before the arena forks its workers
        at = argv.index("--trust")
        TRUST = float(argv[at + 1])
        argv = argv[:at] + argv[at + 2 :]
    if argv[:1] == ["agreement"]:  # how easy-like the opponent's play is (run it with --jobs 1)
        TRUST = 1.0  # it counts easy's own choices (a tie of k cards read as odds 1/k)
        status = arena.main(
            argv[1:],
            decide_a=agreement_decider,
            a_note=" (noting the opponent's plays)",
            prog="python bench/porrazo_easy_reader.py agreement",
            description="How often the opponent plays a card easy would play with its hand.",
        )
        agree = sum(a for a, _ in AGREEMENT)
        print(f"opponent plays read: {len(AGREEMENT)}; one of easy's best cards: {agree}", end="")
        print(f" ({agree / max(1, len(AGREEMENT)):.3f}); easy's best was one card in", end="")
        print(f" {sum(1 for a, k in AGREEMENT if a and k == 1)} of those")
        return status
    return arena.main(
        argv,
        decide_a=reading_decider,
        a_note=f" reading plays as easy's (trust {TRUST:g})",
        prog="python bench/porrazo_easy_reader.py",
        description=__doc__.splitlines()[0],
    )


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
