"""The family of tests a report states, corrected together for multiple comparisons.

A report that states many findings, each at 5%, will state some false ones by chance: twenty
true null effects give about one p < 0.05. :func:`family_of_tests` gathers every test whose result
the report words as a finding — the chi-square test of equal seats of each variant, the
binomial test of each policy's share of wins against its fair share, the tests of a game's
metrics table (e.g. equal positions from the first bidder, equal seats), and every difference
from the baseline in the report's comparison table — and adjusts their p-values together with
Holm's method (:func:`analysis.stats.adjust_pvalues`), which keeps the chance of any false
finding in the report at 5% whatever the dependence between the tests. A finding is worded as
detectable only when its adjusted p-value is below 0.05; ``loba compare`` and ``loba sweep``
correct the same way over the differences they print.
"""

from __future__ import annotations

import polars as pl

from .stats import adjust_pvalues

ALPHA = 0.05

SCHEMA = {
    "test": pl.String,
    "variant": pl.String,
    "subject": pl.String,
    "what": pl.String,
    "p_value": pl.Float64,
    "p_adjusted": pl.Float64,
    "finding": pl.String,
}

DETECTED = "detectable after correction"
NOT_AFTER = "not detectable after correction"
NOT_DETECTED = "not detectable"


def finding(p, adj) -> str:
    """How a test reads after correction: detectable, not after correction (p < 0.05 alone),
    or not detectable at all."""
    if p is None or p != p:
        return "cannot tell"
    if adj is not None and adj == adj and adj < ALPHA:
        return DETECTED
    return NOT_AFTER if p < ALPHA else NOT_DETECTED


def family_of_tests(
    seat_adv: pl.DataFrame | None,
    skill: pl.DataFrame | None,
    cmp: pl.DataFrame | None,
    metrics: list[str] | None = None,
    metric_tests: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """One row per test the report states (``test`` = ``seats`` / ``skill`` / ``metric`` /
    ``difference``), with its p-value, its Holm-adjusted p-value over the whole family and how
    it reads (``finding``). ``metrics``: the metrics whose differences are in the family
    (default: every difference with a test in ``cmp``); ``metric_tests``: a
    game's long metrics table (:attr:`analysis.bygame.GameAnalysis.key_metrics`) whose
    ``kind == "test"`` rows are
    tests too (``subject``: the metric)."""
    rows = []
    if metric_tests is not None:
        for r in metric_tests.filter(pl.col("kind") == "test").iter_rows(named=True):
            rows.append(
                {
                    "test": "metric",
                    "variant": r["variant"],
                    "subject": r["metric"],
                    "what": r["metric"],
                    "p_value": r["value"],
                }
            )
    if seat_adv is not None and seat_adv.height:
        firsts = seat_adv.filter(pl.col("position") == 0)
        for r in firsts.iter_rows(named=True):
            rows.append(
                {
                    "test": "seats",
                    "variant": r["variant"],
                    "subject": f"{r['n_players']} players",
                    "what": "all seats win equally often (chi-square)",
                    "p_value": r["p_value"],
                }
            )
    if skill is not None and skill.height:
        multi = skill.group_by("variant").agg(pl.len().alias("np")).filter(pl.col("np") > 1)
        for r in skill.join(multi, on="variant", maintain_order="left").iter_rows(named=True):
            rows.append(
                {
                    "test": "skill",
                    "variant": r["variant"],
                    "subject": r["policy"],
                    "what": f"{r['policy']} wins its fair share (exact binomial)",
                    "p_value": r["p_value"],
                }
            )
    if cmp is not None and cmp.height:
        for r in cmp.filter(pl.col("p_value").is_not_null()).iter_rows(named=True):
            if metrics is not None and r["metric"] not in metrics:
                continue
            how = "paired t" if r["paired"] else "unpaired"
            rows.append(
                {
                    "test": "difference",
                    "variant": r["variant"],
                    "subject": r["metric"],
                    "what": f"{r['metric']} equals the baseline's ({how})",
                    "p_value": r["p_value"],
                }
            )
    adj = adjust_pvalues([r["p_value"] for r in rows])
    for r, a in zip(rows, adj, strict=True):
        r["p_adjusted"] = None if a != a else a
        r["finding"] = finding(r["p_value"], r["p_adjusted"])
    return pl.DataFrame(rows, schema=SCHEMA)


def adjusted(tests: pl.DataFrame | None, test: str, variant: str, subject: str | None = None):
    """The adjusted p-value of one test of the family, or None."""
    if tests is None or tests.height == 0:
        return None
    f = (pl.col("test") == test) & (pl.col("variant") == variant)
    if subject is not None:
        f &= pl.col("subject") == subject
    r = tests.filter(f)
    return r["p_adjusted"][0] if r.height else None
