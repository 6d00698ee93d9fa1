"""Chunks played in a child process, so that a plug-in cannot take the run down with it.

A plug-in policy is compiled code running inside the kernel: an out-of-bounds write there is a
segmentation fault of the whole process, which no ``try`` can catch. So when a seat uses a
plug-in (a ``MODULE:NAME`` policy or add-on rule), the ``local`` backend plays the chunks in
one child process (``multiprocessing`` spawn) and this process only writes what the child hands
back, exactly as the Dask backend writes what its workers return: the run directory has one
writer, which never runs plug-in code. If the child dies, this process lists every chunk it
received, names the signal and the plug-in seats in one sentence (:class:`RunCrashed`) and the
run directory is left resumable. Ctrl-C stops the child (it ignores SIGINT itself; the parent
kills it), whatever the kernel is doing.

``LOBA_ISOLATE``: ``1`` plays every local run in a child process, ``0`` none (a crash then ends
the process, and a run directory still resumes), unset or ``auto``: only runs with a plug-in
seat. The games are the same bytes either way (the same :func:`sim.runner.play_chunk`).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
from collections import deque

from .policies import parse_seats
from .runner import ChunkError, ChunkJob, Sink, chunk_failed, play_chunk, set_threads, warm

POLL_S = 0.2  # how often the parent looks at Ctrl-C and at the child while it waits
MEMORY_SIGNALS = ("SIGSEGV", "SIGBUS")


class RunCrashed(ChunkError):
    """The process playing the chunks died (a signal or an exit). One sentence."""


def isolation() -> str:
    """``LOBA_ISOLATE`` read: "always", "never" or "auto" (one-sentence ValueError if bad)."""
    v = os.environ.get("LOBA_ISOLATE", "").strip().lower()
    if v in ("", "auto"):
        return "auto"
    if v in ("1", "yes", "true", "on"):
        return "always"
    if v in ("0", "no", "false", "off"):
        return "never"
    raise ValueError(f"LOBA_ISOLATE must be 1, 0 or auto, not '{v[:40]}'.")


def plugin_seats(job: ChunkJob) -> list[tuple[int, str]]:
    """(seat, label) of every seat whose policy or add-on rule is a plug-in (MODULE:NAME)."""
    seats = parse_seats(list(job.seat_specs), game=job.spec)
    out = []
    for i, s in enumerate(seats):
        if ":" in s.policy_ref or any(a.plugin for a in s.addons):
            out.append((i, job.seat_labels[i]))
    return out


def wants_child(job: ChunkJob) -> bool:
    mode = isolation()
    return mode == "always" or (mode == "auto" and bool(plugin_seats(job)))


# ------------------------------------------------------------------------------ the child
def _die_with_parent(parent: int) -> None:
    """Linux: the child is killed when the parent dies, even while stuck in a kernel."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(1)


def _portable(e: BaseException) -> BaseException:
    """``e`` if it survives pickling, else a RuntimeError that says the same."""
    try:
        return pickle.loads(pickle.dumps(e))
    except Exception:
        return RuntimeError(f"{type(e).__name__}: {e}")


