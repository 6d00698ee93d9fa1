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
    assert df.columns == [
        "figure", "seat", "policy", "value", "ci_low", "ci_high", "unit", "metric", "method"
    ]  # fmt: skip
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


NOT_ESTIMATED = ("games", "elapsed_seconds", "games_per_second")


@pytest.mark.parametrize(
    "rules, seats, game, games",
    [("pagat", "greedy,greedy,random", "loba", 150), (None, "count,greedy,count", "moon", 300)],
)
def test_every_summary_figure_has_the_interval_summarize_gives(tmp_path, capsys, rules, seats,
                                                                game, games):  # fmt: skip
    """Every figure of ``summary()`` estimated from the games has a 95% interval around it,
    from the analysis' per-game figure definitions: the same value, interval and method as
    ``loba summarize --format json`` prints for the same games (a total over the run is the
    figure per game times the games). The rest say why they have none."""
    import json

    import cli

    res = sim.simulate(rules, seats, games=games, seed=7, game=game)
    df = res.summary()
    d = res.summary_dict()
    assert df.columns[-2:] == ["metric", "method"]
    for r in df.iter_rows(named=True):
        if r["figure"] in NOT_ESTIMATED:
            assert r["ci_low"] is None and r["ci_high"] is None
            assert r["method"].startswith("no interval: ") and r["metric"] is None
            continue
        assert r["ci_low"] is not None and r["ci_low"] <= r["value"] <= r["ci_high"], r
        assert r["ci_low"] < r["ci_high"] and r["metric"] and r["method"], r
    own = [k for k in d if k not in ("seats", *NOT_ESTIMATED)]  # unfinished, the game's own
    from analysis.bygame import run_summary

    est = run_summary(game, res.games, res.seats)  # the same figures as the summary's, per game
    for k in own:
        assert est[k]["value"] == pytest.approx(d[k], rel=1e-12, abs=1e-12), k
    assert [e["value"] for e in est["seats"]] == pytest.approx([s["share"] for s in d["seats"]])
    assert df["figure"].to_list() == [*NOT_ESTIMATED[:1], *own[:1], *NOT_ESTIMATED[1:], *own[1:],
                                      *["win share"] * len(d["seats"])]  # fmt: skip

    run = tmp_path / "run"
    res.write(run)
    capsys.readouterr()
    assert cli.main(["summarize", str(run), "--format", "json"]) == 0
    printed = {m["metric"]: m for m in json.loads(capsys.readouterr().out)}
    agreed = []
    for r in df.iter_rows(named=True):
        m = printed.get(r["metric"])
        if m is None:  # (a figure summarize does not print: its definition is beside theirs)
            continue
        times = games if r["figure"] in ("unfinished", "void_rounds", "moons_made") else 1
        assert r["method"] == m["method"], (r, m)
        assert r["value"] == pytest.approx(m["value"] * times), (r, m)
        assert (r["ci_low"], r["ci_high"]) == pytest.approx(
            (m["ci_low"] * times, m["ci_high"] * times)
        ), (r, m)
        agreed.append(r["figure"] if r["seat"] is None else f"seat {r['seat']}")
    assert agreed == {
        "loba": ["unfinished", "mean_rounds", "mean_turns", "rebuys_per_game",
                 "one_turn_bonus_rate", "mean_pot"],
        "moon": ["unfinished", "mean_hands", "seat 0", "seat 1", "seat 2"],
    }[game]  # fmt: skip
