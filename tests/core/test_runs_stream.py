"""Streamed run directories: one Parquet part per chunk, a manifest listing finished chunks,
a summary computed from the disk, retries, and one sentence for every unusable directory."""

from __future__ import annotations

import json

import polars as pl
import pytest
from runs_util import assert_same_run, manifest, run_cli, tables

import sim
from sim.chunks import ChunkError
from sim.files import RunDirError
from sim.rundir import RunDir, from_ranges, part_name, to_ranges
from sim.runner import resume_run, stream_run

SEATS = "greedy,hold:patience=2,random+rebuy=never"


@pytest.fixture(scope="module")
def mem():
    """The same run held in memory (the reference for everything streamed)."""
    return sim.simulate("classic", SEATS, games=450, seed=21, record_rounds=True)


@pytest.fixture(scope="module")
def streamed(tmp_path_factory, mem):
    d = tmp_path_factory.mktemp("streamed") / "run"
    rep = stream_run(
        "classic", SEATS, games=450, seed=21, out_dir=d, record_rounds=True, chunk_size=100
    )
    return d, rep


def test_streamed_tables_equal_the_in_memory_run(streamed, mem):
    d, _ = streamed
    t = tables(d)
    assert t["games"].equals(mem.games)
    assert t["seats"].equals(mem.seats)
    assert t["rounds"].equals(mem.rounds)
    # pandas and a lazy polars scan read the same folder of parts
    assert pl.scan_parquet(d / "games.parquet").collect().equals(mem.games)
    import pandas as pd

    assert pd.read_parquet(d / "seats.parquet")["final_score"].tolist() == (
        mem.seats["final_score"].to_list()
    )


def test_streamed_run_has_one_part_per_chunk_and_a_complete_manifest(streamed):
    d, _ = streamed
    for t in ("games", "seats", "rounds"):
        names = sorted(p.name for p in (d / f"{t}.parquet").iterdir())
        assert names == [f"part-{k:05d}.parquet" for k in range(5)]
    part = pl.read_parquet(d / "games.parquet" / "part-00004.parquet")
    assert part["game"].to_list() == list(range(400, 450))
    m = manifest(d)
    assert m["complete"] is True and m["format"] == "loba-run/2"
    assert (m["games"], m["games_done"], m["chunk_size"], m["chunks"]) == (450, 450, 100, 5)
    assert m["chunks_done"] == [[0, 4]]
    assert m["rules_id"] == "loba:classic" and m["seats"] == SEATS.split(",")
    assert m["tables"] == ["games", "seats", "rounds"] and m["rounds_recorded"] is True
    assert m["sessions"][0]["backend"] == "local" and m["backend"] == "local"
    # no lock, no temporary files once complete
    assert sorted(p.name for p in d.iterdir()) == [
        "games.parquet",
        "manifest.json",
        "rounds.parquet",
        "seats.parquet",
    ]


def test_summary_from_disk_equals_in_memory_summary(streamed, mem):
    d, rep = streamed
    drop = ("elapsed_seconds", "games_per_second")
    want = {k: v for k, v in mem.summary_dict().items() if k not in drop}
    disk = {k: v for k, v in RunDir.read(d).summary().items() if k not in drop}
    got = {k: v for k, v in rep.summary.items() if k not in drop}
    assert disk == want and got == want


def test_run_without_out_keeps_only_totals_and_agrees(mem):
    rep = stream_run("classic", SEATS, games=450, seed=21, chunk_size=64)
    drop = ("elapsed_seconds", "games_per_second")
    assert {k: v for k, v in rep.summary.items() if k not in drop} == {
        k: v for k, v in mem.summary_dict().items() if k not in drop
    }
    assert rep.path is None and rep.games == 450


def test_results_write_is_one_part_per_table_and_reads_back(tmp_path, mem):
    d = mem.write(tmp_path / "w")
    assert sorted(p.name for p in (d / "games.parquet").iterdir()) == ["part-00000.parquet"]
    t = tables(d)
    assert t["games"].equals(mem.games) and t["rounds"].equals(mem.rounds)
    m = manifest(d)
    assert m["complete"] and m["chunks_done"] == [[0, 0]] and m["games_done"] == 450
    with pytest.raises(RunDirError, match="not empty"):
        mem.write(d)


