"""Bounds shared by the games' state loaders: whole numbers in a range, the generator state.

A JavaScript client reads every JSON number as a double, which holds whole numbers exactly
only below 2**53. The service therefore writes the generator state (a 63-bit number) as a
decimal string, and the loaders refuse any number a double may have rounded, instead of
silently dealing different cards from it.

>>> rng_state_to_json(8123456789012345678)
'8123456789012345678'
>>> rng_state_from_json("8123456789012345678")
8123456789012345678
>>> rng_state_from_json(12345)
12345
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.protocol import RNG_STATE_LIMIT, InvalidState

MAX_SAFE_INT = 2**53 - 1
"""The largest whole number every JSON reader (a double) holds exactly."""

MAX_TARGET_SCORE = 10_000
"""Upper bound of every game's ``target_score`` option: far above any default (41 to 152)
and any test, small enough that no score can approach MAX_SAFE_INT."""

MAX_SCORE = 10**9
"""Upper bound of a match score in a loaded state. A match ends once a side passes a
target of at most MAX_TARGET_SCORE, and one deal adds at most a few hundred points; only
ties at the target (Ronda, Baloot) let scores grow on, one hand at a time, so a score
near 10**9 is never reached by play."""


def check_int(value: Any, field: str, lo: int, hi: int) -> int:
    """``value`` if it is a whole number (not a bool) from ``lo`` to ``hi``, else
    InvalidState naming ``field``."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise InvalidState(f"{field}: must be a whole number from {lo} to {hi}", field=field)
    return value


def rng_state_to_json(state: int | None) -> str | None:
    """The generator state as the state JSON carries it: a decimal string (None stays None).

    >>> rng_state_to_json(8123456789012345678)
    '8123456789012345678'
    """
    return None if state is None else str(state)


def rng_state_from_json(value: Any, field: str = "rng_state") -> int:
    """The generator state read back: the decimal string the service wrote (no sign, no
    leading zeros, below 2**63) or, for compatibility, a JSON integer below 2**53 (which a
    double holds exactly). Anything else, above all a larger integer that a double may
    have rounded, raises InvalidState naming ``field``.

    >>> rng_state_from_json("8123456789012345678"), rng_state_from_json(12)
    (8123456789012345678, 12)
    >>> rng_state_from_json(8123456789012345678)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    engine.protocol.InvalidState: rng_state: send back the decimal string the service wrote ...
    """
    if type(value) is str and value.isascii() and value.isdigit() and (value == "0" or value[0] != "0"):
        number = int(value)
        if number < RNG_STATE_LIMIT:
            return number
    elif type(value) is int and 0 <= value <= MAX_SAFE_INT:
        return value
    raise InvalidState(
        f'{field}: send back the decimal string the service wrote (e.g. "8123456789012345678"); '
        f"a number of 2**53 or more may have been rounded by a JSON reader, and a string must be "
        f"a whole number below 2**63 without sign or leading zeros",
        field=field,
    )


def as_current_deal(data: Mapping[str, Any], start_field: str) -> Mapping[str, Any]:
    """A state document in the form written before a state held only its current deal
    (issue 33: ``history`` with the earlier deals, ``start_field`` where this deal begins)
    as it is written now: this deal's entries, ``start_field`` 0. Other documents as given."""
    start, history = data.get(start_field), data.get("history")
    if type(start) is not int or not isinstance(history, list) or not 0 < start <= len(history):
        return data
    return {**data, "history": history[start:], start_field: 0}
