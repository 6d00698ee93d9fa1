"""What the analysis knows of each game, reached through one registration per game.

A game's analysis (its metrics, report sections and findings, sweep columns and figure panels,
and the paired experiments it offers) is one :class:`GameAnalysis` in the game's own analysis
package; the game's spec names it (``GameSpec.analysis``, ``"module:NAME"``, e.g.
``"analysis.loba.registration:ANALYSIS"``), and :func:`for_game` imports it on first use.
:func:`analysis.comparison.compare`, the sweep, the report and ``summarize`` look a run's game up
here; nothing else asks which game it is for its metrics, and no shared module names a game.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import polars as pl

from sim.game import load_ref

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
class SweepExperiment:
    """A paired experiment a sweep runs beside each cell, on the cell's rules and seeds: each
    seating of :attr:`seatings` (seat :attr:`seat` switched) is played too, and the cell's row
    gets the paired difference between them.

    ``folder``: where its runs go under the sweep's ``OUT/`` (laid out like ``cells/``, one
    folder per seating's tag); ``seatings(labels)``: tag -> (seat strings, their canonical
    labels) of the runs it needs, from the cell's seat labels; ``value(runs)``: its table from
    the runs by tag (:class:`sim.results.Results`); ``columns(table)``: the summary columns it
    adds to a cell's row (``table`` None: not played); ``names``: those columns, each with
    ``_low``/``_high``, set across fields of players; ``label``: what their difference is, in
    words; ``units``: column -> unit where not a plain number; ``notes(summary, knobs)``: why
    a cell has no value, one line per reason; ``meta_key``: the key of ``sweep.json`` that
    records the switched seat (null when not played)."""

    folder: str
    seatings: Callable[[list[str]], dict]
    value: Callable[[dict], pl.DataFrame]
    columns: Callable[[pl.DataFrame | None], dict]
    names: tuple[str, ...]
    label: str
    notes: Callable[[pl.DataFrame, list[str]], list[str]]
    meta_key: str
    seat: int = 0
    units: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ReportExperiment:
    """An experiment the report adds on request (``experiment_games`` > 0):
    ``run(runset, games, reps, progress)`` -> its section (``title``, ``intro``, ``sentences``,
    ``empty``: what to say without any, ``figure``); ``option``: the command-line option asking
    for it and ``what``: what it values (for the sentence refusing it to a game without one)."""

    run: Callable
    option: str
    what: str


@dataclass(frozen=True)
class TargetSpec:
    """What a game offers the house-rules advisor (:mod:`analysis.advise`).

    ``frame(games, seats)``: one row per game (``game`` and the columns the figures read);
    ``figures(policies)``: every figure a target may name, over that frame (those ``loba
    summarize`` prints from the games and seats tables, and the game's derived ones);
    ``spreads``: spread name -> the per-game expression of the winner's group (seat or position
    from a first player; null when the game is unfinished), whose best - worst win share is the
    spread; ``names``: short target name -> figure or spread name; ``scale``: figure or spread
    name -> factor from its value to the target's unit (100: a difference of shares in
    percentage points); ``about``: derived figure -> what it is, in words; ``turns``: the
    per-game expression ``minutes`` counts (``turn``: what one is, in words;
    ``seconds_per_turn``: its default length); ``knobs``: the search space when none is named,
    ``KNOB=LO..HI`` or ``KNOB=A,B,C`` (documented in docs/advise.md)."""

    frame: Callable
    figures: Callable
    names: dict[str, str]
    spreads: dict[str, pl.Expr] = field(default_factory=dict)
    scale: dict[str, float] = field(default_factory=dict)
    about: dict[str, str] = field(default_factory=dict)
    turns: pl.Expr | None = None
    turn: str = "turn"
    seconds_per_turn: float = 10.0
    knobs: tuple[str, ...] = ()


@dataclass(frozen=True)
class GameAnalysis:
    """A game's analysis. ``key_metrics(games, seats, detail, level)``: its long metrics table
    (the columns of :func:`analysis.metrics.long_table`); ``per_game(games, seats, detail)``:
    its per-game ``"<metric>|y"``/``"<metric>|x"`` columns (``detail``: the detail table, or
    None); ``sweep_columns``: summary column -> key metric; ``sweep_panels``: the four panels
    of the sweep's figure; ``sweep_shown``: the summary columns the ``sweep`` command prints;
    ``stated``: the differences from a baseline worded as sentences (and tested together in
    the report); ``summary_figures``: the figures of the game's run summary
    (:func:`run_summary`); ``report(runset, km, cmp)``: the report's sections
    (:class:`analysis.report.Sections`: findings, figures, the game's own tables, methods);
    ``report_experiment`` and ``sweep_experiment``: the game's experiments, if any;
    ``across_fields``: the report sets differences across fields of players
    (:mod:`analysis.field`); ``targets``: what the house-rules advisor may target and search
    (:class:`TargetSpec`; None: only what every game has); ``fields``: the game's named fields
    of players, weakest first (name -> the policies seated in turn from seat 0, repeated
    around the table; :mod:`analysis.field`); ``findings``: its headline findings re-checked
    across fields (:class:`analysis.findings.FindingsSpec`; None: none declared)."""

    key_metrics: Callable
    per_game: Callable
    sweep_columns: tuple[tuple[str, str], ...]
    sweep_panels: tuple[Panel, ...]
    sweep_shown: tuple[str, ...]
    stated: tuple[str, ...]
    report: Callable
    summary_figures: Callable | None = None  # (games, seats) -> see run_summary
    report_experiment: ReportExperiment | None = None
    sweep_experiment: SweepExperiment | None = None
    across_fields: bool = False
    targets: TargetSpec | None = None
    fields: dict[str, tuple[str, ...]] = field(default_factory=dict)
    findings: object | None = None  # analysis.findings.FindingsSpec

    def run_summary(self, game, games, seats, level: float = LEVEL) -> dict:
        """:func:`run_summary` (what :meth:`sim.game.GameSpec.run_intervals` calls)."""
        return run_summary(game, games, seats, level)

    @property
    def sweep_units(self) -> dict[str, str]:
        """The summary columns that are shares (drawn in %), for the printed table."""
        return {p.column: "share" for p in self.sweep_panels if p.factor == 100}

    def shown(self, experiment: bool = True) -> tuple[str, ...]:
        """The summary columns a sweep prints (``experiment`` False: without the sweep
        experiment's columns, it was not played)."""
        exp = self.sweep_experiment
        drop = () if experiment or exp is None else exp.names
        return tuple(c for c in self.sweep_shown if not c.startswith(drop))


def for_game(game=None) -> GameAnalysis | None:
    """The analysis of ``game`` (a registered game name, a :class:`sim.game.GameSpec`, or None
    for the default game), imported from where its spec names it; None for a game whose
    analysis is not written yet."""
    from sim.games import get_game

    ref = get_game(game).analysis
    return load_ref(ref) if ref else None


def analysis_of(game=None) -> GameAnalysis:
    """:func:`for_game`, with one sentence for a game the analysis does not know yet."""
    ga = for_game(game)
    if ga is None:
        from sim.games import get_game

        raise AnalysisError(
            f"The analysis knows no metrics of {get_game(game).title} yet ('loba summarize'"
            " gives the figures every game has)."
        )
    return ga


def registered() -> list[tuple[object, GameAnalysis]]:
    """(spec, analysis) of every registered game that has one, in registry order."""
    from sim.games import all_games

    return [(spec, ga) for spec in all_games() if (ga := for_game(spec)) is not None]


def stated_metrics() -> list[str]:
    """Every game's stated differences (:attr:`GameAnalysis.stated`): the metric names differ
    from game to game, so one list serves a comparison of any game."""
    return [m for _, ga in registered() for m in ga.stated]


def no_experiment(title: str) -> str:
    """Why the report refuses its experiment to the game titled ``title`` (it has none), in one
    sentence naming the option and a game that has one."""
    spec, ga = next((s, g) for s, g in registered() if g.report_experiment is not None)
    e = ga.report_experiment
    return f"{e.option} values {spec.title}'s {e.what}; {title} has none to value."


def run_summary(game, games, seats, level: float = LEVEL) -> dict:
    """The intervals of a run's summary (:meth:`sim.results.Results.summary`), from the
    game's per-game figure definitions (``summary_figures``; :mod:`analysis.estimate`, the
    same model as ``loba summarize``): ``{summary key: estimate}`` (the keys of
    :func:`analysis.estimate.estimate` and ``metric``, the figure's name; a total over the
    run is its figure per game times the games) and ``"seats"``: each seat's win share's.
    A game the analysis does not know yet gets its unfinished games and win shares."""
    from .io import collect
    from .metrics import M_UNFINISHED, prep, seat_share_figures, with_seed

    ga = for_game(game)
    if ga is not None and ga.summary_figures is not None:
        frame, table, seat_figs = ga.summary_figures(games, seats)
    else:
        frame = with_seed(prep(games))
        n = int(collect(frame.select(pl.col("n_players").max())).item() or 0)
        one = pl.lit(1.0)
        unfinished = Figure(M_UNFINISHED, "share", pl.col("winner").is_null(), one, "share", True)
        table, seat_figs = {"unfinished": (unfinished, True)}, seat_share_figures(n)
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
