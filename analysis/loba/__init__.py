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

from ..bygame import GameAnalysis, Panel, ReportExperiment
from ..stats import LEVEL
from . import metrics as M
from .metrics import (
    bust_hazard,
    elimination_hazard,
    first_elimination,
    first_elimination_summary,
    game_shape,
    key_metrics,
    policy_table,
    rebuy_outcomes,
    seat_advantage,
    seat_table,
    skill_gap,
    survival,
)
from .rebuy import (
    compare_rebuy_rules,
    paired_rebuy_value,
    rebuy_value_policy,
    rebuy_value_state,
    save_state_table,
    tabulate_state_value,
)
from .sweep import REBUY_VALUE

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


def _key_metrics(games, seats, detail=None, level: float = LEVEL):
    return M.key_metrics(games, seats, level)


def _per_game(games, seats, detail=None):
    return M.per_game(games, seats)


def _report(rs, km, cmp):
    from .report import sections

    return sections(rs, km, cmp)


def _rebuy_experiment(rs, games, reps, progress):
    from .report import rebuy_experiment

    return rebuy_experiment(rs, games, reps, progress)


ANALYSIS = GameAnalysis(
    key_metrics=_key_metrics,
    per_game=_per_game,
    sweep_columns=(
        ("mean_rounds", M.M_ROUNDS),
        ("mean_turns", M.M_TURNS),
        ("elim_risk", M.M_HAZARD),
        ("rebuys_per_game", M.M_REBUYS),
        ("dealer_left_share", M.M_DEALER_LEFT),
        ("bonus_rate", M.M_BONUS),
        ("unfinished", M.M_UNFINISHED),
        ("first_elim_round", M.M_FIRST_ELIM),
    ),
    sweep_panels=(
        Panel("mean_rounds", "rounds per game", "rounds"),
        Panel("elim_risk", "elimination risk per player-round", "%", 100.0),
        Panel("rebuy_value", "value of always rebuying (seat 0)", "stakes / game", 1.0, "0"),
        Panel("dealer_left_share", "win share of the dealer's left", "%", 100.0, "fair share"),
    ),
    sweep_shown=(
        "mean_rounds",
        "elim_risk",
        "rebuys_per_game",
        "rebuy_value",
        "rebuy_value_low",
        "rebuy_value_high",
        "dealer_left_share",
        "seat_p",
    ),
    stated=(
        M.M_ROUNDS,
        M.M_TURNS,
        M.M_FIRST_ELIM,
        M.M_REBUYS,
        M.M_HAZARD,
        M.M_DEALER_LEFT,
        M.M_BONUS,
    ),
    report=_report,
    summary_figures=M.summary_figures,
    report_experiment=ReportExperiment(_rebuy_experiment, "--rebuy-games", "rebuys"),
    sweep_experiment=REBUY_VALUE,
    across_fields=True,
)
