"""Small statistics helpers shared by the summary and the analysis (scipy-backed)."""

from __future__ import annotations

import math

from scipy import stats as _st


def wilson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion k/n (scipy's ``binomtest``)."""
    if n <= 0:
        return (math.nan, math.nan)
    ci = _st.binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method="wilson")
    return (float(ci.low), float(ci.high))
