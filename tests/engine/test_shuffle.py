"""``engine.sampling.shuffle`` (every engine's deal and sampler) is ``Random.shuffle``: the
same permutation from the same seed, and the generator left in the same state, so that
every later draw (a search's) is unchanged. The compiled build must agree too: the build
equivalence test (tests/ai/test_build_modes.py) runs searches that shuffle."""

from __future__ import annotations

import _random
import random

import pytest

from engine.sampling import shuffle


@pytest.mark.parametrize("size", [0, 1, 2, 3, 7, 17, 32, 40, 52, 104, 128, 129, 160, 255, 256, 300, 700])
def test_shuffle_is_random_shuffle_with_the_same_draws(size):
    for seed in range(50):
        ours, theirs = random.Random(seed), random.Random(seed)
        got, want = list(range(size)), list(range(size))
        shuffle(got, ours)
        theirs.shuffle(want)
        assert got == want
        assert ours.getstate() == theirs.getstate()


def test_the_c_base_generator_shuffles_as_random_random_does():
    """Baloot deals with ``_random.Random`` (the same generator without random.py's frames)."""
    for seed in range(50):
        base, full = _random.Random(seed), random.Random(seed)
        got, want = list(range(32)), list(range(32))
        shuffle(got, base)
        full.shuffle(want)
        assert got == want
        assert base.getrandbits(64) == full.getrandbits(64)


def test_a_generator_of_another_class_keeps_its_own_shuffle():
    class Reversing(random.Random):
        def shuffle(self, x):  # type: ignore[override]
            x.reverse()

    cards = [1, 2, 3, 4]
    shuffle(cards, Reversing(0))
    assert cards == [4, 3, 2, 1]
