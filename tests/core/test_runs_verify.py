"""Run directories as a verified log: the manifest lists every part with its rows, size and
SHA-256; resume, analysis and ``loba verify`` read exactly the listed parts and check them;
a damaged chunk is played again on resume; nothing half-written is ever read; every size is
bounded; a full or read-only disk stops a run with one sentence and a resumable directory."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import uuid
import warnings

import polars as pl
import pytest
from runs_util import assert_same_run, manifest, run_cli

import sim.files as files
from analysis import AnalysisError, load_run
from analysis.io import DamagedRunWarning
from sim.chunks import ChunkError
from sim.files import RunDirError
from sim.rundir import RunDir, base_manifest
from sim.runner import resume_run, stream_run
from sim.setup import MAX_GAMES

SEATS = "greedy,hold,random"
GAMES, CHUNK, SEED = 300, 50, 11


def _run(d, **kw):
    args = dict(games=GAMES, seed=SEED, out_dir=d, chunk_size=CHUNK)
    args.update(kw)
    return stream_run("pagat", SEATS, **args)


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    d = tmp_path_factory.mktemp("ref") / "run"
    _run(d)
    return d


def _half(tmp_path, name="half", fail="3"):
    """A run stopped after chunks 0-2 of 6 (chunk 3 kept failing)."""
    d = tmp_path / name
    os.environ["LOBA_FAIL_CHUNK"] = fail
    try:
        with pytest.raises(ChunkError):
            _run(d)
    finally:
        del os.environ["LOBA_FAIL_CHUNK"]
    return d


def _flip(p):
    b = bytearray(p.read_bytes())
    for i in (40, 41, 42):  # inside the data pages: the Parquet footer stays intact
        b[i] ^= 0xFF
    p.write_bytes(bytes(b))


def test_the_manifest_lists_every_part_with_rows_size_and_checksum(ref):
    m = manifest(ref)
    assert m["checksum"] == "sha256" and len(m["parts"]) == GAMES // CHUNK
    e = m["parts"]["part-00002"]
    assert (e["first"], e["count"]) == (100, 50)
    f = e["files"]["seats"]
    p = ref / "seats.parquet" / "part-00002.parquet"
    assert f["rows"] == 150 and f["bytes"] == p.stat().st_size
    assert f["sha256"] == files.file_digest(p)
    assert RunDir.read(ref).inspect(full=True) == []


def test_flipped_bytes_in_an_interrupted_run_are_replayed_byte_for_byte(tmp_path, ref, capsys):
    """The issue's reproduction: resume used to trust the footer and mark the run complete."""
    d = _half(tmp_path)
    _flip(d / "seats.parquet" / "part-00000.parquet")
    code, out, err = run_cli(capsys, "verify", d)
    assert code == 1 and "part-00000.parquet' is damaged: its sha256 does not match" in out
    code, _, err = run_cli(capsys, "summarize", d)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "is damaged" in err and "games 0 to 49" in err and "--skip-damaged" in err
    code, _, err = run_cli(capsys, "simulate", "--resume", d, "--quiet")
    assert code == 0 and err.count("its games were played again") == 1
    assert_same_run(d, ref)
    assert run_cli(capsys, "verify", d)[0] == 0


def test_analysis_reads_around_a_damaged_part_only_when_told(tmp_path, ref):
    d = tmp_path / "c"
    shutil.copytree(ref, d)
    _flip(d / "games.parquet" / "part-00004.parquet")
    with pytest.raises(AnalysisError, match=r"is damaged: .*games 200 to 249"):
        load_run(d)
    with pytest.warns(DamagedRunWarning, match="games 200 to 249 are missing from the analysis"):
        r = load_run(d, skip_damaged=True)
    assert r.n_games == GAMES - CHUNK
    assert r.games.select(pl.col("game").is_between(200, 249).sum()).collect().item() == 0


def test_a_complete_run_with_a_damaged_part_is_repaired_by_resume(tmp_path, ref):
    d = tmp_path / "c"
    shutil.copytree(ref, d)
    (d / "games.parquet" / "part-00005.parquet").unlink()
    rep = resume_run(d)
    assert rep.games == CHUNK and rep.complete and len(rep.replayed) == 1
    assert_same_run(d, ref)


def test_unlisted_and_stray_files_are_never_read(tmp_path, ref, capsys):
    d = tmp_path / "c"
    shutil.copytree(ref, d)
    (d / "games.parquet" / "README.txt").write_text("notes")
    shutil.copy(d / "games.parquet/part-00000.parquet", d / "games.parquet/part-00000 (1).parquet")
    with pytest.warns(DamagedRunWarning, match="2 files its manifest does not list"):
        r = load_run(d)
    assert r.n_games == GAMES and r.games.select(pl.len()).collect().item() == GAMES
    code, out, _ = run_cli(capsys, "verify", d)
    assert code == 1 and "README.txt' is not a part of this run" in out


