"""Paired seat-0 comparison (docs/performance.md, "deep"): the same games (seed, count) with a
base policy in seat 0 and with each candidate there, the other seats a fixed field.

    python tests/tools/paired_seat.py "deep;deep:n=32" --base smart --field smart \\
        --games 800 --seed 100

Prints seat 0's win share, its paired difference from the base's (points, +- 95%), and seat 0's
mean penalty per round (a game's rounds averaged) less the mean of the others, paired likewise.
One thread, one process.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import polars as pl


def run(seat0: str, field: str, games: int, seed: int):
    import sim

    t = time.time()
    res = sim.simulate("pagat", ",".join([seat0] + [field] * 3), games, seed, threads=1,
                       record_rounds=True)  # fmt: skip
    dt = time.time() - t
    win = (pl.Series(res.games["winner"]).to_numpy() == 0).astype(float)
    r = res.rounds.filter(pl.col("void") == 0)
    p = r.pivot(values="penalty", index=["game", "round"], on="seat")
    rel = p.select("game", (pl.col("0") - (pl.col("1") + pl.col("2") + pl.col("3")) / 3).alias("r"))
    per = rel.group_by("game").agg(pl.col("r").mean())
    out = np.zeros(games)
    out[per["game"].to_numpy()] = per["r"].to_numpy()
    return win, out, dt


def half(d: np.ndarray) -> float:
    return 1.96 * d.std(ddof=1) / np.sqrt(len(d))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("candidates", help="seat strings separated by ';'")
    ap.add_argument("--base", default="smart")
    ap.add_argument("--field", default="smart")
    ap.add_argument("--games", type=int, default=800)
    ap.add_argument("--seed", type=int, default=100)
    a = ap.parse_args()
    wb, rb, tb = run(a.base, a.field, a.games, a.seed)
    print(f"{a.base}: win {wb.mean():.2%}, points/round {rb.mean():+.2f}, {a.games / tb:.1f} g/s")
    for x in a.candidates.split(";"):
        w, r, t = run(x, a.field, a.games, a.seed)
        dw, dr = (w - wb) * 100, r - rb
        print(
            f"{x}: win {w.mean():.2%}, paired {dw.mean():+.2f} +- {half(dw):.2f} points; "
            f"points/round {dr.mean():+.2f} +- {half(dr):.2f}; {a.games / t:.1f} g/s",
            flush=True,
        )


if __name__ == "__main__":
    main()
