"""sim.stats.wilson at 95% computes scipy's Wilson interval itself (no scipy import in a run's
summary): the same floats as ``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")``."""

import random

import pytest
from scipy import stats

from sim.stats import wilson


def _scipy(k, n, level=0.95):
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
    return (float(ci.low), float(ci.high))


def test_wilson_is_scipys_bit_for_bit():
    rng = random.Random(3)
    cases = [(0, 1), (1, 1), (0, 7), (7, 7), (3, 7), (1, 2), (33_260, 100_000)]
    for _ in range(3000):
        n = rng.choice([rng.randint(1, 60), rng.randint(1, 10**6), rng.randint(1, 10**9)])
        cases.append((rng.randint(0, n), n))
    for k, n in cases:
        assert wilson(k, n) == _scipy(k, n), (k, n)


def test_wilson_other_levels_and_edges():
    assert wilson(3, 10, 0.9) == _scipy(3, 10, 0.9)
    assert all(x != x for x in wilson(0, 0))  # nan, nan
    with pytest.raises(ValueError):
        wilson(5, 4)
