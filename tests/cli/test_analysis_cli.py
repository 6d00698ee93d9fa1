"""The analysis commands on runs made by 'loba simulate': happy paths and bad input (one
sentence on stderr, exit code 2, never a traceback)."""

from __future__ import annotations

import json
import re

import polars as pl
import pytest

import cli
from analysis.cli import console


def run(capsys, *args):
    try:
        code = cli.main([str(a) for a in args])
    except SystemExit as e:
        code = e.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("cli_runs")
    for name, extra in (("e101", []), ("e151", ["--set", "elimination_score=151"])):
        code = cli.main(
            ["simulate", "--games", "60", "--seed", "9", "--seats", "greedy,greedy,random",
             "--quiet", "--out", str(base / name), *extra]
        )  # fmt: skip
        assert code == 0
    return base


def test_summarize_table_csv_json(runs, capsys):
    code, out, err = run(capsys, "summarize", runs / "e101")
    assert code == 0 and "rounds per game" in out and "95% interval" in out
    code, out, _ = run(capsys, "summarize", runs / "e101", runs / "e151", "--format", "csv")
    assert code == 0
    assert out.splitlines()[0] == "variant,metric,value,ci_low,ci_high,n,unit,kind,method"
    code, out, _ = run(capsys, "summarize", runs / "e101", "--format", "json")
    rows = json.loads(out)
    r = next(x for x in rows if x["metric"] == "rounds per game")
    games = pl.read_parquet(runs / "e101" / "games.parquet")
    assert r["value"] == pytest.approx(games["rounds"].mean()) and r["n"] == 60


def test_compare_prints_sentences_and_verdicts(runs, capsys):
    code, out, err = run(capsys, "compare", runs / "e101", runs / "e151")
    assert code == 0, err
    assert "loba:pagat(elimination_score=151) vs loba:pagat: rounds per game is higher" in out
    assert "verdict" in out
    code, out, _ = run(capsys, "compare", runs / "e101", runs / "e151", "--format", "json")
    rows = json.loads(out)
    assert {r["baseline"] for r in rows} == {"loba:pagat"}


def test_compare_of_same_seed_runs_is_paired_and_narrower(runs, capsys):
    code, out, err = run(capsys, "compare", runs / "e101", runs / "e151", "--format", "json")
    assert code == 0, err
    rows = [r for r in json.loads(out) if r["diff"] is not None]
    assert rows and all(r["paired"] for r in rows)  # same --seed and --games: paired
    for metric in (
        "rounds per game",
        "turns per game",
        "round of the first elimination",
        "elimination risk per player-round",
    ):
        r = next(x for x in rows if x["metric"] == metric)
        assert r["unpaired_low"] < r["unpaired_high"]
        assert r["diff_high"] - r["diff_low"] <= r["unpaired_high"] - r["unpaired_low"], metric
        assert r["diff_low"] <= r["diff"] <= r["diff_high"]
    code, out, err = run(capsys, "compare", runs / "e101", runs / "e151")
    assert "same seeds, paired" in out
    assert "unpaired 95% interval" in out and "p (adjusted)" in out and "unit" in out
    assert re.search(r"rounds per game .* rounds .* \[\+[0-9.]+, \+[0-9.]+\] +paired", out)


def test_report_is_self_contained(runs, capsys, tmp_path):
    out_file = tmp_path / "r" / "report.html"
    code, out, err = run(capsys, "report", runs / "e101", runs / "e151", "-o", out_file)
    assert code == 0, err
    html = out_file.read_text()
    assert html.count('src="data:image/png;base64,') >= 5
    assert not re.search(r"(src|href)=\"(https?:)?//", html)
    assert "<script" not in html
    assert "Findings" in html and "elimination_score" in html and "95% CI" in html
    # tests corrected together, an interval defined correctly, differences paired
    assert "Holm" in html and 'id="tests"' in html
    assert "It is not a 95% chance that" in html
    assert "the range the true value lies in" not in html
    assert "same seeds, paired" in html


def test_rebuy_value_policy_and_state(capsys, tmp_path):
    code, out, err = run(
        capsys, "rebuy-value", "--mode", "policy", "--seats", "greedy,greedy,greedy",
        "--games", "300", "--seed", "1", "--plot", tmp_path / "p.png",
    )  # fmt: skip
    assert code == 0, err
    assert "paired 95% CI" in out and "narrower" in out and (tmp_path / "p.png").exists()
    code, out, err = run(
        capsys, "rebuy-value", "--mode", "state", "--seats", "greedy,greedy,greedy,greedy",
        "--games", "4", "--reps", "2", "--by", "players_left", "--format", "csv",
        "--out", tmp_path / "st", "--plot", tmp_path / "h.png",
    )  # fmt: skip
    assert code == 0, err
    assert out.splitlines()[0].startswith("players_left,cases,value,ci_low,ci_high")
    assert pl.read_parquet(tmp_path / "st" / "decisions.parquet").height > 0
    assert (tmp_path / "h.png").exists()


