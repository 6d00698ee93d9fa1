"""What every game's metrics are built from: the long metrics table, tests and spreads, per-game
figure columns for pairing, bad answers, and the figures any game's run has from its table
declaration alone (:func:`game_metrics`). Each game's own metrics build on these (its analysis
package, registered in :mod:`analysis.bygame`).

Every function takes polars frames (lazy or eager: a :class:`~analysis.io.RunSet`'s tables, or
small literal frames in tests), groups by ``variant`` (a run without one counts as the single
variant ``"run"``) and returns a small tidy :class:`polars.DataFrame`. Intervals are 95% and
their method is named in each docstring (see :mod:`analysis.stats`).
"""

from __future__ import annotations

import math

import polars as pl

from .estimate import ESTIMATE_SCHEMA, Figure, estimates, game_share, per_game_columns
from .io import collect
from .stats import LEVEL, chisquare_equal, t_ci

KEY = ["variant", "run", "game"]

# metric names every game's table has (stable: compare() and the report match on them)
M_UNFINISHED = "unfinished games (share)"
M_SEAT_P = "all seats equal: chi-square p-value"


def _lazy(x) -> pl.LazyFrame:
    return x.lazy() if isinstance(x, pl.DataFrame) else x


def prep(x) -> pl.LazyFrame:
    lf = _lazy(x)
    names = lf.collect_schema().names()
    add = []
    if "variant" not in names:
        add.append(pl.lit("run").alias("variant"))
    if "run" not in names:
        add.append(pl.lit(0, dtype=pl.Int32).alias("run"))
    schema = lf.collect_schema()
    for c in ("policy", "rules_id", "status", "variant"):
        if c in schema and schema[c] != pl.String:
            add.append(pl.col(c).cast(pl.String))
    return lf.with_columns(add) if add else lf


def order_variants(df: pl.DataFrame, variants: list[str]) -> pl.DataFrame:
    """Sort rows by variant in first-seen order of ``variants`` (stable otherwise)."""
    rank = {v: i for i, v in enumerate(variants)}
    return (
        df.with_columns(pl.col("variant").replace_strict(rank, default=len(rank)).alias("_v"))
        .sort("_v", maintain_order=True)
        .drop("_v")
    )


def variants_of(lf: pl.LazyFrame) -> list[str]:
    return collect(lf.select(pl.col("variant").unique(maintain_order=True)))["variant"].to_list()


def add_game_share(df: pl.DataFrame, k: str, n: str, level: float = LEVEL) -> pl.DataFrame:
    """Add ``ci_low``/``ci_high`` for the share ``k / n`` of every row, where ``k`` counts
    *games* of ``n`` (a per-game 0/1 figure: a policy won, a position won;
    :func:`analysis.estimate.game_share`). Shares of sub-game units take theirs from
    :func:`analysis.estimate.estimates`."""
    lo, hi = [], []
    for kk, nn in zip(df[k].to_list(), df[n].to_list(), strict=True):
        a, b = game_share(int(kk or 0), int(nn or 0), level)
        lo.append(a)
        hi.append(b)
    return df.with_columns(
        pl.Series("ci_low", lo, dtype=pl.Float64), pl.Series("ci_high", hi, dtype=pl.Float64)
    )


def add_t(
    df: pl.DataFrame, mean: str, sd: str, n: str, prefix: str = "", level: float = LEVEL
) -> pl.DataFrame:
    """Add ``{prefix}ci_low``/``{prefix}ci_high`` (Student t) for the mean of every row."""
    lo, hi = [], []
    for m, s, k in zip(df[mean].to_list(), df[sd].to_list(), df[n].to_list(), strict=True):
        a, b = t_ci(m, s if s is not None else math.nan, int(k or 0), level)
        lo.append(a)
        hi.append(b)
    return df.with_columns(
        pl.Series(f"{prefix}ci_low", lo, dtype=pl.Float64),
        pl.Series(f"{prefix}ci_high", hi, dtype=pl.Float64),
    )


LONG_SCHEMA = {"variant": pl.String, **ESTIMATE_SCHEMA}


def test_row(v, metric: str, p, n) -> dict:
    """A row of the long metrics table that holds a test's p-value (no interval)."""
    return {"variant": v, "metric": metric, "unit": "p", "kind": "test", "value": p,
            "ci_low": None, "ci_high": None, "se": None, "n": n, "units": None, "k": None,
            "method": "test", "reference": None}  # fmt: skip


PAIRED_KEY = ["seed", "game"]


