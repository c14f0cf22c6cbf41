"""Trex (Trix): the four-kingdom compendium of the Levant and the Gulf (docs/rules/trex.md).

The package has the layout every game has (docs/engine-guide.md): ``tables`` (contracts,
card indices, point values, action encodings), ``options`` (the option specs and the
per-match ``Opts``), ``state`` (the compact state), ``scoring`` (section 5, the match
result), ``rules`` (rule predicates, legal actions, step, dealing), ``layout`` (what a
layout leaves out), ``checks`` (what a loaded state must satisfy beyond its shape), ``codec`` (the JSON
shape of actions, states, layouts and views, declared for the shared ``engine/codec.py``),
``sampling`` (the view sampler and section 7's deductions), ``playout`` (the fused random
playout) and ``game`` (the Game protocol).

State JSON and the rules file's section 3: the engine guide's top-level names are used
(``deal_no`` for ``deal_number``, ``scores`` = match totals per side, ``history`` = the
current deal's entries, ``rng_state`` for ``rng``); every section 3 field is present under its own
name (``match_scores`` per seat, ``played`` = this deal's entries with their trick number,
``layout`` = ``{"S": null | {"low", "high"}, ...}``). Extra fields: ``exposed_twos`` (the
2s made public by R18, per seat) and ``decks`` (decks still to be dealt, from a layout's
``decks``; hidden from views). A state's and a view's ``history`` is the current deal's only, since
earlier deals' cards are back in hands; their results stay in ``deal_results`` (an old state
with the whole match's history still loads: its earlier deals are checked, then dropped).

``rng_state`` is the decimal string of the 63-bit generator state (a JSON number that large
would be rounded by a JavaScript client); a JSON integer below 2**53 is still read. A full
state is loaded only if it is one the engine could have reached: its current deal is
replayed from ``played`` and must give every field back, and ``match_scores`` must be the
sum of ``deal_results``.
"""

from engine.games.trex.game import GAME

__all__ = ["GAME"]
