"""Marriage (Nepal), a three-pack rummy: see docs/rules/marriage.md (the authority).

Modules: ``tables`` (cards, set sizes, maal values, phases, the action encoding),
``options`` (option specs), ``state`` (the compact state), ``melds`` (joker family, set
validation, show and finish enumeration), ``scoring`` (maal, settlement, the score
report), ``rules`` (deal, legality, the in-place step), ``checks`` (what a loaded state
must satisfy beyond its shape), ``layout`` (what a layout leaves out), ``codec`` (state
JSON, layouts, views, actions as JSON), ``sampling`` (the sampler), ``hand_eval`` (the
search's fitted hand evaluation and horizon) and ``game`` (the Game protocol).

Card codes are the shared ``rank then suit`` codes; the printed joker (option
``man_cards = 3``) is ``XX`` (internal card 52, last in canonical order). Hands,
piles and sets are multisets of codes (hands are sorted in JSON).

State JSON: the shared fields (``players``, ``to_act``, ``scores``, ``deal_no``,
``rng_state``, ``history``) stand for the rules file's ``n``, ``current``, ``totals``,
``deal_number`` and ``rng``; the game fields keep the rules file's names (``hands``,
``tunnelas``, ``shown``, ``route``, ``seen``, ``stock`` top first with the tiplu last,
``tiplu``, ``tiplu_chosen``, ``discard`` as ``{card, by, by_unseen}`` bottom first,
``turn``, ``turns_completed``, ``winner``, ``finish_kind``, ``maal``, ``deal_delta``),
plus ``caller_dealt``, ``men_revealed`` (men shown at the pick, lying above the tiplu),
``recycled`` (the cards of the last stock rebuild, public as a set), ``taken`` (cards
known to be in a hand: taken from the discard pile), ``result_deal`` (the deal that
``maal``/``deal_delta`` describe) and ``deal_start`` (written 0: a state, like a view,
holds this deal's history only; an old state's entries before it are dropped on loading).

``rng_state`` is the decimal string of the 63-bit generator state (a JSON number that large
would be rounded by a JavaScript client); a JSON integer below 2**53 is still read. A full
state must be written exactly as the engine writes it, its deal's history must take the
turns in order (giving ``to_act``, the phase and ``turns_completed``), the scores must sum
to 0, and a finished deal's ``maal`` and ``deal_delta`` must be what settling it gives.
"""

from engine.games.marriage.game import GAME

__all__ = ["GAME"]