def test_resume_refuses_a_stray_file_and_removes_unlisted_leftovers(tmp_path, ref):
    d = _half(tmp_path)
    (d / "seats.parquet" / "notes.txt").write_text("mine")
    with pytest.raises(RunDirError, match=r"notes.txt' is not a part of this run; move it out"):
        resume_run(d)
    (d / "seats.parquet" / "notes.txt").unlink()
    # a part renamed into place but never listed (killed between rename and commit)
    other = tmp_path / "other"
    _run(other, seed=SEED + 1)
    shutil.copy(other / "games.parquet/part-00004.parquet", d / "games.parquet/part-00004.parquet")
    rep = resume_run(d)
    assert [p.name for p in rep.removed] == ["part-00004.parquet"]
    assert_same_run(d, ref)


def test_a_foreign_part_under_a_listed_name_is_refused_and_replayed(tmp_path, ref):
    d = _half(tmp_path)
    other = tmp_path / "other"
    _run(other, seed=SEED + 1)
    shutil.copy(other / "games.parquet/part-00001.parquet", d / "games.parquet/part-00001.parquet")
    with pytest.raises(AnalysisError, match="part-00001.parquet' is damaged"):
        load_run(d)
    rep = resume_run(d)
    assert len(rep.replayed) == 1
    assert_same_run(d, ref)


def test_full_verification_names_foreign_games_in_a_pre_checksum_run(tmp_path, ref):
    """A run written before parts had checksums: --verify decodes and finds foreign games."""
    d = _half(tmp_path)
    m = manifest(d)
    del m["parts"], m["checksum"]
    (d / "manifest.json").write_text(json.dumps(m))
    other = tmp_path / "other"
    _run(other, seed=SEED + 1)
    shutil.copy(other / "games.parquet/part-00001.parquet", d / "games.parquet/part-00001.parquet")
    with pytest.warns(UserWarning):
        load_run(d)  # without checksums only the footers can be checked: same rows
    with pytest.raises(AnalysisError, match=r"holds games 50 to 99, seed 12, not games 50 to 99"):
        load_run(d, verify=True)
    rep = resume_run(d)  # resume checks fully, replays it, and records checksums
    assert len(rep.replayed) == 1 and manifest(d)["parts"]["part-00000"]["files"]["games"]
    assert_same_run(d, ref)


