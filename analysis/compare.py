"""Rule sets (or seatings) side by side: every key metric of each variant (the game's own,
:mod:`analysis.bygame`), its difference from the baseline variant (the first one) and the
interval of that difference.

**Same seeds are compared game by game.** When a variant holds exactly the games of the
baseline (the same seeds and game indices, as ``loba simulate --seed S`` gives for any rules,
and as every cell of a sweep has), game ``i`` starts from the same deal in both, so the luck of
the deal is shared: the difference is measured per game (paired t interval of the per-game
differences, :func:`analysis.stats.paired_ratio_diff`) and is usually far narrower. The
unpaired interval (Welch's t for means, Newcombe's hybrid score for shares), which treats the
two runs as independent samples, is given beside it (``unpaired_low``/``unpaired_high``);
for variants of different seeds it is the interval used.

A difference whose interval contains 0 is reported as ``no detectable difference``. Intervals
are per metric (95% each); ``p_value`` is the test of no difference that goes with the interval
and ``p_adjusted`` its Benjamini–Hochberg adjustment over every difference in the table (with
20 metrics, about one may look different by chance; the adjusted value allows for that).
"""

from __future__ import annotations

import math

import polars as pl

from .bygame import analysis_of
from .metrics import PAIRED_KEY
from .stats import (
    LEVEL,
    adjust_pvalues,
    newcombe_diff,
    paired_ratio_diff,
    two_proportion_p,
    welch_diff,
    welch_p,
)

NO_DIFF = "no detectable difference"
PAIRED = "paired t (same seeds, per game)"
WELCH = "Welch t (independent runs)"
NEWCOMBE = "Newcombe (independent runs)"

SCHEMA = {
    "metric": pl.String,
    "unit": pl.String,
    "variant": pl.String,
    "value": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "n": pl.Int64,
    "baseline": pl.String,
    "paired": pl.Boolean,
    "method": pl.String,
    "diff": pl.Float64,
    "diff_low": pl.Float64,
    "diff_high": pl.Float64,
    "unpaired_low": pl.Float64,
    "unpaired_high": pl.Float64,
    "p_value": pl.Float64,
    "p_adjusted": pl.Float64,
    "verdict": pl.String,
}


def verdict(lo, hi) -> str:
    """``higher`` / ``lower`` / ``no detectable difference`` / ``cannot tell`` from an interval
    of a difference."""
    if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
        return "cannot tell"
    if lo > 0:
        return "higher"
    if hi < 0:
        return "lower"
    return NO_DIFF


def pairing(pg: pl.DataFrame, variant: str, baseline: str) -> pl.DataFrame | None:
    """The games of ``variant`` joined to the same games of ``baseline`` (suffix ``_b``) when the
    two hold exactly the same (seed, game) pairs, at least 2; else None."""
    a = pg.filter(pl.col("variant") == variant)
    b = pg.filter(pl.col("variant") == baseline)
    if a.height < 2 or a.height != b.height:
        return None
    if a.select(PAIRED_KEY).is_duplicated().any() or b.select(PAIRED_KEY).is_duplicated().any():
        return None
    j = a.join(b, on=PAIRED_KEY, how="inner", suffix="_b", maintain_order="left")
    return j if j.height == a.height else None


def compare(
    games,
    seats,
    baseline: str | None = None,
    level: float = LEVEL,
    paired: bool | None = None,
    game: str = "loba",
    detail=None,
) -> pl.DataFrame:
    """Long table: ``metric, unit, variant, value, ci_low, ci_high, n, baseline, paired,
    method, diff, diff_low, diff_high, unpaired_low, unpaired_high, p_value, p_adjusted,
    verdict`` (verdict ``higher`` / ``lower`` / ``no detectable difference``, from
    ``diff_low``/``diff_high``; empty for the baseline itself and for test p-values, which are
    not differenced).

    ``game``: whose metrics (:mod:`analysis.bygame`: Loba's key metrics, Moon's
    :func:`~analysis.moon.moon_metrics`); ``detail``: its rounds or hands table, or None (Moon:
    with it, also each bid's success and the widow). ``paired``: None (default) pairs a variant
    with the baseline whenever they hold the same seeds and games; False never pairs (the
    unpaired intervals only)."""
    metrics = analysis_of(game)
    km = metrics.key_metrics(games, seats, detail, level)
    variants = km["variant"].unique(maintain_order=True).to_list()
    base = baseline if baseline is not None else (variants[0] if variants else None)
    if base is not None and base not in variants:
        raise ValueError(f"Baseline '{base}' is not one of the variants: {', '.join(variants)}.")
    pairs = paired is not False and len(variants) > 1
    pg = metrics.per_game(games, seats, detail) if pairs else None
    joined = {v: (pairing(pg, v, base) if pg is not None and v != base else None) for v in variants}
    ref = {r["metric"]: r for r in km.filter(pl.col("variant") == base).iter_rows(named=True)}
    rows = []
    for r in km.iter_rows(named=True):
        b = ref.get(r["metric"])
        row = {k: r.get(k) for k in ("metric", "unit", "variant", "value", "ci_low", "ci_high")}
        row.update(n=r["n"], baseline=base, verdict="")
        if r["variant"] != base and b is not None and r["kind"] != "test":
            if r["kind"] == "mean":
                d, ulo, uhi = welch_diff(
                    r["value"], r["sd"] or 0.0, r["n"], b["value"], b["sd"] or 0.0, b["n"], level
                )
                p = welch_p(r["value"], r["sd"] or 0.0, r["n"], b["value"], b["sd"] or 0.0, b["n"])
                method = WELCH
            else:
                d, ulo, uhi = newcombe_diff(int(r["k"]), r["n"], int(b["k"]), b["n"], level)
                p = two_proportion_p(int(r["k"]), r["n"], int(b["k"]), b["n"])
                method = NEWCOMBE
            lo, hi = ulo, uhi
            j = joined.get(r["variant"])
            col = f"{r['metric']}|y"
            is_paired = j is not None and col in j.columns and f"{col}_b" in j.columns
            if is_paired:
                m = r["metric"]
                dp, lo, hi, p = paired_ratio_diff(
                    j[f"{m}|y"], j[f"{m}|x"], j[f"{m}|y_b"], j[f"{m}|x_b"], level
                )
                if not math.isnan(dp):
                    d = dp
                method = PAIRED
            row.update(
                paired=is_paired,
                method=method,
                diff=d,
                diff_low=lo,
                diff_high=hi,
                unpaired_low=ulo,
                unpaired_high=uhi,
                p_value=p,
                verdict=verdict(lo, hi),
            )
        rows.append(row)
    adj = adjust_pvalues([r.get("p_value") for r in rows])
    for r, a in zip(rows, adj, strict=True):
        r["p_adjusted"] = None if math.isnan(a) else a
    return pl.DataFrame(rows, schema=SCHEMA)