def test_overwrite_replaces_every_part_of_the_previous_run(tmp_path, capsys):
    d = tmp_path / "o"
    code, _, _ = run_cli(
        capsys, "simulate", "--games", 300, "--chunk-size", 50, "--out", d, "--quiet"
    )
    assert code == 0 and len(list((d / "seats.parquet").iterdir())) == 6
    (d / "notes.txt").write_text("mine")
    code, _, _ = run_cli(
        capsys, "simulate", "--games", 120, "--out", d, "--overwrite", "--quiet", "--seed", 4
    )
    assert code == 0 and len(list((d / "seats.parquet").iterdir())) == 1
    assert pl.read_parquet(d / "games.parquet").height == 120
    assert (d / "notes.txt").read_text() == "mine"  # only the run's own files are replaced


def test_part_names_sort_in_chunk_order_at_any_size():
    assert part_name(42, 1221) == "part-00042.parquet"
    assert part_name(42, 200_000) == "part-000042.parquet"
    names = [part_name(k, 123_456) for k in (5, 99_999, 100_000, 123_455)]
    assert names == sorted(names)


def test_chunk_ranges_round_trip():
    done = {0, 1, 2, 5, 7, 8, 100}
    assert to_ranges(done) == [[0, 2], [5, 5], [7, 8], [100, 100]]
    assert from_ranges(to_ranges(done)) == done and to_ranges(set()) == []


def test_failed_chunk_is_retried_once(tmp_path, monkeypatch, streamed):
    monkeypatch.setenv("LOBA_FAIL_CHUNK", "2:once")
    d = tmp_path / "retry"
    stream_run("classic", SEATS, games=450, seed=21, out_dir=d, record_rounds=True, chunk_size=100)
    assert_same_run(d, streamed[0])


def test_chunk_failing_twice_stops_the_run_naming_it_and_resume_finishes(
    tmp_path, monkeypatch, capsys, streamed
):
    d = tmp_path / "fail"
    monkeypatch.setenv("LOBA_FAIL_CHUNK", "2")
    args = ["simulate", "--rules", "classic", "--seats", SEATS, "--games", 450, "--seed", 21]
    code, out, err = run_cli(capsys, *args, "--rounds", "--chunk-size", 100, "--out", d)
    assert code == 1 and out == ""
    assert err.strip().splitlines() == [
        "Error: Chunk 2 (games 200 to 299) failed twice (RuntimeError: injected failure"
        f" (LOBA_FAIL_CHUNK=2)); the run stopped; the 2 finished chunks are kept in '{d}' and"
        f" 'loba simulate --resume {d}' finishes the run."
    ]
    m = manifest(d)
    assert m["complete"] is False and m["chunks_done"] == [[0, 1]] and m["games_done"] == 200
    assert sorted(p.name for p in (d / "games.parquet").iterdir()) == [
        "part-00000.parquet",
        "part-00001.parquet",
    ]
    monkeypatch.delenv("LOBA_FAIL_CHUNK")
    code, out, _ = run_cli(capsys, "simulate", "--resume", d)
    assert code == 0 and "450 games in" in out and "played the 250 missing games" in out
    assert_same_run(d, streamed[0])
    assert [s["backend"] for s in manifest(d)["sessions"]] == ["local", "local"]


def test_python_api_raises_chunk_error(tmp_path, monkeypatch):
    monkeypatch.setenv("LOBA_FAIL_CHUNK", "0")
    with pytest.raises(ChunkError, match=r"^Chunk 0 \(games 0 to 9\) failed twice"):
        stream_run("pagat", "greedy,greedy", games=30, chunk_size=10, out_dir=tmp_path / "x")


def _half_run(tmp_path, name="half"):
    """A run directory stopped after 2 of its 5 chunks (chunk 2 kept failing)."""
    d = tmp_path / name
    import os

    os.environ["LOBA_FAIL_CHUNK"] = "2"
    try:
        with pytest.raises(ChunkError):
            stream_run(
                "classic",
                SEATS,
                games=450,
                seed=21,
                out_dir=d,
                record_rounds=True,
                chunk_size=100,
            )
    finally:
        del os.environ["LOBA_FAIL_CHUNK"]
    return d


def test_resume_replays_a_listed_part_that_was_damaged(tmp_path, streamed):
    d = _half_run(tmp_path)
    p = d / "seats.parquet" / "part-00001.parquet"
    p.write_bytes(p.read_bytes()[:100])  # truncated behind the run's back
    rep = resume_run(d)
    assert rep.games == 350 and rep.complete
    assert_same_run(d, streamed[0])


