"""Kernel record arrays -> tidy polars frames -> Parquet run directories with a manifest.

Which tables a game has and their columns come from the game's declaration (its
:class:`sim.game.GameSpec` ``tables``); column names are a contract: added, never renamed.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import platform
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow.parquet as pq

from .game import GameSpec
from .games import get_game
from .rules import RuleSet


class RunDirError(ValueError):
    """An output directory that cannot be used. One sentence."""


def _versions() -> dict:
    import numba

    try:
        from importlib.metadata import version

        pkg = version("loba-sim")
    except Exception:
        pkg = "unknown"
    return {
        "loba_sim": pkg,
        "numba": numba.__version__,
        "numpy": np.__version__,
        "polars": pl.__version__,
        "python": platform.python_version(),
    }


@dataclass
class Results:
    """One run: the game, rule set, seating and seed, and its tables as polars DataFrames
    (``res.games``, ``res.seats``, and the detail table if recorded, e.g. ``res.rounds``)."""

    spec: GameSpec
    rules: RuleSet
    seat_labels: list[str]
    seed: int
    start: int
    n_games: int
    frames: dict  # table name -> DataFrame (the detail table only if recorded)
    elapsed: float
    threads: int
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_arrays(cls, spec, rules, seats, seed, start, outs, elapsed, threads, detail=False):
        """Frames from the kernel's record arrays (``outs`` in ``spec.tables`` order);
        ``seats``: Seats or their labels; ``detail``: the detail table was recorded."""
        labels = [s if isinstance(s, str) else s.label for s in seats]
        count = outs[0].shape[0]
        ctx = {
            "idx": np.arange(start, start + count, dtype=np.int64),
            "seed": seed,
            "rules_id": rules.id,
            "labels": labels,
        }
        games = spec.tables[0]
        frames = {}
        for t, rows in zip(spec.tables, outs, strict=True):
            if t.detail:
                if not detail:
                    continue
                n_detail = outs[0][:, games.kernel_index()[t.count_from]]
                frames[t.name] = t.frame(rows, ctx, n_detail)
            else:
                frames[t.name] = t.frame(rows, ctx)
        return cls(spec, rules, labels, seed, start, count, frames, elapsed, threads)

    def __getattr__(self, name: str):
        frames = self.__dict__.get("frames")
        if frames is not None:
            if name in frames:
                return frames[name]
            if name in self.__dict__["spec"].table:
                return None  # a detail table that was not recorded
        raise AttributeError(name)

    @property
    def detail_recorded(self) -> bool:
        d = self.spec.detail
        return d is not None and d.name in self.frames

    # ------------------------------------------------------------------ summary
    @property
    def games_per_second(self) -> float:
        return self.n_games / self.elapsed if self.elapsed > 0 else float("inf")

    def manifest(self) -> dict:
        return {
            **base_manifest(
                self.spec,
                self.rules,
                self.seat_labels,
                self.seed,
                self.start,
                self.n_games,
                self.detail_recorded,
            ),
            "elapsed_seconds": round(self.elapsed, 6),
            "threads": self.threads,
            **self.extra,
        }

    def parts(self) -> dict[str, bytes]:
        """The tables as Parquet file contents, keyed by table name."""
        return encode_tables(self.frames)

    def write(self, out_dir, overwrite: bool = False) -> Path:
        """Write a run directory (refuses a non-empty one unless ``overwrite``).

        The layout is the streamed one (one part, ``part-00000``, per table), so a directory
        written here reads exactly like one written chunk by chunk by ``loba simulate --out``.
        """
        man = self.manifest()
        man.update(chunk_size=self.n_games, chunks=1)
        run = RunDir.create(out_dir, man, overwrite=overwrite)
        try:
            run.add_part(0, self.parts(), elapsed=self.elapsed)
            run.finish()
        finally:
            run.release()
        return run.path

    def aggregates(self) -> dict:
        lazy = {k: v.lazy() for k, v in self.frames.items()}
        return aggregate(self.spec, lazy, len(self.seat_labels))

    def summary(self) -> dict:
        """Headline figures of the run (win shares with 95% Wilson intervals)."""
        return summarize(self.spec, self.aggregates(), self.seat_labels, self.elapsed)


# ---------------------------------------------------------------------------- manifests, parts
FORMAT = "loba-run/2"  # manifest.json of a run directory whose tables are folders of parts
PARTIAL = ".partial"  # temporary files; outside the table folders, which readers list whole
LOCK = ".loba.lock"
MANIFEST = "manifest.json"


def base_manifest(spec, rules, seat_labels, seed, first_game, games, record_detail) -> dict:
    """The provenance every run directory carries (game, rules, seating, seed, counts,
    versions). ``rounds_recorded``: the game's detail table (rounds, hands) was written."""
    return {
        "format": FORMAT,
        "game": spec.name,
        "complete": False,
        "rules_id": rules.id,
        "rules_version": rules.version,
        "rules": {k: v for k, v in rules.values},
        "preset": rules.preset,
        "seats": list(seat_labels),
        "n_players": len(seat_labels),
        "seed": int(seed),
        "first_game": int(first_game),
        "games": int(games),
        "rounds_recorded": bool(record_detail),
        "versions": _versions(),
        "tables": [t.name for t in spec.tables if record_detail or not t.detail],
    }


