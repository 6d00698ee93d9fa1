"""Hive-style sweep cells: ``OUT/cells/KNOB=VALUE/KNOB=VALUE/`` run directories whose tables
carry the varied knobs as typed columns (sim.results.add_knob_columns), so the whole sweep pools
in one read; verify, resume and the analysis commands still take each cell; a cell with no
rebuy to value says why."""

from __future__ import annotations

import json
import shutil

import polars as pl
import pytest
from runs_util import manifest, part_files, run_cli

from analysis import AnalysisError, load_runs
from analysis.loba.sweep import rebuy_na_notes
from analysis.sweep import cell_dirs, cell_label, cell_path, run_sweep
from sim.files import RunDirError, digest
from sim.results import add_knob_columns
from sim.rundir import RunDir
from sim.runner import resume_run, simulate, stream_run
from sim.setup import make_rules

SEATS = "greedy,greedy,greedy"
GAMES = 150


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    """Two knobs, an int and a bool, with the rounds table; no rebuy runs (they are tested
    in test_analysis_cli)."""
    out = tmp_path_factory.mktemp("hive") / "sw"
    res = run_sweep(
        vary=["elimination_score=101,151", "rebuy_with_one_survivor=false,true"],
        seats=SEATS,
        games=GAMES,
        seed=7,
        out=out,
        experiment=False,
        record_rounds=True,
    )
    return out, res


def test_cells_are_nested_one_level_per_knob_in_vary_order(sweep):
    out, res = sweep
    cells = out / "cells"
    assert sorted(p.name for p in cells.iterdir()) == [
        "elimination_score=101",
        "elimination_score=151",
    ]
    for e in (101, 151):
        assert sorted(p.name for p in (cells / f"elimination_score={e}").iterdir()) == [
            "rebuy_with_one_survivor=false",  # spelled as the rules id does, not False
            "rebuy_with_one_survivor=true",
        ]
    leaf = cells / "elimination_score=151" / "rebuy_with_one_survivor=true"
    assert manifest(leaf)["rules_id"] == (
        "loba:pagat(elimination_score=151,rebuy_with_one_survivor=true)"
    )
    assert manifest(leaf)["knob_columns"] == ["elimination_score", "rebuy_with_one_survivor"]
    meta = json.loads((out / "sweep.json").read_text())
    assert meta["cells"][0] == "elimination_score=101/rebuy_with_one_survivor=false"
    assert len(meta["cells"]) == 4 and all(
        (cells / c / "manifest.json").exists() for c in meta["cells"]
    )
    assert not (out / "rebuy").exists()
    # the summary's names use the same spelling
    assert res.summary["baseline"][0] == "elimination_score=101,rebuy_with_one_survivor=false"


def test_the_whole_sweep_pools_in_one_read_with_typed_knob_columns(sweep):
    out, _ = sweep
    games = pl.scan_parquet(out / "cells/**/games.parquet/*.parquet", hive_partitioning=True)
    g = games.collect()
    assert g.height == 4 * GAMES
    assert g.schema["elimination_score"] == pl.Int64
    assert g.schema["rebuy_with_one_survivor"] == pl.Boolean
    per = g.group_by("elimination_score", "rebuy_with_one_survivor").len()
    assert per.height == 4 and (per["len"] == GAMES).all()
    # the columns are in the parts themselves: a plain read gives the same frame
    plain = pl.read_parquet(out / "cells/**/games.parquet/*.parquet")
    assert plain.equals(g)
    # each cell's rows hold its own rules
    mism = g.filter(
        pl.col("rules_id").cast(pl.String).str.contains("elimination_score=151")
        != (pl.col("elimination_score") == 151)
    )
    assert mism.height == 0
    seats = pl.read_parquet(out / "cells/**/seats.parquet/*.parquet")
    assert seats.height == 4 * GAMES * 3 and {
        "elimination_score",
        "rebuy_with_one_survivor",
    } <= set(seats.columns)
    rounds = pl.read_parquet(out / "cells/**/rounds.parquet/*.parquet")
    assert rounds.height > 4 * GAMES and rounds["rebuy_with_one_survivor"].n_unique() == 2


def test_every_cell_verifies_and_reads_as_a_run(sweep, capsys):
    out, _ = sweep
    leaf = out / "cells" / "elimination_score=101" / "rebuy_with_one_survivor=true"
    code, text, err = run_cli(capsys, "verify", leaf)
    assert code == 0 and text.startswith("ok:"), err
    code, text, err = run_cli(capsys, "summarize", leaf, "--format", "json")
    assert code == 0, err
    assert {r["metric"] for r in json.loads(text)} >= {"rounds per game"}
    # a cell pools beside a run without knob columns (e.g. one from before this layout)
    old = out.parent / "plain"
    simulate("pagat(rebuy_with_one_survivor=true)", SEATS, games=40, seed=99).write(old)
    rs = load_runs([leaf, old])
    g = rs.games.collect()
    assert g.height == GAMES + 40
    assert g.filter(pl.col("run") == 1)["elimination_score"].is_null().all()
    assert (g.filter(pl.col("run") == 0)["elimination_score"] == 101).all()