def _child_main(conn, job: ChunkJob, threads: int | None, parent: int) -> None:
    """The child: load the kernel, then play each piece sent until None (or the pipe closes).
    Replies ("ready",), ("done", ChunkResult), ("failed", exception) or ("error", exception)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's (already so, posix)
    _die_with_parent(parent)
    try:
        if threads:
            set_threads(threads)
        warm(job)
    except BaseException as e:
        conn.send(("error", _portable(e)))
        return
    conn.send(("ready",))
    while True:
        try:
            piece = conn.recv()
        except (EOFError, OSError):
            return
        if piece is None:
            return
        try:
            try:
                res = play_chunk(job, piece)
            except Exception:  # retried once, as in the local backend
                res = play_chunk(job, piece)
        except Exception as e:
            conn.send(("failed", _portable(e)))
            continue
        conn.send(("done", res))


# ----------------------------------------------------------------------------- the parent
def _deaf_python() -> str:
    """A ``/bin/sh`` trampoline that runs this Python with SIGINT ignored from its first
    instruction. An ignored signal stays ignored across ``exec``, and Python then installs no
    handler of its own, so a Ctrl-C sent to the whole process group while the child imports
    (seconds) cannot kill it with a traceback; the parent handles Ctrl-C and kills the child.
    (A blocked signal mask does not survive the spawn, and ignoring SIGINT in this process
    while it starts the child would lose a Ctrl-C taken by a thread that does not block it.)
    """
    import shlex
    import sys
    import tempfile
    from pathlib import Path

    text = f'#!/bin/sh\ntrap "" INT\nexec {shlex.quote(sys.executable)} "$@"\n'
    folder = Path(tempfile.gettempdir()) / f"loba-sim-{os.getuid()}"
    path = folder / "python-ignoring-sigint"
    try:
        if path.read_text() == text and os.access(path, os.X_OK):
            return str(path)
    except OSError:
        pass
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{path.name}.{os.getpid()}"
    tmp.write_text(text)
    tmp.chmod(0o755)
    os.replace(tmp, path)
    return str(path)


@contextlib.contextmanager
def _deaf_child():
    """Children spawned inside start deaf to Ctrl-C (:func:`_deaf_python`); the executable
    of other spawns in this process (Dask's) is left alone."""
    if os.name != "posix":
        yield
        return
    from multiprocessing import spawn

    old = spawn.get_executable()
    spawn.set_executable(_deaf_python())
    try:
        yield
    finally:
        spawn.set_executable(old)


def _seat_words(seats: list[tuple[int, str]]) -> str:
    named = ", ".join(f"seat {i}: {label}" for i, label in seats)
    return f"a plug-in policy ({named})" if len(seats) == 1 else f"plug-in policies ({named})"


def crash_message(job: ChunkJob, code: int | None, piece, run) -> str:
    """The one sentence for a child that died: how, while doing what, whose code, what is
    kept and how to finish."""
    if code is not None and code < 0:
        try:
            how = f"signal {signal.Signals(-code).name}"
        except ValueError:
            how = f"signal {-code}"
    else:
        how = f"exit code {code}"
    if piece is None:
        doing = "while loading the game kernel"
    else:
        last = piece.first + piece.count - 1
        doing = f"while playing chunk {piece.k} (games {piece.first} to {last})"
    try:
        seats = plugin_seats(job)
    except Exception:
        seats = []
    if seats:
        may = (
            "may have read or written out of bounds"
            if any(how.endswith(s) for s in MEMORY_SIGNALS)
            else "may have caused it"
        )
        blame = f"; {_seat_words(seats)} {may}"
    elif how == "signal SIGKILL":
        blame = "; something killed it (the system, when out of memory?)"
    else:
        blame = "; this is a bug in loba-sim, please report it with the command line"
    if run is not None:
        p = run.path
        kept = (
            f"; the {len(run.done)} finished chunks ({run.games_done()} games) are kept in"
            f" '{p}' and 'loba simulate --resume {p}' finishes the run"
        )
    else:
        kept = "; nothing was saved (use --out DIR to keep finished chunks)"
    return f"The simulation process crashed ({how}) {doing}{blame}{kept}."


@contextlib.contextmanager
def _ctrl_c_held():
    """Hold a Ctrl-C that comes while a child is handed its start data, and yields the list
    it is noted in. ``spawn`` writes that data through a pipe; a write cut short by
    KeyboardInterrupt left the child printing multiprocessing's "EOFError: Ran out of input"
    traceback (seen once in CI). Only the main thread receives signals (elsewhere, nothing
    is changed)."""
    import threading

    taken: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield taken
        return
    old = signal.signal(signal.SIGINT, lambda signum, frame: taken.append(signum))
    try:
        yield taken
    finally:
        signal.signal(signal.SIGINT, old)


class _Child:
    def __init__(self, job: ChunkJob, threads: int | None):
        import multiprocessing as mp

        ctx = mp.get_context("spawn")
        self.job = job
        self.conn, child_end = ctx.Pipe()
        self.proc = ctx.Process(
            target=_child_main,
            args=(child_end, job, threads, os.getpid()),
            name="loba-chunks",
            daemon=True,
        )
        with _deaf_child(), _ctrl_c_held() as taken:
            self.proc.start()
        child_end.close()
        if taken:  # Ctrl-C while the child was being started: it is stopped, and so are we
            self.proc.kill()
            self.proc.join(5)
            self.conn.close()
            raise KeyboardInterrupt

    def send(self, piece) -> None:
        with contextlib.suppress(OSError):  # a dead child is noticed by receive()
            self.conn.send(piece)

    def receive(self, piece, run):
        """The child's next message; RunCrashed if it died. Ctrl-C interrupts the wait."""
        conn, proc = self.conn, self.proc
        while not conn.poll(POLL_S):
            if not proc.is_alive() and not conn.poll(0):
                raise self.crashed(piece, run)
        try:
            return conn.recv()
        except (EOFError, OSError, pickle.UnpicklingError):
            raise self.crashed(piece, run) from None

    def crashed(self, piece, run) -> RunCrashed:
        self.proc.join(5)
        if run is not None:  # list what was written before saying what is kept
            try:
                run.commit()
            except OSError:
                run.drop_pending()
        return RunCrashed(crash_message(self.job, self.proc.exitcode, piece, run))

    def close(self) -> None:
        self.send(None)
        self.proc.join(1)
        if self.proc.is_alive():  # stuck in a kernel (or interrupted): it cannot be asked
            self.proc.kill()
            self.proc.join(5)
        self.conn.close()


def run_child(job: ChunkJob, todo, sink: Sink, threads: int | None) -> dict:
    """The ``local`` backend in a child process: the same chunks, the same bytes, and a crash
    or a hang of the kernel stays in the child. Up to two pieces are handed over at a time, so
    the child plays one while this process writes the other."""
    used = set_threads(threads)
    child = _Child(job, threads)
    try:
        msg = child.receive(None, sink.run)
        if msg[0] == "error":
            raise msg[1]
        sink.start()
        pending = iter(todo)
        inflight: deque = deque()

        def send_next() -> None:
            k = next(pending, None)
            if k is not None:
                child.send(k)
                inflight.append(k)

        send_next()
        send_next()
        while inflight:
            msg = child.receive(inflight[0], sink.run)
            piece = inflight.popleft()
            if msg[0] == "failed":
                raise chunk_failed(job, piece, msg[1], sink.run)
            send_next()
            sink.put(msg[1])
    finally:
        child.close()
    return {"backend": "local", "threads": used}