def test_a_run_directory_has_one_writer(tmp_path):
    d = _half_run(tmp_path)
    first = RunDir.resume(d)
    try:
        with pytest.raises(RunDirError, match="being written by another loba process"):
            RunDir.resume(d)
    finally:
        first.release()


def _corrupt(d):
    (d / "manifest.json").write_text('{"format": "loba-run/2", "rules_id": "pag')
    return "is corrupt: it is not valid JSON"


def _foreign(d):
    (d / "manifest.json").write_text(json.dumps({"experiment": "mine"}))
    return "was not written by 'loba simulate --out'"


def _malformed(d):
    m = manifest(d)
    m["chunk_size"] = "big"
    (d / "manifest.json").write_text(json.dumps(m))
    return "is corrupt: 'chunk_size' is missing or malformed"


def _no_manifest(d):
    (d / "manifest.json").unlink()
    return "is not a run directory: it has no manifest.json"


@pytest.mark.parametrize("spoil", [_corrupt, _foreign, _malformed, _no_manifest])
def test_resume_refuses_unusable_directories_in_one_sentence(tmp_path, capsys, spoil):
    d = _half_run(tmp_path)
    needle = spoil(d)
    code, out, err = run_cli(capsys, "simulate", "--resume", d)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1


def test_resume_refuses_missing_and_complete_runs(tmp_path, capsys, streamed):
    code, _, err = run_cli(capsys, "simulate", "--resume", tmp_path / "nope")
    assert code == 2 and "does not exist" in err and len(err.strip().splitlines()) == 1
    code, _, err = run_cli(capsys, "simulate", "--resume", streamed[0])
    assert code == 2 and "is already complete (450 games); nothing to resume" in err


def test_resume_refuses_a_different_rules_version(tmp_path, capsys):
    d = _half_run(tmp_path)
    m = manifest(d)
    m["rules_version"] += 1
    (d / "manifest.json").write_text(json.dumps(m))
    code, _, err = run_cli(capsys, "simulate", "--resume", d)
    assert code == 2 and "finish it with the version that started it" in err


@pytest.mark.parametrize(
    "extra, needle",
    [
        (["--seats", "greedy,greedy"], "leave out --seats"),
        (["--games", "10"], "leave out --games"),
    ],
)
def test_resume_takes_the_runs_settings_from_its_manifest(tmp_path, capsys, extra, needle):
    code, _, err = run_cli(capsys, "simulate", "--resume", tmp_path, *extra)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--scheduler", "tcp://127.0.0.1:8786"], "--scheduler is only used with --backend dask"),
        (["--workers", "2"], "--workers is only used with --backend dask"),
        (
            ["--backend", "dask", "--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"],
            "cannot be used with --scheduler",
        ),
        (["--backend", "dask", "--workers", "0"], "--workers must be"),
        (["--backend", "spark"], "Invalid value for '--backend'"),
        (["--chunk-size", "0"], "--chunk-size must be"),
    ],
)
def test_bad_run_options_one_sentence_exit_2(tmp_path, capsys, args, needle):
    d = tmp_path / "never"
    code, _, err = run_cli(capsys, "simulate", "--games", "10", "--out", d, *args)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1
    assert not d.exists()  # refused before anything is written


def test_progress_is_reported_after_every_chunk_up_to_the_total(tmp_path):
    seen = []
    stream_run(
        "pagat",
        "greedy,greedy",
        games=250,
        chunk_size=100,
        out_dir=tmp_path / "p",
        progress=lambda done, total: seen.append((done, total)),
    )
    assert seen == [(100, 250), (200, 250), (250, 250)]


def test_no_progress_lines_in_a_log_and_quiet_silences_everything(tmp_path, capsys):
    code, out, err = run_cli(capsys, "simulate", "--seats", "greedy,greedy", "--games", 50000)
    # the bar is drawn only on a terminal: a log (captured stderr) gets no stray line
    assert code == 0 and err == "" and "50000 games in" in out
    code, out, err = run_cli(
        capsys, "simulate", "--seats", "greedy,greedy", "--games", 50000, "--quiet"
    )
    assert code == 0 and out == "" and err == ""
