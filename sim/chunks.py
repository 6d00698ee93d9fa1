"""Chunks of games: threads, memory, playing one chunk, and what happens to a finished one.

A run is cut into chunks of consecutive games (:class:`ChunkJob`: small and picklable, so a
Dask worker or a child process plays any chunk of it). :func:`run_chunk` plays games
``start .. start+count-1`` on the kernel's threads; game ``i`` always draws from the random
stream of ``(seed, i)``, so any thread count, chunk size or backend gives bit-identical
tables. :func:`play_chunk` turns a chunk into Parquet parts and summary totals (the same
function in every backend), :class:`Sink` takes finished chunks (the run directory, the
totals, the progress), and the sentences here say what a failure keeps.

Test hook: ``LOBA_FAIL_CHUNK=K`` makes chunk K raise on every attempt, ``LOBA_FAIL_CHUNK=K:once``
on its first attempt only (read by the process that starts the run and handed to the backend,
so it reaches Dask workers too).
"""

from __future__ import annotations

import os
import re
import signal
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np
from numba.core.errors import NumbaError

from .faults import PlayFault, RunFailure, diagnose
from .files import human_bytes, why
from .game import GameSpec
from .results import Results
from .rundir import Piece, RunDir, part_name
from .setup import Setup, load
from .totals import add_aggregates, aggregate

# Games per chunk. Each chunk has a fixed cost (its slices queued, its outputs made, its parts
# and totals): about 10 ms, a tenth of a chunk of 8,192 of the cheapest games on 2 threads; at
# 32,768 `simulate --out` runs within a few per cent of one call for all the games
# (docs/performance.md), and a chunk of the slowest built-in seats is still about a second.
DEFAULT_CHUNK = 32768
ROUNDS_CHUNK = 512  # per-round records take max_rounds_per_game x seats rows per game
SEARCH_CHUNK = 64  # a seat that searches plays a few games a second: a chunk is seconds, not hours
BACKENDS = ("local", "dask")


def searching(seats) -> bool:
    """Whether a seat's policy is a search policy (one that declares a cheap ``quick``
    setting, :class:`sim.policies.api.Policy`), whose games cost milliseconds to seconds each."""
    return any(getattr(getattr(s, "policy", None), "quick", "") for s in seats)


def chunk_games(games: int, chunk_size: int | None, record_rounds: bool, search=False) -> int:
    """Games per chunk of a run: ``chunk_size``, else 32,768 (512 when rounds are recorded, 64
    when a seat searches, ``search``), at most the run's games."""
    base = ROUNDS_CHUNK if record_rounds else DEFAULT_CHUNK
    if search:
        base = min(base, SEARCH_CHUNK)
    return min(chunk_size or base, int(games))


MAX_THREADS = numba.config.NUMBA_NUM_THREADS  # the machine's CPUs (NUMBA_NUM_THREADS caps it)
_threads = MAX_THREADS
_pools: dict[int, ThreadPoolExecutor] = {}


def _deaf_to_ctrl_c() -> None:
    """Kernel threads block SIGINT, so Ctrl-C always reaches the main thread (which waits
    interruptibly); sim.isolated relies on it while it starts a child process."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


MAX_THREAD_ARG = 1024  # --threads above the cores plays on the cores; above this, a mistake
MAX_CHUNK = 2**31 - 1


def check_whole(name: str, value, lo: int, hi: int) -> None:
    """``value`` is a whole number from ``lo`` to ``hi``, else a one-sentence ValueError."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        top = "2^31-1" if hi == MAX_CHUNK else f"{hi:,}"
        raise ValueError(f"{name} must be a whole number from {lo} to {top}, not {value}.")


def check_threads(threads) -> None:
    check_whole("--threads", threads, 1, MAX_THREAD_ARG)


def set_threads(threads: int | None) -> int:
    """Use ``threads`` worker threads (None: all the machine's); returns the count in use."""
    global _threads
    if threads is None:
        threads = MAX_THREADS
    check_threads(threads)
    _threads = min(threads, MAX_THREADS)
    return _threads


def get_threads() -> int:
    """The worker threads a chunk is played on (see :func:`set_threads`)."""
    return _threads


