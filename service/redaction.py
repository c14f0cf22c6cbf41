"""What a seat or a spectator may see: the one place cards are hidden.

Every answer, event, log entry, webhook, score and review goes through :func:`redact`
with the set of card codes its reader may not see; a spectator holds no hand, so it may
see none of the cards some seat cannot see (:func:`hidden_from_spectators`)."""

from __future__ import annotations

from typing import Any

from engine.protocol import Game

HIDDEN = "hidden"


def redact(value: Any, hidden: set[str]) -> Any:
    """``value`` with every string that is a hidden card code replaced by ``"hidden"``."""
    if isinstance(value, str):
        return HIDDEN if value in hidden else value
    if isinstance(value, list):
        return [redact(v, hidden) for v in value]
    if isinstance(value, dict):
        return {k: redact(v, hidden) for k, v in value.items()}
    return value


def hidden_from_spectators(game: Game, state: Any) -> set[str]:
    """The cards some seat cannot see: a spectator, who holds no hand, sees none of them."""
    hidden: set[str] = set()
    for seat in range(game.players(state)):
        hidden.update(game.hidden_cards(state, seat))
    return hidden


def hidden_from_seat(game: Game, state: Any, seat: int | None) -> set[str]:
    """The cards ``seat`` (None: a spectator) may not see in ``state``."""
    if seat is None:
        return hidden_from_spectators(game, state)
    return set(game.hidden_cards(state, seat))
