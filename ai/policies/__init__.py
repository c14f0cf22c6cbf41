"""Heuristic policies: the "easy" level and optional cheap playout hooks, one module per
game (each registers itself in :mod:`ai.policies.base`)."""

from ai.policies import baloot, marriage, porrazo, ronda, trex  # noqa: F401 - they register
from ai.policies.base import (
    CANDIDATES,
    INFERENCES,
    PLAYOUT_FACTORIES,
    PLAYOUTS,
    POLICIES,
    Action,
    PlayoutHook,
    PlayoutPolicy,
    Policy,
    choose,
    greedy_policy,
    inferred_sampler,
    playout_policy,
    register,
    register_candidates,
    search_candidates,
)

__all__ = [
    "CANDIDATES",
    "INFERENCES",
    "PLAYOUT_FACTORIES",
    "PLAYOUTS",
    "POLICIES",
    "Action",
    "PlayoutHook",
    "Policy",
    "PlayoutPolicy",
    "choose",
    "greedy_policy",
    "inferred_sampler",
    "playout_policy",
    "register",
    "register_candidates",
    "search_candidates",
]
