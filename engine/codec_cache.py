"""The codec's memos: what a state document repeats is read or written once.

The service reads and writes a whole state on every request, and a state repeats itself:
its history holds the same few dozen actions hundreds of times, hands are the same masks
again and again, and the options come back with every request. Each memo below keeps the
answer for a value already met.

**The invariant, for every memo here: a memo answers exactly what the computation it
stands for would answer, to every caller, at any time.** Hence:

- a key holds all that the answer depends on: a pack's code table and the mask; the
  JSON of an action (string values only, so ``"1"`` never stands for ``1`` or ``true``)
  and what of the rules its reading depends on (``Verbs.memo_key``); the options' scalar
  values with their types (``1`` is not ``true``) and the number of players;
- an answer is never shared with a caller who may change it: a memo gives out a fresh
  copy (card codes, an action's JSON), or values that nobody changes (an action read is
  an int or a tuple; options and the rules object are read only);
- a memo is bounded: past its size it stops growing (the rules memo starts again), so a
  stream of documents never seen before costs no more memory than the bound.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from engine.cards import cards_of_mask
from engine.protocol import JSON, Action

MASK_MEMO_SIZE = 200_000
"""Masks remembered per pack (hands repeat a lot)."""
ACTION_MEMO_SIZE = 100_000
"""Actions remembered per verb table and rules variant, read and written alike."""
RULES_MEMO_SIZE = 512
"""Distinct options remembered per game (cleared when full)."""


@functools.cache
def mask_coder(table: tuple[str, ...]) -> tuple[Callable[[int], list[str]], dict[int, list[str]]]:
    """``(mask_codes, memo)`` for a pack's code ``table``: ``mask_codes(mask)`` gives the
    codes of the cards in ``mask``, ascending (the canonical order), as a fresh list;
    ``memo`` holds the lists it made (read it only to compare)."""
    memo: dict[int, list[str]] = {}

    def mask_codes(mask: int) -> list[str]:
        codes = memo.get(mask)
        if codes is None:
            codes = [table[card] for card in cards_of_mask(mask)]
            if len(memo) < MASK_MEMO_SIZE:
                memo[mask] = codes
        return codes[:]

    return mask_codes, memo


ActionMemo = dict[tuple[Any, ...], Action]
"""Actions already read, keyed by their JSON's ``tuple(data.items())``."""


class ReadActions:
    """The actions a verb table has read, one memo per ``(hidden, memo_key(rules))``
    (``memo_key``: what of the rules the reading of an action depends on; None: nothing)."""

    def __init__(self, memo_key: Callable[[Any], Any] | None) -> None:
        self.memo_key = memo_key
        self._memos: dict[tuple[bool, Any], ActionMemo] = {}

    def memo(self, hidden: bool, rules: Any) -> ActionMemo:
        """The memo of actions read under ``rules``, for a history's look-ups."""
        key = (hidden, None if self.memo_key is None else self.memo_key(rules))
        memo = self._memos.get(key)
        if memo is None:
            memo = self._memos[key] = {}
        return memo

    def remember(self, data: JSON, action: Action, hidden: bool, rules: Any) -> None:
        """Keep ``action`` as the reading of ``data`` when every JSON value is a string
        (the type, card codes, names): a string key is never confused with a number."""
        memo = self.memo(hidden, rules)
        if len(memo) < ACTION_MEMO_SIZE and all(type(v) is str for v in data.values()):
            memo[tuple(data.items())] = action


def written_actions(encode: Callable[[Action], JSON]) -> tuple[Callable[[Action], JSON], dict[Action, JSON]]:
    """``(write, memo)``: ``encode`` memoised for histories (each card's play comes back
    many times a match). An action whose JSON is flat (no list) is written once and
    copied after; others are written each time, so no two documents share a list.
    ``memo`` holds the flat ones (a caller copies what it takes from it)."""
    memo: dict[Action, JSON] = {}

    def write(action: Action) -> JSON:
        known = memo.get(action)
        if known is not None:
            return known.copy()
        out = encode(action)
        if len(memo) < ACTION_MEMO_SIZE and not any(type(v) is list for v in out.values()):
            memo[action] = out.copy()
        return out

    return write, memo


_SCALARS = (bool, int, str, float, type(None))


def options_key(raw: Any, players: int) -> tuple[Any, ...] | None:
    """The memo key of raw options: only plain scalar values make one, each with its type
    (so that 1 and True differ); None: not to be memoised."""
    if type(raw) is not dict:
        return None
    items: list[Any] = [players]
    for name, value in raw.items():
        if type(value) not in _SCALARS:
            return None
        items.append((name, type(value), value))
    return tuple(items)


class RulesMemo:
    """``read(raw, players)`` (raw options -> ``(options, rules object)``), memoised per
    :func:`options_key`: a state's options come back with every request."""

    def __init__(self, read: Callable[[Any, int], tuple[JSON, Any]]) -> None:
        self.read = read
        self._seen: dict[tuple[Any, ...], tuple[JSON, Any]] = {}

    def __call__(self, raw: Any, players: int) -> tuple[JSON, Any]:
        key = options_key(raw, players)
        known = self._seen.get(key) if key is not None else None
        if known is not None:
            return known
        made = self.read(raw, players)
        if key is not None:
            if len(self._seen) >= RULES_MEMO_SIZE:
                self._seen.clear()
            self._seen[key] = made
        return made
