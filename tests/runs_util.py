"""Helpers for the tests of streamed, resumable and Dask runs (tests/core/test_runs_*.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl

import cli

ROOT = Path(__file__).parent.parent
TABLES = ("games", "seats", "rounds")


def run_cli(capsys, *args):
    """``loba ARGS`` in this process: (exit code, stdout, stderr)."""
    try:
        code = cli.main([str(a) for a in args])
    except SystemExit as e:
        code = e.code
    out = capsys.readouterr()
    return code, out.out, out.err


def manifest(d: Path) -> dict:
    return json.loads((Path(d) / "manifest.json").read_text())


def part_files(d: Path) -> dict[str, dict[str, bytes]]:
    """Every table's part files by name, with their bytes."""
    out = {}
    for t in TABLES:
        p = Path(d) / f"{t}.parquet"
        if p.is_dir():
            out[t] = {f.name: f.read_bytes() for f in sorted(p.iterdir())}
    return out


def tables(d: Path) -> dict[str, pl.DataFrame]:
    return {
        t: pl.read_parquet(Path(d) / f"{t}.parquet")
        for t in TABLES
        if (Path(d) / f"{t}.parquet").exists()
    }


def assert_same_run(a: Path, b: Path) -> None:
    """Two run directories hold identical tables, part by part, byte for byte."""
    pa, pb = part_files(a), part_files(b)
    assert pa.keys() == pb.keys()
    for t in pa:
        assert pa[t].keys() == pb[t].keys(), t
        for name in pa[t]:
            assert pa[t][name] == pb[t][name], f"{t}/{name} differs"
    ta, tb = tables(a), tables(b)
    for t in ta:
        assert ta[t].equals(tb[t]), t


def start_cli(*args, env=None) -> subprocess.Popen:
    """``loba ARGS`` in its own process group (like a shell job), output captured."""
    e = {**os.environ, **(env or {})}
    return subprocess.Popen(
        [sys.executable, "-c", "import cli; cli.run()", *map(str, args)],
        cwd=ROOT,
        env=e,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def end_cli(proc: subprocess.Popen, timeout: float = 30, signum=None) -> tuple[str, str]:
    """Send ``signum`` to the process group (if given), then wait for the process's output;
    whatever still runs after ``timeout`` is killed. Returns (stdout, stderr)."""
    try:
        if signum is not None:
            os.killpg(proc.pid, signum)
        return proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def wait_for_chunks(d: Path, n: int, proc: subprocess.Popen, timeout: float = 240) -> int:
    """Wait until the run in ``d`` lists at least ``n`` finished chunks; returns how many."""
    t = time.monotonic() + timeout
    while time.monotonic() < t:
        assert proc.poll() is None, "the run ended before it could be interrupted"
        try:
            m = manifest(d)
        except (OSError, ValueError):
            m = {}
        done = sum(b - a + 1 for a, b in m.get("chunks_done", []))
        if done >= n:
            return done
        time.sleep(0.02)
    raise AssertionError(f"no {n} chunks within {timeout} s")
