"""Confidence intervals and tests used by every metric (scipy-backed, 95% by default).

Methods, so that every number in a table can be traced to one:

- proportions: Wilson score interval (:func:`sim.stats.wilson`, scipy ``binomtest``);
- means: Student t interval, ``mean ± t(n-1) · sd / sqrt(n)`` (``scipy.stats.t``);
- difference of two independent means: Welch's t interval with Welch–Satterthwaite degrees
  of freedom (from the two samples' moments, so it works on lazily aggregated data);
- difference of two independent proportions: Newcombe's hybrid score interval (method 10 of
  Newcombe 1998), built from the two Wilson intervals;
- paired differences (same seeds played twice): the t interval of the per-game differences;
- "all seats equal": Pearson's chi-square goodness-of-fit test (``scipy.stats.chisquare``).
"""

from __future__ import annotations

import math

from scipy import stats as _st

from sim.stats import wilson

LEVEL = 0.95

__all__ = [
    "LEVEL",
    "chisquare_equal",
    "mean_ci",
    "newcombe_diff",
    "t_ci",
    "welch_diff",
    "wilson",
]


def t_ci(mean: float, sd: float, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Student t interval for a mean from its sample mean, standard deviation and size."""
    if n is None or n < 1 or mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return (math.nan, math.nan)
    if n == 1 or sd is None or math.isnan(sd):
        return (math.nan, math.nan)
    if sd == 0:
        return (float(mean), float(mean))
    h = _st.t.ppf(0.5 + level / 2, n - 1) * sd / math.sqrt(n)
    return (float(mean - h), float(mean + h))


def mean_ci(values, level: float = LEVEL) -> tuple[float, float, float, int]:
    """(mean, low, high, n) of a sequence of numbers with the Student t interval."""
    import numpy as np

    a = np.asarray(values, dtype=float)
    n = int(a.size)
    if n == 0:
        return (math.nan, math.nan, math.nan, 0)
    m = float(a.mean())
    sd = float(a.std(ddof=1)) if n > 1 else math.nan
    lo, hi = t_ci(m, sd, n, level)
    return (m, lo, hi, n)


def welch_diff(
    m1: float, sd1: float, n1: int, m2: float, sd2: float, n2: int, level: float = LEVEL
) -> tuple[float, float, float]:
    """(m1 - m2, low, high): Welch's t interval for the difference of two independent means."""
    d = m1 - m2
    if min(n1, n2) < 2:
        return (d, math.nan, math.nan)
    v1, v2 = sd1 * sd1 / n1, sd2 * sd2 / n2
    se = math.sqrt(v1 + v2)
    if se == 0:
        return (d, d, d)
    df = (v1 + v2) ** 2 / (v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1))
    h = _st.t.ppf(0.5 + level / 2, df) * se
    return (d, d - h, d + h)


def newcombe_diff(k1: int, n1: int, k2: int, n2: int, level: float = LEVEL):
    """(p1 - p2, low, high): Newcombe's hybrid score interval for two independent proportions."""
    if n1 <= 0 or n2 <= 0:
        return (math.nan, math.nan, math.nan)
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1, level)
    l2, u2 = wilson(k2, n2, level)
    d = p1 - p2
    low = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return (d, low, high)


def chisquare_equal(counts) -> tuple[float, float]:
    """(statistic, p-value) of Pearson's chi-square test that all categories are equally likely."""
    c = [int(x) for x in counts]
    if len(c) < 2 or sum(c) == 0:
        return (math.nan, math.nan)
    r = _st.chisquare(c)
    return (float(r.statistic), float(r.pvalue))
