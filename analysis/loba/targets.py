"""What the house-rules advisor (:mod:`analysis.advise`) may target in Loba, and where it
searches when no knob is named: :data:`TARGETS`, registered in :data:`.registration.ANALYSIS`.

Every figure of :func:`.metrics.figures` (what ``loba summarize`` prints from the games and
seats tables) is a target by its name, and the ones people ask about have short names
(``rounds_per_game``, ``one_turn_bonus``, ``first_elimination``...). Derived ones:

- ``comeback``: the win share of players who rebought — over the finished games, the games
  won by a seat that rebought at least once over the seats that rebought (a ratio of per-game
  sums, so its interval is by game like every other);
- ``dealer_left_edge``: the dealer's left's win share minus the fair share 1 / players, in
  percentage points (positive: an advantage);
- ``seat_spread`` / ``position_spread``: the best minus the worst seat's (position's, from
  the first dealer's left) win share, in percentage points, with the interval of
  :func:`analysis.metrics.spread_row`.
"""

from __future__ import annotations

import polars as pl

from ..bygame import TargetSpec
from ..estimate import Figure
from ..io import collect
from ..metrics import KEY, M_SEAT_SPREAD, M_UNFINISHED, prep
from . import metrics as M

M_COMEBACK = "win share of players who rebought"
M_DEALER_EDGE = "dealer's left edge: its win share - the fair share"


def _position() -> pl.Expr:
    """The winner's position from the first dealer: 0 the dealer's left (who plays first)."""
    return (pl.col("winner").cast(pl.Int64) - pl.col("first_dealer").cast(pl.Int64) - 1) % pl.col(
        "n_players"
    ).cast(pl.Int64)


def frame(games, seats) -> pl.DataFrame:
    """One row per game: :func:`.metrics._game_frame` (the games table with its seats'
    totals) and ``_rebuyers`` (seats that rebought) and ``_winner_rebought``."""
    g = M._game_frame(games, seats)
    s = prep(seats).join(
        prep(games).select(*KEY, "winner"), on=KEY, how="inner", maintain_order="left"
    )
    rebought = pl.col("rebuys") > 0
    extra = s.group_by(KEY).agg(
        rebought.sum().cast(pl.Int64).alias("_rebuyers"),
        (rebought & (pl.col("seat") == pl.col("winner")).fill_null(False))
        .any()
        .alias("_winner_rebought"),
    )
    out = g.join(extra, on=KEY, how="left", maintain_order="left")
    return collect(out).sort("game")


def figures(policies=()) -> list[Figure]:
    """Every targetable figure: :func:`.metrics.figures` and the derived ones."""
    f64 = pl.Float64
    fin = pl.col("winner").is_not_null()
    n = pl.col("n_players").cast(f64)
    won = (_position() == 0).fill_null(False).cast(f64)
    return [
        *M.figures(policies),
        Figure(M_COMEBACK, "share", (fin & pl.col("_winner_rebought").fill_null(False)),
               pl.col("_rebuyers").fill_null(0) * fin.cast(pl.Int64), "share", True),
        Figure(M_DEALER_EDGE, "pts", fin.cast(f64) * (won - 1 / n), fin.cast(f64)),
    ]  # fmt: skip


TARGETS = TargetSpec(
    frame=frame,
    figures=figures,
    names={
        "rounds_per_game": M.M_ROUNDS,
        "turns_per_game": M.M_TURNS,
        "turns_per_round": M.M_TURNS_PER_ROUND,
        "void_rounds": M.M_VOID_SHARE,
        "one_turn_bonus": M.M_BONUS,
        "stock_rebuilds": M.M_RESHUFFLES,
        "pot_per_game": M.M_POT,
        "unfinished": M_UNFINISHED,
        "rebuys_per_game": M.M_REBUYS,
        "first_elimination": M.M_FIRST_ELIM,
        "busts_rebought": M.M_REBOUGHT,
        "elimination_risk": M.M_HAZARD,
        "dealer_left": M.M_DEALER_LEFT,
        "dealer_left_edge": M_DEALER_EDGE,
        "comeback": M_COMEBACK,
        "seat_spread": M_SEAT_SPREAD,
        "position_spread": M.M_POSITION_SPREAD,
    },
    spreads={M_SEAT_SPREAD: pl.col("winner"), M.M_POSITION_SPREAD: _position()},
    scale={M_SEAT_SPREAD: 100.0, M.M_POSITION_SPREAD: 100.0, M_DEALER_EDGE: 100.0},
    about={
        M_COMEBACK: "wins by a seat that rebought at least once, over the seats that rebought"
        " (finished games)",
        M_DEALER_EDGE: "the dealer's left's win share minus 1 / players, in points",
    },
    turns=pl.col("turns"),
    turn="turn (a draw, plays and a discard)",
    seconds_per_turn=10.0,
    knobs=(
        "elimination_score=51..201",
        "max_rebuys=0..3",
        "one_turn_bonus=0..30",
        "hand_size=7..11",
        "escalera_min=3..5",
        "jokers=0..6",
        "jokers_per_escalera=0..2",
        "discard_take=meld_or_layoff,new_meld_only",
        "pierna_suits=exactly_three,not_all_four",
        "joker_discard=last_only,allowed",
    ),
)
