"""Rule sets (or seatings) side by side: every key metric of each variant, its difference from
the baseline variant (the first one) and the interval of that difference.

Differences of means use Welch's t interval, differences of shares Newcombe's hybrid score
interval (:mod:`analysis.stats`). A difference whose interval contains 0 is reported as
``no detectable difference``. Intervals are per metric (95% each, no correction for looking at
many metrics at once: with 20 metrics, about one may look different by chance).
"""

from __future__ import annotations

import math

import polars as pl

from .metrics import key_metrics
from .stats import LEVEL, newcombe_diff, welch_diff

NO_DIFF = "no detectable difference"


def compare(games, seats, baseline: str | None = None, level: float = LEVEL) -> pl.DataFrame:
    """Long table: ``metric, unit, variant, value, ci_low, ci_high, baseline, diff, diff_low,
    diff_high, verdict`` (verdict ``higher`` / ``lower`` / ``no detectable difference``; empty
    for the baseline itself and for test p-values, which are not differenced)."""
    km = key_metrics(games, seats, level)
    variants = km["variant"].unique(maintain_order=True).to_list()
    base = baseline if baseline is not None else (variants[0] if variants else None)
    if base is not None and base not in variants:
        raise ValueError(f"Baseline '{base}' is not one of the variants: {', '.join(variants)}.")
    ref = {r["metric"]: r for r in km.filter(pl.col("variant") == base).iter_rows(named=True)}
    rows = []
    for r in km.iter_rows(named=True):
        b = ref.get(r["metric"])
        d = lo = hi = None
        verdict = ""
        if r["variant"] != base and b is not None and r["kind"] != "test":
            if r["kind"] == "mean":
                d, lo, hi = welch_diff(
                    r["value"], r["sd"] or 0.0, r["n"], b["value"], b["sd"] or 0.0, b["n"], level
                )
            else:
                d, lo, hi = newcombe_diff(int(r["k"]), r["n"], int(b["k"]), b["n"], level)
            if lo is None or math.isnan(lo) or math.isnan(hi):
                verdict = "cannot tell"
            elif lo > 0:
                verdict = "higher"
            elif hi < 0:
                verdict = "lower"
            else:
                verdict = NO_DIFF
        rows.append(
            {
                "metric": r["metric"],
                "unit": r["unit"],
                "variant": r["variant"],
                "value": r["value"],
                "ci_low": r["ci_low"],
                "ci_high": r["ci_high"],
                "n": r["n"],
                "baseline": base,
                "diff": d,
                "diff_low": lo,
                "diff_high": hi,
                "verdict": verdict,
            }
        )
    schema = {
        "metric": pl.String,
        "unit": pl.String,
        "variant": pl.String,
        "value": pl.Float64,
        "ci_low": pl.Float64,
        "ci_high": pl.Float64,
        "n": pl.Int64,
        "baseline": pl.String,
        "diff": pl.Float64,
        "diff_low": pl.Float64,
        "diff_high": pl.Float64,
        "verdict": pl.String,
    }
    return pl.DataFrame(rows, schema=schema)
