"""A run in memory (:class:`Results`): kernel record arrays -> tidy polars frames, with its
summary; written out as a run directory (:mod:`sim.rundir`).

Which tables a game has and their columns come from the game's declaration (its
:class:`sim.game.GameSpec` ``tables``); column names are a contract: added, never renamed.
Rule knobs join the tables as columns here (:func:`add_knob_columns`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from .files import RunDirError, encode_tables, why
from .game import GameSpec
from .rules import RuleSet
from .rundir import RunDir, base_manifest
from .totals import aggregate, summarize


@dataclass
class Results:
    """One run: the game, rule set, seating and seed, and its tables as polars DataFrames
    (``res.games``, ``res.seats``, and the detail table ``spec.detail.name`` if recorded; Loba:
    ``res.rounds``)."""

    spec: GameSpec
    rules: RuleSet
    seat_labels: list[str]
    seed: int
    start: int
    n_games: int
    frames: dict  # table name -> DataFrame (the detail table only if recorded)
    elapsed: float
    threads: int
    extra: dict = field(default_factory=dict)
    knob_columns: tuple[str, ...] = ()  # rule knobs added as columns (add_knob_columns)

    @classmethod
    def from_arrays(
        cls, spec, rules, seats, seed, start, outs, elapsed, threads, detail=False, knob_columns=()
    ):
        """Frames from the kernel's record arrays (``outs`` in ``spec.tables`` order);
        ``seats``: Seats or their labels; ``detail``: the detail table was recorded;
        ``knob_columns``: rule knobs added to every table as columns (:func:`add_knob_columns`)."""
        labels = [s if isinstance(s, str) else s.label for s in seats]
        count = outs[0].shape[0]
        ctx = {
            "idx": np.arange(start, start + count, dtype=np.int64),
            "seed": seed,
            "rules_id": rules.id,
            "labels": labels,
        }
        games = spec.tables[0]
        frames = {}
        for t, rows in zip(spec.tables, outs, strict=True):
            if t.detail:
                if not detail:
                    continue
                n_detail = outs[0][:, games.kernel_index()[t.count_from]]
                frames[t.name] = t.frame(rows, ctx, n_detail)
            else:
                frames[t.name] = t.frame(rows, ctx)
        knobs = check_knob_columns(rules, knob_columns)
        frames = add_knob_columns(frames, rules, knobs)
        return cls(
            spec, rules, labels, seed, start, count, frames, elapsed, threads, knob_columns=knobs
        )

    def __getattr__(self, name: str):
        frames = self.__dict__.get("frames")
        if frames is not None:
            if name in frames:
                return frames[name]
            if name in self.__dict__["spec"].table:
                return None  # a detail table that was not recorded
        raise AttributeError(name)

    @property
    def detail_recorded(self) -> bool:
        d = self.spec.detail
        return d is not None and d.name in self.frames

    # ------------------------------------------------------------------ summary
    @property
    def games_per_second(self) -> float:
        return self.n_games / self.elapsed if self.elapsed > 0 else float("inf")

    def manifest(self) -> dict:
        return {
            **base_manifest(
                self.spec,
                self.rules,
                self.seat_labels,
                self.seed,
                self.start,
                self.n_games,
                self.detail_recorded,
                self.knob_columns,
            ),
            "elapsed_seconds": round(self.elapsed, 6),
            "threads": self.threads,
            **self.extra,
        }

    def parts(self) -> dict[str, bytes]:
        """The tables as Parquet file contents, keyed by table name."""
        return encode_tables(self.frames)

    def write(self, out_dir, overwrite: bool = False) -> Path:
        """Write a run directory (refuses a non-empty one unless ``overwrite``).

        The layout is the streamed one (one part, ``part-00000``, per table), so a directory
        written here reads exactly like one written chunk by chunk by ``loba simulate --out``.
        """
        man = self.manifest()
        man.update(chunk_size=self.n_games, chunks=1)
        parts = self.parts()
        run = RunDir.create(out_dir, man, overwrite, need_bytes=sum(map(len, parts.values())))
        try:
            run.add_part(0, parts, elapsed=self.elapsed)
            run.finish()
        except OSError as e:  # a full or read-only disk: no half-written run is left
            run.discard()
            raise RunDirError(
                f"Could not write the run directory '{run.path}' ({why(e)})."
            ) from None
        finally:
            run.release()
        return run.path

    def aggregates(self) -> dict:
        lazy = {k: v.lazy() for k, v in self.frames.items()}
        return aggregate(self.spec, lazy, len(self.seat_labels))

    def summary_dict(self) -> dict:
        """Headline figures of the run as a nested dict (win shares with 95% Wilson
        intervals under ``"seats"``), as ``loba simulate --json`` prints them."""
        return summarize(self.spec, self.aggregates(), self.seat_labels, self.elapsed)

    def summary(self) -> pl.DataFrame:
        """Headline figures of the run as a tidy polars DataFrame, one row per figure:
        ``figure, seat, policy, value, ci_low, ci_high, unit, metric, method``; the nested dict
        is :meth:`summary_dict`.

        Every figure estimated from the games has its 95% interval from the analysis' one
        variance model and the game's per-game figure definitions (the game is the unit:
        :func:`analysis.bygame.run_summary`, reached through the game's registered analysis,
        :meth:`GameSpec.run_intervals`; the same figures and intervals as ``loba summarize``).
        ``metric`` names the figure it comes from (a total over the run, such as Loba's void
        rounds, is that figure per game times the games) and ``method`` how the interval was
        formed, or why there is none: the games played and the timings are facts of this run,
        not estimates; a figure on which every game agrees has no interval (``no interval:
        every game agrees``)."""
        from .display import summary_frame

        intervals = self.spec.run_intervals(self.frames["games"], self.frames["seats"])
        return summary_frame(self.summary_dict(), self.spec.summary.units, intervals)

    def _repr_html_(self) -> str:
        from .display import results_html

        return results_html(self)

    def __repr__(self) -> str:
        """One line: what was played and which tables hold it (the tables themselves are
        ``res.games`` ...; the figures ``res.summary()``)."""
        tables = ", ".join(f"{k} ({v.height:,} rows)" for k, v in self.frames.items())
        return (
            f"<Results {self.rules.id}: {self.n_games:,} games, seats {','.join(self.seat_labels)},"
            f" seed {self.seed}; tables {tables}>"
        )


# ---------------------------------------------------------------------------- knob columns
def knob_dtype(knob) -> pl.DataType:
    """The column type of a rule knob: Boolean (true/false), String (a choice), else Int64
    (whole numbers; an optional knob's ``none`` is null)."""
    return {"bool": pl.Boolean(), "choice": pl.String()}.get(knob.kind, pl.Int64())


def check_knob_columns(rules: RuleSet, names) -> tuple[str, ...]:
    """``names`` as a tuple of distinct knobs of ``rules``' game, or ValueError (one sentence)."""
    out = tuple(str(n) for n in names or ())
    for n in out:
        if n not in rules.spec.knob:
            raise ValueError(
                f"Knob column '{n}' is not a rule of {rules.spec.title or rules.game}: run"
                f" 'loba rules --game {rules.game}' to list them."
            )
    if len(set(out)) != len(out):
        raise ValueError(f"A knob column is named twice in {', '.join(out)}.")
    return out


def add_knob_columns(frames: dict, rules: RuleSet, names) -> dict:
    """The hook that puts rule knobs into a run's tables: each knob in ``names`` becomes a
    constant column (typed by :func:`knob_dtype`) holding the run's value, after the table's
    own columns, in every table, so that the runs of a sweep pool in one read with their
    knobs beside the figures. A table that already has a column of that name keeps its own
    (Loba: its rounds table has ``one_turn_bonus``, the round's bonus).

    The one place knob columns are made: :meth:`Results.from_arrays` calls it for every table
    it builds, so a whole run (:meth:`Results.write`), every streamed chunk and every part
    played again on resume (the manifest's ``knob_columns``) hold the same columns."""
    if not names:
        return frames
    out = {}
    for name, df in frames.items():
        add = [
            pl.lit(getattr(rules, k), dtype=knob_dtype(rules.spec.knob[k])).alias(k)
            for k in names
            if k not in df.columns
        ]
        out[name] = df.with_columns(add) if add else df
    return out
