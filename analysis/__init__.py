"""Analysis of simulated runs: metrics with confidence intervals, experiments (variant
comparison, sweeps, tournaments, tuning), plots and the HTML report.

Pure functions over polars frames of run directories::

    import analysis
    runs = analysis.load_runs(["runs/e101", "runs/e151"])     # kept apart by rules id
    analysis.summarize(["runs/e101", "runs/e151"])            # tidy polars DataFrame
    analysis.compare_runs(["runs/e101", "runs/e151"])

Each game's own metrics, findings, figures and report sections are in its analysis package
(``analysis.loba``, ``analysis.moon``), registered once per game as a
:class:`analysis.bygame.GameAnalysis` that the game's spec names; ``summarize``, ``compare``,
``run_sweep`` and the report take a run's game's from there (:func:`analysis.bygame.for_game`).
``cell_dirs(OUT)`` lists a sweep's cells (Hive-style folders, ``cells/KNOB=VALUE/...``).

Plots (``analysis.plots``) and the report (``analysis.report``) import matplotlib; they are
loaded on first use.
"""

from __future__ import annotations

from .lazy import lazy_names

# name -> the module that defines it, imported on first use (``import analysis`` stays light:
# the command line imports its parts without loading polars, scipy and the games' metrics)
__getattr__ = lazy_names(
    __name__,
    {
        "for_game": ".bygame",
        "compare": ".comparison",
        "AnalysisError": ".errors",
        "IncompleteRunWarning": ".io",
        "Run": ".io",
        "RunSet": ".io",
        "load_run": ".io",
        "load_runs": ".io",
        "game_metrics": ".metrics",
        "cell_dirs": ".sweep",
        "run_sweep": ".sweep",
    },
)

__all__ = [
    "AnalysisError",
    "IncompleteRunWarning",
    "Run",
    "RunSet",
    "cell_dirs",
    "compare",
    "compare_runs",
    "game_metrics",
    "load_run",
    "load_runs",
    "run_sweep",
    "summarize",
]


def summarize(paths, labels=None, quantiles=(), shares=()):
    """The key metrics of one or more run directories (the runs' game's, from its analysis:
    e.g. :func:`analysis.loba.key_metrics`, :func:`analysis.moon.moon_metrics`, the latter
    with the detail table's figures when every run recorded it), as a tidy DataFrame with
    columns variant, metric, value, ci_low, ci_high, n (games, the independent unit), unit,
    kind (``mean``, ``share`` or ``test``: a p-value without interval) and method (how the
    interval was formed, :mod:`analysis.estimate`; null ``ci_low``/``ci_high`` where every game
    agrees).

    ``quantiles`` (``["rounds_per_game"]``: its q10, median and q90; ``"q95(minutes)"``: one)
    and ``shares`` (``["rounds_per_game in 8..12"]``: the share of games whose own value is in
    the range) add rows after each variant's (``kind`` ``quantile``, ``share``), measured as
    the house-rules advisor measures them (:mod:`analysis.distribution`)."""
    import polars as pl

    from .bygame import for_game
    from .io import load_runs
    from .metrics import game_metrics

    rs = load_runs(paths, labels)
    dist = None
    if quantiles or shares:  # (checked before the key metrics are computed)
        from .distribution import distribution

        dist = distribution(rs.games, rs.seats, rs.game, quantiles, shares,
                            variants=rs.variants)  # fmt: skip
    metrics = for_game(rs.game)
    if metrics is not None:
        km = metrics.key_metrics(rs.games, rs.seats, rs.detail)
    else:  # a game whose own metrics the analysis does not know yet: what every game has
        km = game_metrics(rs.games, rs.seats, rs.runs[0].spec)
    km = km.select(
        "variant", "metric", "value", "ci_low", "ci_high", "n", "unit", "kind", "method"
    )
    if dist is None or not dist.height:
        return km
    order = {v: i for i, v in enumerate(rs.variants)}
    both = pl.concat([km, dist.cast(km.schema)], how="vertical_relaxed")
    return both.sort(pl.col("variant").replace_strict(order, default=len(order)),
                     maintain_order=True)  # fmt: skip


def compare_runs(paths, labels=None, baseline=None):
    """:func:`compare` of run directories (the runs' game's metrics, with the detail table's
    figures when every run has it); needs at least two variants (rules ids, seatings or
    labels)."""
    from .comparison import compare
    from .errors import AnalysisError
    from .io import load_runs

    rs = load_runs(paths, labels)
    if len(rs.variants) < 2:
        raise AnalysisError(
            "compare needs runs of at least two different rule sets or seatings; these all are "
            f"'{rs.variants[0]}' (give --label to compare runs of the same rules)."
        )
    if baseline is not None and baseline not in rs.variants:
        raise AnalysisError(
            f"Baseline '{baseline}' is not one of the variants: {', '.join(rs.variants)}."
        )
    return compare(rs.games, rs.seats, baseline, game=rs.game, detail=rs.detail)
