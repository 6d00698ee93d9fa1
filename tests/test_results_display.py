"""Results in a notebook: summary() is a tidy polars DataFrame, summary_dict() the nested dict,
and _repr_html_ shows what was played with the summary table."""

from __future__ import annotations

import polars as pl
import pytest

import sim


@pytest.fixture(scope="module")
def res():
    return sim.simulate("pagat", "greedy,greedy,random", games=120, seed=5)


def test_summary_is_a_tidy_dataframe_agreeing_with_the_dict(res):
    df = res.summary()
    d = res.summary_dict()
    assert isinstance(df, pl.DataFrame)
    assert df.columns == ["figure", "seat", "policy", "value", "ci_low", "ci_high", "unit"]
    row = df.filter(pl.col("figure") == "mean_rounds").row(0, named=True)
    assert row["value"] == pytest.approx(d["mean_rounds"]) and row["unit"] == "rounds"
    wins = df.filter(pl.col("figure") == "win share").sort("seat")
    assert wins["seat"].to_list() == [0, 1, 2]
    assert wins["policy"].to_list() == ["greedy", "greedy", "random"]
    assert wins["value"].to_list() == pytest.approx([s["share"] for s in d["seats"]])
    assert (wins["ci_low"] <= wins["value"]).all() and (wins["value"] <= wins["ci_high"]).all()
    assert df.filter(pl.col("figure") == "games")["value"][0] == 120


def test_results_html_repr(res):
    h = res._repr_html_()
    assert "loba:pagat" in h and "120 games" in h and "<table>" in h
    assert "win share, seat 2 (random)" in h and "%" in h


def test_run_and_run_set_html_repr(tmp_path):
    """A notebook shows loaded run directories as a table of what each run is."""
    from analysis import load_run, load_runs

    a, b = tmp_path / "a", tmp_path / "b"
    sim.simulate("pagat", "greedy,greedy,random", games=40, seed=5).write(a)
    sim.simulate("pagat(elimination_score=151)", "greedy,greedy,random", games=30, seed=5).write(b)
    h = load_runs([a, b])._repr_html_()
    assert h.startswith("<p>2 runs</p><table>") and h.count("<tr>") == 3
    assert "loba:pagat(elimination_score=151)" in h and "greedy, greedy, random" in h
    assert "40" in h and "30" in h
    one = load_run(a)._repr_html_()
    assert "1 run</p>" in one and str(a) in one


def test_results_repr_is_one_line():
    import sim

    r = sim.simulate("pagat", None, games=12, seed=2)
    text = repr(r)
    assert "\n" not in text and len(text) < 300
    assert "loba:pagat" in text and "12 games" in text and "seats (48 rows)" in text
