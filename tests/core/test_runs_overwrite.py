"""--overwrite never destroys a run that is being written (two real processes).

The lock of the destination is taken before anything in it is removed: a second writer is
refused in one sentence and the live run goes on to finish, whole. Two ``--overwrite`` runs
started together: one proceeds, the other is refused (or, if it starts after the first has
finished, replaces it whole); never an empty folder. A sweep's ``--overwrite`` holds every
cell's lock before it removes any.
"""

from __future__ import annotations

import time

from runs_util import manifest, run_cli, start_cli, wait_for_chunks

import cli


def test_a_refused_overwrite_keeps_the_live_run(tmp_path, capsys):
    d = tmp_path / "live"
    live = start_cli("simulate", "--games", 120000, "--chunk-size", 2000, "--seed", 5,
                     "--quiet", "--out", d)  # fmt: skip
    try:
        wait_for_chunks(d, 1, live)
        code, out, err = run_cli(capsys, "simulate", "--games", 100, "--out", d, "--overwrite")
        assert code == 2 and "being written by another loba process" in err
        assert "Traceback" not in err
        m = manifest(d)  # still the live run's
        assert m["games"] == 120000 and (d / "games.parquet").is_dir()
    finally:
        rc = live.wait(timeout=300)
    assert rc == 0, live.stderr.read()
    m = manifest(d)
    assert m["complete"] and m["games_done"] == 120000
    code, out, err = run_cli(capsys, "verify", d)
    assert code == 0, err


def test_two_overwrites_at_once_one_proceeds(tmp_path, capsys):
    d = tmp_path / "twice"
    assert cli.main(["simulate", "--games", 50, "--quiet", "--out", str(d)]) == 0
    args = ("simulate", "--games", 60000, "--chunk-size", 2000, "--quiet", "--overwrite")
    procs = [start_cli(*args, "--seed", s, "--out", d) for s in (1, 2)]
    codes = [p.wait(timeout=300) for p in procs]
    errs = [p.stderr.read() for p in procs]
    assert 0 in codes, errs
    for c, e in zip(codes, errs, strict=True):
        assert c == 0 or (c == 2 and "being written by another loba process" in e), e
    m = manifest(d)
    assert m["complete"] and m["games_done"] == 60000
    assert run_cli(capsys, "verify", d)[0] == 0


def test_a_sweep_overwrite_refuses_while_a_cell_is_written(tmp_path, capsys):
    out = tmp_path / "sw"
    assert cli.main(["sweep", "--vary", "max_rebuys=0,1", "--games", 20, "--no-rebuy-value",
                     "--out", str(out)]) == 0  # fmt: skip
    cell = next((out / "cells").iterdir())
    live = start_cli("simulate", "--games", 120000, "--chunk-size", 2000, "--quiet",
                     "--out", cell, "--overwrite")  # fmt: skip
    try:
        t = time.monotonic() + 240
        while time.monotonic() < t:  # the live run's own manifest, with a chunk done
            m = manifest(cell) if (cell / "manifest.json").exists() else {}
            if m.get("games") == 120000 and m.get("chunks_done"):
                break
            assert live.poll() is None, live.stderr.read()
            time.sleep(0.05)
        code, _, err = run_cli(capsys, "sweep", "--vary", "max_rebuys=0,1", "--games", 20,
                               "--no-rebuy-value", "--out", out, "--overwrite")  # fmt: skip
        assert code == 2 and "being written" in err and "Nothing of the previous sweep" in err
        assert (cell / "games.parquet").is_dir()
    finally:
        assert live.wait(timeout=300) == 0
    assert manifest(cell)["complete"] and manifest(cell)["games_done"] == 120000
