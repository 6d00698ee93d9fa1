"""Additive totals of a run (sums and counts), combined chunk by chunk, and the summary made
from them: games, time, the game's headline figures and each seat's win share.

The game's :class:`sim.game.Summary` names the columns it sums and turns the totals into its
figures; the win shares and out-of-range answers are every game's.
"""

from __future__ import annotations

import polars as pl

from .game import GameSpec


def aggregate(spec: GameSpec, tables: dict | None, n_seats: int) -> dict:
    """Additive totals behind the summary (sums and counts), so chunks can be combined.

    ``tables``: name -> LazyFrame of the game's main tables (None: an empty run). One streaming
    pass per table over the few columns the game's :class:`sim.game.Summary` sums.
    """
    sums = spec.summary.sums
    if tables is None:
        return {
            "n": 0,
            "finished": 0,
            **dict.fromkeys(sums, 0),
            "wins": [0] * n_seats,
            "bad": [0] * n_seats,
        }
    i64 = pl.Int64
    out: dict = {}
    for name in {tab for tab, _ in sums.values()} | {"games"}:
        cols = [pl.col(c).cast(i64).sum().alias(k) for k, (tab, c) in sums.items() if tab == name]
        if name == "games":
            cols += [
                pl.len().cast(i64).alias("n"),
                pl.col("winner").is_not_null().sum().cast(i64).alias("finished"),
                *[(pl.col("winner") == q).sum().cast(i64).alias(f"w{q}") for q in range(n_seats)],
            ]
        row = tables[name].select(cols).collect(engine="streaming").row(0, named=True)
        out.update({k: int(v or 0) for k, v in row.items()})
    out["wins"] = [out.pop(f"w{q}") for q in range(n_seats)]
    out["bad"] = [0] * n_seats  # out-of-range answers per seat (engine's decision gate)
    seats = tables.get("seats")
    if seats is not None and "bad_answers" in seats.collect_schema().names():
        bad = (
            seats.group_by("seat")
            .agg(pl.col("bad_answers").cast(i64).sum())
            .collect(engine="streaming")
        )
        for q, k in zip(bad["seat"].to_list(), bad["bad_answers"].to_list(), strict=True):
            if 0 <= q < n_seats:
                out["bad"][q] = int(k or 0)
    return out


def add_aggregates(a: dict, b: dict) -> dict:
    """The totals of two sets of games together (two chunks of a run)."""
    out = {k: a[k] + b[k] for k in a if k not in ("wins", "bad")}
    for k in ("wins", "bad"):
        out[k] = [x + y for x, y in zip(a[k], b[k], strict=True)]
    return out


def summarize(spec: GameSpec, agg: dict, seat_labels, elapsed: float) -> dict:
    """The summary dict of a run from its :func:`aggregate` totals: games, unfinished, time,
    the game's own headline figures, and every seat's win share with a 95% Wilson interval."""
    from .stats import wilson

    n = agg["n"]
    finished = agg["finished"]
    seats = []
    for q, label in enumerate(seat_labels):
        k = agg["wins"][q]
        lo, hi = wilson(k, finished)
        seats.append(
            {
                "seat": q,
                "policy": label,
                "wins": k,
                "share": k / finished if finished else 0.0,
                "ci_low": lo,
                "ci_high": hi,
                "bad_answers": agg.get("bad", [0] * len(seat_labels))[q],
            }
        )
    return {
        "games": n,
        "unfinished": n - finished,
        "elapsed_seconds": elapsed,
        "games_per_second": n / elapsed if elapsed > 0 else float("inf"),
        **spec.summary.figures(agg, n),
        "seats": seats,
    }
