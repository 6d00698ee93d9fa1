"""Confidence intervals and tests used by every metric (scipy-backed, 95% by default).

Methods, so that every number in a table can be traced to one:

- the figures themselves, every share and mean over games or sub-game units:
  :mod:`analysis.estimate` (the game is the independent unit; exact intervals for few
  events); what follows are the building blocks other tables use:
- proportions: Wilson score interval (:func:`sim.stats.wilson`, scipy ``binomtest``);
- means: Student t interval, ``mean ± t(n-1) · sd / sqrt(n)`` (``scipy.stats.t``);
- difference of two independent means: Welch's t interval with Welch–Satterthwaite degrees
  of freedom (from the two samples' moments, so it works on lazily aggregated data);
- difference of two independent proportions: Newcombe's hybrid score interval (method 10 of
  Newcombe 1998), built from the two Wilson intervals;
- paired differences (same seeds played twice): the t interval of the per-game differences;
  for a ratio of sums (a share of rounds, a mean over the games that had an elimination) the
  per-game differences of the delta-method linearisation ``(y - R x) / mean(x)``
  (:func:`paired_ratio_diff`; for a plain mean, ``x = 1``, it is the ordinary paired t);
- p-values of differences: Welch's t test (means), the pooled two-proportion z test (shares),
  the paired t test (same seeds);
- "all seats equal": Pearson's chi-square goodness-of-fit test (``scipy.stats.chisquare``);
- many tests at once: Holm's adjusted p-values (:func:`adjust_pvalues`), which keep the
  chance of any false finding in the family at 5%;
- the standard error of every figure over sub-game units (rounds, seats, busts, hands,
  decisions), and the intervals of few events: :mod:`analysis.estimate` (the game is the
  independent unit).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as _st

from sim.stats import wilson

LEVEL = 0.95

__all__ = [
    "LEVEL",
    "adjust_pvalues",
    "chisquare_equal",
    "mean_ci",
    "newcombe_diff",
    "paired_ratio_diff",
    "t_ci",
    "two_proportion_p",
    "welch_diff",
    "welch_p",
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


def welch_p(m1: float, sd1: float, n1: int, m2: float, sd2: float, n2: int) -> float:
    """Two-sided p-value of Welch's t test that two independent means are equal."""
    if min(n1, n2) < 2 or any(x is None or math.isnan(x) for x in (m1, m2, sd1, sd2)):
        return math.nan
    v1, v2 = sd1 * sd1 / n1, sd2 * sd2 / n2
    se = math.sqrt(v1 + v2)
    if se == 0:
        return 1.0 if m1 == m2 else 0.0
    df = (v1 + v2) ** 2 / (v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1))
    return float(2 * _st.t.sf(abs(m1 - m2) / se, df))


def two_proportion_p(k1: int, n1: int, k2: int, n2: int) -> float:
    """Two-sided p-value of the pooled two-proportion z test (the 2x2 chi-square test without
    continuity correction) that two independent shares are equal."""
    if n1 <= 0 or n2 <= 0:
        return math.nan
    p = (k1 + k2) / (n1 + n2)
    se = math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
    if se == 0:
        return 1.0
    return float(2 * _st.norm.sf(abs(k1 / n1 - k2 / n2) / se))


def paired_ratio_diff(ya, xa, yb, xb, level: float = LEVEL) -> tuple[float, float, float, float]:
    """(Ra - Rb, low, high, p) for ratios of sums ``R = sum(y) / sum(x)`` measured on the same
    games under two rule sets (game ``i`` of ``a`` and of ``b`` start from the same seed).

    Each game's contribution is linearised, ``z = (y - R x) / mean(x)`` (the delta method), and
    the t interval and t test are taken over the per-game differences ``za - zb``; with
    ``x = 1`` this is exactly the paired t interval of a mean. Luck of the deal that both rule
    sets share cancels in the differences, so the interval is usually much narrower than the
    unpaired (Welch / Newcombe) one.
    """
    ya, xa, yb, xb = (np.asarray(v, dtype=float) for v in (ya, xa, yb, xb))
    n = int(ya.size)
    nan = (math.nan, math.nan, math.nan, math.nan)
    if n < 2 or xa.sum() <= 0 or xb.sum() <= 0:
        return nan
    ra, rb = ya.sum() / xa.sum(), yb.sum() / xb.sum()
    d = float(ra - rb)
    dz = (ya - ra * xa) / xa.mean() - (yb - rb * xb) / xb.mean()
    se = float(dz.std(ddof=1)) / math.sqrt(n)
    if not math.isfinite(se):
        return (d, math.nan, math.nan, math.nan)
    if se == 0:
        return (d, d, d, 1.0 if d == 0 else 0.0)
    h = float(_st.t.ppf(0.5 + level / 2, n - 1)) * se
    return (d, d - h, d + h, float(2 * _st.t.sf(abs(d) / se, n - 1)))


def holm(pvalues) -> list[float]:
    """Holm's step-down adjusted p-values of a family (every entry a number)."""
    ps = [min(max(float(p), 0.0), 1.0) for p in pvalues]
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    out = [0.0] * m
    run = 0.0
    for rank, i in enumerate(order):
        run = max(run, min(1.0, (m - rank) * ps[i]))
        out[i] = run
    return out


def adjust_pvalues(pvalues, method: str = "holm") -> list[float]:
    """Adjusted p-values for a family of tests; None/NaN entries stay NaN and are not counted.

    ``"holm"`` (the default, and what every table and sentence of the tool uses): Holm's
    step-down method, which keeps the chance of *any* false "higher"/"lower" in the family at
    5% whatever the dependence between the tests — the figures of one game (rounds, turns, the
    pot) are strongly correlated, and a reader of a table takes each stated difference as real.
    ``"bh"`` / ``"by"``: Benjamini–Hochberg / Benjamini–Yekutieli
    (``scipy.stats.false_discovery_control``), which keep the expected share of false findings
    among the stated ones at 5%; available for screening many cells by hand."""
    ps = [math.nan if p is None else float(p) for p in pvalues]
    idx = [i for i, p in enumerate(ps) if not math.isnan(p)]
    out = [math.nan] * len(ps)
    if not idx:
        return out
    if method == "holm":
        adj = holm([ps[i] for i in idx])
    else:
        adj = _st.false_discovery_control([min(max(ps[i], 0.0), 1.0) for i in idx], method=method)
    for i, a in zip(idx, np.atleast_1d(adj), strict=True):
        out[i] = float(a)
    return out
