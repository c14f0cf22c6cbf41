"""The shared codec (engine/codec.py) with a pack that numbers its cards its own way
(``Pack(..., codes=...)``): codes are read and written through the pack's own table, and
a card mask's canonical order is the order of that numbering."""

from __future__ import annotations

import pytest

from engine.codec import Card, CardMask, Cards, Pack
from engine.protocol import InvalidState

SUIT_BY_SUIT = tuple(rank + suit for suit in "SH" for rank in "A23")  # AS 2S 3S AH 2H 3H
PACK = Pack("Toy", tuple(range(6)), codes=SUIT_BY_SUIT)


def test_a_card_reads_and_writes_through_the_packs_own_numbering():
    assert Card(PACK).decoder()("AH", "card", None) == 3
    assert Card(PACK).encoder()(3) == "AH"
    assert Cards(PACK).decoder()(["3S", "AS"], "table", None) == [2, 0]
    assert Cards(PACK).encoder()([2, 0]) == ["3S", "AS"]


def test_a_mask_is_written_in_the_packs_own_canonical_order():
    mask = CardMask(PACK).decoder()(["AH", "2S"], "hands[0]", None)
    assert mask == 1 << 1 | 1 << 3
    assert CardMask(PACK).encoder()(mask) == ["2S", "AH"]  # suit by suit, not rank by rank
    assert CardMask(PACK).canonical()(mask, ["2S", "AH"])
    assert not CardMask(PACK).canonical()(mask, ["AH", "2S"])


@pytest.mark.parametrize("code", ["4S", "2C", "10S", 3, None])
def test_a_code_outside_the_packs_table_is_refused(code):
    with pytest.raises(InvalidState, match="no such card in the Toy pack") as caught:
        Card(PACK).decoder()(code, "card", None)
    assert caught.value.field == "card"


def test_a_card_twice_is_named_by_the_packs_code():
    with pytest.raises(InvalidState, match="card AH appears twice"):
        CardMask(PACK).decoder()(["AH", "AH"], "hands[0]", None)
    with pytest.raises(InvalidState, match="card AH appears twice"):
        Cards(PACK).decoder()(["AH", "AH"], "table", None)


def test_the_schema_lists_the_packs_own_codes():
    assert Card(PACK).schema() == {"enum": list(SUIT_BY_SUIT)}
