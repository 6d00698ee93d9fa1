"""Runs: :func:`simulate` (in memory) and :func:`stream_run` / :func:`resume_run` (what
``loba simulate`` does), on one path.

Each validates everything first (:func:`sim.setup.setup`: a bad rule, seat or count raises
:class:`~sim.rules.RuleError` / :class:`~sim.policies.SeatError` / ``ValueError`` with one
sentence), then hands the chunks of the run (:mod:`sim.chunks`) to a backend: ``local``
(kernel threads of this process; plug-in seats play in a child process, :mod:`sim.isolated`)
or ``dask`` (the tasks of a Dask cluster, :mod:`sim.dask_backend`). A streamed run writes
each finished chunk at once as one Parquet part per table (:class:`sim.rundir.RunDir`), so
memory stays bounded whatever the number of games, and an interrupted run resumes where it
stopped; :func:`simulate` keeps the record arrays instead and returns
:class:`~sim.results.Results`.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .chunks import (
    BACKENDS,
    MAX_CHUNK,
    ChunkJob,
    Sink,
    check_chunk_memory,
    check_threads,
    check_whole,
    chunk_games,
    first_chunk_bytes,
    game_bytes,
    memory_budget,
    run_local,
    searching,
    set_threads,
)
from .dask_backend import run_dask
from .files import RunDirError, human_bytes
from .isolated import isolation, run_child, wants_child
from .results import Results, check_knob_columns
from .rundir import KNOB_COLUMNS, RunDir, base_manifest
from .setup import check_count, resolve_rules, setup
from .totals import summarize


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
    the default game). ``record_rounds``: also record the game's detail table (e.g. rounds).
    ``progress(done, total)`` is called after every chunk. ``knob_columns``: rule knobs
    added to every table as columns holding this run's values (a sweep's cells,
    :func:`sim.results.add_knob_columns`).
    """
    s = setup(rules, seats, game)
    check_count(games, seed)
    knob_columns = check_knob_columns(s.rules, knob_columns)
    check_backend("local", None, None, chunk_size, threads)
    chunk = chunk_games(games, chunk_size, record_rounds, searching(s.seats))
    check_chunk_memory(s.spec, s.rules, chunk, bool(record_rounds))
    need, budget = games * game_bytes(s.spec, 0), memory_budget()
    if need > budget:  # every table is kept in memory here
        raise ValueError(
            f"{games:,} games held in memory need about {human_bytes(need)}, more than the"
            f" budget of {human_bytes(budget)} (half this machine's memory, or"
            " LOBA_MEMORY_BUDGET); play fewer, or stream them to disk with"
            " 'loba simulate --out DIR'."
        )
    job = ChunkJob.of(
        s, seed, games, chunk, record_rounds, first_game=start, encode=False, arrays=True
    )
    sink, info = _execute(job, None, job.pieces(), progress, games, 0, "local", None, None, threads)
    outs = tuple(np.concatenate(a) for a in zip(*sink.arrays, strict=True))
    res = Results.from_arrays(
        s.spec,
        s.rules,
        list(s.seats),
        int(seed),
        start,
        outs,
        sink.elapsed,
        info["threads"],
        bool(record_rounds),
        knob_columns,
    )
    if s.label is not None:
        res.extra["label"] = s.label  # goes into the manifest of res.write()
    return res


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
    game: str = ""  # the game's name
    replayed: list = dataclasses.field(default_factory=list)  # damaged parts played again
    removed: list = dataclasses.field(default_factory=list)  # unlisted leftovers removed
    chunk_size: int = 0  # games per chunk
    phases: dict = dataclasses.field(default_factory=dict)  # seconds: load, play, finish

    @property
    def games_per_second(self) -> float:
        return self.games / self.elapsed if self.elapsed > 0 else float("inf")


