"""A run killed mid-way (Ctrl-C or SIGKILL) keeps every finished chunk valid on disk with a
consistent manifest, and ``loba simulate --resume DIR`` finishes it to exactly the tables of a
run that was never interrupted: same part files, byte for byte."""

from __future__ import annotations

import signal

import pyarrow.parquet as pq
import pytest
from runs_util import (
    assert_same_run,
    end_cli,
    manifest,
    run_cli,
    start_cli,
    wait_for_chunks,
)

from sim.rundir import RunDir
from sim.runner import stream_run

GAMES, CHUNK, SEED = 12_000, 200, 77
SEATS = "greedy,greedy,hold,random"


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    d = tmp_path_factory.mktemp("ref") / "run"
    stream_run("pagat", SEATS, games=GAMES, seed=SEED, out_dir=d, chunk_size=CHUNK)
    return d


def _check_interrupted(d):
    """Every file in a table folder is a whole part; the manifest lists only whole parts."""
    m = manifest(d)
    assert m["complete"] is False
    listed = RunDir.read(d).done
    assert listed and len(listed) < m["chunks"]
    assert m["games_done"] == len(listed) * CHUNK
    for t in ("games", "seats"):
        names = {p.name for p in (d / f"{t}.parquet").iterdir()}
        for k in listed:
            assert f"part-{k:05d}.parquet" in names
        for name in names:  # listed or not, nothing half-written is visible to readers
            assert name.startswith("part-") and name.endswith(".parquet")
            rows = pq.read_metadata(d / f"{t}.parquet" / name).num_rows
            assert rows == CHUNK * (1 if t == "games" else 4)
    return listed


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "kill"])
def test_interrupted_run_resumes_to_the_identical_result(tmp_path, capsys, reference, sig):
    d = tmp_path / "run"
    args = ["simulate", "--seats", SEATS, "--games", GAMES, "--seed", SEED]
    proc = start_cli(*args, "--chunk-size", CHUNK, "--out", d, "--quiet")
    try:
        wait_for_chunks(d, 3, proc)
    finally:  # the whole process group, as a terminal's Ctrl-C does
        _, err = end_cli(proc, 120, sig)
    if sig == signal.SIGINT:
        assert proc.returncode == 130
        assert err.strip().startswith("Interrupted: ") and err.strip().endswith(
            f"games are on disk in '{d}'; finish with: loba simulate --resume {d}"
        )
    else:
        assert proc.returncode == -signal.SIGKILL
    listed = _check_interrupted(d)
    code, out, err = run_cli(capsys, "simulate", "--resume", d, "--quiet")
    assert code == 0, err
    m = manifest(d)
    assert m["complete"] is True and m["chunks_done"] == [[0, GAMES // CHUNK - 1]]
    assert len(m["sessions"]) == 2
    assert_same_run(d, reference)
    assert len(listed) < GAMES // CHUNK


def test_interrupted_dask_run_resumes_locally_to_the_identical_result(tmp_path, capsys, reference):
    d = tmp_path / "run"
    args = ["simulate", "--seats", SEATS, "--games", GAMES, "--seed", SEED, "--quiet"]
    proc = start_cli(*args, "--chunk-size", CHUNK, "--out", d, "--backend", "dask", "--workers", 2)
    try:
        wait_for_chunks(d, 3, proc)
    finally:
        _, err = end_cli(proc, 120, signal.SIGINT)
    assert proc.returncode == 130 and "loba simulate --resume" in err
    _check_interrupted(d)
    code, _, err = run_cli(capsys, "simulate", "--resume", d, "--quiet")
    assert code == 0, err
    assert [s["backend"] for s in manifest(d)["sessions"]] == ["dask", "local"]
    assert_same_run(d, reference)
