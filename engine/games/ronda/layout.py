"""What a Ronda layout leaves out, worked out from what it gives (the codec calls
:func:`fill_left_out` after ``codec.build`` for every document; a full state gives all of
it). Not a hot module: it runs once per loaded document."""

from __future__ import annotations

from typing import Any

from engine import codec as C
from engine.games.ronda.rules import open_hand
from engine.games.ronda.state import RondaState


def fill_left_out(s: RondaState, values: dict[str, Any], mode: str) -> None:
    """``dealt``: each seat's hand and what it has played this hand; no ``phase``: the
    start of a hand (R8: ``rules.open_hand``), refused when the layout shows play or calls
    already made."""
    played = values.get("played") or [0] * s.n
    if "dealt" not in values:
        s.dealt = [s.hands[t] | played[t] for t in range(s.n)]
    if "phase" not in values:
        if any(played) or any(d >= 0 for d in s.decl) or s.challenged or s.prov_side >= 0 or s.winner >= 0:
            raise C.refuse("phase", "a layout without a phase is the start of a hand: give the phase")
        open_hand(s, None)
