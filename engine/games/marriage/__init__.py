"""Marriage (Nepal), a three-pack rummy: see /work/shared/rules/marriage.md.

Card codes are the shared ``rank then suit`` codes; the printed joker (option
``man_cards = 3``) is ``XX`` (internal card 52).
"""

from .game import GAME, Marriage

__all__ = ["GAME", "Marriage"]
