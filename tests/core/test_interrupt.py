"""Ctrl-C stops a run whose plug-in is stuck in a loop, and a plug-in that crashes the process
is named in one sentence: in both cases every finished chunk is kept, nothing half-written is
listed, and ``loba simulate --resume`` finishes the run to the bytes of a run never stopped.

The plug-ins (tests/plugins/misbehave.py) play greedy's games, except that armed by
``LOBA_TEST_MISBEHAVE=1`` in the environment of the run they hang or segfault at one game
(found by the ``probe`` plug-in, which answers out of range there instead). The resume runs
without it, so it plays the same games as the
reference run, which was never armed.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from runs_util import assert_same_run, end_cli, manifest, run_cli, start_cli

from sim.runner import stream_run

PLUG = Path(__file__).parents[1] / "plugins" / "misbehave.py"
GAMES, SEED = 640, 12
CHUNKS = (32, 128)


@pytest.fixture(scope="module")
def bad():
    """Chunk size -> games before the chunk where the plug-ins misbehave: from the first game
    in which ``probe`` (the same trigger, answered out of range) has a bad answer."""
    import sim

    res = sim.simulate("pagat", seats("probe"), games=GAMES, seed=SEED)
    seats_df = res.seats.to_pandas()
    hit = seats_df[(seats_df["seat"] == 0) & (seats_df["bad_answers"] > 0)]["game"]
    assert len(hit), "the plug-ins never misbehave in this run: choose another SEED"
    first = int(hit.min())
    out = {c: first // c * c for c in CHUNKS}
    assert min(out.values()) > 0, f"they misbehave in game {first}: choose another SEED"
    return out


def seats(name: str) -> str:
    return f"{PLUG}:{name},greedy,greedy"


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """Unarmed runs (the same seats, never stopped), by plug-in and chunk size."""
    os.environ.pop("LOBA_TEST_MISBEHAVE", None)
    made = {}

    def get(name: str, chunk: int) -> Path:
        if (name, chunk) not in made:
            d = tmp_path_factory.mktemp("ref") / f"{name}{chunk}"
            stream_run(None, seats(name), games=GAMES, seed=SEED, out_dir=d, chunk_size=chunk)
            made[name, chunk] = d
        return made[name, chunk]

    return get


def _start(name, chunk, threads, out, isolate):
    args = ["simulate", "--seats", seats(name), "--games", GAMES, "--seed", SEED, "--quiet"]
    args += ["--chunk-size", chunk, "--threads", threads]
    if out is not None:
        args += ["--out", out]
    env = {"LOBA_TEST_MISBEHAVE": "1", "LOBA_ISOLATE": isolate}
    return start_cli(*args, env=env)


def _wait_written(d: Path, chunks: int, proc, timeout: float = 240) -> None:
    """Until the parts of the last chunk before the bad one are in place (written; perhaps
    not yet listed), i.e. the run is at the chunk that hangs."""
    last = f"part-{chunks - 1:05d}.parquet"
    t = time.monotonic() + timeout
    while time.monotonic() < t:
        assert proc.poll() is None, "the run ended before it could be interrupted"
        if all((d / f"{tb}.parquet" / last).exists() for tb in ("games", "seats")):
            return
        time.sleep(0.02)
    raise AssertionError(f"chunk {chunks - 1} was not written within {timeout} s")


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(x) for x in text.split()]


def _resume_and_compare(capsys, d: Path, ref: Path) -> None:
    code, out, err = run_cli(capsys, "verify", d)
    assert code == 0, out + err  # every listed part whole, nothing else in the folders
    code, _, err = run_cli(capsys, "simulate", "--resume", d, "--quiet")
    assert code == 0, err
    assert manifest(d)["complete"] is True
    assert_same_run(d, ref)


@pytest.mark.parametrize(
    "isolate,threads,chunk",
    [("auto", 1, 32), ("0", 1, 32), ("0", 2, 128), ("1", 2, 128)],
    ids=["child-1thread", "in-process-1thread", "in-process-2threads", "child-2threads"],
)
def test_ctrl_c_stops_a_plugin_stuck_in_a_loop(
    tmp_path, capsys, reference, bad, isolate, threads, chunk
):
    ref = reference("hang", chunk)  # first: it also compiles (and caches) the kernel
    d = tmp_path / "run"
    proc = _start("hang", chunk, threads, d, isolate)
    try:
        _wait_written(d, bad[chunk] // chunk, proc)
        os.killpg(proc.pid, signal.SIGINT)  # the process group, as a terminal's Ctrl-C does
    finally:
        _, err = end_cli(proc)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert err.strip() == (
        f"Interrupted: {bad[chunk]} of {GAMES} games are on disk in '{d}'; finish with:"
        f" loba simulate --resume {d}"
    )
    m = manifest(d)
    assert m["complete"] is False and m["games_done"] == bad[chunk]  # nothing finished is lost
    _resume_and_compare(capsys, d, ref)


def test_ctrl_c_without_out_says_nothing_was_saved(tmp_path, reference):
    reference("hang", 32)  # the kernel is compiled before the run starts
    proc = _start("hang", 32, 1, None, "auto")
    try:
        t = time.monotonic() + 240
        while not _children(proc.pid):  # the chunks' process is started: the run is under way
            assert proc.poll() is None and time.monotonic() < t
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGINT)
    finally:
        _, err = end_cli(proc)
    assert proc.returncode == 130, err
    assert err.strip() == "Interrupted; nothing was saved (use --out DIR to keep finished chunks)."


def test_a_plugin_that_segfaults_is_named_and_the_run_resumes(tmp_path, capsys, reference, bad):
    ref = reference("crash", 32)
    d = tmp_path / "run"
    proc = _start("crash", 32, 1, d, "auto")
    _, err = end_cli(proc, timeout=240)
    assert proc.returncode == 1, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    done = bad[32]
    assert err.strip() == (
        f"Error: The process playing the games crashed (signal SIGSEGV) while playing chunk"
        f" {done // 32} (games {done} to {done + 31}); a plug-in policy (seat 0: {PLUG}:crash)"
        f" may have read or written out of bounds; the {done // 32} finished chunks ({done}"
        f" games) are kept in '{d}' and 'loba simulate --resume {d}' finishes the run."
    )
    assert manifest(d)["games_done"] == done
    _resume_and_compare(capsys, d, ref)


def test_a_segfault_in_process_leaves_a_resumable_run(tmp_path, capsys, reference, bad):
    """LOBA_ISOLATE=0: the crash ends the process itself; what it listed is whole, and what it
    wrote but had not listed yet is only a leftover that resume removes."""
    ref = reference("crash", 32)
    d = tmp_path / "run"
    proc = _start("crash", 32, 1, d, "0")
    _, err = end_cli(proc, timeout=240)
    assert proc.returncode == -signal.SIGSEGV
    code, out, _ = run_cli(capsys, "verify", d)
    # whole (every part it wrote is listed) or whole but for unlisted leftovers
    problems = [ln for ln in out.splitlines() if ln.strip() and not ln.startswith("ok:")]
    assert all("is not listed in the manifest" in ln for ln in problems), out
    assert manifest(d)["games_done"] <= bad[32]
    code, _, err = run_cli(capsys, "simulate", "--resume", d, "--quiet")
    assert code == 0, err
    assert_same_run(d, ref)


def test_a_bad_isolate_setting_is_one_sentence(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("LOBA_ISOLATE", "maybe")
    code, _, err = run_cli(capsys, "simulate", "--games", 10, "--out", tmp_path / "r")
    assert code == 2
    assert err.strip() == "Error: LOBA_ISOLATE must be 1, 0 or auto, not 'maybe'."
    assert not (tmp_path / "r").exists()


def test_ctrl_c_while_the_chunks_process_starts_is_held_until_it_has_started(monkeypatch):
    """A Ctrl-C taken while the parent hands the chunks' process its start data (spawn writes
    it through a pipe) is held until the data is written, then stops both: cut short, the
    write left the child printing multiprocessing's "EOFError: Ran out of input" traceback."""
    from multiprocessing.context import SpawnProcess

    from sim import isolated
    from sim.chunks import ChunkJob

    real_start = SpawnProcess.start
    started = []

    def start_with_ctrl_c(self):
        os.kill(os.getpid(), signal.SIGINT)  # the user's Ctrl-C, just as the start begins
        real_start(self)
        started.append(self)

    monkeypatch.setattr(SpawnProcess, "start", start_with_ctrl_c)
    job = ChunkJob("loba:pagat", ("greedy",) * 4, ("greedy",) * 4, 1, 0, 8, 8, False, False)
    with pytest.raises(KeyboardInterrupt):
        isolated._Child(job, 1)
    (proc,) = started  # the start ran to its end before the interrupt was raised ...
    assert proc.exitcode == -signal.SIGKILL  # ... and the half-started child was stopped
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