def test_sweep_writes_cells_summary_and_plot(capsys, tmp_path):
    out = tmp_path / "sw"
    code, text, err = run(
        capsys, "sweep", "--vary", "elimination_score=101,151", "--seats", "greedy,greedy,greedy",
        "--games", "40", "--seed", "3", "--out", out,
    )  # fmt: skip
    assert code == 0, err
    assert (out / "summary.csv").exists() and (out / "sweep.png").exists()
    s = pl.read_csv(out / "summary.csv")
    assert s["elimination_score"].to_list() == [101, 151]
    assert s["rules_id"].to_list() == ["loba:pagat", "loba:pagat(elimination_score=151)"]
    # same seeds in every cell: the first deal (first dealer) of every game is the same
    a = pl.read_parquet(out / "cells" / "elimination_score=101" / "games.parquet")
    b = pl.read_parquet(out / "cells" / "elimination_score=151" / "games.parquet")
    assert a["first_dealer"].to_list() == b["first_dealer"].to_list()
    assert (a["seed"] == 3).all() and (b["seed"] == 3).all()
    assert a["elimination_score"].to_list() == [101] * 40  # the knob is a column of its cell
    never = pl.read_parquet(out / "rebuy" / "never" / "elimination_score=101" / "seats.parquet")
    assert never.schema["elimination_score"] == pl.Int64 and never.height == 40 * 3
    assert s["rebuy_value_low"][0] <= s["rebuy_value"][0] <= s["rebuy_value_high"][0]
    # every cell against the first one, game by game, with the unpaired interval beside
    assert s["baseline"].to_list() == ["elimination_score=101"] * 2
    assert s["mean_rounds_diff"][0] is None and s["mean_rounds_paired"][1]
    lo, hi = s["mean_rounds_diff_low"][1], s["mean_rounds_diff_high"][1]
    ulo, uhi = s["mean_rounds_unpaired_low"][1], s["mean_rounds_unpaired_high"][1]
    assert lo <= s["mean_rounds_diff"][1] <= hi and hi - lo <= uhi - ulo


@pytest.mark.parametrize(
    "args, needle",
    [
        (["summarize", "{tmp}/missing"], "does not exist"),
        (["summarize", "{tmp}"], "has no manifest.json"),
        (["summarize", "{runs}/e101", "{runs}/e101"], "hold the same games"),
        (
            ["summarize", "{runs}/e101", "{runs}/e151", "--label", "x", "--label", "x"],
            "cannot be pooled",
        ),
        (["summarize", "{runs}/e101", "--label", "a", "--label", "b"], "one label per run"),
        (["summarize", "{runs}/e101", "--format", "xml"], "'xml' is not one of"),
        (["compare", "{runs}/e101"], "compare needs runs of at least two"),
        (["compare", "{runs}/e101", "{runs}/e151", "--baseline", "zzz"], "Baseline 'zzz'"),
        (["report", "{tmp}/missing", "-o", "{tmp}/r.html"], "does not exist"),
        (["report", "{runs}/e101", "-o", "{tmp}"], "is a directory"),
        (["sweep", "--vary", "foo=1,2", "--out", "{tmp}/s"], "Unknown rule 'foo'"),
        (["sweep", "--vary", "elimination_score", "--out", "{tmp}/s"], "is not a sweep axis"),
        (["sweep", "--vary", "escalera_min=3,2", "--out", "{tmp}/s"], "must be between 3 and 13"),
        (
            ["sweep", "--vary", "a=1", "--vary", "b=1", "--vary", "c=1", "--out", "{tmp}/s"],
            "at most 2 knobs",
        ),
        (
            ["sweep", "--vary", "max_rebuys=0,1", "--set", "max_rebuys=1", "--out", "{tmp}/s"],
            "both set",
        ),
        (["sweep", "--vary", "max_rebuys=0,1", "--out", "{runs}"], "is not empty"),
        (["rebuy-value", "--seats", "greedy"], "2 to 5 players"),
        (["rebuy-value", "--seat", "7"], "--seat must be from 0 to 3"),
        (["rebuy-value", "--mode", "state", "--reps", "0"], "--reps must be"),
        (["rebuy-value", "--mode", "state", "--by", "colour", "--games", "1"], "Cannot group"),
        (["rebuy-value", "--mode", "coin"], "'coin' is not one of"),
    ],
)
def test_bad_input_one_sentence_exit_2(runs, tmp_path, capsys, args, needle):
    args = [a.format(tmp=tmp_path, runs=runs) for a in args]
    code, out, err = run(capsys, *args)
    assert code == 2, err
    assert needle in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_corrupt_and_foreign_tables_exit_2(runs, tmp_path, capsys):
    import shutil

    for kind in ("foreign", "corrupt"):
        d = tmp_path / kind
        shutil.copytree(runs / "e101", d)
        target = d / "games.parquet"
        files = sorted(target.rglob("*.parquet")) if target.is_dir() else [target]
        for f in files:
            if kind == "foreign":
                f.unlink()
                pl.DataFrame({"a": [1]}).write_parquet(f)
            else:
                f.write_bytes(b"PAR1" + bytes(range(256)) * 3)
        code, out, err = run(capsys, "summarize", d)
        assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
        assert "games.parquet" in err


