"""What the house-rules advisor (:mod:`analysis.advise`) may target in Three-Player Moon, and
where it searches when no knob is named: :data:`TARGETS`, registered in
:data:`.registration.ANALYSIS`.

Every figure of :func:`.metrics.figures` from the games and seats tables (what ``loba
summarize`` prints of a Moon run without its hands table) is a target by its name; short
names: ``hands_per_game``, ``contracts_made``, ``first_bidder``... Derived ones:

- ``first_bidder_edge``: the first bidder's win share minus the fair third, in percentage
  points (positive: an advantage; ``first_bidder_edge in -1..1`` asks for fairness both ways);
- ``seat_spread`` / ``position_spread``: the best minus the worst seat's (position's, from
  the first bidder) win share, in percentage points (:func:`analysis.metrics.spread_row`).

A Moon "turn" for ``minutes`` is one decision: a bid or pass, the widow's discard, trump, a
tile played.
"""

from __future__ import annotations

import polars as pl

from ..bygame import TargetSpec
from ..estimate import Figure
from ..metrics import M_SEAT_SPREAD, M_UNFINISHED
from . import metrics as MN

M_FIRST_EDGE = "first bidder's edge: its win share - the fair third"


def frame(games, seats) -> pl.DataFrame:
    """One row per game: the games table with each game's contracts
    (:func:`.metrics._game_counts`)."""
    return MN._game_counts(games, seats).sort("game")


def figures(policies=()) -> list[Figure]:
    """Every targetable figure: :func:`.metrics.figures` (without the hands table) and the
    first bidder's edge."""
    f64 = pl.Float64
    fin = pl.col("winner").is_not_null().cast(f64)
    won = (MN._position() == 0).fill_null(False).cast(f64)
    return [*MN.figures(False), Figure(M_FIRST_EDGE, "pts", fin * (won - 1 / 3), fin)]


TARGETS = TargetSpec(
    frame=frame,
    figures=figures,
    names={
        "hands_per_game": MN.M_HANDS,
        "redeals": MN.M_REDEALS,
        "unfinished": M_UNFINISHED,
        "contracts_made": MN.M_MADE,
        "moon_bids": MN.M_MOON_BID,
        "moons_made": MN.M_MOON_MADE,
        "games_with_moon_bid": MN.M_GAMES_MOON_BID,
        "games_with_moon_made": MN.M_GAMES_MOON_MADE,
        "first_bidder": MN.M_FIRST_BIDDER,
        "first_bidder_edge": M_FIRST_EDGE,
        "seat_spread": M_SEAT_SPREAD,
        "position_spread": MN.M_POSITION_SPREAD,
    },
    spreads={M_SEAT_SPREAD: pl.col("winner"), MN.M_POSITION_SPREAD: MN._position()},
    scale={M_SEAT_SPREAD: 100.0, MN.M_POSITION_SPREAD: 100.0, M_FIRST_EDGE: 100.0},
    about={M_FIRST_EDGE: "the first bidder's win share minus 1/3, in points"},
    turns=pl.col("decisions"),
    turn="decision (a bid or pass, the widow's discard, trump, a tile played)",
    seconds_per_turn=6.0,
    knobs=(
        "target=11..51",
        "all_pass=redeal,force_last",
        "made_scores=tricks,bid",
        "moon=points,instant",
        "trump_before_widow=false,true",
        "allow_doubles_trump=true,false",
    ),
)