def slice_bounds(count: int, threads: int) -> list[int]:
    """Where :func:`in_slices` cuts ``0 .. count-1``: one slice on one thread (or under 128
    games), else four slices per thread of at least 64 games each."""
    if threads <= 1 or count < 128:
        return [0, count]
    pieces = min(4 * threads, max(threads, count // 64))
    return [count * k // pieces for k in range(pieces + 1)]


def kernel_pool(threads: int) -> ThreadPoolExecutor:
    """The kernel's worker threads (``threads`` of them), made once and kept."""
    pool = _pools.get(threads)
    if pool is None:
        pool = _pools[threads] = ThreadPoolExecutor(
            threads, thread_name_prefix="loba-kernel", initializer=_deaf_to_ctrl_c
        )
    return pool


def drop_pool(threads: int, pool: ThreadPoolExecutor, futures) -> None:
    """Ctrl-C while kernel calls run: they cannot be stopped; cancel what has not started and
    give later calls fresh threads, not stuck ones."""
    for f in futures:
        f.cancel()
    if _pools.get(threads) is pool:
        del _pools[threads]
    pool.shutdown(wait=False, cancel_futures=True)


def in_slices(fn: Callable[[int, int], None], count: int, threads: int | None = None) -> None:
    """Call ``fn(lo, hi)`` over slices covering ``0 .. count-1``, on ``threads`` threads.

    The compiled kernels release the GIL, so the threads run on separate cores. Four slices per
    thread (at least 64 games each) even out games of different lengths. Each game's result
    depends only on its index, so the slicing never changes a table. Called from the main
    thread, the kernel runs on a worker thread even for one slice, and the main thread waits
    interruptibly (:func:`wait_result`): Ctrl-C raises KeyboardInterrupt there at once, while a
    kernel call that never returns (a plug-in stuck in a loop) is left to its thread.
    """
    threads = threads or _threads
    if (threads <= 1 or count < 128) and threading.current_thread() is not threading.main_thread():
        fn(0, count)
        return
    bounds = slice_bounds(count, threads)
    threads = threads if len(bounds) > 2 else 1  # off the main thread all the same: Ctrl-C works
    pool = kernel_pool(threads)
    futures = [pool.submit(fn, a, b) for a, b in zip(bounds, bounds[1:], strict=False)]
    try:
        for f in futures:
            wait_result(f)
    except BaseException as e:
        if not isinstance(e, Exception):  # Ctrl-C: the kernel calls cannot be stopped
            drop_pool(threads, pool, futures)
        raise


def wait_result(future, poll: float = 0.2):
    """``future.result()``, waiting in short steps so that Ctrl-C (SIGINT) reaches the main
    thread while a compiled kernel runs on another one: an untimed wait is not woken when the
    signal lands on the kernel's thread, and a kernel in compiled code never looks at it."""
    while True:
        try:
            return future.result(timeout=poll)
        except TimeoutError:
            continue


def memory_budget() -> int:
    """Bytes one chunk's record arrays may take: ``LOBA_MEMORY_BUDGET`` (bytes, or with a
    K/M/G suffix), else half this machine's memory."""
    env = os.environ.get("LOBA_MEMORY_BUDGET", "").strip()
    if env:
        units = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
        m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?", env, re.IGNORECASE)
        if not m or float(m.group(1)) <= 0:
            raise ValueError(
                f"LOBA_MEMORY_BUDGET must be a size such as 4G or 500M, not '{env[:40]}'."
            )
        return int(float(m.group(1)) * units[m.group(2).upper()])
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 8 * 2**30
    return total // 2


def game_bytes(spec: GameSpec, detail_rows: int) -> int:
    """Memory one game takes while its chunk is played and turned into tables: the record
    arrays (:meth:`GameSpec.empty_outputs`), plus as much again for the main tables' frames."""
    total = 0
    for t in spec.tables:
        if t.detail and not detail_rows:
            continue
        shape = t.empty_array(1, spec.max_seats, 1).shape
        item = 4 if t.detail else 8
        n = int(np.prod(shape[1:])) * (detail_rows if t.detail else 1)
        total += n * item * (1 if t.detail else 2)
    return total


def check_chunk_memory(spec, rules, chunk: int, record_detail: bool, resume: bool = False):
    """Refuse, in one sentence naming a chunk size that fits, a chunk whose arrays would take
    more than :func:`memory_budget`."""
    rows = spec.detail_cap(rules) if record_detail else 0
    per = game_bytes(spec, rows)
    budget = memory_budget()
    need = per * chunk
    if need <= budget:
        return
    fit = budget // per
    what = f"with --rounds (max_rounds_per_game={rows}) " if record_detail else ""
    flag = "resume with --chunk-size" if resume else "use --chunk-size"
    cure = (
        f"{flag} {fit} or less"
        if fit >= 1
        else "one game alone needs more: lower max_rounds_per_game or leave out --rounds"
    )
    raise ValueError(
        f"A chunk of {chunk:,} games {what}needs about {human_bytes(need)} of memory, more than"
        f" the budget of {human_bytes(budget)} (half this machine's memory, or"
        f" LOBA_MEMORY_BUDGET); {cure}."
    )


def first_chunk_bytes(spec, chunk: int, n_players: int, record_detail: bool) -> int:
    """A low estimate of the disk space the first chunk's parts take (to refuse a full disk
    up front): about 8 bytes a game and 8 a seat, 32 a seat with the detail table."""
    per = 8 + 8 * n_players + (32 * n_players if record_detail else 0)
    return 64 * 1024 + per * chunk


def run_chunk(
    spec: GameSpec, R, n_players, seed, start, count, tables, detail_rows: int, labels=None
):
    """Play games ``start .. start+count-1``; returns the record arrays, one per table.

    ``tables``: (fns, params) of :meth:`GameSpec.fn_tables`; ``detail_rows``: rows per game of
    the detail table (0: not recorded); ``labels``: the seats as written, for the sentence of
    a :class:`~sim.faults.PlayFault` (an exception a seat's function raised, found out by
    :func:`sim.faults.diagnose`).
    """
    fns, params = tables
    outs = spec.empty_outputs(count, detail_rows)

    def one_slice(lo: int, hi: int) -> None:
        part = tuple(
            o[lo:hi] if (not t.detail or detail_rows) else o
            for t, o in zip(spec.tables, outs, strict=True)
        )
        spec.play_batch(R, n_players, seed, start + lo, hi - lo, fns, params, part)

    try:
        in_slices(one_slice, count)
    except NumbaError:  # (compiling, not playing)
        raise
    except Exception:
        if count == 0:
            raise

        def play(first: int, k: int, f) -> None:
            spec.play_batch(R, n_players, seed, first, k, f, params, spec.empty_outputs(k, 0))

        names = list(labels) if labels is not None else [f"seat {q}" for q in range(n_players)]
        fault = diagnose(spec, play, start, count, fns, names)
        if fault is None:
            raise
        raise fault from None
    return outs



def cpu_count() -> int:
    return os.cpu_count() or 1


# ---------------------------------------------------------------------------- streamed runs
class ChunkError(RunFailure):
    """A chunk failed on its retry too; the run stopped. One sentence naming the chunk."""



@dataclass(frozen=True)
class ChunkJob:
    """Everything a process needs to play any chunk of one run (small and picklable).

    Chunk ``k`` is games ``first_game + k*chunk_size`` onwards, at most ``chunk_size`` of them.
    """

    rules_id: str
    seat_specs: tuple[str, ...]  # portable seat strings, to load the policies
    seat_labels: tuple[str, ...]  # as the user wrote them, for the tables
    seed: int
    first_game: int
    games: int
    chunk_size: int
    record_rounds: bool
    encode: bool  # True: return Parquet parts (a run directory); False: only the totals
    fail: str = ""  # test hook, LOBA_FAIL_CHUNK of the starting process
    token: str = ""  # unique per run
    knob_columns: tuple[str, ...] = ()  # rule knobs every part carries as columns
    arrays: bool = False  # True: return the record arrays themselves (sim.simulate)
    local: Setup | None = field(default=None, compare=False, repr=False)  # (not pickled)

    def __getstate__(self) -> dict:
        return {**self.__dict__, "local": None}  # another process rebuilds it (setup.load)

    @classmethod
    def of(cls, s: Setup, seed, games, chunk_size, record_rounds, **kw) -> ChunkJob:
        """The job of a run of setup ``s``: games ``0 .. games-1`` unless ``first_game``."""
        rules_id, specs = s.portable
        labels, first = kw.pop("seat_labels", tuple(s.labels)), kw.pop("first_game", 0)
        return cls(
            rules_id, specs, labels, int(seed), int(first), int(games), int(chunk_size),
            bool(record_rounds), local=s, **kw
        )  # fmt: skip

    def setup(self) -> Setup:
        """Game, rules, seats and the kernel's inputs: the run's own setup in the process that
        made the job, else built once per process from the portable form."""
        return self.local if self.local is not None else load(self.rules_id, self.seat_specs)

    @property
    def n_chunks(self) -> int:
        return -(-self.games // self.chunk_size)

    @property
    def spec(self) -> GameSpec:
        return self.setup().spec

    def chunk_games(self, k: int) -> tuple[int, int]:
        a = k * self.chunk_size
        return self.first_game + a, min(self.chunk_size, self.games - a)

    def piece(self, k: int) -> Piece:
        """Chunk ``k`` as a whole piece."""
        first, count = self.chunk_games(k)
        return Piece(k, first, count, part_name(k, self.n_chunks)[: -len(".parquet")])

    def pieces(self):
        """Every chunk, lazily (a run of 10^12 games builds no list)."""
        return (self.piece(k) for k in range(self.n_chunks))


@dataclass
class ChunkResult:
    k: Piece  # the games played (chunk k, or a slice of it on a resume with a smaller chunk)
    parts: dict | None  # table -> Parquet bytes
    agg: dict  # summary totals of the chunk
    seconds: float  # kernel time
    outs: tuple | None = None  # the record arrays (ChunkJob.arrays)



_KERNEL_LOCK = threading.RLock()  # one kernel call (or pipelined run) at a time per process


def warm(job: ChunkJob, threads: int | None = None) -> float:
    """Load (or compile) the kernel for this run in this process; returns the seconds taken."""
    t = time.perf_counter()
    s = job.setup()
    rr = s.spec.detail_cap(s.rules) if job.record_rounds else 0
    with _KERNEL_LOCK:
        if threads:
            set_threads(threads)
        run_chunk(s.spec, s.R, s.n_players, job.seed, job.first_game, 0, s.tables, rr)
    return time.perf_counter() - t


def _maybe_fail(job: ChunkJob, k: int) -> None:
    if not job.fail:
        return
    which, _, mode = job.fail.partition(":")
    if which.strip() != str(k):
        return
    if mode == "once":
        flag = Path(tempfile.gettempdir()) / f"loba-fail-{job.token}-{k}"
        try:
            os.close(os.open(flag, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return
    raise RuntimeError(f"injected failure (LOBA_FAIL_CHUNK={job.fail})")


def play_chunk(job: ChunkJob, k, threads: int | None = None) -> ChunkResult:
    """Play chunk ``k`` of ``job`` (a chunk number or a :class:`Piece`) in this process: its
    Parquet parts and summary totals.

    The same function runs in the local backend and in Dask workers, so both give the same
    bytes. ``threads``: kernel threads (None: leave as set).
    """
    piece = k if isinstance(k, Piece) else job.piece(k)
    _maybe_fail(job, piece.k)
    s = job.setup()
    spec, rules = s.spec, s.rules
    start, count = piece.first, piece.count
    rr = spec.detail_cap(rules) if job.record_rounds else 0
    with _KERNEL_LOCK:
        if threads:
            set_threads(threads)
        t = time.perf_counter()
        outs = run_chunk(
            spec, s.R, s.n_players, job.seed, start, count, s.tables, rr, job.seat_labels
        )
        t = time.perf_counter() - t
    return finish_chunk(job, piece, outs, t, threads or get_threads())


def finish_chunk(job: ChunkJob, piece: Piece, outs, t: float, threads: int) -> ChunkResult:
    """A played chunk's record arrays as what the job wants: the arrays themselves, or its
    Parquet parts (when encoded) and summary totals."""
    if job.arrays:
        return ChunkResult(piece, None, {}, t, outs)
    s = job.setup()
    res = Results.from_arrays(
        s.spec,
        s.rules,
        list(job.seat_labels),
        job.seed,
        piece.first,
        outs,
        elapsed=t,
        threads=threads,
        detail=job.record_rounds,
        knob_columns=job.knob_columns,
    )
    del outs
    return ChunkResult(piece, res.parts() if job.encode else None, res.aggregates(), t)


def play_retried(job: ChunkJob, k) -> ChunkResult:
    """:func:`play_chunk`, retried once: a transient failure (disk, memory) should not stop a
    long run. A :class:`~sim.faults.PlayFault` is not retried (it happens again)."""
    try:
        return play_chunk(job, k)
    except PlayFault:
        raise
    except Exception:
        return play_chunk(job, k)


def stopped_by(job: ChunkJob, k, exc: BaseException, run: RunDir | None) -> BaseException:
    """What to raise when ``exc`` stopped piece ``k`` of a run (None: while loading the
    kernel): a seat's fault with what is kept, a chunk that failed twice, or a loading error
    as it is."""
    if isinstance(exc, PlayFault):
        return exc.kept(kept_words(run, "once the policy is fixed"))
    if k is None:
        return exc
    return chunk_failed(job, k, exc, run)


def finished(run: RunDir) -> str:
    """"N finished chunks" ("1 finished chunk")."""
    n = len(run.done)
    return f"{n} finished chunk{'' if n == 1 else 's'}"


def kept_words(run: RunDir | None, until: str = "") -> str:
    """ "; the run stopped; the N finished chunks are kept in 'P' and 'loba simulate --resume
    P' finishes the run [until]" (the run's list written first), or "" without a run."""
    if run is None:
        return ""
    try:
        run.commit()
    except OSError:
        run.drop_pending()
    p, then = run.path, f" {until}" if until else ""
    if not run.done:
        return (
            f"; the run stopped before a chunk was finished and 'loba simulate --resume {p}'"
            f" starts it again{then}"
        )
    return (
        f"; the run stopped, the {finished(run)} ({run.games_done()} games)"
        f" are kept in '{p}' and 'loba simulate --resume {p}' finishes the run{then}"
    )


def chunk_failed(job: ChunkJob, k, exc: BaseException, run: RunDir | None) -> ChunkError:
    """The one sentence for a chunk (a number or a :class:`Piece`) that failed twice."""
    piece = k if isinstance(k, Piece) else job.piece(k)
    start, count = piece.first, piece.count
    if run is not None:  # list what was written before saying what is kept
        try:
            run.commit()
        except OSError:
            run.drop_pending()
    reason = f"{type(exc).__name__}: {exc}".strip().rstrip(".").replace("\n", " ")
    where = (
        f"; the {finished(run)} are kept in '{run.path}' and"
        f" 'loba simulate --resume {run.path}' finishes the run"
        if run is not None
        else ""
    )
    return ChunkError(
        f"Chunk {piece.k} (games {start} to {start + count - 1}) failed twice ({reason}); the"
        f" run stopped{where}."
    )


def write_failed(run: RunDir, piece: Piece | None, exc: BaseException) -> ChunkError:
    """The one sentence for a run directory that could not be written (a full disk, a
    read-only file system): what is kept and the command that finishes the run."""
    what = f"chunk {piece.k}" if piece is not None else "the manifest"
    p = run.path
    return ChunkError(
        f"Could not write {what} to '{p}' ({why(exc)}); the run stopped, the"
        f" {finished(run)} ({run.games_done()} games) are kept and"
        f" 'loba simulate --resume {p}' finishes the run once there is room."
    )


class Sink:
    """Where finished chunks go: the run directory (if any), the totals and the progress."""

    def __init__(self, job, run: RunDir | None, progress, total: int, done: int):
        self.job, self.run, self.progress = job, run, progress
        self.total, self.done = total, done
        self.agg = aggregate(job.spec, None, len(job.seat_labels))
        self.t_made = time.perf_counter()
        self.t0: float | None = None
        self.t_last: float | None = None  # when the last chunk was put
        self.games = 0
        self.arrays: list[tuple] = []  # the record arrays of each chunk (ChunkJob.arrays)

    def start(self) -> None:
        """The kernel is loaded everywhere: timing starts."""
        self.t0 = time.perf_counter()

    def phases(self) -> dict[str, float]:
        """Seconds spent so far on loading the kernel (and starting the backend), playing and
        writing the chunks, and on what came after the last one (the summary)."""
        now = time.perf_counter()
        t0 = self.t_made if self.t0 is None else self.t0
        last = now if self.t_last is None else self.t_last
        return {"load": t0 - self.t_made, "play": last - t0, "finish": now - last}

    def stop(self, piece: Piece | None, e: OSError) -> ChunkError:
        """The run directory cannot be written: keep what is listed (listing what was written
        if that still works), remove what is not, and say how to finish."""
        run = self.run
        try:
            run.commit(self.elapsed)
        except OSError:
            run.drop_pending()
        return write_failed(run, piece, e)

    @property
    def elapsed(self) -> float:
        return 0.0 if self.t0 is None else time.perf_counter() - self.t0

    def put(self, res: ChunkResult) -> None:
        if self.run is not None:
            try:
                self.run.write_piece(res.k, res.parts)
                self.run.maybe_commit(self.elapsed)
            except OSError as e:
                raise self.stop(res.k, e) from e
        if res.outs is not None:
            self.arrays.append(res.outs)
        else:
            self.agg = add_aggregates(self.agg, res.agg)
        n = res.k.count
        self.games += n
        self.done += n
        self.t_last = time.perf_counter()
        if self.progress is not None:
            self.progress(self.done, self.total)


class _Ahead:
    """A chunk whose slices are queued on the kernel's threads (:func:`run_local`)."""

    def __init__(self, job: ChunkJob, k, threads: int):
        self.piece = k if isinstance(k, Piece) else job.piece(k)
        self.k, self.threads = k, threads
        self.futures: list = []
        self.failed = False
        self.t = time.perf_counter()
        try:
            _maybe_fail(job, self.piece.k)
        except Exception:
            self.failed = True  # (played again, as a retry, when its turn comes)
            return
        s = job.setup()
        spec, count = s.spec, self.piece.count
        rr = spec.detail_cap(s.rules) if job.record_rounds else 0
        self.outs = outs = spec.empty_outputs(count, rr)
        fns, params = s.tables
        first = self.piece.first

        def one_slice(lo: int, hi: int) -> None:
            part = tuple(
                o[lo:hi] if (not t.detail or rr) else o
                for t, o in zip(spec.tables, outs, strict=True)
            )
            spec.play_batch(s.R, s.n_players, job.seed, first + lo, hi - lo, fns, params, part)

        pool = kernel_pool(threads)
        bounds = slice_bounds(count, threads)
        pairs = zip(bounds, bounds[1:], strict=False)
        self.futures = [pool.submit(one_slice, a, b) for a, b in pairs]

    def wait(self) -> bool:
        """Wait for every slice; False if one failed (the chunk is then played again)."""
        for f in self.futures:
            try:
                wait_result(f)
            except Exception:
                self.failed = True
        return not self.failed


def run_local(job: ChunkJob, todo: list[int], sink: Sink, threads: int | None) -> dict:
    """The ``local`` backend: chunks one after another in this process, kernel threads each.

    Pipelined: the next chunk's slices are queued on the kernel's threads before this chunk is
    turned into its parts and totals, so the threads go from one chunk straight to the next
    (no idle tail at each chunk's end, no wait while the main thread encodes and writes). A
    chunk that fails is played again through :func:`play_chunk` (one retry, a seat's fault
    diagnosed there), as :func:`play_retried` does. The tables are the same bytes: game ``i``
    writes only row ``i``."""
    used = set_threads(threads)
    warm(job)
    sink.start()
    queue: list[_Ahead] = []
    todo = iter(todo)
    s = job.setup()
    rr = s.spec.detail_cap(s.rules) if job.record_rounds else 0
    # the chunk played now and the one queued behind it, when two chunks fit in memory
    depth = 2 if 2 * game_bytes(s.spec, rr) * job.chunk_size <= memory_budget() else 1
    with _KERNEL_LOCK:
        try:
            for _ in range(depth):
                k = next(todo, None)
                if k is not None:
                    queue.append(_Ahead(job, k, used))
            while queue:
                head = queue[0]
                ok = head.wait()
                queue.pop(0)
                k = next(todo, None)
                if ok and k is not None:
                    queue.append(_Ahead(job, k, used))
                res = None
                if ok:
                    try:
                        t = time.perf_counter() - head.t
                        res = finish_chunk(job, head.piece, head.outs, t, used)
                    except Exception:
                        res = None  # (encoding failed: played again, as a retry)
                head.outs = None
                if res is None:
                    for other in queue:  # let the queued chunk finish before the retry
                        other.wait()
                    try:
                        res = play_chunk(job, head.k)
                    except Exception as e:
                        raise stopped_by(job, head.k, e, sink.run) from None
                if not ok and k is not None:
                    queue.append(_Ahead(job, k, used))
                sink.put(res)
        except BaseException as e:
            if not isinstance(e, Exception):  # Ctrl-C: the kernel calls cannot be stopped
                pool = _pools.get(used)
                if pool is not None:
                    drop_pool(used, pool, [f for a in queue for f in a.futures])
            raise
    return {"backend": "local", "threads": used}
