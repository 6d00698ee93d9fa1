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
seat. The games are the same bytes either way (the same :func:`sim.chunks.play_chunk`).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
from collections import deque

from .chunks import (
    DEFAULT_CHUNK,
    MAX_THREADS,
    ChunkError,
    ChunkJob,
    Sink,
    finished,
    get_threads,
    play_retried,
    run_chunk,
    set_threads,
    stopped_by,
    warm,
)
from .faults import PlayFault
from .game import BenchFigure
from .games import get_game
from .policies import parse_seats
from .setup import setup

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


def seats_with_plugins(seats, labels=None) -> list[tuple[int, str]]:
    """(seat, label) of every seat (:class:`sim.policies.Seat`) whose policy or add-on rule
    is a plug-in (MODULE:NAME); ``labels``: the seats as the user wrote them."""
    out = []
    for i, s in enumerate(seats):
        if ":" in s.policy_ref or any(a.plugin for a in s.addons):
            out.append((i, labels[i] if labels is not None else s.label))
    return out


def plugin_seats(job: ChunkJob) -> list[tuple[int, str]]:
    """:func:`seats_with_plugins` of a run's job."""
    return seats_with_plugins(parse_seats(list(job.seat_specs), game=job.spec), job.seat_labels)


_in_child = False  # True in a child process of this module: it plays everything itself


def isolate(plugins) -> bool:
    """Whether to play in a child process, given the plug-in seats (``LOBA_ISOLATE``)."""
    if _in_child:
        return False
    mode = isolation()
    return mode == "always" or (mode == "auto" and bool(plugins))


def wants_child(job: ChunkJob) -> bool:
    return isolate(plugin_seats(job))


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


def _call_main(conn, parent: int, fn, args) -> None:
    """A child for :func:`call`: ``fn(*args)``, its items sent one by one if it is a
    generator. Replies ("item", x) ..., then ("done", value) or ("error", exception)."""
    import types

    global _in_child
    _in_child = True
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent(parent)
    try:
        value = fn(*args)
        if isinstance(value, types.GeneratorType):
            for item in value:
                conn.send(("item", item))
            value = None
    except BaseException as e:
        conn.send(("error", _portable(e)))
        return
    conn.send(("done", value))


def _child_main(conn, parent: int, job: ChunkJob, threads: int | None) -> None:
    """The child: load the kernel, then play each piece sent until None (or the pipe closes).
    Replies ("ready",), ("done", ChunkResult), ("failed", exception) or ("error", exception)."""
    global _in_child
    _in_child = True
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
            res = play_retried(job, piece)
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
    """The one sentence for a chunk child that died: how, while doing what, whose code, what
    is kept and how to finish."""
    if piece is None:
        doing = "while loading the game kernel"
    else:
        last = piece.first + piece.count - 1
        doing = f"while playing chunk {piece.k} (games {piece.first} to {last})"
    try:
        seats = plugin_seats(job)
    except Exception:
        seats = []
    return died(code, doing, seats, run, keeps=not job.arrays)