def test_a_chunk_is_never_half_visible(tmp_path, monkeypatch, ref):
    """A failure between writing a chunk's games part and its seats part leaves neither."""
    d = tmp_path / "r"
    real = files.write_tmp

    def flaky(tmp_dir, dest, data):
        if (dest.parent.name, dest.name) == ("seats.parquet", "part-00003.parquet"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(tmp_dir, dest, data)

    monkeypatch.setattr(files, "write_tmp", flaky)
    with pytest.raises(ChunkError, match=r"No space left on device\); the run stopped"):
        _run(d)
    monkeypatch.undo()
    for t in ("games", "seats"):
        assert sorted(p.name for p in (d / f"{t}.parquet").iterdir()) == [
            f"part-0000{k}.parquet" for k in range(3)
        ]
    assert list((d / ".partial").iterdir()) == []
    assert RunDir.read(d).inspect(full=True) == []
    resume_run(d)
    assert_same_run(d, ref)


def test_a_full_disk_mid_run_stops_with_one_sentence_and_resumes(
    tmp_path, monkeypatch, ref, capsys
):
    d = tmp_path / "r"
    real = files.write_tmp
    n = []

    def full(tmp_dir, dest, data):
        n.append(1)
        if len(n) > 9:  # the disk fills up after a few chunks, manifest writes included
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(tmp_dir, dest, data)

    monkeypatch.setattr(files, "write_tmp", full)
    code, out, err = run_cli(
        capsys, "simulate", "--seats", SEATS, "--games", GAMES, "--seed", SEED,
        "--chunk-size", CHUNK, "--out", d,
    )  # fmt: skip
    monkeypatch.undo()
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1
    assert "No space left on device" in err and f"'loba simulate --resume {d}'" in err
    assert RunDir.read(d).inspect(full=True) == []
    code, _, _ = run_cli(capsys, "simulate", "--resume", d, "--quiet")
    assert code == 0
    assert_same_run(d, ref)


def test_resume_with_a_smaller_chunk_size_gives_the_same_tables(tmp_path, ref, capsys):
    d = _half(tmp_path)
    code, _, err = run_cli(capsys, "simulate", "--resume", d, "--chunk-size", 20, "--quiet")
    assert code == 0, err
    names = sorted(p.name for p in (d / "games.parquet").iterdir())
    assert "part-00003-00000.parquet" in names and "part-00003-00040.parquet" in names
    for t in ("games", "seats"):
        a = pl.read_parquet(d / f"{t}.parquet")
        assert a.equals(pl.read_parquet(ref / f"{t}.parquet")), t
    assert run_cli(capsys, "verify", d)[0] == 0


def test_rounds_memory_is_refused_up_front_with_a_chunk_size_that_fits(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("LOBA_MEMORY_BUDGET", "64M")
    d = tmp_path / "r"
    args = ["simulate", "--rounds", "--set", "max_rounds_per_game=10000", "--games", 1000]
    code, _, err = run_cli(capsys, *args, "--out", d)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "needs about" in err and "use --chunk-size" in err and not d.exists()
    fit = int(err.split("use --chunk-size ")[1].split()[0])
    code, _, err = run_cli(capsys, *args, "--out", d, "--chunk-size", fit, "--quiet")
    assert code == 0, err


def test_games_are_bounded_and_chunks_are_lazy(capsys):
    for n in (MAX_GAMES + 1, 2**63, 10**30):
        code, _, err = run_cli(capsys, "simulate", "--games", n)
        assert code == 2 and "at most 10^12" in err and len(err.strip().splitlines()) == 1
    m = {
        **base_manifest(
            __import__("sim").games.get_game("loba"),
            __import__("sim").make_rules("pagat"),
            ["greedy", "greedy"],
            0,
            0,
            MAX_GAMES,
            False,
        ),
        "chunk_size": 1,
        "chunks": MAX_GAMES,
        "chunks_done": [],
    }
    run = RunDir(__import__("pathlib").Path("."), m, set())
    pieces = run.pieces()
    assert next(pieces).name == "part-000000000000" and next(pieces).first == 1  # no list built


@pytest.mark.parametrize(
    "out, needle",
    [
        (os.devnull, "exists and is not a directory"),
        ("{tmp}/afile/x", "cannot be created: '{tmp}/afile' is not a directory"),
        ("", "is empty: give a directory name"),
    ],
)
def test_unusable_destinations_are_refused_up_front(tmp_path, capsys, out, needle):
    (tmp_path / "afile").write_text("x")
    out, needle = out.format(tmp=tmp_path), needle.format(tmp=tmp_path)
    for cmd in (
        ["simulate", "--games", 5, "--out", out],
        ["sweep", "--vary", "max_rebuys=0,1", "--games", 2, "--out", out],
        ["rebuy-value", "--games", 3, "--out", out],
    ):
        code, _, err = run_cli(capsys, *cmd)
        want = "'.' is not empty" if out == "" and cmd[0] == "sweep" else needle  # click: "" = .
        assert code == 2 and want in err and len(err.strip().splitlines()) == 1, (cmd, err)


def test_a_report_is_written_whole_or_not_at_all(tmp_path, ref, capsys, monkeypatch):
    target = tmp_path / "r.html"
    import analysis.report as report

    def broken(paths, out, *a, **k):
        with open(out, "w") as f:
            f.write("<html>")  # half written, then the disk fills up
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(report, "build_report", broken)
    code, _, err = run_cli(capsys, "report", ref, "-o", target)
    assert code == 2 and "No space left on device" in err and len(err.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []  # no empty or partial file left behind


# ---------------------------------------------------------------------------- real file systems
def _can_mount() -> bool:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    return True


@pytest.fixture
def tmpfs(tmp_path):
    """A 3 MiB tmpfs (root only; skipped elsewhere)."""
    if not _can_mount():
        pytest.skip("needs root to mount a tmpfs")
    mnt = tmp_path / f"fs-{uuid.uuid4().hex[:6]}"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mnt)])
    if r.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)])


def test_a_3mib_tmpfs_run_ends_with_a_sentence_and_resumes_elsewhere(tmpfs, tmp_path, capsys):
    d = tmpfs / "run"
    args = ["simulate", "--games", 200000, "--chunk-size", 4096, "--seed", 9, "--quiet"]
    code, out, err = run_cli(capsys, *args, "--out", d)
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "No space left on device" in err and f"loba simulate --resume {d}" in err
    assert RunDir.read(d).inspect(full=True) == [] and manifest(d)["games_done"] > 0
    moved = tmp_path / "moved"
    shutil.copytree(d, moved)
    code, _, err = run_cli(capsys, "simulate", "--resume", moved, "--quiet")
    assert code == 0, err
    whole = tmp_path / "whole"
    assert run_cli(capsys, *args, "--out", whole)[0] == 0
    assert_same_run(moved, whole)


def test_a_read_only_run_is_refused_in_one_sentence_and_stays_resumable(tmpfs, tmp_path, capsys):
    d = _half(tmpfs, "ro")
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    try:
        for cmd in (
            ["simulate", "--resume", d],
            ["simulate", "--games", 5, "--out", tmpfs / "new"],
            ["simulate", "--games", 5, "--out", d, "--overwrite"],
            ["report", d, "-o", tmpfs / "r.html"],
            ["rebuy-value", "--games", 3, "--plot", tmpfs / "p.png"],
            ["sweep", "--vary", "max_rebuys=0,1", "--games", 2, "--out", tmpfs / "sw"],
        ):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                code, _, err = run_cli(capsys, *cmd)
            assert code == 2 and "read-only file system" in err, (cmd, err)
            assert len(err.strip().splitlines()) == 1, (cmd, err)
        assert RunDir.read(d).inspect(full=True) == []
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(tmpfs)], check=True)
    code, _, err = run_cli(capsys, "simulate", "--resume", d, "--quiet")
    assert code == 0, err