def encode_tables(frames: dict) -> dict[str, bytes]:
    """Parquet bytes of each table (the same bytes whichever process or backend encodes them)."""
    out = {}
    for name, df in frames.items():
        buf = io.BytesIO()
        df.write_parquet(buf)
        out[name] = buf.getvalue()
    return out


def _old_tables(out: Path) -> list[str]:
    """Tables a previous run in ``out`` listed (to replace them on --overwrite)."""
    try:
        tabs = json.loads((out / MANIFEST).read_text()).get("tables", [])
        return [str(x) for x in tabs if isinstance(x, str) and "/" not in x and ".." not in x]
    except Exception:
        return []


def manifest_game(man: dict) -> GameSpec:
    """The game of a manifest (written before Moon existed: no ``game`` key, so Loba)."""
    return get_game(man.get("game"))


def part_name(k: int, n_chunks: int) -> str:
    """``part-00042.parquet``: zero-padded so that name order is chunk (= game) order."""
    width = max(5, len(str(max(n_chunks - 1, 0))))
    return f"part-{k:0{width}d}.parquet"


def to_ranges(done) -> list[list[int]]:
    """Sorted chunk numbers as inclusive ``[first, last]`` ranges (short even for 10^5 chunks)."""
    out: list[list[int]] = []
    for k in sorted(done):
        if out and out[-1][1] == k - 1:
            out[-1][1] = k
        else:
            out.append([k, k])
    return out


def from_ranges(ranges) -> set[int]:
    done: set[int] = set()
    for a, b in ranges:
        done.update(range(int(a), int(b) + 1))
    return done


def _replace_bytes(tmp_dir: Path, dest: Path, data: bytes) -> None:
    """Write ``dest`` atomically: a temporary file in ``tmp_dir`` (same file system), renamed."""
    tmp = tmp_dir / f"{dest.parent.name}.{dest.name}.{os.getpid()}.tmp"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())  # on disk before it is renamed into place (and then listed)
    os.replace(tmp, dest)


