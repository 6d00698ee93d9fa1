"""Small statistics helpers shared by the summary and the analysis (scipy-backed)."""

from __future__ import annotations

import math

# scipy.special.ndtri(0.975): the 95% two-sided normal quantile, so that a run's summary (95%
# intervals) needs no scipy import (about 1 s of a short command); other levels ask scipy
_Z95 = 1.959963984540054


def wilson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion k/n: scipy's ``binomtest(k, n).proportion_ci(
    level, method="wilson")``, the same floats (at 95% computed here with scipy's formula and
    its quantile, checked against scipy by the tests)."""
    if n <= 0:
        return (math.nan, math.nan)
    if level != 0.95:
        from scipy import stats as _st

        ci = _st.binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method="wilson")
        return (float(ci.low), float(ci.high))
    k, n = int(k), int(n)
    if not 0 <= k <= n:
        raise ValueError(f"k ({k}) must be an integer from 0 to n ({n}).")
    # scipy.stats._binomtest._binom_wilson_conf_int, two-sided, no correction, step by step
    z = _Z95
    z2 = z * z  # (numpy's z**2 is z*z)
    p = k / n
    denom = 2 * (n + z2)
    center = (2 * n * p + z2) / denom
    q = 1 - p
    delta = z / denom * math.sqrt(4 * n * p * q + z2)
    lo = 0.0 if k == 0 else center - delta
    hi = 1.0 if k == n else center + delta
    return (float(lo), float(hi))