def test_cell_dirs_lists_the_cells_of_new_and_old_sweeps(sweep, tmp_path):
    out, _ = sweep
    dirs = cell_dirs(out)
    listed = json.loads((out / "sweep.json").read_text())["cells"]
    assert [d.relative_to(out / "cells").as_posix() for d in dirs] == listed
    # a sweep from before the Hive-style layout: flat folders named with Python's spelling
    old = tmp_path / "old"
    flat = [
        "elimination_score=101,rebuy_with_one_survivor=False",
        "elimination_score=151,rebuy_with_one_survivor=False",
    ]
    for d, name in zip((dirs[0], dirs[2]), flat, strict=True):
        shutil.copytree(d, old / "cells" / name)
    (old / "sweep.json").write_text(json.dumps({"cells": flat}))
    assert [d.name for d in cell_dirs(old)] == flat
    assert load_runs(cell_dirs(old)).variants == [
        "loba:pagat",
        "loba:pagat(elimination_score=151)",
    ]
    (old / "sweep.json").unlink()  # stopped before its summary: the folders with a manifest
    assert [d.name for d in cell_dirs(old)] == flat
    (old / "sweep.json").write_text("{")
    with pytest.raises(AnalysisError, match="is damaged: it lists no cells"):
        cell_dirs(old)


def test_a_damaged_cell_resumes_to_the_same_bytes_with_its_knob_columns(sweep, tmp_path, capsys):
    out, _ = sweep
    src = out / "cells" / "elimination_score=151" / "rebuy_with_one_survivor=false"
    cell = tmp_path / "cell"
    shutil.copytree(src, cell)
    (cell / "seats.parquet" / "part-00000.parquet").write_bytes(b"PAR1 not a part")
    code, _, err = run_cli(capsys, "simulate", "--resume", cell, "--quiet")
    assert code == 0 and "were played again" in err
    assert part_files(cell) == part_files(src)
    assert RunDir.read(cell).inspect(full=True) == []


def test_a_streamed_run_writes_and_resumes_knob_columns_in_every_part(tmp_path):
    d = tmp_path / "s"
    rules = "pagat(score_floor=0)"
    stream_run(
        rules, SEATS, games=120, seed=2, out_dir=d, chunk_size=50, knob_columns=["score_floor"]
    )
    assert manifest(d)["knob_columns"] == ["score_floor"]
    whole = part_files(d)
    assert len(whole["games"]) == 3
    (d / "games.parquet" / "part-00001.parquet").unlink()
    resume_run(d)
    assert part_files(d) == whole
    g = pl.read_parquet(d / "games.parquet")
    assert g.schema["score_floor"] == pl.Int64 and (g["score_floor"] == 0).all()