def test_incomplete_run_warns_on_stderr(runs, tmp_path, capsys):
    import shutil

    d = tmp_path / "part"
    shutil.copytree(runs / "e101", d)
    m = json.loads((d / "manifest.json").read_text())
    m.update(games=100, complete=False)
    (d / "manifest.json").write_text(json.dumps(m))
    code, out, err = run(capsys, "summarize", d)
    assert code == 0
    assert (
        err.strip() == f"Warning: Run '{d}' is incomplete: 60 of 100 games were written; "
        "the analysis uses those."
    )


def test_numba_notes_do_not_leak_through_the_warning_filter(capsys):
    import warnings

    from numba.core.errors import NumbaExperimentalFeatureWarning

    with console.WarnToStderr():
        note = "first-class function types are experimental"
        warnings.warn(note, NumbaExperimentalFeatureWarning, stacklevel=1)
        warnings.warn("Run 'x' is incomplete", UserWarning, stacklevel=1)
    err = capsys.readouterr().err
    assert "incomplete" in err and "experimental" not in err


@pytest.mark.parametrize(
    "args, reason",
    [
        (["--seats", "greedy,greedy"], "No rebuy can happen with 2 players"),
        (["--set", "max_rebuys=0", "--seats", "greedy,greedy,greedy"], "max_rebuys=0"),
    ],
)
def test_an_empty_rebuy_table_says_why(capsys, args, reason):
    code, out, err = run(
        capsys, "rebuy-value", "--mode", "state", "--games", "5", "--reps", "1", *args
    )
    assert code == 0, err
    lines = out.strip().splitlines()
    assert lines[0].startswith("0 rebuy decisions") and reason in lines[1]
    assert len(lines) == 2 and "players_left" not in out  # the sentence, not an empty table
    # policy mode: the same seeds with seat 0 always and never rebuying are the same games
    code, out, err = run(capsys, "rebuy-value", "--games", "200", "--seed", "4", *args)
    assert code == 0, err
    assert len(out.strip().splitlines()) == 1 and reason in out
    assert "paired 95% CI" not in out and "measure" not in out
    # machine-readable formats keep their table; the reason goes to stderr
    code, out, err = run(capsys, "rebuy-value", "--games", "200", "--format", "csv", *args)
    assert code == 0 and out.startswith("measure,") and reason in err
    assert len(err.strip().splitlines()) == 1


def test_options_of_the_other_rebuy_mode_warn_and_still_run(capsys):
    code, out, err = run(
        capsys, "rebuy-value", "--mode", "state", "--games", "2", "--reps", "1",
        "--seat", "1", "--threads", "1",
    )  # fmt: skip
    warn = [line for line in err.splitlines() if line.startswith("Warning:")]
    assert code == 0 and "rebuy decisions" in out
    assert warn == [
        "Warning: --seat has no effect in state mode: it is read in policy mode only.",
        "Warning: --threads has no effect in state mode: it is read in policy mode only.",
    ]
    code, out, err = run(
        capsys, "rebuy-value", "--games", "50", "--reps", "3", "--by", "round",
        "--min-cases", "5",
    )  # fmt: skip
    warn = [line for line in err.splitlines() if line.startswith("Warning:")]
    assert code == 0 and "net stakes" in out
    assert [w.split(" has ")[0] for w in warn] == [
        "Warning: --reps",
        "Warning: --by",
        "Warning: --min-cases",
    ]
    assert all(w.endswith("in policy mode: it is read in state mode only.") for w in warn)