class RunDir:
    """A run directory being written (or read): ``manifest.json`` plus a folder per table.

    ``DIR/games.parquet/part-00042.parquet`` holds the games of chunk 42 (consecutive game
    indices). Each part is written atomically and then listed in the manifest, also written
    atomically, so after an interruption every listed part is whole and the run can resume.
    While a process writes, it holds an exclusive lock on ``DIR/.loba.lock``.
    """

    def __init__(self, path: Path, manifest: dict, done: set[int]):
        self.path = path
        self.manifest = manifest
        self.spec = manifest_game(manifest)
        self.done = done
        self._lock_fd: int | None = None
        self._elapsed0 = float(manifest.get("elapsed_seconds", 0.0))

    # ------------------------------------------------------------------ opening
    @classmethod
    def create(cls, out_dir, manifest: dict, overwrite: bool = False) -> RunDir:
        """Start a new run directory (refuses a non-empty one unless ``overwrite``)."""
        out = Path(out_dir)
        if out.exists() and not out.is_dir():
            raise RunDirError(f"Output path '{out}' exists and is not a directory.")
        if out.exists() and any(out.iterdir()) and not overwrite:
            raise RunDirError(
                f"Output directory '{out}' is not empty: choose another or pass --overwrite."
            )
        out.mkdir(parents=True, exist_ok=True)
        run = cls(out, dict(manifest), set())
        run._lock()
        # --overwrite: remove the previous run's tables (parts of two runs must never mix)
        for name in (*_old_tables(out), *manifest["tables"], PARTIAL):
            p = out / (name if name == PARTIAL else f"{name}.parquet")
            if p.is_dir():
                shutil.rmtree(p)
            elif p.exists():
                p.unlink()
        (out / PARTIAL).mkdir()
        for name in manifest["tables"]:
            (out / f"{name}.parquet").mkdir()
        run.manifest.update(
            complete=False, games_done=0, chunks_done=[], elapsed_seconds=0.0, sessions=[]
        )
        run._elapsed0 = 0.0
        run.write_manifest()
        return run

    @classmethod
    def read(cls, run_dir) -> RunDir:
        """Open an existing run directory for reading; one-sentence RunDirError otherwise."""
        p = Path(run_dir)
        if not p.exists():
            raise RunDirError(f"Run directory '{p}' does not exist.")
        if not p.is_dir():
            raise RunDirError(f"'{p}' is not a directory.")
        mp = p / MANIFEST
        if not mp.is_file():
            raise RunDirError(f"'{p}' is not a run directory: it has no manifest.json.")
        try:
            man = json.loads(mp.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            raise RunDirError(f"'{mp}' is corrupt: it is not valid JSON.") from None
        if not isinstance(man, dict) or "format" not in man or "rules_id" not in man:
            raise RunDirError(
                f"'{p}' was not written by 'loba simulate --out' (its manifest.json has no"
                " run format); it cannot be resumed."
            )
        if man["format"] != FORMAT:
            raise RunDirError(
                f"'{p}' has run format '{man['format']}', which this loba does not know."
            )
        need = {
            "seats": list,
            "seed": int,
            "first_game": int,
            "games": int,
            "chunk_size": int,
            "chunks": int,
            "chunks_done": list,
            "tables": list,
            "rules_version": int,
            "complete": bool,
        }
        for key, typ in need.items():
            if not isinstance(man.get(key), typ):
                raise RunDirError(f"'{mp}' is corrupt: '{key}' is missing or malformed.")
        try:
            done = from_ranges(man["chunks_done"])
        except (TypeError, ValueError):
            raise RunDirError(f"'{mp}' is corrupt: 'chunks_done' is malformed.") from None
        if done and (min(done) < 0 or max(done) >= man["chunks"]):
            raise RunDirError(f"'{mp}' is corrupt: 'chunks_done' names chunks the run has not.")
        return cls(p, man, done)

    @classmethod
    def resume(cls, run_dir) -> RunDir:
        """Open an unfinished run directory to finish it (locks it; checks its parts)."""
        run = cls.read(run_dir)
        man = run.manifest
        if man["complete"]:
            raise RunDirError(
                f"Run '{run.path}' is already complete ({man['games']} games); nothing to resume."
            )
        version = run.spec.rules.version
        if man["rules_version"] != version:
            raise RunDirError(
                f"Run '{run.path}' was started with RULES_VERSION {man['rules_version']}, but"
                f" this loba has {version}; finish it with the version that started it."
            )
        run._lock()
        tmp = run.path / PARTIAL
        if tmp.exists():
            shutil.rmtree(tmp)  # leftovers of an interrupted write: never listed, never read
        tmp.mkdir()
        for name in man["tables"]:
            (run.path / f"{name}.parquet").mkdir(exist_ok=True)
        # a listed part that is missing or unreadable is played again (same seed: same games)
        run.done = {k for k in run.done if run.part_ok(k)}
        return run

    def _lock(self) -> None:
        fd = os.open(self.path / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise RunDirError(
                f"Run directory '{self.path}' is being written by another loba process."
            ) from None
        self._lock_fd = fd

    def release(self) -> None:
        if self._lock_fd is not None:
            if self.manifest.get("complete"):
                with contextlib.suppress(OSError):
                    (self.path / LOCK).unlink()
            os.close(self._lock_fd)
            self._lock_fd = None

    def discard(self) -> None:
        """Remove this run's own files (a run that never got a chunk) and release it."""
        for name in (*self.manifest.get("tables", ()), PARTIAL):
            p = self.path / (name if name == PARTIAL else f"{name}.parquet")
            if p.is_dir():
                shutil.rmtree(p)
        with contextlib.suppress(OSError):
            (self.path / MANIFEST).unlink()
        with contextlib.suppress(OSError):
            (self.path / LOCK).unlink()
        self.release()
        with contextlib.suppress(OSError):
            self.path.rmdir()  # only if nothing else is in it

    # ------------------------------------------------------------------ chunks
    @property
    def n_chunks(self) -> int:
        return self.manifest["chunks"]

    def chunk_games(self, k: int) -> tuple[int, int]:
        """(first game index, number of games) of chunk ``k``."""
        m = self.manifest
        a = k * m["chunk_size"]
        return m["first_game"] + a, min(m["chunk_size"], m["games"] - a)

    def todo(self) -> list[int]:
        return [k for k in range(self.n_chunks) if k not in self.done]

    def games_done(self) -> int:
        return sum(self.chunk_games(k)[1] for k in self.done)

    def part_path(self, table: str, k: int) -> Path:
        return self.path / f"{table}.parquet" / part_name(k, self.n_chunks)

    def part_ok(self, k: int) -> bool:
        """Every table's part of chunk ``k`` exists, is readable Parquet and has its rows."""
        count = self.chunk_games(k)[1]
        per = {"game": count, "seat": count * self.manifest["n_players"], "detail": None}
        rows = {t.name: per[t.level] for t in self.spec.tables}
        for t in self.manifest["tables"]:
            try:
                md = pq.read_metadata(self.part_path(t, k))
            except Exception:
                return False
            if rows.get(t) is not None and md.num_rows != rows[t]:
                return False
        return True

    def add_part(self, k: int, parts: dict[str, bytes], elapsed: float) -> None:
        """Write chunk ``k``'s parts atomically, then list it in the manifest.

        ``elapsed``: seconds this session has spent so far (added to earlier sessions').
        """
        tmp = self.path / PARTIAL
        for t in self.manifest["tables"]:
            _replace_bytes(tmp, self.part_path(t, k), parts[t])
        self.done.add(k)
        self.manifest["elapsed_seconds"] = round(self._elapsed0 + elapsed, 6)
        self.write_manifest()

    def begin_session(self, info: dict) -> None:
        """Record who works on the run now (backend, threads/workers, start time)."""
        info = {"started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **info}
        self.manifest.setdefault("sessions", []).append(info)
        self._session = info
        for key in ("backend", "threads"):
            if key in info:
                self.manifest[key] = info[key]
        self.write_manifest()

    def write_manifest(self) -> None:
        m = self.manifest
        m["chunks_done"] = to_ranges(self.done)
        m["games_done"] = self.games_done() if "chunk_size" in m else 0
        sess = getattr(self, "_session", None)
        if sess is not None:
            sess["elapsed_seconds"] = round(m.get("elapsed_seconds", 0.0) - self._elapsed0, 6)
        data = (json.dumps(m, indent=2) + "\n").encode()
        tmp = self.path / PARTIAL
        tmp.mkdir(exist_ok=True)
        _replace_bytes(tmp, self.path / MANIFEST, data)

    def finish(self) -> bool:
        """Mark the run complete if every chunk is on disk; returns whether it is."""
        complete = not self.todo()
        self.manifest["complete"] = complete
        self.write_manifest()
        if complete:
            shutil.rmtree(self.path / PARTIAL, ignore_errors=True)
        return complete

    # ------------------------------------------------------------------ reading
    def scan(self, table: str) -> pl.LazyFrame:
        """A table of the run, read lazily from its parts."""
        return pl.scan_parquet(self.path / f"{table}.parquet" / "*.parquet")

    def aggregates(self) -> dict:
        n = self.manifest["n_players"]
        if not self.done:
            return aggregate(self.spec, None, n)
        return aggregate(self.spec, {t.name: self.scan(t.name) for t in self.spec.main_tables}, n)

    def summary(self) -> dict:
        """Headline figures computed from the parts on disk (streaming, bounded memory)."""
        return summarize(
            self.spec,
            self.aggregates(),
            self.manifest["seats"],
            self.manifest.get("elapsed_seconds", 0.0),
        )


# ---------------------------------------------------------------------------- summary
def aggregate(spec: GameSpec, tables: dict | None, n_seats: int) -> dict:
    """Additive totals behind the summary (sums and counts), so chunks can be combined.

    ``tables``: name -> LazyFrame of the game's main tables (None: an empty run). One streaming
    pass per table over the few columns the game's :class:`sim.game.Summary` sums.
    """
    sums = spec.summary.sums
    if tables is None:
        return {"n": 0, "finished": 0, **dict.fromkeys(sums, 0), "wins": [0] * n_seats}
    i64 = pl.Int64
    out: dict = {}
    for name in {tab for tab, _ in sums.values()} | {"games"}:
        cols = [pl.col(c).cast(i64).sum().alias(k) for k, (tab, c) in sums.items() if tab == name]
        if name == "games":
            cols += [
                pl.len().cast(i64).alias("n"),
                pl.col("winner").is_not_null().sum().cast(i64).alias("finished"),
                *[(pl.col("winner") == q).sum().cast(i64).alias(f"w{q}") for q in range(n_seats)],
            ]
        row = tables[name].select(cols).collect(engine="streaming").row(0, named=True)
        out.update({k: int(v or 0) for k, v in row.items()})
    out["wins"] = [out.pop(f"w{q}") for q in range(n_seats)]
    return out


def add_aggregates(a: dict, b: dict) -> dict:
    out = {k: a[k] + b[k] for k in a if k != "wins"}
    out["wins"] = [x + y for x, y in zip(a["wins"], b["wins"], strict=True)]
    return out


def summarize(spec: GameSpec, agg: dict, seat_labels, elapsed: float) -> dict:
    """The summary dict of a run from its :func:`aggregate` totals: games, unfinished, time,
    the game's own headline figures, and every seat's win share with a 95% Wilson interval."""
    from .stats import wilson

    n = agg["n"]
    finished = agg["finished"]
    seats = []
    for q, label in enumerate(seat_labels):
        k = agg["wins"][q]
        lo, hi = wilson(k, finished)
        seats.append(
            {
                "seat": q,
                "policy": label,
                "wins": k,
                "share": k / finished if finished else 0.0,
                "ci_low": lo,
                "ci_high": hi,
            }
        )
    return {
        "games": n,
        "unfinished": n - finished,
        "elapsed_seconds": elapsed,
        "games_per_second": n / elapsed if elapsed > 0 else float("inf"),
        **spec.summary.figures(agg, n),
        "seats": seats,
    }
