"""Batches of games: validation, seating, threads, chunking, progress, backends.

:func:`simulate` is the Python entry point for runs that fit in memory. It validates everything
first (a bad rule, seat or count raises :class:`~sim.rules.RuleError` / :class:`SeatError` /
``ValueError`` with one sentence), then runs the compiled kernel chunk by chunk. Game ``i`` of a
run always draws from the random stream of ``(seed, i)``, so any thread count, chunk size or
backend gives bit-identical tables.

:func:`stream_run` and :func:`resume_run` are what ``loba simulate`` uses: chunks of
consecutive games are played by a backend (``local``: this process, kernel threads; ``dask``: the
tasks of a Dask cluster, :mod:`sim.dask_backend`) and each finished chunk goes straight to disk
as one Parquet part per table (:class:`sim.results.RunDir`), so memory stays bounded whatever
the number of games, and an interrupted run resumes where it stopped.

Test hook: ``LOBA_FAIL_CHUNK=K`` makes chunk K raise on every attempt, ``LOBA_FAIL_CHUNK=K:once``
on its first attempt only (read by the process that starts the run and handed to the backend,
so it reaches Dask workers too).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import signal
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np
from numba.core.errors import NumbaError

from .faults import PlayFault, RunFailure, diagnose
from .game import GameSpec
from .games import get_game
from .house import is_house_file, load_house_rules
from .policies import Seat, SeatError, check_seat_rules, parse_seats
from .results import (
    KNOB_COLUMNS,
    MAX_GAMES,
    Piece,
    Results,
    RunDir,
    RunDirError,
    add_aggregates,
    aggregate,
    base_manifest,
    check_knob_columns,
    human_bytes,
    part_name,
    summarize,
    why,
)
from .rules import RuleSet

DEFAULT_CHUNK = 8192
ROUNDS_CHUNK = 512  # per-round records take max_rounds_per_game x seats rows per game
BACKENDS = ("local", "dask")


def chunk_games(games: int, chunk_size: int | None, record_rounds: bool) -> int:
    """Games per chunk of a run: ``chunk_size``, else 8192 (512 when rounds are recorded), at
    most the run's games."""
    return min(chunk_size or (ROUNDS_CHUNK if record_rounds else DEFAULT_CHUNK), int(games))


def house_label(rules) -> str | None:
    """The label of a house-rules file (None for anything else, or a file without one)."""
    return load_house_rules(rules).label if is_house_file(rules) else None


