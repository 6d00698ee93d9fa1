"""Three-Player Moon's analysis registered as one :class:`analysis.bygame.GameAnalysis`
(:data:`ANALYSIS`, named by the game's spec)."""

from __future__ import annotations

from ..bygame import GameAnalysis, Panel
from . import metrics as MN
from .findings import FINDINGS
from .metrics import (
    moon_metrics,
    per_game,
)
from .targets import TARGETS


def _report(rs, km, cmp):
    from .report import sections

    return sections(rs, km, cmp)


# Moon's fields of players (analysis.field), weakest first: name -> the policies in turn from
# seat 0. `expert` is the searching player; to seat a stronger one, edit its one line.
FIELDS = {
    "greedy": ("greedy",),
    "mixed": ("greedy", "count"),  # greedy, count, greedy around the table
    "count": ("count",),
    "expert": ("pimc",),  # the expert field's policy (the search `pimc`)
}


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
    targets=TARGETS,
    fields=FIELDS,
    findings=FINDINGS,
)