def check_backend(backend: str, scheduler, workers, chunk_size, threads) -> None:
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
    first_game: int = 0,
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
    manifest so that a resumed run's parts carry them too. ``first_game``: the run is games
    ``first_game .. first_game+games-1`` of ``seed`` (game i is game i in every run of that
    seed: a later run can carry an earlier one on).
    """
    s = setup(rules, seats, game)
    check_count(games, seed)
    whole = isinstance(first_game, int | np.integer) and not isinstance(first_game, bool)
    if not whole or first_game < 0:
        raise ValueError(f"The first game must be a whole number of at least 0, not {first_game}.")
    check_count(first_game + games, seed)
    spec, rules, labels = s.spec, s.rules, s.labels
    label = s.label if label is None else label
    knob_columns = check_knob_columns(rules, knob_columns)
    check_backend(backend, scheduler, workers, chunk_size, threads)
    chunk = chunk_games(games, chunk_size, record_rounds, searching(s.seats))
    check_chunk_memory(spec, rules, chunk, bool(record_rounds and out_dir is not None))
    job = ChunkJob.of(
        s,
        seed,
        games,
        chunk,
        record_rounds and out_dir is not None,
        encode=out_dir is not None,
        fail=os.environ.get("LOBA_FAIL_CHUNK", ""),
        token=uuid.uuid4().hex,
        knob_columns=knob_columns,
        first_game=first_game,
    )
    run = None
    if out_dir is not None:
        man = base_manifest(
            spec, rules, labels, seed, first_game, games, job.record_rounds, knob_columns
        )
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
    check_backend(backend, scheduler, workers, chunk_size, threads)
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
        s = setup(m["rules_id"], specs, pre.spec.name)
        check_count(m["games"], m["seed"])
        job = ChunkJob.of(
            s,
            m["seed"],
            m["games"],
            m["chunk_size"],
            bool(m.get("rounds_recorded")),
            first_game=m["first_game"],
            encode=True,
            fail=os.environ.get("LOBA_FAIL_CHUNK", ""),
            token=uuid.uuid4().hex,
            knob_columns=tuple(m.get(KNOB_COLUMNS, ())),
            seat_labels=tuple(m["seats"]),
        )
        if job.n_chunks != run.n_chunks or s.n_players != m.get("n_players"):
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


def warm(
    game=None, report: Callable[[str], None] | None = None, search: bool = False
) -> list[tuple[str, str, float]]:
    """Compile every built-in policy and add-on rule of ``game`` (None: of every registered
    game), with the game's kernel, into the on-disk kernel cache (:mod:`sim.jit`), by playing
    one game of each at the game's usual table: later processes load them instead of compiling.
    The search policies (those with a cheap ``quick`` setting, :class:`sim.policies.api.Policy`:
    their own copies of the turn code take minutes) only with ``search``.
    ``report(line)`` is told each as it is done. Returns (game, seat, seconds) per seating."""
    from .games import game_names, get_game

    done = []
    for spec in [get_game(game)] if game is not None else [get_game(g) for g in game_names()]:
        players = len(spec.default_seats.split(","))
        seats = [name for name, p in spec.policies.items() if search or not p.quick]
        first = seats[0]
        for kind, (registry, _default) in spec.addons.items():
            seats += [f"{first}+{kind}={name}" for name, r in registry.items() if r.load is None]
        for seat in seats:
            t = time.perf_counter()
            simulate(None, [seat] * players, games=1, game=spec.name, threads=1)
            done.append((spec.name, seat, time.perf_counter() - t))
            if report is not None:
                report(f"{spec.name} {seat}: ready in {done[-1][2]:.1f} s")
    return done


def end_to_end(rules, seats, games: int, seed: int, threads: int, game=None) -> float:
    """Games per second of ``loba simulate --out`` for these games: a whole run directory
    (Parquet parts, manifest, summary from the disk) written into a temporary folder, timed
    from the call to the summary, after an untimed run of a few games has loaded the kernel
    and the writer. ``loba bench`` sets it beside the kernel's figure."""
    with tempfile.TemporaryDirectory(prefix="loba-bench-") as tmp:
        stream_run(rules, seats, games=min(games, 64), seed=seed, game=game,
                   out_dir=Path(tmp) / "warm", threads=threads)  # fmt: skip
        t = time.perf_counter()
        stream_run(rules, seats, games=games, seed=seed, game=game, out_dir=Path(tmp) / "run",
                   threads=threads)  # fmt: skip
        return games / max(time.perf_counter() - t, 1e-9)
