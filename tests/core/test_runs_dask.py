"""The dask backend against a real Dask cluster (a scheduler and worker processes on this
machine, loopback only): bit-identical to the local backend, retries, failures, refusals."""

from __future__ import annotations

import json
import socket

import psutil
import pytest
from conftest import local_dask_cluster
from runs_util import ROOT, assert_same_run, manifest, run_cli

import sim.dask_backend
from sim.runner import stream_run

SEATS = "examples/cautious.py:cautious,hold:patience=2,greedy+rebuy=never"
RUN = ["--seats", SEATS, "--games", 600, "--seed", 5, "--rounds", "--chunk-size", 100]


@pytest.fixture(scope="module")
def cluster():
    """Two worker processes, one thread each, like the default local cluster of the backend."""
    with local_dask_cluster(2) as address:
        yield address


@pytest.fixture(autouse=True)
def _in_root(monkeypatch):
    monkeypatch.chdir(ROOT)  # the plug-in seat is a path relative to the repository


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    d = tmp_path_factory.mktemp("local") / "run"
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(ROOT)
        stream_run(None, SEATS, games=600, seed=5, out_dir=d, record_rounds=True, chunk_size=100)
    return d


def test_dask_cluster_gives_bit_identical_parts(tmp_path, capsys, cluster, local):
    d = tmp_path / "dask"
    code, out, err = run_cli(
        capsys, "simulate", *RUN, "--out", d, "--backend", "dask", "--scheduler", cluster
    )
    assert code == 0, err
    assert f"dask on {cluster}, 2 workers" in out
    assert_same_run(d, local)
    m = manifest(d)
    assert m["complete"] and m["backend"] == "dask" and m["sessions"][0]["workers"] == 2
    assert m["seats"][0] == "examples/cautious.py:cautious"  # as the user wrote it
    assert m["seat_specs"][0] == f"{ROOT / 'examples' / 'cautious.py'}:cautious"


def test_dask_summary_without_out_equals_local(capsys, cluster):
    args = ["simulate", *RUN[:6], "--json"]
    code, out, _ = run_cli(capsys, *args)
    want = json.loads(out)
    code, out, err = run_cli(capsys, *args, "--backend", "dask", "--scheduler", cluster)
    assert code == 0, err
    got = json.loads(out)
    for s in (want, got):
        del s["elapsed_seconds"], s["games_per_second"], s["backend"]
    assert got == want


def test_dask_without_scheduler_runs_its_own_cluster_and_closes_it(tmp_path, capsys, local):
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    d = tmp_path / "own"
    code, out, err = run_cli(
        capsys, "simulate", *RUN, "--out", d, "--backend", "dask", "--workers", 2
    )
    assert code == 0, err
    assert "dask on local cluster, 2 workers" in out
    assert_same_run(d, local)
    left = [
        p
        for p in psutil.Process().children(recursive=True)
        if p.pid not in before and p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    ]
    assert left == []


def test_dask_retries_a_failed_chunk_once(tmp_path, capsys, monkeypatch, cluster, local):
    monkeypatch.setenv("LOBA_FAIL_CHUNK", "3:once")
    d = tmp_path / "retry"
    code, _, err = run_cli(
        capsys, "simulate", *RUN, "--out", d, "--backend", "dask", "--scheduler", cluster
    )
    assert code == 0, err
    assert_same_run(d, local)


def test_dask_chunk_failing_twice_stops_naming_it_keeping_the_others(
    tmp_path, capsys, monkeypatch, cluster, local
):
    monkeypatch.setenv("LOBA_FAIL_CHUNK", "3")
    d = tmp_path / "fail"
    code, out, err = run_cli(
        capsys, "simulate", *RUN, "--out", d, "--backend", "dask", "--scheduler", cluster
    )
    assert code == 1 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("Error: Chunk 3 (games 300 to 399) failed twice (RuntimeError:")
    assert lines[0].endswith(f"'loba simulate --resume {d}' finishes the run.")
    m = manifest(d)
    done = {k for a, b in m["chunks_done"] for k in range(a, b + 1)}
    assert m["complete"] is False and 3 not in done and {0, 1} <= done
    monkeypatch.delenv("LOBA_FAIL_CHUNK")
    code, _, err = run_cli(
        capsys, "simulate", "--resume", d, "--backend", "dask", "--scheduler", cluster
    )
    assert code == 0, err
    assert_same_run(d, local)


def test_workers_with_other_sources_are_refused(tmp_path, capsys, monkeypatch, cluster):
    monkeypatch.setattr(sim.dask_backend, "fingerprint", lambda: "0" * 16)
    code, _, err = run_cli(
        capsys, "simulate", "--games", 10, "--backend", "dask", "--scheduler", cluster
    )
    assert code == 2 and "run other loba-sim sources" in err
    assert len(err.strip().splitlines()) == 1


def test_unreachable_scheduler_is_one_sentence_and_leaves_no_directory(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr(sim.dask_backend, "CONNECT_TIMEOUT", "1s")
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, _, err = run_cli(
        capsys,
        "simulate",
        "--games",
        10,
        "--backend",
        "dask",
        "--scheduler",
        f"tcp://127.0.0.1:{port}",
        "--out",
        tmp_path / "d",
    )
    assert code == 2 and f"Could not reach the Dask scheduler at 'tcp://127.0.0.1:{port}'" in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "d").exists()


def test_dask_progress_reaches_the_total_chunk_by_chunk(cluster):
    seen = []
    stream_run(
        None,
        "greedy,greedy",
        games=250,
        chunk_size=50,
        backend="dask",
        scheduler=cluster,
        progress=lambda done, total: seen.append((done, total)),
    )
    assert [d for d, _ in seen] == [50, 100, 150, 200, 250] and {t for _, t in seen} == {250}


def test_a_worker_killed_mid_run_loses_nothing(tmp_path, cluster, local):
    """Dask reschedules the chunks of a dead worker; the run still matches the local one."""
    import os
    import signal

    from distributed import Client

    with Client(cluster) as c:
        pids = sorted(c.run(os.getpid).values())
    killed = []

    def progress(done, total):
        if not killed:  # after the first chunk is written: one worker dies mid-task
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])

    d = tmp_path / "killed"
    stream_run(
        None,
        SEATS,
        games=600,
        seed=5,
        out_dir=d,
        record_rounds=True,
        chunk_size=100,
        backend="dask",
        scheduler=cluster,
        progress=progress,
    )
    assert killed
    assert_same_run(d, local)