def with_bad_answers(games, seats, per_game_lf, figs):
    """``per_game_lf`` and ``figs`` with each seat's bad answers per game, where the seats
    table records them."""
    if "bad_answers" not in prep(seats).collect_schema().names():
        return per_game_lf, figs
    n = int(collect(prep(games).select(pl.col("n_players").max())).item() or 0)
    per, bad = bad_answer_figures(seats, n)
    joined = per_game_lf.join(
        per.select(*KEY, *per_game_columns(bad)), on=KEY, how="left", maintain_order="left"
    )
    return joined, [*figs, *bad]


def with_seed(g: pl.LazyFrame) -> pl.LazyFrame:
    """``g`` with a ``seed`` column (0 where the table has none: literal frames in tests)."""
    if "seed" in g.collect_schema().names():
        return g
    return g.with_columns(pl.lit(0, dtype=pl.Int64).alias("seed"))


def per_game_frame(df, cols: dict[str, tuple[pl.Expr, pl.Expr]]):
    """One row per game of ``df`` (``variant``, ``run``, ``seed``, ``game``) with the columns
    ``"<metric>|y"`` and ``"<metric>|x"`` (float) of every ``metric -> (y, x)`` in ``cols``."""
    exprs = []
    for m, (y, x) in cols.items():
        exprs += [y.cast(pl.Float64).alias(f"{m}|y"), x.cast(pl.Float64).alias(f"{m}|x")]
    return df.select("variant", "run", "seed", "game", *exprs)


M_BAD = "bad answers per game, seat {seat}"
M_SEAT_SPREAD = "seat spread: best - worst seat's win share"
SEAT_MARGIN = 0.01
"""The margin within which seats count as equal (1 percentage point): the default of the
equivalence verdict of :func:`spread_row`."""


def spread_row(v, metric: str, counts, labels, level: float = LEVEL,
               margin: float = SEAT_MARGIN) -> dict:  # fmt: skip
    """The spread between the best and the worst of the win shares ``counts / sum(counts)``
    (wins by seat or position of the finished games, each game one winner) as a row of the long
    metrics table, unit ``pts``.

    Interval: from simultaneous intervals of the shares (each at level ``1 - (1 - level) / k``,
    Bonferroni over the ``k`` shares; by game, :func:`analysis.estimate.game_share`): the
    spread lies between ``max(0, max lo - min hi)`` and ``max hi - min lo`` whenever every
    share lies in its interval, so it covers at least ``level`` — conservatively, never a
    point at 0. ``method`` says which one gains most and the equivalence verdict against
    ``margin``: ``within`` when the upper end is below it, ``beyond`` when the lower end is
    above it, else ``undecided``."""
    c = [int(x) for x in counts]
    n, k = sum(c), len(c)
    if n == 0 or k < 2:
        return {"variant": v, "metric": metric, "unit": "pts", "kind": "spread",
                "value": math.nan, "ci_low": None, "ci_high": None, "se": None, "n": n,
                "units": float(n), "k": None, "method": "no finished game",
                "reference": 0.0}  # fmt: skip
    shares = [x / n for x in c]
    each = 1 - (1 - level) / k
    ci = [game_share(x, n, each) for x in c]
    lo = max(0.0, max(a for a, _ in ci) - min(b for _, b in ci))
    hi = max(b for _, b in ci) - min(a for a, _ in ci)
    best = max(range(k), key=lambda q: shares[q])
    verdict = "within" if hi < margin else ("beyond" if lo > margin else "undecided")
    how = (f"{labels[best]} gains most; within {margin * 100:g} pts: {verdict} (simultaneous"
           " intervals by game)")  # fmt: skip
    return {"variant": v, "metric": metric, "unit": "pts", "kind": "spread",
            "value": max(shares) - min(shares), "ci_low": lo, "ci_high": hi, "se": None, "n": n,
            "units": float(n), "k": None, "method": how, "reference": 0.0}  # fmt: skip


def seat_spreads(games, level: float = LEVEL) -> list[dict]:
    """:func:`spread_row` of the win shares by seat, for every variant (finished games)."""
    g = prep(games).filter(pl.col("winner").is_not_null())
    w = collect(
        g.group_by("variant", pl.col("winner").cast(pl.Int64).alias("seat"), "n_players").agg(
            pl.len().alias("wins")
        )
    )
    rows = []
    for v in variants_of(prep(games)):
        part = w.filter(pl.col("variant") == v)
        n = int(part["n_players"].max() or 0)
        got = dict(zip(part["seat"].to_list(), part["wins"].to_list(), strict=True))
        counts = [got.get(q, 0) for q in range(n)]
        rows.append(spread_row(v, M_SEAT_SPREAD, counts, [f"seat {q}" for q in range(n)], level))
    return rows