def resolve_rules(rules, game=None) -> RuleSet:
    """A RuleSet from a RuleSet, a rules id (``pagat(...)``, ``moon:bid``), a house-rules file
    (a ``str`` ending in ``.toml`` or a ``Path``, :mod:`sim.house`) or None (the game's default
    preset); ``game``: a name or spec (None: the game the id names, or Loba)."""
    from .rules import parse_rules_id

    if is_house_file(rules):
        return load_house_rules(rules, None if game is None else get_game(game).name).rules
    if isinstance(rules, RuleSet):
        if game is not None and get_game(game).name != rules.game:
            raise ValueError(f"The rules {rules.id} are not rules of {get_game(game).title}.")
        return rules
    if rules is None:
        return get_game(game).rules.make()
    return parse_rules_id(str(rules), None if game is None else get_game(game).name)


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
    if threads <= 1 or count < 128:
        if threading.current_thread() is not threading.main_thread():
            fn(0, count)
            return
        threads, bounds = 1, [0, count]  # off the main thread all the same: Ctrl-C works
    else:
        pieces = min(4 * threads, max(threads, count // 64))
        bounds = [count * k // pieces for k in range(pieces + 1)]
    pool = _pools.get(threads)
    if pool is None:
        pool = _pools[threads] = ThreadPoolExecutor(
            threads, thread_name_prefix="loba-kernel", initializer=_deaf_to_ctrl_c
        )
    futures = [pool.submit(fn, a, b) for a, b in zip(bounds, bounds[1:], strict=False)]
    try:
        for f in futures:
            wait_result(f)
    except BaseException as e:
        if not isinstance(e, Exception):  # Ctrl-C: the kernel calls cannot be stopped
            for f in futures:
                f.cancel()
            if _pools.get(threads) is pool:  # later calls get fresh threads, not stuck ones
                del _pools[threads]
            pool.shutdown(wait=False, cancel_futures=True)
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


def check_run(rules, seats, games, seed, game=None) -> tuple[GameSpec, RuleSet, list[Seat]]:
    """Validate what defines a run; one-sentence errors. Returns (spec, rules, seats); the game
    is ``game`` or the one the rules name. With a house-rules file, ``seats`` None means the
    file's seats (and seats given must agree with any the file names)."""
    if is_house_file(rules):
        house = load_house_rules(rules, None if game is None else get_game(game).name)
        rules, seats = house.rules, house.pick_seats(seats)
    rules = resolve_rules(rules, game)
    spec = get_game(rules.game)
    if seats is None:
        seats = spec.default_seats
    seat_list = parse_seats(seats, game=spec)
    for s in seat_list:
        if s.game != spec.name:
            raise SeatError(f"Seat '{s.label}' plays {s.game}, not {spec.title}.")
    rules.check_players(len(seat_list))
    check_seat_rules(seat_list, rules)
    if (
        isinstance(games, bool)
        or not isinstance(games, int | np.integer)
        or not 1 <= games <= MAX_GAMES
    ):
        raise ValueError(
            f"The number of games must be a whole number of at least 1 and at most 10^12,"
            f" not {games}."
        )
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= seed < 2**63:
        raise ValueError(f"The seed must be a whole number from 0 to 2^63-1, not {seed}.")
    return spec, rules, seat_list


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


def simulate(
    rules=None,
    seats=None,
    games: int = 1000,
    seed: int = 0,
    threads: int | None = None,
    record_rounds: bool = False,
    chunk_size: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    start: int = 0,
    game=None,
    knob_columns=(),
) -> Results:
    """Play ``games`` complete games and return their :class:`Results`.

    ``rules``: a RuleSet, a rules id string (``"pagat(elimination_score=151)"``,
    ``"moon:bid"``), a house-rules file (``"house.toml"`` or a ``Path``, :mod:`sim.house`: its
    seats when ``seats`` is None, its label in ``res.manifest()``) or None (the game's
    default). ``seats``: a comma-separated seat string or a list (one entry per player; None:
    the game's default seating). ``game``: a game name (None: the one the rules name, else
    Loba). ``record_rounds``: also record the game's detail table (Loba's rounds).
    ``progress(done, total)`` is called after every chunk. ``knob_columns``: rule knobs
    added to every table as columns holding this run's values (a sweep's cells,
    :func:`sim.results.add_knob_columns`).
    """
    label = house_label(rules)
    spec, rules, seat_list = check_run(rules, seats, games, seed, game)
    knob_columns = check_knob_columns(rules, knob_columns)
    n = len(seat_list)
    used_threads = set_threads(threads)
    R = rules.to_array()
    tables = spec.fn_tables(seat_list)
    rr = spec.detail_cap(rules) if record_rounds else 0
    _check_backend("local", None, None, chunk_size, threads)
    chunk = chunk_games(games, chunk_size, record_rounds)
    check_chunk_memory(spec, rules, chunk, bool(record_rounds))
    need, budget = games * game_bytes(spec, 0), memory_budget()
    if need > budget:  # every table is kept in memory here
        raise ValueError(
            f"{games:,} games held in memory need about {human_bytes(need)}, more than the"
            f" budget of {human_bytes(budget)} (half this machine's memory, or"
            " LOBA_MEMORY_BUDGET); play fewer, or stream them to disk with"
            " 'loba simulate --out DIR'."
        )
    parts = []
    labels = [s.label for s in seat_list]
    from .isolated import chunk_results, isolate, seats_with_plugins

    if isolate(seats_with_plugins(seat_list)):  # plug-in code plays in a child process
        job = ChunkJob(
            rules.id,
            tuple(portable_seat(s) for s in seat_list),
            tuple(labels),
            int(seed),
            start,
            games,
            chunk,
            bool(record_rounds),
            encode=False,
            arrays=True,
        )
        t0 = time.perf_counter()

        def started() -> None:
            nonlocal t0
            t0 = time.perf_counter()

        done = 0
        for res in chunk_results(job, job.pieces(), threads, None, started):
            parts.append(res.outs)
            done += res.k.count
            if progress is not None:
                progress(done, games)
    else:
        run_chunk(spec, R, n, seed, start, 0, tables, rr)  # load (or compile) before timing
        t0 = time.perf_counter()
        done = 0
        while done < games:
            k = min(chunk, games - done)
            parts.append(run_chunk(spec, R, n, seed, start + done, k, tables, rr, labels))
            done += k
            if progress is not None:
                progress(done, games)
    elapsed = time.perf_counter() - t0
    outs = tuple(np.concatenate(a) for a in zip(*parts, strict=True))
    res = Results.from_arrays(
        spec,
        rules,
        seat_list,
        int(seed),
        start,
        outs,
        elapsed,
        used_threads,
        bool(record_rounds),
        knob_columns,
    )
    if label is not None:
        res.extra["label"] = label  # goes into the manifest of res.write()
    return res


def cpu_count() -> int:
    return os.cpu_count() or 1


# ---------------------------------------------------------------------------- streamed runs
class ChunkError(RunFailure):
    """A chunk failed on its retry too; the run stopped. One sentence naming the chunk."""


def portable_seat(seat: Seat) -> str:
    """The seat string with plug-in file paths (and the files of file rules, ``table:PATH``)
    made absolute, so another process (a Dask worker, a later ``--resume`` from another
    folder) loads the same module or file."""

    def fix(ref: str) -> str:
        mod, sep, name = ref.rpartition(":")
        if sep and (mod.endswith(".py") or "/" in mod or "\\\\" in mod):
            return f"{Path(mod).expanduser().resolve()}:{name}"
        return ref

    def fix_addon(a):
        if a.path:
            return dataclasses.replace(
                a, ref=f"{a.ref.partition(':')[0]}:{Path(a.path).expanduser().resolve()}"
            )
        return dataclasses.replace(a, ref=fix(a.ref))

    addons = tuple(fix_addon(a) for a in seat.addons)
    return dataclasses.replace(seat, policy_ref=fix(seat.policy_ref), addons=addons).label


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

    @property
    def n_chunks(self) -> int:
        return -(-self.games // self.chunk_size)

    @property
    def spec(self) -> GameSpec:
        return get_game(resolve_rules(self.rules_id).game)

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


@functools.lru_cache(maxsize=8)
def _setup(rules_id: str, seat_specs: tuple[str, ...]):
    """Game, rules, seats and the kernel's tables, built once per process and run."""
    rules = resolve_rules(rules_id)
    spec = get_game(rules.game)
    seat_list = parse_seats(list(seat_specs), game=spec)
    return spec, rules, seat_list, rules.to_array(), spec.fn_tables(seat_list)


_KERNEL_LOCK = threading.Lock()  # one kernel call at a time per process; it uses every thread


def warm(job: ChunkJob, threads: int | None = None) -> float:
    """Load (or compile) the kernel for this run in this process; returns the seconds taken."""
    t = time.perf_counter()
    spec, rules, seats, R, tables = _setup(job.rules_id, job.seat_specs)
    rr = spec.detail_cap(rules) if job.record_rounds else 0
    with _KERNEL_LOCK:
        if threads:
            set_threads(threads)
        run_chunk(spec, R, len(seats), job.seed, job.first_game, 0, tables, rr)
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
    spec, rules, seats, R, tables = _setup(job.rules_id, job.seat_specs)
    start, count = piece.first, piece.count
    rr = spec.detail_cap(rules) if job.record_rounds else 0
    with _KERNEL_LOCK:
        if threads:
            set_threads(threads)
        t = time.perf_counter()
        outs = run_chunk(spec, R, len(seats), job.seed, start, count, tables, rr, job.seat_labels)
        t = time.perf_counter() - t
    if job.arrays:
        return ChunkResult(piece, None, {}, t, outs)
    res = Results.from_arrays(
        spec,
        rules,
        list(job.seat_labels),
        job.seed,
        start,
        outs,
        elapsed=t,
        threads=threads or get_threads(),
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
        self.agg = add_aggregates(self.agg, res.agg)
        n = res.k.count
        self.games += n
        self.done += n
        self.t_last = time.perf_counter()
        if self.progress is not None:
            self.progress(self.done, self.total)


def run_local(job: ChunkJob, todo: list[int], sink: Sink, threads: int | None) -> dict:
    """The ``local`` backend: chunks one after another in this process, kernel threads each."""
    used = set_threads(threads)
    warm(job)
    sink.start()
    for k in todo:
        try:
            res = play_retried(job, k)
        except Exception as e:
            raise stopped_by(job, k, e, sink.run) from None
        sink.put(res)
    return {"backend": "local", "threads": used}


@dataclass
class RunReport:
    """What a streamed run did: its summary and where it is."""

    summary: dict  # Results.summary_dict()-style figures of the whole run
    rules_id: str
    seat_labels: list[str]
    seed: int
    games: int  # games played by this call
    elapsed: float  # seconds this call spent playing and writing (after loading the kernel)
    backend: dict  # {"backend": "local", "threads": 2} or the Dask details
    path: Path | None = None
    complete: bool = True
    game: str = "loba"
    replayed: list = dataclasses.field(default_factory=list)  # damaged parts played again
    removed: list = dataclasses.field(default_factory=list)  # unlisted leftovers removed
    chunk_size: int = 0  # games per chunk
    phases: dict = dataclasses.field(default_factory=dict)  # seconds: load, play, finish

    @property
    def games_per_second(self) -> float:
        return self.games / self.elapsed if self.elapsed > 0 else float("inf")


def _check_backend(backend: str, scheduler, workers, chunk_size, threads) -> None:
    from .isolated import isolation

    isolation()  # a bad LOBA_ISOLATE fails before anything is written
    if threads is not None:
        check_threads(threads)
    if backend not in BACKENDS:
        raise ValueError(f"Unknown backend '{backend}': choose local or dask.")
    if scheduler is not None and backend != "dask":
        raise ValueError("--scheduler is only used with --backend dask.")
    if workers is not None:
        if backend != "dask":
            raise ValueError("--workers is only used with --backend dask.")
        if scheduler is not None:
            raise ValueError(
                "--workers sets the size of a local Dask cluster; it cannot be used with"
                " --scheduler."
            )
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"--workers must be a whole number of at least 1, not {workers}.")
    if chunk_size is not None:
        check_whole("--chunk-size", chunk_size, 1, MAX_CHUNK)


def _execute(job, run, todo, progress, total, done, backend, scheduler, workers, threads):
    sink = Sink(job, run, progress, total, done)
    if backend == "dask":
        from .dask_backend import run_dask

        info = run_dask(
            job,
            todo,
            sink,
            scheduler=scheduler,
            workers=workers,
            threads=threads,
            begin=run.begin_session if run is not None else None,
        )
    else:
        from .isolated import run_child, wants_child

        child = wants_child(job)  # a plug-in seat: chunks in a child process (sim.isolated)
        if run is not None:
            run.begin_session({"backend": "local", "threads": set_threads(threads)})
        info = (run_child if child else run_local)(job, todo, sink, threads)
    return sink, info


def stream_run(
    rules=None,
    seats=None,
    games: int = 1000,
    seed: int = 0,
    *,
    game=None,
    out_dir=None,
    overwrite: bool = False,
    threads: int | None = None,
    record_rounds: bool = False,
    chunk_size: int | None = None,
    backend: str = "local",
    scheduler: str | None = None,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    label: str | None = None,
    knob_columns=(),
) -> RunReport:
    """Play a run of any size with bounded memory; what ``loba simulate`` does.

    With ``out_dir`` every finished chunk is written at once as Parquet parts of a run
    directory (resumable with :func:`resume_run`) and the summary is computed from the disk;
    without it only the summary totals are kept. ``backend``: ``"local"`` (kernel threads of
    this process) or ``"dask"`` (``scheduler`` address, or a local cluster of ``workers``
    processes). ``progress(done, total)`` is called after every chunk. ``game``, ``rules``,
    ``seats``: as for :func:`simulate`. ``label``: a name for the run, kept in its manifest
    (default: the label of a house-rules file given as ``rules``). ``knob_columns``: rule
    knobs every part carries as columns (:func:`sim.results.add_knob_columns`), listed in the
    manifest so that a resumed run's parts carry them too.
    """
    label = house_label(rules) if label is None else label
    spec, rules, seat_list = check_run(rules, seats, games, seed, game)
    knob_columns = check_knob_columns(rules, knob_columns)
    _check_backend(backend, scheduler, workers, chunk_size, threads)
    chunk = chunk_games(games, chunk_size, record_rounds)
    check_chunk_memory(spec, rules, chunk, bool(record_rounds and out_dir is not None))
    labels = [s.label for s in seat_list]
    job = ChunkJob(
        rules_id=rules.id,
        seat_specs=tuple(portable_seat(s) for s in seat_list),
        seat_labels=tuple(labels),
        seed=int(seed),
        first_game=0,
        games=int(games),
        chunk_size=int(chunk),
        record_rounds=bool(record_rounds and out_dir is not None),
        encode=out_dir is not None,
        fail=os.environ.get("LOBA_FAIL_CHUNK", ""),
        token=uuid.uuid4().hex,
        knob_columns=knob_columns,
    )
    run = None
    if out_dir is not None:
        man = base_manifest(spec, rules, labels, seed, 0, games, job.record_rounds, knob_columns)
        man.update(seat_specs=list(job.seat_specs), chunk_size=job.chunk_size, chunks=job.n_chunks)
        if label is not None:
            man["label"] = str(label)
        need = first_chunk_bytes(spec, chunk, len(labels), job.record_rounds)
        run = RunDir.create(out_dir, man, overwrite=overwrite, need_bytes=need)
    return _finish(
        job,
        run,
        run.pieces() if run is not None else job.pieces(),
        0,
        progress,
        backend,
        scheduler,
        workers,
        threads,
        fresh=True,
    )


def _finish(
    job, run, todo, done0, progress, backend, scheduler, workers, threads, fresh=False
) -> RunReport:
    try:
        try:
            sink, info = _execute(
                job, run, todo, progress, job.games, done0, backend, scheduler, workers, threads
            )
        except ValueError:
            # refused before any game was kept (e.g. an unreachable --scheduler): leave no
            # half-made run directory behind to block the corrected command
            if fresh and run is not None and not run.parts and not run.pending:
                run.discard()
            raise
        except BaseException:
            if run is not None:  # Ctrl-C, a failed chunk: list every piece already written
                try:
                    run.commit()
                except OSError:
                    run.drop_pending()
            raise
        if run is not None:
            try:
                complete = run.finish()
            except OSError as e:
                raise sink.stop(None, e) from e
            summary = run.summary()
        else:
            complete = True
            summary = summarize(job.spec, sink.agg, job.seat_labels, sink.elapsed)
    finally:
        if run is not None:
            run.release()
        if job.fail:  # the test hook's marks (same machine for local runs and local clusters)
            for f in Path(tempfile.gettempdir()).glob(f"loba-fail-{job.token}-*"):
                f.unlink(missing_ok=True)
    return RunReport(
        summary=summary,
        rules_id=job.rules_id,
        seat_labels=list(job.seat_labels),
        seed=job.seed,
        games=sink.games,
        elapsed=sink.elapsed,
        backend=info,
        path=run.path if run is not None else None,
        complete=complete,
        game=job.spec.name,
        replayed=[p.text for p in run.replayed] if run is not None else [],
        removed=list(run.removed) if run is not None else [],
        chunk_size=job.chunk_size,
        phases=sink.phases(),
    )


def resume_run(
    run_dir,
    *,
    chunk_size: int | None = None,
    threads: int | None = None,
    backend: str = "local",
    scheduler: str | None = None,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> RunReport:
    """Finish an interrupted run directory: play the chunks it lacks, then mark it complete.

    Rules, seats, seed, games and chunk size come from its manifest, so the finished tables are
    the ones an uninterrupted run writes; a listed part that is missing or unreadable is played
    again. Refuses (one sentence, :class:`RunDirError`) a missing, foreign, corrupt or complete
    directory, and one that another process is writing. ``chunk_size``: play the missing
    games in parts of at most this many (never changes a row: game i is game i; only parts
    smaller than the run's chunks are made, e.g. when a chunk does not fit in memory).
    """
    _check_backend(backend, scheduler, workers, chunk_size, threads)
    pre = RunDir.read(run_dir)
    size = min(chunk_size or pre.chunk_size, pre.chunk_size)
    rules = resolve_rules(pre.manifest["rules_id"], pre.spec.name)
    check_chunk_memory(
        pre.spec, rules, size, bool(pre.manifest.get("rounds_recorded")), resume=True
    )
    run = RunDir.resume(run_dir)
    try:
        m = run.manifest
        specs = m.get("seat_specs") or m["seats"]
        game = m.get("game", "loba")  # run directories from before Moon name no game
        _, rules, seat_list = check_run(m["rules_id"], specs, m["games"], m["seed"], game)
        job = ChunkJob(
            rules_id=rules.id,
            seat_specs=tuple(portable_seat(s) for s in seat_list),
            seat_labels=tuple(m["seats"]),
            seed=m["seed"],
            first_game=m["first_game"],
            games=m["games"],
            chunk_size=m["chunk_size"],
            record_rounds=bool(m.get("rounds_recorded")),
            encode=True,
            fail=os.environ.get("LOBA_FAIL_CHUNK", ""),
            token=uuid.uuid4().hex,
            knob_columns=tuple(m.get(KNOB_COLUMNS, ())),
        )
        if job.n_chunks != run.n_chunks or len(seat_list) != m.get("n_players"):
            raise RunDirError(f"'{run.path / 'manifest.json'}' is corrupt: its counts disagree.")
    except BaseException:
        run.release()
        raise
    return _finish(
        job,
        run,
        run.pieces(size),
        run.games_done(),
        progress,
        backend,
        scheduler,
        workers,
        threads,
    )
