"""Analysis of Loba de Menos runs: metrics with confidence intervals, experiments (rebuy
value, variant comparison, sweeps), plots and the HTML report.

Pure functions over polars frames of run directories::

    import analysis
    runs = analysis.load_runs(["runs/e101", "runs/e151"])     # kept apart by rules id
    analysis.key_metrics(runs.games, runs.seats)              # tidy polars DataFrame
    analysis.elimination_hazard(runs.games, runs.seats).to_pandas()

Three-Player Moon runs (``analysis.moon``): ``moon_metrics(runs.games, runs.seats, runs.rounds)``
(``rounds`` is Moon's hands table), ``bid_success``, ``moon_rates``, ``widow_value``,
``first_bidder_advantage``, ``hands_per_game``, ``all_pass_rate``. ``compare``, ``run_sweep``
and the report take each game's metrics from ``analysis.bygame`` (one entry per game);
``cell_dirs(OUT)`` lists a sweep's cells (Hive-style folders, ``cells/KNOB=VALUE/...``).

Plots (``analysis.plots``) and the report (``analysis.report``) import matplotlib; they are
loaded on first use.
"""

from __future__ import annotations

from .bygame import GAMES
from .compare import compare
from .errors import AnalysisError
from .io import IncompleteRunWarning, Run, RunSet, load_run, load_runs
from .metrics import (
    bust_hazard,
    elimination_hazard,
    first_elimination,
    first_elimination_summary,
    game_metrics,
    game_shape,
    key_metrics,
    policy_table,
    rebuy_outcomes,
    seat_advantage,
    seat_table,
    skill_gap,
    survival,
)
from .moon import (
    all_pass_rate,
    bid_success,
    first_bidder_advantage,
    hands_per_game,
    moon_metrics,
    moon_rates,
    widow_value,
)
from .rebuy import (
    compare_rebuy_rules,
    paired_rebuy_value,
    rebuy_value_policy,
    rebuy_value_state,
    save_state_table,
    tabulate_state_value,
)
from .sweep import cell_dirs, run_sweep

__all__ = [
    "AnalysisError",
    "IncompleteRunWarning",
    "Run",
    "RunSet",
    "all_pass_rate",
    "bid_success",
    "bust_hazard",
    "cell_dirs",
    "compare",
    "compare_rebuy_rules",
    "compare_runs",
    "elimination_hazard",
    "first_elimination",
    "first_bidder_advantage",
    "first_elimination_summary",
    "game_metrics",
    "game_shape",
    "hands_per_game",
    "key_metrics",
    "load_run",
    "load_runs",
    "moon_metrics",
    "moon_rates",
    "paired_rebuy_value",
    "policy_table",
    "rebuy_outcomes",
    "rebuy_value_policy",
    "rebuy_value_state",
    "run_sweep",
    "save_state_table",
    "seat_advantage",
    "seat_table",
    "skill_gap",
    "summarize",
    "survival",
    "tabulate_state_value",
    "widow_value",
]


def summarize(paths, labels=None):
    """The key metrics of one or more run directories (see :func:`key_metrics`; Moon runs:
    :func:`moon_metrics`, with the hands table's figures when every run recorded it), as a
    tidy DataFrame with columns variant, metric, value, ci_low, ci_high, n (games, the
    independent unit), unit, kind (``mean``, ``share`` or ``test``: a p-value without
    interval) and method (how the interval was formed, :mod:`analysis.estimate`; null
    ``ci_low``/``ci_high`` where every game agrees)."""
    rs = load_runs(paths, labels)
    metrics = GAMES.get(rs.game)
    if metrics is not None:
        km = metrics.key_metrics(rs.games, rs.seats, rs.detail)
    else:  # a game whose own metrics the analysis does not know yet: what every game has
        km = game_metrics(rs.games, rs.seats, rs.runs[0].spec)
    return km.select(
        "variant", "metric", "value", "ci_low", "ci_high", "n", "unit", "kind", "method"
    )


def compare_runs(paths, labels=None, baseline=None):
    """:func:`compare` of run directories (Loba's or Moon's metrics, by the runs' game; Moon's
    bid and widow figures when every run has its hands table); needs at least two variants
    (rules ids, seatings or labels)."""
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
