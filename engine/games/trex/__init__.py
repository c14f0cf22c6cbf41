"""Trex (Trix): the four-contract compendium of the Levant and the Gulf. See rules/trex.md."""

from .game import GAME, Trex

__all__ = ["GAME", "Trex"]
