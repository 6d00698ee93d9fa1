"""Loba's analysis registered as one :class:`analysis.bygame.GameAnalysis`
(:data:`ANALYSIS`, named by the game's spec)."""

from __future__ import annotations

from ..bygame import GameAnalysis, Panel, ReportExperiment
from ..stats import LEVEL
from . import metrics as M
from .findings import FINDINGS
from .sweep import REBUY_VALUE
from .targets import TARGETS


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


# Loba's fields of players (analysis.field), weakest first: name -> the policies in turn from
# seat 0. `expert` is the strongest searcher; to seat a stronger one, edit its one line.
FIELDS = {
    "greedy": ("greedy",),
    "mixed": ("greedy", "smart"),  # greedy and smart alternating, seat 0 greedy
    "smart": ("smart",),
    "expert": ("deep",),  # the expert field: the searching player `deep` in every seat
}


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
    report_experiment=ReportExperiment(_rebuy_experiment, "--experiment-games", "rebuys"),
    sweep_experiment=REBUY_VALUE,
    across_fields=True,
    targets=TARGETS,
    fields=FIELDS,
    findings=FINDINGS,
)
