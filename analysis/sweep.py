"""Sweeps over one or two rule knobs: the same seeds in every cell of the grid.

:func:`run_sweep` validates every cell first (a bad knob or value fails before any game is
played), then for each cell plays ``games`` games with run seed ``seed`` — so game ``i`` starts
from the same random stream in every cell and differences between cells are not luck of the
deal — and writes one run directory per cell under ``OUT/cells/``, Hive-style: one folder
level per varied knob, in the order of the ``--vary`` options, named ``KNOB=VALUE`` with the
value spelled as in the rules id (``OUT/cells/elimination_score=101/max_rebuys=0/``,
``allow_doubles_trump=true``, ``score_floor=none``). Every table of a cell (games, seats and
the detail table when recorded) carries the varied knobs as columns of the knob's type
(:func:`sim.results.add_knob_columns`; listed in the cell's manifest, so ``loba verify``
checks them and a resumed cell writes them again), so the whole sweep reads in one line::

    pl.scan_parquet("OUT/cells/**/games.parquet/*.parquet")

(``hive_partitioning=True`` reads the same values from the folder names, except ``none``,
which polars cannot read from a path as null). Each game's summary columns and figure panels
come from its analysis (:mod:`analysis.bygame`). A game with a paired experiment
(:class:`analysis.bygame.SweepExperiment`) also plays the same seeds with one seat switched
each way it names (under ``OUT/<its folder>/<tag>/``, laid out like ``OUT/cells/``; a run that
equals the cell's own run is not played twice) and adds the paired difference to the cell's
row. ``OUT/summary.csv`` (and ``.json``) hold one row per cell; ``OUT/sweep.png`` draws it
(:func:`analysis.plots.sweep_plots`).

Because every cell plays the same games, each cell is also compared with the first cell (the
``baseline`` column) game by game (:func:`analysis.comparison.compare`): for every metric ``M`` of
the summary, ``M_diff`` with its paired 95% interval ``M_diff_low``/``M_diff_high`` and, beside
it, the unpaired interval ``M_unpaired_low``/``M_unpaired_high`` that two independent runs would
give.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from sim.chunks import check_threads
from sim.faults import fault_context
from sim.games import DEFAULT_GAME

from .bygame import analysis_of
from .errors import AnalysisError
from .metrics import M_SEAT_P

MAX_KNOBS = 2


def parse_vary(items) -> list[tuple[str, list[str]]]:
    """``["elimination_score=101,151", "max_rebuys=0,1,2"]`` -> [(knob, [values...]), ...]."""
    out: list[tuple[str, list[str]]] = []
    for item in items or ():
        m = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.+)", str(item))
        if not m:
            raise AnalysisError(f"'{item}' is not a sweep axis: write --vary KNOB=V1,V2,...")
        values = [v.strip() for v in m.group(2).split(",")]
        if not any(values):
            raise AnalysisError(f"'{item}' lists no values: write --vary KNOB=V1,V2,...")
        if not all(values):
            raise AnalysisError(f"'{item}' has an empty value: write --vary KNOB=V1,V2,...")
        if len(set(values)) != len(values):
            raise AnalysisError(f"'{item}' repeats a value.")
        if any(k == m.group(1) for k, _ in out):
            raise AnalysisError(f"Knob '{m.group(1)}' is varied twice; give it one --vary.")
        out.append((m.group(1), values))
    if not out:
        raise AnalysisError("Give at least one --vary KNOB=V1,V2,...")
    if len(out) > MAX_KNOBS:
        raise AnalysisError(f"A sweep varies at most {MAX_KNOBS} knobs, not {len(out)}.")
    return out


def sweep_cells(
    preset: str | None, sets: dict, vary, game: str | None = None
) -> list[tuple[dict, object]]:
    """Every cell of the grid as (``{knob: value}``, RuleSet), validated (RuleError on a bad
    knob, value or combination, naming it). ``game``: the game of a preset that names none
    (None: the one the preset names, else the default game)."""
    from sim.setup import make_rules, parse_rules_id

    # a preset or a canonical id
    base = parse_rules_id(preset, game) if preset else make_rules(game=game)

    cells = []
    knobs = [k for k, _ in vary]
    for k in knobs:
        if k in sets:
            raise AnalysisError(f"Knob '{k}' is both set (--set) and varied (--vary).")
    for combo in itertools.product(*[vals for _, vals in vary]):
        over = dict(zip(knobs, combo, strict=True))
        rules = base.replace(**sets, **over)
        typed = {k: getattr(rules, k) for k in knobs}
        cells.append((typed, rules))
    ids = [r.id for _, r in cells]
    if len(set(ids)) != len(ids):
        raise AnalysisError("Two cells of the sweep are the same rule set; list each value once.")
    return cells


def path_safe(text: str, keep: str = "") -> str:
    """``text`` as a folder name: characters other than letters, digits, ``_.=+-`` and those
    in ``keep`` become ``_``."""
    return re.sub(rf"[^A-Za-z0-9_.=+{re.escape(keep)}-]", "_", text)


def _spelled(cell: dict) -> list[str]:
    """``KNOB=VALUE`` for each knob of a cell, the value spelled as in the rules id
    (``true``/``false``, ``none``)."""
    from sim.rules import fmt_value

    return [path_safe(f"{k}={fmt_value(v)}") for k, v in cell.items()]


def cell_label(cell: dict) -> str:
    """A cell's name in the summary and on the progress line:
    ``elimination_score=101,max_rebuys=0``."""
    return ",".join(_spelled(cell))


def cell_path(cell: dict) -> str:
    """A cell's folder under ``OUT/cells/`` (and an experiment's ``OUT/FOLDER/TAG/``),
    Hive-style, one level per knob: ``elimination_score=101/max_rebuys=0``."""
    return "/".join(_spelled(cell))


def cell_dirs(out) -> list[Path]:
    """The run directories of a sweep's cells, in grid order, from ``OUT/sweep.json`` (folders
    under ``OUT/cells/``: ``elimination_score=101/max_rebuys=0``, or the flat
    ``elimination_score=101,max_rebuys=0`` of sweeps written before the Hive-style layout,
    read alike); without it (a sweep stopped before its summary), every folder under
    ``OUT/cells/`` that holds a ``manifest.json``, in name order."""
    outp = Path(out)
    meta_path = outp / "sweep.json"
    try:
        names = json.loads(meta_path.read_text())["cells"]
    except FileNotFoundError:
        names = None
    except OSError as e:
        from sim.files import why

        raise AnalysisError(f"'{meta_path}' cannot be read ({why(e)}).") from None
    except (ValueError, KeyError, TypeError, RecursionError):
        names = []
    if names is not None:
        if not (
            isinstance(names, list)
            and names
            and all(isinstance(n, str) and n and ".." not in n.split("/") for n in names)
        ):
            raise AnalysisError(f"'{meta_path}' is damaged: it lists no cells.")
        return [outp / "cells" / n for n in names]
    cells = outp / "cells"
    if not cells.is_dir():
        raise AnalysisError(f"'{outp}' is not a sweep: it has no cells folder.")
    return sorted(m.parent for m in cells.rglob("manifest.json"))


@dataclass
class SweepResult:
    summary: pl.DataFrame
    knobs: list[str]
    out: Path | None
    game: str = DEFAULT_GAME


FAMILY_NOTE = (
    "Each cell's figures carry their own 95% interval (by game). Each difference from the first"
    " cell is tested, and its verdict ('higher', 'lower', 'no detectable difference') corrected"
    " with Holm's method over the family of every cell's difference in every figure of this"
    " table (columns M_p, M_p_adjusted, M_verdict), so the chance of any false verdict in the"
    " sweep is at most 5%."
)


def cell_differences(
    cells: list[tuple[str, object, object]], game: str | None = None
) -> list[dict]:
    """For cells ``(name, games, seats)`` played on the same seeds: each cell's difference from
    the first one for every summary column (the game's, :mod:`analysis.bygame`; ``game`` None:
    the default game), paired per game, with the unpaired interval beside it, its p-value, its
    Holm-adjusted p-value over the family of every cell's difference in every summary column,
    and the verdict read from the adjusted one (columns ``M_diff``, ``M_diff_low``,
    ``M_diff_high``, ``M_unpaired_low``, ``M_unpaired_high``, ``M_paired``, ``M_p``,
    ``M_p_adjusted``, ``M_verdict``; empty for the first cell)."""
    from .comparison import FAMILY_VERDICTS, compare, correct

    def tag(x, name):
        return x.lazy().with_columns(pl.lit(name).alias("variant"))

    games = pl.concat([tag(g, n) for n, g, _ in cells], how="diagonal_relaxed")
    seats = pl.concat([tag(s, n) for n, _, s in cells], how="diagonal_relaxed")
    cmp = compare(games, seats, baseline=cells[0][0], game=game)
    out, family = [], []
    for i, (name, _, _) in enumerate(cells):
        row: dict = {"baseline": cells[0][0]}
        for col, metric in analysis_of(game).sweep_columns:
            r = cmp.filter((pl.col("variant") == name) & (pl.col("metric") == metric))
            r = r.row(0, named=True) if r.height else {}
            row[f"{col}_diff"] = r.get("diff")
            row[f"{col}_diff_low"] = r.get("diff_low")
            row[f"{col}_diff_high"] = r.get("diff_high")
            row[f"{col}_unpaired_low"] = r.get("unpaired_low")
            row[f"{col}_unpaired_high"] = r.get("unpaired_high")
            row[f"{col}_paired"] = r.get("paired")
            row[f"{col}_p"] = r.get("p_value")
            if i and r:
                v = r.get("verdict") or ""
                family.append((row, col, {"diff": r.get("diff"), "p_value": r.get("p_value"),
                                          "note": "" if v in FAMILY_VERDICTS else v}))  # fmt: skip
        out.append(row)
    for (row, col, _), f in zip(family, correct([f for _, _, f in family]), strict=True):
        row[f"{col}_p_adjusted"] = f["p_adjusted"]
        row[f"{col}_verdict"] = f["verdict"]
    return out


def cell_summary(games, seats, extra: pl.DataFrame | None = None, game: str | None = None) -> dict:
    """One sweep row from a cell's tables (and its paired experiment's table, if any): the
    game's summary columns (:mod:`analysis.bygame`; None: the default game) with their
    intervals, the seat test and, for a game with a sweep experiment, its columns."""
    metrics = analysis_of(game)
    km = metrics.key_metrics(games, seats)

    def get(metric):
        r = km.filter(pl.col("metric") == metric)
        return r.row(0, named=True) if r.height else None

    row: dict = {}
    for col, metric in metrics.sweep_columns:
        r = get(metric)
        row[col] = r["value"] if r else None
        row[f"{col}_low"] = r["ci_low"] if r else None
        row[f"{col}_high"] = r["ci_high"] if r else None
    p = get(M_SEAT_P)
    row["seat_p"] = p["value"] if p else None
    if metrics.sweep_experiment is not None:
        row.update(metrics.sweep_experiment.columns(extra))
    return row


def experiment_notes(summary: pl.DataFrame, knobs, game: str | None = None) -> list[str]:
    """Why a cell has no value of the game's sweep experiment, one line per reason naming its
    cells (:attr:`analysis.bygame.SweepExperiment.notes`); empty for a game without one."""
    exp = analysis_of(game).sweep_experiment
    return [] if exp is None else exp.notes(summary, knobs)


def _check_numbers(games, seed, threads) -> None:
    if isinstance(games, bool) or not isinstance(games, int) or not 2 <= games <= 10**12:
        raise AnalysisError(
            f"A sweep needs a whole number of games from 2 to 10^12 per cell, not {games}."
        )
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise AnalysisError(f"The seed must be a whole number from 0 to 2^63-1, not {seed}.")
    if threads is not None:
        try:
            check_threads(threads)
        except ValueError as e:
            raise AnalysisError(str(e)) from None


def _experiment_table(exp, rules, labels, seatings, res, cell, games, seed, threads, outp,
                      overwrite):  # fmt: skip
    """The cell's table of the sweep experiment ``exp``: its seatings played on the cell's
    seeds (a seating equal to the cell's own is not played twice; the others are written under
    ``OUT/FOLDER/TAG/``)."""
    from sim.runner import simulate

    runs = {}
    for tag, (lab, canon) in seatings.items():
        if canon == labels:
            runs[tag] = res
            continue
        runs[tag] = simulate(
            rules, ",".join(lab), games=games, seed=seed, threads=threads, knob_columns=list(cell)
        )
        if outp is not None:
            runs[tag].write(outp / exp.folder / tag / cell_path(cell), overwrite=overwrite)
    return exp.value(runs)


def clear_runs(outp: Path, subs=("cells",), what: str = "sweep") -> None:
    """--overwrite: remove a previous sweep's ``cells/`` (and its experiment's folder; a
    tournament's ``seatings/``) first, so that reading ``OUT/cells/**`` pools this sweep's
    cells only (not those of another grid, nor the flat cell folders of sweeps from before the
    Hive-style layout)."""
    import contextlib
    import shutil

    from sim.files import RunDirError, why
    from sim.rundir import locked_tree

    dirs = [outp / s for s in subs if (outp / s).is_dir() and not (outp / s).is_symlink()]
    with contextlib.ExitStack() as held:
        try:  # every run below is locked first: one being written refuses, nothing is removed
            for d in dirs:
                held.enter_context(locked_tree(d))
        except RunDirError as e:
            raise AnalysisError(f"{e} Nothing of the previous {what} was removed.") from None
        for d in dirs:
            try:
                shutil.rmtree(d)
            except OSError as e:
                msg = f"Could not remove the previous {what}'s '{d}' ({why(e)})."
                raise AnalysisError(msg) from None


def _write_outputs(outp: Path, summary: pl.DataFrame, meta: dict, knobs, game: str) -> None:
    """summary.csv/.json, sweep.json (``meta``) and sweep.png, each whole or not at all
    (temporary file, renamed)."""
    from sim.files import atomic_output

    from .plots import sweep_plots

    with atomic_output(outp / "summary.csv") as tmp:
        summary.write_csv(tmp)
    with atomic_output(outp / "summary.json") as tmp:
        tmp.write_text(json.dumps(summary.to_dicts(), indent=1) + "\n")
    with atomic_output(outp / "sweep.json") as tmp:
        tmp.write_text(json.dumps(meta, indent=2) + "\n")
    with atomic_output(outp / "sweep.png") as tmp:
        sweep_plots(summary, knobs, game).savefig(tmp, dpi=110, format="png")


def run_sweep(
    preset: str | None = None,
    sets: dict | None = None,
    vary=(),
    seats: str | None = None,
    games: int = 2000,
    seed: int = 0,
    out=None,
    overwrite: bool = False,
    experiment: bool = True,
    threads: int | None = None,
    record_rounds: bool = False,
    progress: Callable[[int, int, str], None] | None = None,
    game: str | None = None,
) -> SweepResult:
    """Run the grid (see the module docstring). ``vary``: strings ``KNOB=V1,V2`` or parsed
    pairs; ``game``: the game of a preset that names none (None: the preset's, else the
    default game); ``seats``: None for the game's default seating; ``experiment``: also play
    the game's paired sweep experiment, if it has one. ``progress(i, n, cell)`` is called
    before each cell.
    Returns the summary (one row per cell: the knob values, ``rules_id``, then each metric of
    the game's summary with ``_low``/``_high``)."""
    from sim.policies import parse_seats
    from sim.runner import simulate

    sets = dict(sets or {})
    axes = parse_vary(vary) if vary and isinstance(next(iter(vary)), str) else list(vary)
    if not axes:
        raise AnalysisError("Give at least one --vary KNOB=V1,V2,...")
    cells = sweep_cells(preset, sets, axes, game)
    game = cells[0][1].game
    knobs = [k for k, _ in axes]
    labels = [s.label for s in parse_seats(seats, game=game)]
    for _, rules in cells:
        rules.check_players(len(labels))
    _check_numbers(games, seed, threads)
    outp = Path(out) if out is not None else None
    if outp is not None:  # before any game: a file, a full or read-only disk, a non-empty dir
        from sim.files import RunDirError, check_out_dir

        try:
            check_out_dir(outp, overwrite, need_bytes=256 * 1024 + 64 * games * len(labels))
        except RunDirError as e:
            raise AnalysisError(str(e)) from None
    exp = analysis_of(game).sweep_experiment
    seatings = exp.seatings(labels) if experiment and exp is not None else None
    if outp is not None and overwrite:
        clear_runs(outp, ("cells",) if exp is None else ("cells", exp.folder))
    rows = []
    played = []
    for i, (cell, rules) in enumerate(cells):
        name = cell_label(cell)
        if progress is not None:
            progress(i, len(cells), name)
        kept = "" if outp is None or not i else f"; the cells before it are kept in '{outp}'"
        with fault_context(f" of the cell {name} ({i + 1} of {len(cells)})", kept):
            res = simulate(
                rules,
                ",".join(labels),
                games=games,
                seed=seed,
                threads=threads,
                record_rounds=record_rounds,
                knob_columns=knobs,
            )
            if outp is not None:
                res.write(outp / "cells" / cell_path(cell), overwrite=overwrite)
            table = None
            if seatings is not None:
                table = _experiment_table(
                    exp, rules, labels, seatings, res, cell, games, seed, threads, outp,
                    overwrite,
                )  # fmt: skip
        row = {**cell, "rules_id": rules.id, "games": games, "n_players": len(labels)}
        row.update(cell_summary(res.games, res.seats, table, game))
        rows.append(row)
        played.append((name, res.games, res.seats))
    for row, diff in zip(rows, cell_differences(played, game), strict=True):
        row.update(diff)
    summary = pl.DataFrame(rows)
    if outp is not None:
        meta = {
            "game": game,
            "preset": preset,
            "sets": sets,
            "vary": [[k, v] for k, v in axes],
            "seats": labels,
            "games": games,
            "seed": seed,
        }
        if exp is not None:  # the seat the experiment switched (null: not played)
            meta[exp.meta_key] = exp.seat if seatings is not None else None
        meta["cells"] = [cell_path(c) for c, _ in cells]  # folders under cells/
        _write_outputs(outp, summary, meta, knobs, game)
    return SweepResult(summary, knobs, outp, game)


def _across_specs(game: str) -> list[tuple[str, str, str, str]]:
    """(prefix, estimate, low, high) of every sweep figure set across fields: each summary
    column's paired difference from the first cell, and the sweep experiment's columns per
    cell (a game with one)."""
    metrics = analysis_of(game)
    specs = [(f"{c}_", f"{c}_diff", f"{c}_diff_low", f"{c}_diff_high") for c, _ in
             metrics.sweep_columns]  # fmt: skip
    if metrics.sweep_experiment is not None:
        for c in metrics.sweep_experiment.names:
            specs.append((f"{c}_", c, f"{c}_low", f"{c}_high"))
    return specs


@dataclass
class FieldSweepResult:
    """:func:`run_field_sweep`: the stacked summary (a ``field`` column first, then each
    figure's verdict across skill, ``M_across``, ``M_change[_low|_high]``), the knobs, the
    fields and one :class:`SweepResult` per field."""

    summary: pl.DataFrame
    knobs: list[str]
    fields: list[str]
    sweeps: dict
    out: Path | None
    game: str = DEFAULT_GAME


def field_dir(field: str) -> str:
    """A field's sweep under ``OUT/``: ``field=smart``."""
    return path_safe(f"field={field}")


def run_field_sweep(
    preset: str | None = None,
    sets: dict | None = None,
    vary=(),
    fields=("greedy", "smart"),
    players: int | None = None,
    games: int = 2000,
    seed: int = 0,
    out=None,
    overwrite: bool = False,
    experiment: bool = True,
    threads: int | None = None,
    record_rounds: bool = False,
    progress: Callable[[int, int, str], None] | None = None,
    game: str | None = None,
) -> FieldSweepResult:
    """The same grid once per field of players (:mod:`analysis.field`), every field on the same
    seeds: ``OUT/field=NAME/`` is that field's whole sweep (``cells/``, ``summary.csv``,
    ``sweep.png``), ``OUT/summary.csv``/``.json`` stacks the fields' summaries with a ``field``
    column and each figure's verdict against the first field (``M_across``: holds, flips,
    indistinguishable from noise...; ``M_change`` with its interval), ``OUT/sweep.json`` lists
    the fields. ``players``: seats at the table (default: the game's usual table)."""
    from .field import add_across, default_players, field_seats, parse_fields

    axes = parse_vary(vary) if vary and isinstance(next(iter(vary)), str) else list(vary)
    cells = sweep_cells(preset, dict(sets or {}), axes, game)  # a bad grid fails before any game
    game = cells[0][1].game
    fields = parse_fields(fields, game)
    n = default_players(game) if players is None else players
    seats = {f: field_seats(f, n, game) for f in fields}
    _check_numbers(games, seed, threads)
    outp = Path(out) if out is not None else None
    if outp is not None:
        from sim.files import RunDirError, check_out_dir

        try:
            check_out_dir(outp, overwrite, need_bytes=256 * 1024 + 64 * games * n * len(fields))
        except RunDirError as e:
            raise AnalysisError(str(e)) from None
    sweeps = {}
    total = len(fields)
    for k, f in enumerate(fields):

        def prog(i, m, name, k=k, f=f):
            if progress is not None:
                progress(k * m + i, total * m, f"{f}: {name}")

        sweeps[f] = run_sweep(
            preset, sets, axes, seats[f], games, seed,
            None if outp is None else outp / field_dir(f), overwrite, experiment, threads,
            record_rounds, prog, game,
        )  # fmt: skip
    first = sweeps[fields[0]]
    summary = pl.concat(
        [
            s.summary.select(pl.lit(f).alias("field"), pl.lit(seats[f]).alias("seats"), pl.all())
            for f, s in sweeps.items()
        ],
        how="diagonal_relaxed",
    )
    for prefix, est, lo, hi in _across_specs(first.game):
        if est in summary.columns:
            summary = add_across(summary, first.knobs, est, lo, hi, fields, prefix)
    if outp is not None:
        from sim.files import atomic_output

        with atomic_output(outp / "summary.csv") as tmp:
            summary.write_csv(tmp)
        with atomic_output(outp / "summary.json") as tmp:
            tmp.write_text(json.dumps(summary.to_dicts(), indent=1) + "\n")
        meta = {"fields": fields, "seats": seats, "sweeps": [field_dir(f) for f in fields],
                "games": games, "seed": seed}  # fmt: skip
        with atomic_output(outp / "sweep.json") as tmp:
            tmp.write_text(json.dumps(meta, indent=2) + "\n")
    return FieldSweepResult(summary, first.knobs, fields, sweeps, outp, first.game)


def field_sweep_sentences(res: FieldSweepResult, columns=None) -> list[str]:
    """The verdict across skill of the printed figures (:func:`analysis.field.across_sentences`):
    each cell's difference from the first cell, and the sweep experiment's value per cell."""
    from .field import across_sentences

    metrics = analysis_of(res.game)
    exp = metrics.sweep_experiment
    units = {**metrics.sweep_units, **(exp.units if exp is not None else {})}
    shown = columns or [c for c in metrics.sweep_shown if not c.endswith(("_low", "_high"))]
    s = res.summary
    lines = []
    for prefix, est, lo, hi in _across_specs(res.game):
        col = prefix[:-1]
        if col not in shown or est not in s.columns:
            continue
        part = s.filter(pl.col(est).is_not_null())
        if part.height == 0:
            continue

        def name(r, col=col, est=est):
            cell = cell_label({k: r[k] for k in res.knobs})
            if est.endswith("_diff"):
                return f"{col}, {cell} - {r['baseline']}"
            return f"{col} ({exp.label}), {cell}"

        unit = units.get(col)
        lines += across_sentences(part, res.knobs, est, lo, hi, name, unit, prefix)
    return lines


def sweep_output(res, fmt: str, experiment: bool = True) -> list[str]:
    """What ``loba sweep`` prints of a finished sweep (:class:`SweepResult` or, with
    ``--field``, :class:`FieldSweepResult`): the cells' table in ``fmt``, and as a table the
    notes on the game's experiment (``experiment``: it was played) and on many tests."""
    from .bygame import analysis_of
    from .text import render

    metrics = analysis_of(res.game)
    shown = [c for c in res.summary.columns if c in metrics.shown(experiment)]
    if isinstance(res, FieldSweepResult):
        if fmt != "table":
            return [render(res.summary, fmt)]
        table = res.summary.select("field", *res.knobs, *shown)
        out = [render(table, fmt, metrics.sweep_units)]
        for f, sw in res.sweeps.items():
            notes = experiment_notes(sw.summary, sw.knobs, sw.game) if experiment else ()
            out += [f"{f}: {line}" for line in notes]
        first = next(iter(res.sweeps))
        out += ["", f"Across skill (each field against {first} players, same seeds):"]
        return out + field_sweep_sentences(res)
    out = [render(res.summary, fmt, metrics.sweep_units, columns=res.knobs + shown)]
    if fmt == "table":
        if experiment:  # without it there is no experiment value to explain
            out += experiment_notes(res.summary, res.knobs, res.game)
        out.append(FAMILY_NOTE)
    return out