def bad_answer_figures(seats, n_seats: int) -> tuple[pl.LazyFrame, list[Figure]]:
    """Each seat's bad answers (a policy's answer the engine refused and replaced, the
    ``bad_answers`` column) per game: the per-game frame (KEY and ``_bad|q``) and the figures.
    :func:`long_table` keeps only the seats that gave any."""
    s = prep(seats)
    per = s.group_by(KEY).agg(
        pl.col("bad_answers").filter(pl.col("seat") == q).sum().alias(f"_bad|{q}")
        for q in range(n_seats)
    )
    one = pl.lit(1.0)
    figs = [
        Figure(M_BAD.format(seat=q), "answers", pl.col(f"_bad|{q}").fill_null(0), one, "mean",
               True)
        for q in range(n_seats)
    ]  # fmt: skip
    return per, figs


def long_table(per_game_lf, figs, tests: list[dict], variants, level: float) -> pl.DataFrame:
    """The long metrics table of a game: every figure's estimate by variant
    (:func:`analysis.estimate.estimates`), then the tests' rows, metrics in figure order;
    bad-answer rows only where a seat gave any."""
    est = estimates(per_game_lf, figs, ("variant",), level)
    bad = pl.col("metric").str.starts_with("bad answers per game")
    est = est.filter(~bad | (pl.col("k") > 0))
    df = pl.concat([est, pl.DataFrame(tests, schema=LONG_SCHEMA)]) if tests else est
    order = {f.name: i for i, f in enumerate(figs)}
    df = df.with_columns(
        pl.col("metric")
        .replace_strict(order, default=len(order), return_dtype=pl.Int64)
        .alias("_m")
    ).sort("_m", maintain_order=True)
    return order_variants(df.drop("_m"), variants)


def game_metrics(games, seats, spec, level: float = LEVEL) -> pl.DataFrame:
    """The figures any game's run has, from its table declaration alone (for games whose own
    metrics the analysis does not know yet): the unfinished share, each seat's win share and
    the chi-square test of equal seats, and the mean of every count column (int16-int64: int8
    columns are seats, places and flags) of the games table per game and of the seats table
    per seat (by game, :mod:`analysis.estimate`). Same columns as :func:`key_metrics`."""
    g = with_seed(prep(games))
    counts = {
        t.name: [
            c.name
            for c in t.columns
            if c.from_kernel and c.dtype in ("int16", "int32", "int64") and c.null_below is None
        ]
        for t in spec.main_tables
    }
    n_seats = int(collect(g.select(pl.col("n_players").max())).item() or 0)
    per_seat = (
        prep(seats)
        .group_by(KEY)
        .agg(
            pl.len().alias("_seats"),
            *[pl.col(c).sum().alias(f"_s|{c}") for c in counts.get("seats", [])],
        )
    )
    frame = g.join(per_seat, on=KEY, how="left", maintain_order="left")
    one = pl.lit(1.0)
    fin = pl.col("winner").is_not_null()
    figs = [Figure(M_UNFINISHED, "share", ~fin, one, "share", True)]
    figs += seat_share_figures(n_seats)
    figs += [Figure(f"{c} per game", c, pl.col(c), one) for c in counts.get("games", [])]
    figs += [
        Figure(f"{c} per seat and game", c, pl.col(f"_s|{c}"), pl.col("_seats"))
        for c in counts.get("seats", [])
    ]
    lf = frame.select("variant", "run", "seed", "game", *per_game_columns(figs))
    done = collect(
        g.filter(fin).group_by("variant", pl.col("winner").cast(pl.Int64)).agg(pl.len().alias("w"))
    )
    tests = []
    for v in variants_of(g):
        d = done.filter(pl.col("variant") == v)
        wins = {int(q): int(w) for q, w in zip(d["winner"], d["w"], strict=True)}
        c = [wins.get(q, 0) for q in range(n_seats)]
        if sum(c) and n_seats > 1:
            tests.append(test_row(v, M_SEAT_P, chisquare_equal(c)[1], sum(c)))
    return long_table(lf, figs, tests, variants_of(g), level)


M_SEAT_SHARE = "win share, seat {seat}"


def seat_share_figures(n_seats: int) -> list[Figure]:
    """Each seat's share of the finished games' wins (``win share, seat Q``), against its
    fair share ``1 / n_seats``: a figure of every game (:func:`game_metrics`)."""
    fin = pl.col("winner").is_not_null()
    return [
        Figure(M_SEAT_SHARE.format(seat=q), "share", (pl.col("winner") == q).fill_null(False),
               fin, "share", True, 1 / n_seats)
        for q in range(n_seats)
    ]  # fmt: skip
