"""End-to-end: a small batch runs and its tables are coherent."""

from __future__ import annotations

import polars as pl

import sim


def test_simulate_small_batch_tables_are_coherent():
    res = sim.simulate("pagat", "greedy,greedy,greedy,greedy", games=200, seed=7)
    g, s = res.games, res.seats
    assert g.height == 200 and s.height == 800
    assert g["winner"].null_count() == 0
    # [A33] the winner takes the whole pot; [A4] every stake and rebuy is paid into it
    pot = s.group_by("game").agg(
        pl.col("paid").sum().alias("paid"), pl.col("won").sum().alias("won")
    )
    j = g.join(pot, on="game")
    assert (j["pot"] == j["paid"]).all() and (j["pot"] == j["won"]).all()
    assert (s.group_by("game").agg(pl.col("net").sum())["net"] == 0).all()
    assert (
        s.filter(pl.col("place") == 1)
        .join(g, on="game")
        .select(pl.col("seat") == pl.col("winner"))
        .to_series()
        .all()
    )
