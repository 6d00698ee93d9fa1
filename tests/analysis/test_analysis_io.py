"""Reading run directories: what is accepted, what is refused (one sentence each)."""

from __future__ import annotations

import json
import shutil

import polars as pl
import pytest

import sim
from analysis import AnalysisError, IncompleteRunWarning, load_run, load_runs, summarize


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("runs")
    sim.simulate("pagat", "greedy,greedy,greedy", games=40, seed=4, record_rounds=True).write(
        base / "a"
    )
    sim.simulate("pagat", "greedy,greedy,greedy", games=40, seed=4, start=40).write(base / "a2")
    sim.simulate("pagat(elimination_score=151)", "greedy,greedy,greedy", games=40, seed=4).write(
        base / "b"
    )
    sim.simulate("pagat", "greedy,random,greedy", games=40, seed=4).write(base / "c")
    return base


def _copy(runs, tmp_path, name="a"):
    dst = tmp_path / name
    shutil.copytree(runs / name, dst)
    return dst


def _edit_manifest(path, **changes):
    m = json.loads((path / "manifest.json").read_text())
    m.update(changes)
    (path / "manifest.json").write_text(json.dumps(m))


def test_load_run_is_lazy_and_checked(runs):
    r = load_run(runs / "a")
    assert isinstance(r.games, pl.LazyFrame) and r.rounds is not None
    assert r.n_games == 40 and r.rules_id == "loba:pagat"
    assert load_run(runs / "b").rounds is None


def test_runs_of_different_rules_are_kept_apart(runs):
    rs = load_runs([runs / "a", runs / "b"])
    assert rs.variants == ["loba:pagat", "loba:pagat(elimination_score=151)"]
    g = rs.games.group_by("variant").agg(pl.len()).collect()
    assert dict(g.iter_rows()) == {"loba:pagat": 40, "loba:pagat(elimination_score=151)": 40}
    assert rs.rounds is not None  # from the run that has them


def test_runs_of_the_same_rules_pool_when_their_games_differ(runs):
    rs = load_runs([runs / "a", runs / "a2"])
    assert rs.variants == ["loba:pagat"]
    assert rs.games.select(pl.len()).collect().item() == 80


def test_different_seatings_become_different_variants(runs):
    rs = load_runs([runs / "a", runs / "c"])
    assert rs.variants == [
        "loba:pagat | greedy,greedy,greedy",
        "loba:pagat | greedy,random,greedy",
    ]


@pytest.mark.parametrize(
    "make, needle",
    [
        (lambda runs, tmp: [tmp / "nope"], "does not exist"),
        (lambda runs, tmp: [tmp], "has no manifest.json"),
        (lambda runs, tmp: [runs / "a", runs / "a"], "hold the same games"),
        (lambda runs, tmp: [], "at least one run directory"),
    ],
)
def test_refusals(runs, tmp_path, make, needle):
    with pytest.raises(AnalysisError, match=needle):
        load_runs(make(runs, tmp_path))


def test_same_label_different_rules_is_refused(runs):
    with pytest.raises(AnalysisError, match="cannot be pooled as 'x': their rules differ"):
        load_runs([runs / "a", runs / "b"], labels=["x", "x"])


def test_different_engine_versions_are_not_pooled(runs, tmp_path):
    other = _copy(runs, tmp_path, "a2")
    _edit_manifest(other, rules_version=999)
    with pytest.raises(AnalysisError, match="engine rules version differ"):
        load_runs([runs / "a", other])


def test_foreign_parquet_is_refused(runs, tmp_path):
    d = _copy(runs, tmp_path)
    shutil.rmtree(d / "games.parquet", ignore_errors=True)
    (d / "games.parquet").unlink(missing_ok=True)
    pl.DataFrame({"x": [1, 2]}).write_parquet(d / "games.parquet")
    with pytest.raises(AnalysisError, match="is a file, not the folder of parts"):
        load_run(d)


def test_corrupt_parquet_is_refused(runs, tmp_path):
    d = _copy(runs, tmp_path)
    target = d / "seats.parquet"
    files = sorted(target.rglob("*.parquet")) if target.is_dir() else [target]
    for f in files:
        f.write_bytes(f.read_bytes()[:200])
    with pytest.raises(AnalysisError, match="is damaged: .*seats.parquet.* is damaged"):
        summarize([d])


def test_not_json_manifest(runs, tmp_path):
    d = _copy(runs, tmp_path)
    (d / "manifest.json").write_text("{not json")
    with pytest.raises(AnalysisError, match="is not valid JSON"):
        load_run(d)


def test_manifest_that_disagrees_with_the_table(runs, tmp_path):
    d = _copy(runs, tmp_path)
    _edit_manifest(d, rules_id="classic")  # the manifest's own knobs make pagat
    with pytest.raises(AnalysisError, match="rules id 'classic' is not the one its preset"):
        load_run(d)
    _edit_manifest(d, rules_id="loba:pagat", games=41)
    with pytest.raises(AnalysisError, match="is damaged"):
        load_run(d)


def test_incomplete_run_is_read_with_a_warning(runs, tmp_path):
    d = _copy(runs, tmp_path)
    _edit_manifest(d, games=100, complete=False)
    with pytest.warns(IncompleteRunWarning, match="40 of 100 games"):
        r = load_run(d)
    assert r.n_games == 40 and not r.complete


def _as_before_moon(d):
    """Make ``d`` look like a run directory written before games were values: no ``game``
    key in the manifest and rules ids without the ``loba:`` prefix, in the manifest and the
    games table."""
    m = json.loads((d / "manifest.json").read_text())
    del m["game"]
    m.pop("parts", None)  # nor did it list its parts with checksums
    m.pop("checksum", None)
    m["rules_id"] = m["rules_id"].removeprefix("loba:")
    (d / "manifest.json").write_text(json.dumps(m))
    for part in (d / "games.parquet").glob("*.parquet"):
        g = pl.read_parquet(part)
        old = g["rules_id"].cast(pl.String).str.strip_prefix("loba:").cast(pl.Categorical)
        g.with_columns(old.alias("rules_id")).write_parquet(part)


def test_a_run_directory_from_before_moon_reads_as_loba(runs, tmp_path):
    old = _copy(runs, tmp_path, "a2")
    _as_before_moon(old)
    r = load_run(old)
    assert r.rules_id == "loba:pagat" and r.n_games == 40
    rs = load_runs([runs / "a", old])  # the same rules, old and new spelling: pooled
    assert rs.variants == ["loba:pagat"]
    assert summarize([runs / "a", old]).height > 0
