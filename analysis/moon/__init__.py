"""Three-Player Moon's analysis: its metrics (:mod:`.metrics`: bids, trump, the moon, the
widow, the first bidder), findings in words (:mod:`.words`), figures (:mod:`.plots`) and
report sections (:mod:`.report`), registered as one :class:`analysis.bygame.GameAnalysis`,
:data:`ANALYSIS` (Moon's spec names it)::

    import analysis
    from analysis import moon
    runs = analysis.load_runs(["runs/m1"])
    moon.moon_metrics(runs.games, runs.seats, runs.rounds)   # rounds: Moon's hands table
"""

from __future__ import annotations

from ..bygame import GameAnalysis, Panel
from . import metrics as MN
from .metrics import (
    BIDS,
    TRUMP_KINDS,
    all_pass_rate,
    bid_success,
    first_bidder_advantage,
    hands_per_game,
    moon_metrics,
    moon_rates,
    per_game,
    widow_value,
)

__all__ = [
    "ANALYSIS",
    "BIDS",
    "TRUMP_KINDS",
    "all_pass_rate",
    "bid_success",
    "first_bidder_advantage",
    "hands_per_game",
    "moon_metrics",
    "moon_rates",
    "per_game",
    "widow_value",
]


def _report(rs, km, cmp):
    from .report import sections

    return sections(rs, km, cmp)


ANALYSIS = GameAnalysis(
    key_metrics=moon_metrics,
    per_game=per_game,
    sweep_columns=(
        ("mean_hands", MN.M_HANDS),
        ("redeal_share", MN.M_REDEALS),
        ("made_share", MN.M_MADE),
        ("moon_bid_share", MN.M_MOON_BID),
        ("games_moon_bid", MN.M_GAMES_MOON_BID),
        ("first_bidder_share", MN.M_FIRST_BIDDER),
        ("unfinished", MN.M_UNFINISHED),
    ),
    sweep_panels=(
        Panel("mean_hands", "hands per game (redeals included)", "hands"),
        Panel("made_share", "contracts made", "%", 100.0),
        Panel("moon_bid_share", "moon bids per played hand", "%", 100.0),
        Panel("first_bidder_share", "win share of the first bidder", "%", 100.0, "fair share"),
    ),
    sweep_shown=("mean_hands", "made_share", "moon_bid_share", "first_bidder_share", "seat_p"),
    stated=(
        MN.M_HANDS,
        MN.M_REDEALS,
        MN.M_MADE,
        MN.M_MOON_BID,
        MN.M_MOON_MADE,
        MN.M_WIDOW_KEPT,
        MN.M_FIRST_BIDDER,
    ),
    report=_report,
    summary_figures=MN.summary_figures,
)
