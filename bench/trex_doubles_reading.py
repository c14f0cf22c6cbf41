"""Session 56's probe: Trex's hard level reading the normal level's contract and doubles.

    READ_CONTRACT=1 READ_DOUBLES=1 .venv/bin/python bench/trex_doubles_reading.py --probe 100
    READ_CONTRACT=0 READ_DOUBLES=1 .venv/bin/python bench/trex_doubles_reading.py --probe 100
    READ_CONTRACT=1 READ_DOUBLES=0 .venv/bin/python bench/trex_doubles_reading.py --probe 100
    READ_CONTRACT=1 .venv/bin/python bench/trex_doubles_reading.py --game trex --a hard \
        --b normal --matches 40 --first 280 --seed 1 --duplicate --jobs 2   (a screen: not run)

The normal level takes the contract choice and the doubles from the easy policy
(``ai.policies.trex``), so they say something of the chooser's hand:

* the doubles (``READ_DOUBLES``, on by default): ``cards_to_double`` doubles every KH or
  queen whose rough chance of coming back is under one half, most of them (KH in 93 %, a
  queen in 84 % of dealt hands), so a seat that ended its doubling turn without doubling a
  doublable card it holds holds it in a hand the policy finds risky for it;
* the contract (``READ_CONTRACT``): ``choose_contract`` picks the contract this hand suits
  best against a typical hand, so the owner's hand is one for which the contract it chose
  beats the others it was offered.

Side A's worlds are the rules' worlds that agree with those choices for every other seat,
the hand as dealt being what it holds and what it has played (rejection: up to ``TRIES``
draws, the last draw kept if none agrees; a contradicting world is kept with probability
``KEEP``, 0 by default). With ``--game`` side A is otherwise the arena's level ``--a``;
every other option is the arena's (``python -m ai.arena``).

``--probe N``: the card play of N deals of easy seats (their contracts and doubles are
normal's) where the reading speaks, every fourth play: for every card that the seat to act
cannot see, the share of 100 worlds that put it in its true holder's hand, the rules'
worlds against the reading's.
"""

from __future__ import annotations

import os
import random
import sys
import time
from typing import Any

from ai import arena, policies
from ai.bots import Decision, decide
from ai.policies.trex import cards_to_double, choose_contract
from engine import get_game
from engine.games.trex.state import entries
from engine.games.trex.tables import CODES, CONTRACT_NAMES, DOUBLABLE_MASK, LAYOUT, TRICKS, cards_of

TRIES = int(os.environ.get("TRIES", "50"))
KEEP = float(os.environ.get("KEEP", "0"))
READ_DOUBLES = os.environ.get("READ_DOUBLES", "1") == "1"
READ_CONTRACT = os.environ.get("READ_CONTRACT", "0") == "1"


def original_hand(world: Any, seat: int) -> list[str]:
    """``seat``'s hand as dealt this deal: what it holds and what it has played (tricks, layout)."""
    mask = world.hands[seat]
    for who, action, _ in entries(world.played):
        if who == seat and isinstance(action, int) and action < 52:
            mask |= 1 << action
    return [CODES[c] for c in cards_of(mask)]


def chose_as_policy(world: Any, me: int) -> bool:
    """Whether the owner's contract, when the owner is another seat with a choice, is the
    one the policy's ``choose_contract`` makes with the owner's hand in ``world``."""
    owner = world.owner
    if owner == me or world.contract < 0:
        return True
    offered = [c for c in world.opts.contract_set if c not in world.contracts_used[:-1]]
    if len(offered) < 2:
        return True
    names = [CONTRACT_NAMES[c] for c in offered]
    return choose_contract(names, original_hand(world, owner)) == CONTRACT_NAMES[world.contract]


def agrees(world: Any, me: int) -> bool:
    """Whether every other seat's choices in ``world`` (the doubles; with ``READ_CONTRACT``
    the owner's contract) are the ones the policy makes."""
    if READ_CONTRACT and not chose_as_policy(world, me):
        return False
    if not READ_DOUBLES or not DOUBLABLE_MASK[world.contract]:
        return True
    contract = CONTRACT_NAMES[world.contract]
    doubled_by = [0, 0, 0, 0]
    for card, doubler in world.doubled:
        doubled_by[doubler] |= 1 << card
    doublable = DOUBLABLE_MASK[world.contract]
    for seat in range(4):
        if seat == me:
            continue
        hand = original_hand(world, seat)
        mask = sum(1 << CODES.index(c) for c in hand)
        if not mask & doublable & ~doubled_by[seat]:
            continue  # every doublable card it holds was doubled: the policy's choice too
        wanted = cards_to_double(contract, hand, {})
        if {CODES.index(c) for c in wanted} != set(cards_of(doubled_by[seat])):
            return False
    return True


