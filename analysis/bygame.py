"""What the analysis knows of each game, in one place: its headline metrics, each game's share
of them for pairing runs of the same seeds, what a sweep summarises and draws, and which
differences the sentences state. :func:`analysis.compare.compare`, the sweep, the report and
``summarize`` look a run's game up here (:func:`analysis_of`); nothing else asks which game
it is for its metrics.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from . import metrics as M
from . import moon as MN
from .errors import AnalysisError
from .estimate import Figure, estimates, per_game_columns, scaled
from .stats import LEVEL


@dataclass(frozen=True)
class Panel:
    """One panel of a sweep's figure (``sweep.png``): a summary column, its title, the axis
    unit, the factor from the column to that unit (100: a share drawn in %), and the reference
    a two-knob heatmap is centred on (``fair share``: 1 / players, ``0``, or None)."""

    column: str
    title: str
    unit: str
    factor: float = 1.0
    reference: str | None = None


@dataclass(frozen=True)
class GameAnalysis:
    """A game's metrics. ``key_metrics(games, seats, detail, level)``: the long table of
    :func:`analysis.metrics.key_metrics`; ``per_game(games, seats, detail)``: its per-game
    ``"<metric>|y"``/``"<metric>|x"`` columns (``detail``: the rounds or hands table, or
    None); ``sweep_columns``: summary column -> key metric; ``sweep_panels``: the four panels
    of the sweep's figure; ``sweep_shown``: the summary columns ``loba sweep`` prints;
    ``stated``: the differences from a baseline worded as sentences (and tested together in
    the report); ``rebuys``: a sweep also values rebuying (paired always/never runs);
    ``summary_figures``: the figures of the game's run summary (:func:`run_summary`)."""

    key_metrics: Callable
    per_game: Callable
    sweep_columns: tuple[tuple[str, str], ...]
    sweep_panels: tuple[Panel, ...]
    sweep_shown: tuple[str, ...]
    stated: tuple[str, ...]
    rebuys: bool = False
    summary_figures: Callable | None = None  # (games, seats) -> see run_summary

    @property
    def sweep_units(self) -> dict[str, str]:
        """The summary columns that are shares (drawn in %), for the printed table."""
        return {p.column: "share" for p in self.sweep_panels if p.factor == 100}


def _loba_key(games, seats, detail=None, level: float = LEVEL):
    return M.key_metrics(games, seats, level)


def _loba_per_game(games, seats, detail=None):
    return M.per_game(games, seats)


GAMES: dict[str, GameAnalysis] = {
    "loba": GameAnalysis(
        key_metrics=_loba_key,
        per_game=_loba_per_game,
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
        rebuys=True,
        summary_figures=M.summary_figures,
    ),
    "moon": GameAnalysis(
        key_metrics=MN.moon_metrics,
        per_game=MN.per_game,
        sweep_columns=(
            ("mean_hands", MN.M_HANDS),
            ("redeal_share", MN.M_REDEALS),
            ("made_share", MN.M_MADE),
            ("moon_bid_share", MN.M_MOON_BID),
            ("games_moon_bid", MN.M_GAMES_MOON_BID),
            ("first_bidder_share", MN.M_FIRST_BIDDER),
            ("unfinished", M.M_UNFINISHED),
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
        summary_figures=MN.summary_figures,
    ),
}


def analysis_of(game: str) -> GameAnalysis:
    """The metrics of ``game`` (a registered game name); one sentence for a game the analysis
    does not know yet."""
    if game not in GAMES:
        from sim.games import get_game

        raise AnalysisError(
            f"The analysis knows no metrics of {get_game(game).title} yet ('loba summarize'"
            " gives the figures every game has)."
        )
    return GAMES[game]


def run_summary(game: str, games, seats, level: float = LEVEL) -> dict:
    """The intervals of a run's summary (:meth:`sim.results.Results.summary`), from the
    game's per-game figure definitions (``summary_figures``; :mod:`analysis.estimate`, the
    same model as ``loba summarize``): ``{summary key: estimate}`` (the keys of
    :func:`analysis.estimate.estimate` and ``metric``, the figure's name; a total over the
    run is its figure per game times the games) and ``"seats"``: each seat's win share's.
    A game the analysis does not know yet gets its unfinished games and win shares."""
    ga = GAMES.get(game)
    if ga is not None and ga.summary_figures is not None:
        frame, table, seat_figs = ga.summary_figures(games, seats)
    else:
        frame = M.with_seed(M._prep(games))
        n = int(M.collect(frame.select(pl.col("n_players").max())).item() or 0)
        one = pl.lit(1.0)
        unfinished = Figure(M.M_UNFINISHED, "share", pl.col("winner").is_null(), one, "share", True)
        table, seat_figs = {"unfinished": (unfinished, True)}, M.seat_share_figures(n)
    figs = [f for f, _ in table.values()] + seat_figs
    lf = frame.select("variant", "run", "seed", "game", *per_game_columns(figs))
    est = {r["metric"]: r for r in estimates(lf, figs, ("variant",), level).iter_rows(named=True)}
    out = {}
    for key, (f, total) in table.items():
        e = est.get(f.name)
        if e is not None:
            out[key] = scaled(e, e["n"]) if total else e
    out["seats"] = [est.get(f.name) for f in seat_figs]
    return out