def died(code: int | None, doing: str, seats, run=None, keeps: bool = True) -> str:
    """The one sentence for a child process that died (``code``: its exit code), ``doing``
    what, with which plug-in ``seats`` ((seat, label)); what is kept in ``run`` (a run
    directory or None) when ``keeps``."""
    if code is not None and code < 0:
        try:
            how = f"signal {signal.Signals(-code).name}"
        except ValueError:
            how = f"signal {-code}"
    else:
        how = f"exit code {code}"
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
            f"; the {finished(run)} ({run.games_done()} games) are kept in"
            f" '{p}' and 'loba simulate --resume {p}' finishes the run"
        )
    elif keeps:
        kept = "; nothing was saved (use --out DIR to keep finished chunks)"
    else:
        kept = ""
    return f"The process playing the games crashed ({how}) {doing}{blame}{kept}."


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
    """A spawned child process running ``target(conn, parent_pid, *args)``; ``job``: the
    chunk job it plays (for the sentence when it dies)."""

    def __init__(self, job: ChunkJob | None, threads: int | None = None, target=None, args=()):
        import multiprocessing as mp

        ctx = mp.get_context("spawn")
        self.job = job
        self.conn, child_end = ctx.Pipe()
        if target is None:
            target, args = _child_main, (job, threads)
        self.proc = ctx.Process(
            target=target,
            args=(child_end, os.getpid(), *args),
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
        if self.job is None:  # (a call: piece is (what it was doing, plug-in seats))
            doing, seats = piece
            return RunCrashed(died(self.proc.exitcode, doing, seats, keeps=False))
        return RunCrashed(crash_message(self.job, self.proc.exitcode, piece, run))

    def close(self) -> None:
        self.send(None)
        self.proc.join(1)
        if self.proc.is_alive():  # stuck in a kernel (or interrupted): it cannot be asked
            self.proc.kill()
            self.proc.join(5)
        self.conn.close()


def chunk_results(job: ChunkJob, todo, threads: int | None, run=None, started=None):
    """Play the pieces ``todo`` of ``job`` in a child process and yield their
    :class:`~sim.chunks.ChunkResult` in order: the same chunks, the same bytes, and a crash or
    a hang of the kernel stays in the child. Up to two pieces are handed over at a time, so
    the child plays one while this process handles the other. ``run``: the run directory
    (for the sentences); ``started()`` is called once the kernel is loaded."""
    child = _Child(job, threads)
    try:
        msg = child.receive(None, run)
        if msg[0] == "error":
            raise stopped_by(job, None, msg[1], run)
        if started is not None:
            started()
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
            msg = child.receive(
                job.piece(inflight[0]) if isinstance(inflight[0], int) else inflight[0], run
            )
            piece = inflight.popleft()
            if msg[0] == "failed":
                raise stopped_by(job, piece, msg[1], run)
            send_next()
            yield msg[1]
    finally:
        child.close()


def run_child(job: ChunkJob, todo, sink: Sink, threads: int | None) -> dict:
    """The ``local`` backend in a child process (:func:`chunk_results`)."""
    used = set_threads(threads)
    for res in chunk_results(job, todo, threads, sink.run, sink.start):
        sink.put(res)
    return {"backend": "local", "threads": used}


def call(fn, *args, doing: str, seats):
    """``fn(*args)`` in a child process (``fn`` and its arguments picklable, ``fn`` defined
    at module level); a generator's items are yielded as the child makes them, else its value
    is returned (wrapped: the first item yielded). Its exceptions are raised here; a crash of
    the child is :class:`RunCrashed` naming the plug-in ``seats`` and what it was ``doing``;
    Ctrl-C stops it."""
    child = _Child(None, target=_call_main, args=(fn, args))
    try:
        while True:
            msg = child.receive((doing, seats), None)
            if msg[0] == "item":
                yield msg[1]
            elif msg[0] == "done":
                if msg[1] is not None:
                    yield msg[1]
                return
            else:
                raise msg[1]
    finally:
        child.close()


# ------------------------------------------------------- every command that plays plug-ins
def guarded(fn, *args, seats, doing: str):
    """The items of the generator ``fn(*args)``, made in a child process (:func:`call`) when
    a plug-in seat plays (``seats``: :func:`seats_with_plugins`; ``LOBA_ISOLATE``), else
    here. ``doing``: what it is, for the sentence if the child dies."""
    if isolate(seats):
        yield from call(fn, *args, doing=doing, seats=seats)
    else:
        yield from fn(*args)


def bench_lines(game: str, rules_id: str, seat_specs: tuple, games: int, seed: int):
    """The game's benchmark report lines. A game's benchmark may play through its own batch
    loop: an exception there is found out by playing the same games through
    :func:`sim.chunks.run_chunk` (a :class:`~sim.faults.PlayFault` naming the seat)."""
    s = setup(rules_id, list(seat_specs), game)
    try:
        if s.spec.bench is None:
            yield from plain_bench(s, games, seed)
            return
        yield from s.spec.bench(s.rules, list(s.seats), games, seed)
    except PlayFault:
        raise
    except Exception:
        for first in range(0, games, DEFAULT_CHUNK):  # (bounded memory, as a run)
            k = min(DEFAULT_CHUNK, games - first)
            run_chunk(s.spec, s.R, s.n_players, seed, first, k, s.tables, 0, s.labels)
        raise


def plain_bench(s, games: int, seed: int):
    """The benchmark of a game without its own (:attr:`sim.game.GameSpec.bench` None): games
    per second of the run's own chunks (:func:`sim.chunks.run_chunk`) on 1 thread and on all
    of them, after a first call that compiles or loads the kernel; no floor kernel."""
    import time

    yield f"rules {s.rules.id}, seats {','.join(s.labels)}, {games} games"
    t = time.perf_counter()
    run_chunk(s.spec, s.R, s.n_players, seed, 0, min(games, 8), s.tables, 0, s.labels)
    yield f"first call (compile or cache load): {time.perf_counter() - t:.2f} s"
    before = get_threads()
    try:
        for threads in sorted({1, MAX_THREADS}):
            set_threads(threads)
            t = time.perf_counter()
            for first in range(0, games, DEFAULT_CHUNK):
                k = min(DEFAULT_CHUNK, games - first)
                run_chunk(s.spec, s.R, s.n_players, seed, first, k, s.tables, 0, s.labels)
            rate = games / max(time.perf_counter() - t, 1e-9)
            yield f"{threads} thread(s): {rate:,.0f} games/s (no floor kernel for {s.spec.title})"
            yield BenchFigure(threads, rate)
    finally:
        set_threads(before)


def replay_events(game: str, rules_id: str, seat_specs: tuple, seed: int, index: int):
    """Yields the events of game ``index`` of the run, once. The game is played through the
    kernel first, so a seat that raises is named (:class:`~sim.faults.PlayFault`) instead of
    being answered with the fallback by the step-by-step replay, which cannot stop there."""
    s = setup(rules_id, list(seat_specs), game)
    run_chunk(s.spec, s.R, s.n_players, seed, index, 1, s.tables, 0, s.labels)
    with raised_in_callbacks(s.seats, f"game {index}"):
        events = s.spec.replay(s.rules, list(s.seats), seed, index)
    yield events


def position_events(game: str, path: str, seat_specs, seed: int, to_end: bool):
    """Yields the events of the game played on from a position file, once
    (:attr:`sim.game.Positions.replay`); a seat that raises stops it."""
    spec = get_game(game)
    seats = None if seat_specs is None else parse_seats(list(seat_specs), game=spec)
    with raised_in_callbacks(seats or [], "the game played on from the position"):
        events = spec.positions.replay(path, seat_specs, seed, to_end)
    yield events


@contextlib.contextmanager
def raised_in_callbacks(seats, where: str):
    """An exception a decision function raises inside a step-by-step replay cannot leave the
    compiled code (Python reports it as "Exception ignored" and the function answers 0); it
    is caught here instead and raised as a :class:`~sim.faults.PlayFault` once the step
    returns."""
    import sys

    from .faults import error_words

    seen: list[BaseException] = []
    old = sys.unraisablehook
    sys.unraisablehook = lambda u: seen.append(u.exc_value)
    try:
        yield seen
    finally:
        sys.unraisablehook = old
    if seen:
        plug = seats_with_plugins(seats) if seats else []
        whose = f" ({_seat_words(plug)})" if plug else ""
        raise PlayFault(
            f"A seat's decision function{whose} raised {error_words(seen[0])} in {where}."
        )