def reading_active(view: dict[str, Any]) -> bool:
    """Card play (tricks or the layout); for the doubles alone, a trick phase of a contract
    with doubles, after every seat's doubling turn."""
    if READ_CONTRACT:
        return view.get("phase") in ("tricks", "layout")
    return (
        view.get("phase") == "tricks"
        and view.get("contract") in ("king_of_hearts", "queens", "complex")
        and bool((view.get("options") or {}).get("doubling", True))
    )


def reading_sampler(base: Any, me: int, counter: list[int] | None = None) -> Any:
    """Draws from ``base`` until a world agrees with the policy's doubling (``TRIES`` at
    most); ``counter`` counts [worlds returned, draws, worlds that did not agree]."""

    def sample(rng: random.Random) -> Any:
        world = base(rng)
        draws = 1
        while not agrees(world, me) and rng.random() >= KEEP:
            if draws >= TRIES:
                if counter is not None:
                    counter[2] += 1
                break
            world = base(rng)
            draws += 1
        if counter is not None:
            counter[0] += 1
            counter[1] += draws
        return world

    return sample


class DoublesReadingGame:
    """``game`` but for its sampler, which reads the doubles in the trick phase."""

    def __init__(self, game: Any) -> None:
        self._game = game

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def sampler(self, view: dict[str, Any]) -> Any:
        base = self._game.sampler(view)
        return reading_sampler(base, view["seat"]) if reading_active(view) else base


def reading_decider(game: Any, state: Any, seat: int, level: str, budget: Any, seed: int) -> Decision:
    """A's move: the level's search over worlds that agree with the policy's doubling."""
    return decide(DoublesReadingGame(game), game.view(state, seat), level=level, budget=budget, seed=seed)


def probe(deals: int) -> None:
    """How often the worlds put each unseen card in its true holder's hand, at every fourth
    card play where the reading speaks (easy play: its contracts and doubles are normal's)."""
    game = get_game("trex")
    hits = {"rules": 0.0, "reading": 0.0}
    kept_hits = {"rules": 0.0, "reading": 0.0}  # the undoubled KH and queens alone
    cases = positions = kept_cases = 0
    counter = [0, 0, 0]
    started = time.process_time()
    match = 0
    probed: set[tuple[int, int]] = set()
    while len(probed) < deals:
        state = game.new_state(4, None, 0, seed=880000 + match)
        rng = random.Random(match)
        match += 1
        plays = 0
        while game.to_act(state) is not None and len(probed) < deals:
            seat = game.to_act(state)
            view = game.view(state, seat) if state.phase in (TRICKS, LAYOUT) else None
            if view is not None and reading_active(view):
                if (match, state.deal_no) not in probed:
                    probed.add((match, state.deal_no))
                    plays = 0
                plays += 1
                if plays % 4 == 1:
                    hidden = [
                        c for c in range(52) if any(state.hands[i] >> c & 1 for i in range(4) if i != seat)
                    ]
                    doubled = {card for card, _ in state.doubled}
                    undoubled = [
                        c for c in hidden if DOUBLABLE_MASK[state.contract] >> c & 1 and c not in doubled
                    ]
                    positions += 1
                    base = game.sampler(view)
                    read = reading_sampler(base, seat, counter)
                    for name, sampler in (("rules", base), ("reading", read)):
                        r = random.Random(7)
                        worlds = [sampler(r) for _ in range(100)]
                        for c in hidden:
                            holder = next(i for i in range(4) if state.hands[i] >> c & 1)
                            share = sum(1 for w in worlds if w.hands[holder] >> c & 1) / 100
                            hits[name] += share
                            if c in undoubled:
                                kept_hits[name] += share
                    cases += len(hidden)
                    kept_cases += len(undoubled)
            game.step(state, policies.choose(game, state, seat, rng))
    print(
        f"{len(probed)} deals (easy play, new_state seeds 880000-{880000 + match - 1}), "
        f"{positions} positions, {cases} unseen cards"
    )
    for name, total in hits.items():
        print(
            f"  {name}: true holder in {total / max(cases, 1):.3f} of the worlds; of the "
            f"{kept_cases} undoubled KH and queens, {kept_hits[name] / max(kept_cases, 1):.3f}"
        )
    print(
        f"  reading: {counter[1] / max(counter[0], 1):.1f} draws a world, "
        f"{counter[2]} of {counter[0]} worlds kept after {TRIES} draws without agreeing; "
        f"{time.process_time() - started:.1f} s CPU"
    )


if __name__ == "__main__":
    argv = sys.argv[1:]
    if argv[:1] == ["--probe"]:
        probe(int(argv[1]))
        raise SystemExit(0)
    note = f" reading the doubles (tries {TRIES}, keep {KEEP})"
    description = __doc__.splitlines()[0]
    raise SystemExit(
        arena.main(
            argv, decide_a=reading_decider, a_note=note, prog="trex_doubles_reading", description=description
        )
    )
