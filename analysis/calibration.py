"""Are the intervals as wide as the run-to-run spread? The calibration check shipped with the tool.

:func:`calibrate` plays ``runs`` small runs of the same rules and seats on distinct seeds and
measures, for every figure ``loba summarize`` gives an interval (the game's key metrics,
:mod:`analysis.bygame`):

- ``spread``: the standard deviation of the point estimates across the runs — what the
  uncertainty of one run really is;
- ``stated_se``: the mean over the runs of the standard error each run's interval states
  (its width over ``2 · 1.96``; for an exact interval of few events, its equivalent);
- ``ratio = spread / stated_se``: about 1 when the intervals are honest, below 1 when they are
  too wide (a test that can never fire), above 1 when too narrow (false findings);
- ``coverage``: the share of the runs whose interval holds the pooled estimate of all the runs
  (about 95%, a little less for the pooled value's own noise);
- ``exact_runs``: the runs whose interval was the exact one of few events (its ratio is not
  expected to be 1: an exact interval is conservative, and a figure no run saw has no spread).

Then the A/A test: every pair of runs is compared as ``loba compare`` compares two runs of
different seeds (:func:`analysis.comparison.correct`: unpaired differences, Holm's correction
over the table's metrics), although both played the same rules: ``aa_raw`` is the share of
single comparisons with p < 0.05 (about 5% when honest), ``aa_familywise`` the share of pairs in
which *any* verdict said "higher" or "lower" after the correction (at most 5%).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import polars as pl

from .bygame import analysis_of
from .comparison import correct, variant_sums
from .estimate import EXACT, diff_unpaired
from .stats import LEVEL

Z = 1.959963984540054
MAX_RUNS = 1000
BAND = (0.7, 1.4)
"""The band the ratio of a figure with enough events must fall in (the issue's target, for
60 runs of 4,000 games; the CI check uses a wider one for its small runs)."""


@dataclass(frozen=True)
class Calibration:
    """What :func:`calibrate` measured: ``table`` (one row per figure) and the A/A rates."""

    game: str
    rules_id: str
    seats: str
    runs: int
    games: int
    table: pl.DataFrame
    aa_pairs: int
    aa_comparisons: int
    aa_raw: float
    aa_familywise: float

    def outside(self, band=BAND) -> pl.DataFrame:
        """The figures with enough events in every run whose ratio is outside ``band``."""
        return self.table.filter(
            (pl.col("exact_runs") == 0)
            & ((pl.col("ratio") < band[0]) | (pl.col("ratio") > band[1]))
        )

    def to_dict(self) -> dict:
        """JSON-ready: NaN (no spread, no interval) written as null."""

        def clean(x):
            return None if isinstance(x, float) and not math.isfinite(x) else x

        return {
            "game": self.game, "rules_id": self.rules_id, "seats": self.seats,
            "runs": self.runs, "games": self.games, "band": list(BAND),
            "aa_pairs": self.aa_pairs, "aa_comparisons": self.aa_comparisons,
            "aa_raw": clean(self.aa_raw), "aa_familywise": clean(self.aa_familywise),
            "figures": [{k: clean(v) for k, v in r.items()} for r in self.table.to_dicts()],
        }  # fmt: skip


def calibrate(
    game: str | None = None,
    runs: int = 60,
    games: int = 4000,
    rules=None,
    seats=None,
    seed: int = 0,
    threads: int | None = None,
    progress=None,
    level: float = LEVEL,
) -> Calibration:
    """Play ``runs`` runs of ``games`` games (seeds ``seed``, ``seed + 1``, ...; rules and seats
    as ``sim.simulate`` takes them, the game's defaults when None; ``game`` None: the default
    game; each with its detail table,
    so the figures that need it are checked too) and measure how honest each interval is."""
    import sim

    if isinstance(runs, bool) or not isinstance(runs, int) or not 3 <= runs <= MAX_RUNS:
        raise ValueError(
            f"--runs must be a whole number from 3 to {MAX_RUNS:,}, not {runs}."
        )
    if isinstance(games, bool) or not isinstance(games, int) or games < 10:
        raise ValueError(f"--games must be a whole number of at least 10, not {games}.")
    spec = sim.get_game(game)
    metrics = analysis_of(spec.name)
    tables, sums, rules_id, seat_text = [], [], "", ""
    for k in range(runs):
        res = sim.simulate(rules, seats, games=games, seed=seed + k, threads=threads,
                           record_rounds=True, game=spec.name)  # fmt: skip
        rules_id, seat_text = res.rules.id, ",".join(res.seat_labels)
        detail = res.frames.get(spec.detail.name) if spec.detail is not None else None
        km = metrics.key_metrics(res.games, res.seats, detail, level)
        km = km.filter(pl.col("kind").is_in(["mean", "share"])).with_columns(
            pl.lit(k).alias("run")
        )
        tables.append(km)
        pg = metrics.per_game(res.games, res.seats, detail)
        sums.append(variant_sums(pg, km["metric"].to_list())["run"])
        if progress is not None:
            progress(k + 1, runs)
    df = pl.concat(tables, how="vertical_relaxed")
    table = _table(df, sums)
    raw, fw, comparisons, pairs = _aa(df, sums, level)
    return Calibration(spec.name, rules_id, seat_text, runs, games, table, pairs, comparisons,
                       raw, fw)  # fmt: skip


def _table(df: pl.DataFrame, sums: list[dict]) -> pl.DataFrame:
    rows = []
    for (metric,), part in df.group_by("metric", maintain_order=True):
        sy = sum(s[metric]["sy"] for s in sums if metric in s)
        sx = sum(s[metric]["sx"] for s in sums if metric in s)
        pooled = sy / sx if sx else math.nan
        v = part["value"].to_numpy()
        lo = part["ci_low"].fill_null(np.nan).to_numpy()
        hi = part["ci_high"].fill_null(np.nan).to_numpy()
        width = hi - lo
        stated = float(np.nanmean(width)) / (2 * Z) if np.isfinite(width).any() else math.nan
        spread = float(np.std(v, ddof=1)) if v.size > 1 else math.nan
        has = np.isfinite(lo) & np.isfinite(hi)
        cover = float(np.mean((lo[has] <= pooled) & (pooled <= hi[has]))) if has.any() else math.nan
        rows.append({
            "metric": metric, "unit": part["unit"][0], "runs": part.height,
            "mean": float(np.mean(v)), "spread": spread, "stated_se": stated,
            "ratio": spread / stated if stated and stated > 0 else math.nan,
            "coverage": cover, "exact_runs": int((part["method"] == EXACT).sum()),
            "no_interval_runs": int((~has).sum()), "zero_width_runs": int((width == 0).sum()),
        })  # fmt: skip
    return pl.DataFrame(rows)


def _aa(df: pl.DataFrame, sums: list[dict], level: float) -> tuple[float, float, int, int]:
    """A/A: every pair of runs compared as two independent runs, Holm over each table."""
    kinds = {
        r["metric"]: (r["kind"], r["k"] is not None)
        for r in df.unique("metric", keep="first", maintain_order=True).iter_rows(named=True)
    }
    raw_hits = comparisons = fired = pairs = 0
    for a, b in itertools.combinations(range(len(sums)), 2):
        rows = []
        for m, (kind, counts) in kinds.items():
            if m not in sums[a] or m not in sums[b]:
                continue
            d = diff_unpaired(sums[a][m], sums[b][m], kind, counts, level)
            rows.append({"diff": d["diff"], "p_value": d["p_value"], "note": d["note"]})
        ps = [r["p_value"] for r in rows if r["p_value"] is not None]
        comparisons += len(ps)
        raw_hits += sum(p < 1 - level for p in ps)
        rows = correct(rows)
        pairs += 1
        fired += any(r["verdict"] in ("higher", "lower") for r in rows)
    return (raw_hits / comparisons if comparisons else math.nan,
            fired / pairs if pairs else math.nan, comparisons, pairs)  # fmt: skip


def calibration_text(cal: Calibration, band=BAND) -> str:
    """The readable report of a calibration."""
    from sim import fmt

    head = (
        f"Calibration of {cal.rules_id} ({cal.seats}): {cal.runs} runs of {cal.games:,} games"
        f" on distinct seeds. ratio = spread of the estimates across runs / the standard error"
        f" the intervals state (honest: about 1; checked in {band[0]}..{band[1]} where every"
        " run had enough events)."
    )
    lines = [head, ""]
    w = max(len(m) for m in cal.table["metric"]) if cal.table.height else 10
    lines.append(f"{'figure':<{w}}  {'mean':>10}  {'spread':>10}  {'stated SE':>10}  "
                 f"{'ratio':>6}  {'coverage':>8}  note")  # fmt: skip
    for r in cal.table.iter_rows(named=True):
        if r["exact_runs"]:
            note = f"few events in {r['exact_runs']} runs: exact interval"
            if r["spread"] == 0:
                note += ", no run varied"
        elif r["no_interval_runs"] == r["runs"]:
            note = "fixed by construction"
        else:
            ok = band[0] <= r["ratio"] <= band[1]
            note = "ok" if ok else ("too wide" if r["ratio"] < band[0] else "too narrow")
        lines.append(
            f"{r['metric']:<{w}}  {fmt.number(r['mean']):>10}  {fmt.number(r['spread']):>10}  "
            f"{fmt.number(r['stated_se']):>10}  {fmt.number(r['ratio'], 3):>6}  "
            f"{fmt.share(r['coverage']) if not fmt.is_na(r['coverage']) else fmt.NA:>8}  {note}"
        )
    lines += [
        "",
        f"A/A ({cal.aa_pairs:,} pairs of runs compared as independent runs, "
        f"{cal.aa_comparisons:,} differences): p < 0.05 in {fmt.share(cal.aa_raw)} of single "
        f"differences (honest: about 5%); a 'higher' or 'lower' verdict after Holm's "
        f"correction in {fmt.share(cal.aa_familywise)} of the pairs (at most 5%).",
    ]
    return "\n".join(lines)
