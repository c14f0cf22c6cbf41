"""Marriage's own codec kinds (engine/games/marriage/codec_kinds.py): a length cap, a
multiset of cards, a value allowed only under some rules."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from engine.codec import Card, Cards, Pack
from engine.games.marriage.codec_kinds import AtMost, CardCounts, Widened
from engine.protocol import InvalidState

SMALL = Pack("Small", (0, 1, 2, 3))  # AS, AH, AD, AC
WITH_TWO = Pack("Small", (0, 1, 2, 3, 4))  # ... and 2S


def refusal(decode, raw, rules=None) -> tuple[str | None, str]:
    with pytest.raises(InvalidState) as err:
        decode(raw, "c", rules)
    return err.value.field, err.value.message


def test_at_most_reads_a_list_up_to_its_cap_and_refuses_a_longer_one_before_reading_it():
    kind = AtMost(Cards(SMALL), 2)
    assert kind.decoder()(["AH", "AS"], "cards", None) == [1, 0]
    assert refusal(kind.decoder(), ["AS", "AH", "AD"]) == ("c", "c: must be a list of at most 2 entries")
    assert refusal(kind.decoder(), ["ZZ", "ZZ", "ZZ"])[1].endswith("at most 2 entries")
    assert refusal(kind.decoder(), ["AS", "ZZ"]) == ("c[1]", "c[1]: no such card in the Small pack: ZZ")
    assert kind.encoder()([1, 0]) == ["AH", "AS"]
    assert kind.count([1, 0]) == 2
    assert kind.schema()["maxItems"] == 2


def test_card_counts_read_a_multiset_in_any_order_and_write_it_in_canonical_order():
    kind = CardCounts(Cards(SMALL, unique=False), 4)
    counts = kind.decoder()(["AD", "AS", "AD"], "cards", None)
    assert counts == [1, 0, 2, 0]
    assert kind.encoder()(counts) == ["AS", "AD", "AD"]
    assert kind.count(counts) == 3
    assert refusal(kind.decoder(), ["AS", "2S"]) == ("c[1]", "c[1]: no such card in the Small pack: 2S")
    assert kind.schema() == Cards(SMALL, unique=False).schema()


def test_widened_reads_the_wider_values_only_where_the_rules_allow_them():
    kind = Widened(Card(SMALL), Card(WITH_TWO), lambda rules: rules.twos)
    with_twos, without = SimpleNamespace(twos=True), SimpleNamespace(twos=False)
    assert kind.decoder()("2S", "card", with_twos) == 4
    assert kind.decoder()("AS", "card", without) == 0
    assert refusal(kind.decoder(), "2S", without) == ("c", "c: no such card in the Small pack: 2S")
    assert kind.encoder()(4) == "2S"
    assert kind.schema() == {"enum": ["AS", "AH", "AD", "AC", "2S"]}
