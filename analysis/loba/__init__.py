"""Loba's analysis: its metrics (:mod:`.metrics`), the rebuy experiments (:mod:`.rebuy`,
:mod:`.rebuy_value`), its findings in words (:mod:`.words`), figures (:mod:`.plots`), report
sections (:mod:`.report`) and the sweep's rebuy value (:mod:`.sweep`), registered as one
:class:`analysis.bygame.GameAnalysis`, :data:`ANALYSIS` (Loba's spec names it)::

    import analysis
    from analysis import loba
    runs = analysis.load_runs(["runs/e101", "runs/e151"])     # kept apart by rules id
    loba.key_metrics(runs.games, runs.seats)                  # tidy polars DataFrame
    loba.elimination_hazard(runs.games, runs.seats).to_pandas()

Figures (:mod:`.plots`) and report sections (:mod:`.report`) import matplotlib; they are
loaded on first use.
"""

from __future__ import annotations

from ..lazy import lazy_names

GAME = "loba"  # the registered name of the game this analysis is of

__all__ = [
    "ANALYSIS",
    "GAME",
    "bust_hazard",
    "compare_rebuy_rules",
    "elimination_hazard",
    "first_elimination",
    "first_elimination_summary",
    "game_shape",
    "key_metrics",
    "paired_rebuy_value",
    "policy_table",
    "rebuy_outcomes",
    "rebuy_value_policy",
    "rebuy_value_state",
    "save_state_table",
    "seat_advantage",
    "seat_table",
    "skill_gap",
    "survival",
    "tabulate_state_value",
]

__getattr__ = lazy_names(
    __name__,
    {
        "bust_hazard": ".metrics",
        "elimination_hazard": ".metrics",
        "first_elimination": ".metrics",
        "first_elimination_summary": ".metrics",
        "game_shape": ".metrics",
        "key_metrics": ".metrics",
        "policy_table": ".metrics",
        "rebuy_outcomes": ".metrics",
        "seat_advantage": ".metrics",
        "seat_table": ".metrics",
        "skill_gap": ".metrics",
        "survival": ".metrics",
        "compare_rebuy_rules": ".rebuy",
        "paired_rebuy_value": ".rebuy",
        "rebuy_value_policy": ".rebuy",
        "rebuy_value_state": ".rebuy",
        "save_state_table": ".rebuy",
        "tabulate_state_value": ".rebuy",
        "ANALYSIS": ".registration",
    },
)
