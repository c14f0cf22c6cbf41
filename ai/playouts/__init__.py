"""The normal level's playout hooks, compiled: one module per game with a hook (listed in
``engine/build_mode.HOT_MODULES``, so mypyc compiles them with the engine they call).

Each module has two functions on the game's native state class:

- ``choose(state, rng)``: the action of the seat to act, among the engine's
  ``rules.legal_actions`` only (the hook's policy);
- ``play_out(start, state, rng)``: ``choose`` and the engine's ``rules.step`` on ``state``
  in place until the game's ``is_playout_over(start, state)``: the search's step loop run
  in compiled code, with no interpreted call per step (Trex: its trick phase in the
  engine's fused trick loop on the bit masks, the same choices from the same draws).

A playout runs in a world sampled from the searching seat's view, so a hook may read the
state's internals: the world holds nothing that seat may not know. The registry
(``ai.policies``: ``PLAYOUT_FACTORIES``) wraps them as ``policies.PlayoutHook``; the
view-reading easy policies stay interpreted in ``ai.policies``.
"""
