"""Rule sets (or seatings) side by side: every key metric of each variant (the game's own,
:mod:`analysis.bygame`), its difference from the baseline variant (the first one) and the
interval of that difference — all by game (:mod:`analysis.estimate`).

**Same seeds are compared game by game.** When a variant holds exactly the games of the
baseline (the same seeds and game indices, as ``loba simulate --seed S`` gives for any rules,
and as every cell of a sweep has), game ``i`` starts from the same deal in both, so the luck of
the deal is shared: the difference is measured per game (the t interval of the per-game
differences of the linearised figure, :func:`analysis.estimate.diff_paired`) and is usually
narrower. The unpaired interval, which treats the two runs as independent samples of games, is
given beside it (``unpaired_low``/``unpaired_high``); for variants of different seeds it is the
interval used. Figures with few events are compared by the exact conditional test on the games
that had one, and say ``too few events to compare`` where no split of so few could be told from
chance.

**Verdicts follow the correction.** ``p_value`` is the test of no difference that goes with
the interval; ``p_adjusted`` is Holm's adjustment over every difference in the table (the
family: every metric of every variant against the baseline), and ``verdict`` — ``higher`` /
``lower`` / ``no detectable difference`` — is read from ``p_adjusted`` at 5%, so the chance of
any false "higher"/"lower" in a table is at most 5%. The intervals stay per metric (95% each).
"""

from __future__ import annotations

import math

import polars as pl

from .bygame import analysis_of
from .estimate import diff_paired, diff_unpaired, sum_exprs, sums_of, verdict
from .metrics import PAIRED_KEY
from .stats import LEVEL, adjust_pvalues

NO_DIFF = "no detectable difference"
FAMILY_VERDICTS = ("higher", "lower", NO_DIFF)
"""The verdicts a test gives (the others are notes where there is no test)."""

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


def variant_sums(pg: pl.DataFrame, metrics) -> dict[str, dict[str, dict]]:
    """``{variant: {metric: sums}}`` (:func:`analysis.estimate.sum_exprs`) of a per-game frame."""
    metrics = [m for m in metrics if f"{m}|y" in pg.columns]
    agg = pg.group_by("variant", maintain_order=True).agg(
        [e for m in metrics for e in sum_exprs(m)]
    )
    return {r["variant"]: {m: sums_of(r, m) for m in metrics} for r in agg.iter_rows(named=True)}


def correct(rows: list[dict]) -> list[dict]:
    """Holm-adjust the ``p_value`` of every row of a family (``p_adjusted``) and word each
    ``verdict`` from it (rows with a ``note`` keep the note as their verdict)."""
    adj = adjust_pvalues([r.get("p_value") for r in rows])
    for r, a in zip(rows, adj, strict=True):
        r["p_adjusted"] = None if math.isnan(a) else a
        if r.get("diff") is not None or r.get("note"):
            r["verdict"] = verdict(r.get("diff"), r["p_adjusted"], r.pop("note", "") or "")
        r.pop("note", None)
    return rows


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
    game: str | None = None,
    detail=None,
) -> pl.DataFrame:
    """Long table: ``metric, unit, variant, value, ci_low, ci_high, n, baseline, paired,
    method, diff, diff_low, diff_high, unpaired_low, unpaired_high, p_value, p_adjusted,
    verdict`` (verdict ``higher`` / ``lower`` / ``no detectable difference`` from the
    Holm-adjusted p-value, or ``too few events to compare``, ``the same in every game``,
    ``no interval: every game agrees``; empty for the baseline itself and for test p-values, which
    are not differenced).

    ``game``: whose metrics (:mod:`analysis.bygame`; None: the default game); ``detail``: its
    detail table, or None. ``paired``: None (default) pairs a variant with the baseline
    whenever they hold the same seeds and games; False never pairs (the unpaired intervals
    only)."""
    metrics = analysis_of(game)
    km = metrics.key_metrics(games, seats, detail, level)
    variants = km["variant"].unique(maintain_order=True).to_list()
    base = baseline if baseline is not None else (variants[0] if variants else None)
    if base is not None and base not in variants:
        raise ValueError(f"Baseline '{base}' is not one of the variants: {', '.join(variants)}.")
    pg = metrics.per_game(games, seats, detail) if len(variants) > 1 else None
    sums = variant_sums(pg, km["metric"].unique().to_list()) if pg is not None else {}
    pairs = paired is not False and pg is not None
    joined = {v: (pairing(pg, v, base) if pairs and v != base else None) for v in variants}
    rows = []
    for r in km.iter_rows(named=True):
        row = {k: r.get(k) for k in ("metric", "unit", "variant", "value", "ci_low", "ci_high")}
        row.update(n=r["n"], baseline=base, verdict="")
        m, v = r["metric"], r["variant"]
        sa, sb = sums.get(v, {}).get(m), sums.get(base, {}).get(m)
        if v != base and r["kind"] != "test" and sa is not None and sb is not None:
            counts = r["k"] is not None
            u = diff_unpaired(sa, sb, r["kind"], counts, level)
            d = u
            j = joined.get(v)
            is_paired = j is not None and f"{m}|y_b" in j.columns
            if is_paired:
                d = diff_paired(j[f"{m}|y"], j[f"{m}|x"], j[f"{m}|y_b"], j[f"{m}|x_b"],
                                r["kind"], counts, level)  # fmt: skip
            row.update(paired=is_paired, method=d["method"], diff=d["diff"],
                       diff_low=d["diff_low"], diff_high=d["diff_high"],
                       unpaired_low=u["diff_low"], unpaired_high=u["diff_high"],
                       p_value=d["p_value"], note=d["note"])  # fmt: skip
        rows.append(row)
    return pl.DataFrame(correct(rows), schema=SCHEMA)