def test_verify_names_a_part_without_the_listed_knob_columns(sweep, tmp_path):
    out, _ = sweep
    cell = tmp_path / "cell"
    shutil.copytree(out / "cells" / "elimination_score=101" / "rebuy_with_one_survivor=false", cell)
    part = cell / "games.parquet" / "part-00000.parquet"
    pl.read_parquet(part).drop("rebuy_with_one_survivor").write_parquet(part)
    m = manifest(cell)  # listed with its new size and checksum: only the column is wrong
    data = part.read_bytes()
    m["parts"]["part-00000"]["files"]["games"].update(bytes=len(data), sha256=digest(data))
    (cell / "manifest.json").write_text(json.dumps(m))
    problems = RunDir.read(cell).inspect(full=True)
    assert [p.kind for p in problems] == ["foreign"]
    assert "lacks the knob column rebuy_with_one_survivor the manifest lists" in problems[0].text
    m["knob_columns"] = ["colour"]
    (cell / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(RunDirError, match="'knob_columns' is malformed"):
        RunDir.read(cell)


def test_an_optional_knob_is_spelled_none_and_read_as_null(tmp_path):
    out = tmp_path / "sw"
    (out / "cells" / "elimination_score=101,max_rebuys=0").mkdir(parents=True)  # a flat old cell
    (out / "cells" / "elimination_score=101,max_rebuys=0" / "manifest.json").write_text("{}")
    run_sweep(
        vary=["score_floor=none,0"], seats=SEATS, games=60, seed=1, out=out,
        overwrite=True, experiment=False,
    )  # fmt: skip
    # --overwrite replaced the previous sweep's cells: the pooled read holds this sweep only
    assert sorted(p.name for p in (out / "cells").iterdir()) == [
        "score_floor=0",
        "score_floor=none",
    ]
    g = pl.read_parquet(out / "cells/**/games.parquet/*.parquet")
    assert g.schema["score_floor"] == pl.Int64
    assert g.group_by("score_floor").len().sort("score_floor", nulls_last=True).rows() == [
        (0, 60),
        (None, 60),
    ]


def test_knob_columns_are_knobs_of_the_game_and_keep_a_tables_own_column():
    rules = make_rules(one_turn_bonus=5)
    with pytest.raises(ValueError, match="Knob column 'colour' is not a rule of"):
        simulate(rules, SEATS, games=2, knob_columns=["colour"])
    frames = {"rounds": pl.DataFrame({"one_turn_bonus": [0, 1]}), "games": pl.DataFrame({"a": [1]})}
    got = add_knob_columns(frames, rules, ["one_turn_bonus"])
    assert got["rounds"]["one_turn_bonus"].to_list() == [0, 1]  # the round's own, kept
    assert got["games"]["one_turn_bonus"].to_list() == [5]
    assert cell_path({"a": True, "b": None}) == "a=true/b=none"
    assert cell_label({"a": False, "b": 3}) == "a=false,b=3"


def test_rebuy_na_notes_name_the_cells_and_the_reason():
    s = pl.DataFrame(
        {
            "max_rebuys": [0, 1, 2],
            "rules_id": ["loba:pagat(max_rebuys=0)", "loba:pagat(max_rebuys=1)", "loba:pagat"],
            "n_players": [3, 3, 3],
            "rebuy_value": [None, None, 0.1],
        }
    )
    notes = rebuy_na_notes(s, ["max_rebuys"])
    assert len(notes) == 2
    assert notes[0].startswith("rebuy_value n/a in cell max_rebuys=0: No rebuy can happen")
    assert "max_rebuys=0 ([A30])" in notes[0]
    assert notes[1].startswith("rebuy_value n/a in cell max_rebuys=1: no game differs")
    assert rebuy_na_notes(s.filter(pl.col("rebuy_value").is_not_null()), ["max_rebuys"]) == []
    assert rebuy_na_notes(s.drop("rebuy_value"), ["max_rebuys"]) == []  # Moon: no rebuys


def test_a_two_player_sweep_says_no_rebuy_can_happen_in_any_cell(capsys, tmp_path):
    code, out, err = run_cli(
        capsys, "sweep", "--vary", "elimination_score=101,151", "--seats", "greedy,greedy",
        "--games", "100", "--out", tmp_path / "sw",
    )  # fmt: skip
    assert code == 0, err
    notes = [line for line in out.splitlines() if line.startswith("rebuy_value n/a")]
    assert notes == [
        "rebuy_value n/a in every cell: No rebuy can happen with 2 players: when one goes over,"
        " only one player is left under the limit, so rebuys are off and that player wins"
        " ([A31]); seat 3 players or more, or set rebuy_with_one_survivor=true."
    ]


def test_heatmap_colours_span_at_least_the_noise_and_mark_cells_like_the_first():
    """A panel without a reference (contracts made 98.58-98.63%, intervals ±0.5 pts) is not
    stretched over the noise: its colour scale is at least four half-widths wide; cells whose
    paired difference from the first cell covers 0 are marked "≈"."""
    from matplotlib.figure import Figure

    from analysis.bygame import Panel
    from analysis.plots import _sweep_heatmap

    rows = []
    for a in (1, 2):
        for b in (1, 2):
            v = 0.9858 + 0.0001 * (a + b)
            first = (a, b) == (1, 1)
            rows.append({"a": a, "b": b, "made": v, "made_low": v - 0.005, "made_high": v + 0.005,
                         "made_diff_low": None if first else -0.001,
                         "made_diff_high": None if first else 0.002})  # fmt: skip
    summary = pl.DataFrame(rows)
    fig = Figure()
    ax = fig.subplots()
    _sweep_heatmap(ax, fig, summary, "a", "b", [1, 2], [1, 2],
                   Panel("made", "contracts made", "%", 100.0))  # fmt: skip
    im = ax.images[0]
    assert im.norm.vmax - im.norm.vmin >= 4 * 0.5 - 1e-9  # pts: four half-widths of 0.5
    marks = [t.get_text() for t in ax.texts if "≈" in t.get_text()]
    assert len(marks) == 3  # every cell but the first
