"""Run directories: ``manifest.json`` plus a folder of Parquet parts per table, written chunk
by chunk, resumed, read and verified (:class:`RunDir`).

The manifest is the run's provenance (:func:`base_manifest`) and its commit point: a part
belongs to the run once the manifest lists it with its rows, size and SHA-256. The bytes go to
disk through :mod:`sim.files`; the summary of the parts on disk is :mod:`sim.totals`'.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import platform
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import numpy as np
import polars as pl
import pyarrow as pa_lib
import pyarrow.compute as pc_lib
import pyarrow.parquet as pq

from . import files as disk  # disk.write_tmp: looked up when called (tests fill the disk)
from .files import (
    CHECKSUM,
    RunDirError,
    check_out_dir,
    digest,
    file_digest,
    fsync_dir,
    replace_bytes,
    unwritable,
    why,
)
from .game import GameSpec
from .games import get_game
from .rules import RuleError
from .setup import MAX_GAMES, parse_rules_id
from .totals import aggregate, summarize

FORMAT = "loba-run/2"  # manifest.json of a run directory whose tables are folders of parts
PARTIAL = ".partial"  # temporary files; outside the table folders, which readers list whole
LOCK = ".loba.lock"
MANIFEST = "manifest.json"
PART_RE = re.compile(r"part-(\d+)(?:-(\d+))?\.parquet")  # what this program names its parts
COMMIT_RATIO = 20  # commit when the time since the last commit is 20x what a commit costs
KNOB_COLUMNS = "knob_columns"  # manifest key: the rule knobs every part carries as columns


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


def base_manifest(
    spec, rules, seat_labels, seed, first_game, games, record_detail, knob_columns=()
) -> dict:
    """The provenance every run directory carries (game, rules, seating, seed, counts,
    versions). ``rounds_recorded``: the game's detail table (rounds, hands) was written;
    ``knob_columns`` (only when there are some): the rule knobs its tables carry as columns
    (:func:`sim.results.add_knob_columns`)."""
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
        "checksum": CHECKSUM,
        **({KNOB_COLUMNS: list(knob_columns)} if knob_columns else {}),
    }


def _old_tables(out: Path) -> list[str]:
    """Tables a previous run in ``out`` listed (to replace them on --overwrite)."""
    try:
        tabs = json.loads((out / MANIFEST).read_text()).get("tables", [])
        return [str(x) for x in tabs if isinstance(x, str) and "/" not in x and ".." not in x]
    except Exception:
        return []


def manifest_game(man: dict) -> GameSpec:
    """The game of a manifest (one written when there was only one game has no ``game`` key:
    the default game, :data:`sim.games.DEFAULT_GAME`)."""
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


# ---------------------------------------------------------------------------- pieces, checks
class Piece(NamedTuple):
    """Consecutive games written as one part per table: chunk ``k`` of the run's layout, or
    (resumed with a smaller ``--chunk-size``) a slice of it, named ``part-00042-00100``."""

    k: int
    first: int
    count: int
    name: str  # the part files' stem


class Problem(NamedTuple):
    """Something wrong in a run directory, as one sentence.

    ``kind``: ``missing``, ``damaged``, ``foreign`` (a listed part holding other games),
    ``unlisted`` (a part file the manifest does not list), ``stray`` (a file that is no part)
    or ``layout`` (a table folder that is a file). ``part``: the listed part concerned.
    """

    kind: str
    path: Path
    text: str
    part: str | None = None

    @property
    def spoils(self) -> bool:
        """The listed part cannot be read as it was written."""
        return self.kind in ("missing", "damaged", "foreign")


def _agree(man: dict, spec, mp: Path) -> None:
    """The manifest's own fields agree with each other: its rules id is the one its preset and
    knobs make, and its portable seats are as many as its seats. One sentence otherwise."""
    knobs, preset = man.get("rules"), man.get("preset")
    if isinstance(knobs, dict) and isinstance(preset, str):
        try:
            made = spec.rules.make(preset, **knobs).id
            named = parse_rules_id(man["rules_id"], spec.name).id
        except (RuleError, ValueError, TypeError) as e:
            raise RunDirError(f"'{mp}' is corrupt: its rules cannot be read ({e}).") from None
        if made != named:
            raise RunDirError(
                f"'{mp}' is corrupt: its rules id '{man['rules_id']}' is not the one its preset"
                f" and knobs make ('{made}')."
            )
    specs = man.get("seat_specs")
    if specs is not None and (not isinstance(specs, list) or len(specs) != len(man["seats"])):
        raise RunDirError(f"'{mp}' is corrupt: 'seat_specs' and 'seats' disagree.")


def _type_ok(arrow_type, declared: str) -> bool:
    """Does a Parquet column's type hold what the table declares (``int8`` ... ``int64``,
    ``bool``, ``cat``/``enum``: strings, dictionary-encoded or not)?"""
    if declared in ("cat", "enum"):
        t = arrow_type.value_type if pa_lib.types.is_dictionary(arrow_type) else arrow_type
        return (
            pa_lib.types.is_string(t)
            or pa_lib.types.is_large_string(t)
            or (pa_lib.types.is_string_view(t))
        )
    if declared == "bool":
        return pa_lib.types.is_boolean(arrow_type)
    return str(arrow_type) == declared


def lock_file(path: Path, run_dir: Path) -> int:
    """An exclusive, non-blocking lock on ``path`` (created if missing); its descriptor.

    The lock file is removed when a run completes, so a process may lock a file that another
    has just unlinked: after locking, the path must still name the locked file, else the lock
    is taken again on the new one (the usual flock-and-recheck)."""
    for _ in range(20):
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise RunDirError(f"Run directory '{run_dir}' cannot be locked ({why(e)}).") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise RunDirError(
                f"Run directory '{run_dir}' is being written by another loba process."
            ) from None
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)
    raise RunDirError(f"Run directory '{run_dir}' cannot be locked (its lock file keeps changing).")


@contextlib.contextmanager
def locked_tree(root: Path):
    """Hold the lock of every run directory below ``root`` (a sweep's cells, a tournament's
    seatings) while the caller removes it: a run being written there refuses the removal in
    one sentence, and nothing is removed."""
    fds = []
    try:
        for p in sorted(Path(root).rglob(LOCK)) if Path(root).is_dir() else ():
            fds.append(lock_file(p, p.parent))
        yield
    finally:
        for fd in fds:
            os.close(fd)


class RunDir:
    """A run directory being written (or read): ``manifest.json`` plus a folder per table.

    ``DIR/games.parquet/part-00042.parquet`` holds the games of chunk 42 (consecutive game
    indices). The manifest is the commit point: a chunk belongs to the run only once the
    manifest (written atomically) lists its parts, each with its rows, size and SHA-256.
    Parts are written to ``DIR/.partial`` and synced, then renamed into their folders, then
    listed; so after an interruption every listed part is whole, and readers (resume,
    analysis, ``loba verify``) read exactly the listed parts and check them.
    While a process writes, it holds an exclusive lock on ``DIR/.loba.lock``.
    """

    def __init__(self, path: Path, manifest: dict, done: set[int], parts: dict | None = None):
        self.path = path
        self.manifest = manifest
        self.spec = manifest_game(manifest)
        self.parts: dict[str, dict] = parts if parts is not None else {}
        self.done = done
        self.pending: dict[str, dict] = {}  # written and renamed, not yet listed
        self.replayed: list[Problem] = []  # listed parts found damaged by resume
        self.removed: list[Path] = []  # unlisted leftovers resume removed
        self._lock_fd: int | None = None
        self._elapsed0 = float(manifest.get("elapsed_seconds", 0.0))
        self._last_commit = time.perf_counter()
        self._commit_cost = 0.0

    # ------------------------------------------------------------------ opening
    @classmethod
    def create(cls, out_dir, manifest: dict, overwrite: bool = False, need_bytes: int = 0):
        """Start a new run directory (refuses a non-empty one unless ``overwrite``, and one
        that cannot be written, in one sentence). Leaves nothing behind if it fails."""
        out = Path(out_dir)
        check_out_dir(out, overwrite, need_bytes)
        made = not out.exists()
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise RunDirError(f"Output directory '{out}' cannot be created ({why(e)}).") from None
        run = cls(out, dict(manifest), set())
        try:
            run._lock()  # before anything is removed: a live run is refused, not destroyed
        except BaseException:
            if made:
                with contextlib.suppress(OSError):
                    out.rmdir()
            raise
        try:
            # --overwrite: remove the previous run's tables (parts of two runs must never mix)
            for name in (*_old_tables(out), *manifest["tables"], PARTIAL):
                p = out / (name if name == PARTIAL else f"{name}.parquet")
                if p.is_dir():
                    shutil.rmtree(p)
                elif p.exists() or p.is_symlink():
                    p.unlink()
            with contextlib.suppress(FileNotFoundError):
                (out / MANIFEST).unlink()
            (out / PARTIAL).mkdir()
            for name in manifest["tables"]:
                (out / f"{name}.parquet").mkdir()
            run.manifest.update(
                complete=False,
                games_done=0,
                chunks_done=[],
                parts={},
                elapsed_seconds=0.0,
                sessions=[],
            )
            run._elapsed0 = 0.0
            run.write_manifest()
        except OSError as e:
            run.discard(remove_dir=made)
            raise RunDirError(
                f"Could not create the run directory '{out}' ({why(e)}); nothing was kept."
            ) from None
        except BaseException:
            run.discard(remove_dir=made)
            raise
        return run

    @classmethod
    def read(cls, run_dir, strict: bool = True) -> RunDir:
        """Open an existing run directory for reading; one-sentence RunDirError otherwise.
        ``strict``: also refuse a manifest whose game and chunk counts disagree (resume needs
        them; a reader needs only the listed parts)."""
        p = Path(run_dir)
        if str(run_dir).strip() == "":
            raise RunDirError("The run directory is empty: give a directory name.")
        try:
            if not p.exists():
                raise RunDirError(f"Run directory '{p}' does not exist.")
            if not p.is_dir():
                raise RunDirError(f"'{p}' is not a directory.")
            mp = p / MANIFEST
            if not mp.is_file():
                raise RunDirError(f"'{p}' is not a run directory: it has no manifest.json.")
            man = json.loads(mp.read_text())
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            raise RunDirError(f"'{p / MANIFEST}' is corrupt: it is not valid JSON.") from None
        except OSError as e:
            raise RunDirError(f"Run directory '{p}' cannot be read ({why(e)}).") from None
        mp = p / MANIFEST
        if not isinstance(man, dict) or "format" not in man or "rules_id" not in man:
            raise RunDirError(
                f"'{p}' was not written by 'loba simulate --out' (its manifest.json has no"
                " run format), so it has no listed parts to check or resume."
            )
        if man["format"] != FORMAT:
            raise RunDirError(
                f"'{p}' has run format '{str(man['format'])[:60]}', which this loba does not know."
            )
        need = {
            "rules_id": str,
            "seats": list,
            "n_players": int,
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
            v = man.get(key)
            if not isinstance(v, typ) or isinstance(v, bool) and typ is int:
                raise RunDirError(f"'{mp}' is corrupt: '{key}' is missing or malformed.")
        if (
            not all(isinstance(s, str) for s in man["seats"])
            or len(man["seats"]) != (man["n_players"])
        ):
            raise RunDirError(f"'{mp}' is corrupt: 'seats' is missing or malformed.")
        g, cs = man["games"], man["chunk_size"]
        if not (1 <= g <= MAX_GAMES and cs >= 1 and man["chunks"] >= 1) or (
            strict and man["chunks"] != -(-g // cs)
        ):
            raise RunDirError(f"'{mp}' is corrupt: its game and chunk counts disagree.")
        if not 0 <= man["seed"] < 2**63 or not 0 <= man["first_game"] < 2**63 - g:
            raise RunDirError(f"'{mp}' is corrupt: 'seed' or 'first_game' is out of range.")
        try:
            spec = manifest_game(man)
        except ValueError as e:
            raise RunDirError(f"'{mp}': {e}") from None
        names = [t.name for t in spec.tables]
        tabs = man["tables"]
        if not all(isinstance(t, str) and t in names for t in tabs) or not {
            t.name for t in spec.main_tables
        } <= set(tabs):
            raise RunDirError(f"'{mp}' is corrupt: 'tables' is missing or malformed.")
        knobs = man.get(KNOB_COLUMNS, [])
        if not isinstance(knobs, list) or not all(
            isinstance(k, str) and k in spec.rules.knob for k in knobs
        ):
            raise RunDirError(f"'{mp}' is corrupt: '{KNOB_COLUMNS}' is malformed.")
        try:
            done = from_ranges(man["chunks_done"])
        except (TypeError, ValueError):
            raise RunDirError(f"'{mp}' is corrupt: 'chunks_done' is malformed.") from None
        if done and (min(done) < 0 or max(done) >= man["chunks"]):
            raise RunDirError(f"'{mp}' is corrupt: 'chunks_done' names chunks the run has not.")
        _agree(man, spec, mp)
        run = cls(p, man, done)
        if "parts" in man:
            run.parts = run._checked_parts(man["parts"], mp)
            run.done = run._covered()
            if run.done != done:
                raise RunDirError(f"'{mp}' is corrupt: 'chunks_done' disagrees with 'parts'.")
            listed = sum(e["count"] for e in run.parts.values())
            if "games_done" in man and man["games_done"] != listed:
                raise RunDirError(
                    f"'{mp}' is corrupt: 'games_done' ({man['games_done']}) disagrees with its"
                    f" parts ({listed} games)."
                )
        else:  # written before parts had checksums: the listed chunks' parts, unverified
            run.parts = {
                run.whole(k).name: {
                    "first": run.whole(k).first,
                    "count": run.whole(k).count,
                    "files": None,
                }
                for k in sorted(done)
            }
        return run

    def _checked_parts(self, parts, mp: Path) -> dict:
        """The manifest's ``parts`` after checking their form and that each names the games
        its name says (one sentence, RunDirError, otherwise)."""
        bad = RunDirError(f"'{mp}' is corrupt: 'parts' is malformed.")
        if not isinstance(parts, dict):
            raise bad
        out = {}
        for name, e in parts.items():
            if not isinstance(e, dict) or not isinstance(e.get("files"), dict):
                raise bad
            first, count = e.get("first"), e.get("count")
            if not (isinstance(first, int) and isinstance(count, int)) or count < 1:
                raise bad
            piece = self.piece_of(first, count)
            if piece is None or piece.name != name:
                raise bad
            files = e["files"]
            if set(files) != set(self.manifest["tables"]):
                raise bad
            for f in files.values():
                if not (
                    isinstance(f, dict)
                    and isinstance(f.get("rows"), int)
                    and isinstance(f.get("bytes"), int)
                    and isinstance(f.get(CHECKSUM), str)
                ):
                    raise bad
            out[name] = e
        return out

    @classmethod
    def resume(cls, run_dir) -> RunDir:
        """Open an unfinished run directory (or a complete one with a damaged part) to finish
        it: lock it, check every listed part fully (a missing, damaged or foreign one is
        dropped, to be played again), remove unlisted leftovers of interrupted writes; refuse
        (one sentence) a file that is no part of the run in a table folder."""
        run = cls.read(run_dir)
        man = run.manifest
        if man["complete"] and not any(p.spoils for p in run.inspect(full=True)):
            raise RunDirError(
                f"Run '{run.path}' is already complete ({man['games']} games); nothing to resume."
            )
        version = run.spec.rules.version
        if man["rules_version"] != version:
            raise RunDirError(
                f"Run '{run.path}' was started with RULES_VERSION {man['rules_version']}, but"
                f" this loba has {version}; finish it with the version that started it."
            )
        bad = unwritable(run.path)
        if bad:
            raise RunDirError(f"Run directory '{run.path}' cannot be resumed: it {bad}.")
        run._lock()
        try:
            problems = run.inspect(full=True)
            for p in problems:
                if p.kind in ("stray", "layout"):
                    raise RunDirError(
                        f"{p.text}; move it out of '{run.path}' and resume again."
                        if p.kind == "stray"
                        else f"{p.text}; the run cannot be resumed."
                    )
            tmp = run.path / PARTIAL
            if tmp.exists():
                shutil.rmtree(tmp)  # leftovers of an interrupted write: never listed, never read
            tmp.mkdir()
            for name in man["tables"]:
                (run.path / f"{name}.parquet").mkdir(exist_ok=True)
            spoiled = {p.part for p in problems if p.spoils}
            run.replayed = [p for p in problems if p.spoils]
            for name in spoiled:  # played again (same seed: the same games, the same bytes)
                del run.parts[name]
            for p in problems:
                if p.kind == "unlisted" or p.spoils and p.path.exists():
                    p.path.unlink(missing_ok=True)
                    if p.kind == "unlisted":
                        run.removed.append(p.path)
            for name, e in run.parts.items():  # parts from before checksums: record them now
                if e["files"] is None:
                    e["files"] = {
                        t: {
                            "rows": pq.read_metadata(run.part_path(t, name)).num_rows,
                            "bytes": run.part_path(t, name).stat().st_size,
                            CHECKSUM: file_digest(run.part_path(t, name)),
                        }
                        for t in man["tables"]
                    }
            run.done = run._covered()
            man["complete"] = False  # a complete run with a damaged part: repaired
            run.write_manifest()
        except OSError as e:
            run.release()
            raise RunDirError(f"Run directory '{run.path}' cannot be resumed ({why(e)}).") from None
        except BaseException:
            run.release()
            raise
        return run

    def _lock(self) -> None:
        self._lock_fd = lock_file(self.path / LOCK, self.path)

    def release(self) -> None:
        if self._lock_fd is not None:
            if self.manifest.get("complete"):
                with contextlib.suppress(OSError):
                    (self.path / LOCK).unlink()
            os.close(self._lock_fd)
            self._lock_fd = None

    def discard(self, remove_dir: bool = True) -> None:
        """Remove this run's own files (a run that never got a chunk) and release it."""
        for name in (*self.manifest.get("tables", ()), PARTIAL):
            p = self.path / (name if name == PARTIAL else f"{name}.parquet")
            if p.is_dir():
                shutil.rmtree(p, ignore_errors=True)
        with contextlib.suppress(OSError):
            (self.path / MANIFEST).unlink()
        with contextlib.suppress(OSError):
            (self.path / LOCK).unlink()
        self.release()
        if remove_dir:
            with contextlib.suppress(OSError):
                self.path.rmdir()  # only if nothing else is in it

    # ------------------------------------------------------------------ chunks and pieces
    @property
    def n_chunks(self) -> int:
        return self.manifest["chunks"]

    @property
    def chunk_size(self) -> int:
        return self.manifest["chunk_size"]

    def chunk_games(self, k: int) -> tuple[int, int]:
        """(first game index, number of games) of chunk ``k``."""
        m = self.manifest
        a = k * m["chunk_size"]
        return m["first_game"] + a, min(m["chunk_size"], m["games"] - a)

    def whole(self, k: int) -> Piece:
        first, count = self.chunk_games(k)
        return Piece(k, first, count, part_name(k, self.n_chunks)[: -len(".parquet")])

    def piece_of(self, first: int, count: int) -> Piece | None:
        """The piece of games ``first .. first+count-1`` (None: not inside one chunk)."""
        m = self.manifest
        off = first - m["first_game"]
        if off < 0 or count < 1:
            return None
        k, r = divmod(off, m["chunk_size"])
        if k >= self.n_chunks:
            return None
        w = self.whole(k)
        if r + count > w.count:
            return None
        if r == 0 and count == w.count:
            return w
        width = max(5, len(str(m["chunk_size"] - 1)))
        return Piece(k, first, count, f"{w.name}-{r:0{width}d}")

    def _covered(self) -> set[int]:
        """Chunks whose every game is in a listed part."""
        count: dict[int, int] = {}
        for e in self.parts.values():
            k = (e["first"] - self.manifest["first_game"]) // self.chunk_size
            count[k] = count.get(k, 0) + e["count"]
        return {k for k, n in count.items() if n == self.chunk_games(k)[1]}

    def pieces(self, size: int | None = None) -> Iterator[Piece]:
        """The games not yet listed, in order, as pieces of at most ``size`` games (default and
        at most: the run's chunk size). Lazy: nothing is built for chunks not reached."""
        size = min(size or self.chunk_size, self.chunk_size)
        listed: dict[int, list[tuple[int, int]]] = {}
        for e in self.parts.values():
            k = (e["first"] - self.manifest["first_game"]) // self.chunk_size
            if k not in self.done:
                listed.setdefault(k, []).append((e["first"], e["count"]))
        done = set(self.done)
        for k in range(self.n_chunks):
            if k in done:
                continue
            a, n = self.chunk_games(k)
            gaps, at = [], a
            for first, count in sorted(listed.get(k, [])):
                if first > at:
                    gaps.append((at, first))
                at = max(at, first + count)
            if at < a + n:
                gaps.append((at, a + n))
            for g0, g1 in gaps:
                for s in range(g0, g1, size):
                    yield self.piece_of(s, min(size, g1 - s))

    def games_done(self) -> int:
        return sum(e["count"] for e in self.parts.values())

    def part_path(self, table: str, k) -> Path:
        """The file of ``table``'s part ``k`` (a chunk number or a part name)."""
        name = part_name(k, self.n_chunks) if isinstance(k, int) else f"{k}.parquet"
        return self.path / f"{table}.parquet" / name

    # ------------------------------------------------------------------ checking
    def _expected_rows(self, table: str, count: int) -> int | None:
        level = self.spec.table[table].level
        if level == "game":
            return count
        if level == "seat":
            return count * self.manifest["n_players"]
        return None

    def check_part(self, name: str, table: str, full: bool) -> Problem | None:
        """The problem with one listed part file, or None. Always: it exists with the listed
        size and checksum; ``full``: also readable Parquet with the listed rows, the table's
        columns and exactly the listed games of this run's seed."""
        e = self.parts[name]
        f = (e["files"] or {}).get(table)
        path = self.part_path(table, name)
        rel = f"'{path}'"
        a, b = e["first"], e["first"] + e["count"] - 1
        games = f"games {a} to {b}"
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            return Problem("missing", path, f"{rel} is missing ({games})", name)
        except OSError as err:
            return Problem("damaged", path, f"{rel} cannot be read ({why(err)})", name)
        try:
            if f is not None:
                if size != f["bytes"]:
                    return Problem(
                        "damaged",
                        path,
                        f"{rel} is damaged: it has {size} bytes, the manifest says {f['bytes']}"
                        f" ({games})",
                        name,
                    )
                if file_digest(path) != f[CHECKSUM]:
                    return Problem(
                        "damaged",
                        path,
                        f"{rel} is damaged: its {CHECKSUM} does not match the manifest ({games})",
                        name,
                    )
            if not full and f is not None:
                return None
            try:
                pf = pq.ParquetFile(path)
                rows = pf.metadata.num_rows
                cols = set(pf.schema_arrow.names)
            except Exception:
                return Problem(
                    "damaged", path, f"{rel} is damaged: it is not readable Parquet ({games})", name
                )
            want = f["rows"] if f is not None else self._expected_rows(table, e["count"])
            if want is not None and rows != want:
                return Problem(
                    "damaged",
                    path,
                    f"{rel} is damaged: it has {rows} rows, not {want} ({games})",
                    name,
                )
            need = set(self.spec.table[table].names)
            if not need <= cols:
                return Problem(
                    "foreign", path, f"{rel} is not a {self.spec.title} {table} table", name
                )
            lacks = [k for k in self.manifest.get(KNOB_COLUMNS, []) if k not in cols]
            if lacks:
                return Problem(
                    "foreign",
                    path,
                    f"{rel} lacks the knob column{'s' * (len(lacks) > 1)} {', '.join(lacks)}"
                    f" the manifest lists ({games})",
                    name,
                )
            if not full:
                return None
            declared = {c.name: c.dtype for c in self.spec.table[table].columns}
            for fld in pf.schema_arrow:
                if fld.name in declared and not _type_ok(fld.type, declared[fld.name]):
                    return Problem(
                        "foreign",
                        path,
                        f"{rel} stores column '{fld.name}' as {fld.type}, not"
                        f" {declared[fld.name]} ({games})",
                        name,
                    )
            read = [c for c in ("game", "seed", "rules_id", "seat", "policy") if c in cols]
            t = pf.read(columns=read)
        except OSError as err:
            return Problem("damaged", path, f"{rel} cannot be read ({why(err)})", name)
        except Exception:
            return Problem(
                "damaged", path, f"{rel} is damaged: it is not readable Parquet ({games})", name
            )
        g = t.column("game")
        if rows:
            lo, hi = pc_lib.min(g).as_py(), pc_lib.max(g).as_py()
            seeds = set(pc_lib.unique(t.column("seed")).to_pylist()) if "seed" in read else set()
            seed = self.manifest["seed"]
            if lo != a or hi != b or seeds - {seed}:
                other = f", seed {min(seeds - {seed})}" if seeds - {seed} else ""
                return Problem(
                    "foreign",
                    path,
                    f"{rel} holds games {lo} to {hi}{other}, not {games} of this run (seed {seed})",
                    name,
                )
        return self._check_rows(t, table, a, b, path, rel, games, name)

    def _check_rows(self, t, table, a, b, path, rel, games, name) -> Problem | None:
        """A part's rows against the manifest: every game of the part exactly as often as the
        table holds it (once in the main table, once per seat in the seats table, no game of
        another part in the detail table), its rules id and each seat's policy those of the
        manifest."""
        import collections

        def bad(kind, what):
            return Problem(kind, path, f"{rel} {what} ({games})", name)

        counts = collections.Counter(t.column("game").to_pylist())
        n = int(self.manifest["n_players"])
        t_spec = self.spec.table[table]
        per = None if t_spec.detail else (n if "seat" in t.column_names else 1)
        if per is not None:
            wrong = sorted(g for g in range(a, b + 1) if counts.get(g, 0) != per)
            if wrong:
                g = wrong[0]
                had = counts.get(g, 0)
                return bad("damaged", f"holds game {g} {had} time{'s' * (had != 1)}, not {per}")
        elif any(not a <= g <= b for g in counts):
            return bad("foreign", "holds games of another part")
        if "rules_id" in t.column_names:
            want = self.manifest["rules_id"]
            for rid in pc_lib.unique(t.column("rules_id")).to_pylist():
                try:
                    same = (
                        parse_rules_id(str(rid), self.spec.name).id
                        == parse_rules_id(want, self.spec.name).id
                    )
                except (RuleError, ValueError):
                    same = False
                if not same:
                    return bad("foreign", f"holds games of rules '{rid}', not '{want}'")
        if "policy" in t.column_names and "seat" in t.column_names:
            seats = self.manifest["seats"]
            pairs = set(zip(t.column("seat").to_pylist(), t.column("policy").to_pylist(),
                            strict=True))  # fmt: skip
            for q, pol in sorted(pairs, key=lambda x: (x[0], str(x[1]))):
                if not 0 <= q < len(seats) or str(pol) != seats[q]:
                    shown = seats[q] if 0 <= q < len(seats) else "no seat"
                    return bad("foreign", f"seats '{pol}' at seat {q}; the manifest has {shown}")
        return None

    def inspect(self, full: bool = False) -> list[Problem]:
        """Every problem of the run directory's parts (empty: every listed part is whole).

        Listed parts are checked by :meth:`check_part`; files in the table folders that the
        manifest does not list are ``unlisted`` (named like a part) or ``stray``."""
        problems: list[Problem] = []
        listed: dict[str, set[str]] = {}
        for t in self.manifest["tables"]:
            folder = self.path / f"{t}.parquet"
            if folder.exists() and not folder.is_dir():
                problems.append(
                    Problem(
                        "layout",
                        folder,
                        f"'{folder}' is a file, not the folder of parts this run writes",
                    )
                )
                for name, e in self.parts.items():
                    problems.append(
                        Problem(
                            "missing",
                            self.part_path(t, name),
                            f"'{self.part_path(t, name)}' is missing (games {e['first']} to"
                            f" {e['first'] + e['count'] - 1})",
                            name,
                        )
                    )
                continue
            listed[t] = {f"{name}.parquet" for name in self.parts}
            for name in self.parts:
                p = self.check_part(name, t, full)
                if p is not None:
                    problems.append(p)
        for t, names in listed.items():
            folder = self.path / f"{t}.parquet"
            try:
                entries = sorted(os.listdir(folder)) if folder.is_dir() else []
            except OSError as err:
                problems.append(
                    Problem("layout", folder, f"'{folder}' cannot be read ({why(err)})")
                )
                continue
            for fn in entries:
                if fn in names:
                    continue
                path = folder / fn
                if PART_RE.fullmatch(fn) and path.is_file():
                    state = (
                        "left by an interrupted write"
                        if not self.manifest["complete"]
                        else "not written by this run"
                    )
                    problems.append(
                        Problem(
                            "unlisted", path, f"'{path}' is not listed in the manifest ({state})"
                        )
                    )
                else:
                    problems.append(Problem("stray", path, f"'{path}' is not a part of this run"))
        return problems

    # ------------------------------------------------------------------ writing
    def write_piece(self, piece: Piece, parts: dict[str, bytes]) -> None:
        """Write one piece's parts (synced temporary files, then renamed into place); they
        belong to the run once :meth:`commit` lists them. On failure nothing of it stays."""
        tmp = self.path / PARTIAL
        staged: list[tuple[Path, Path]] = []
        moved: list[Path] = []
        files = {}
        try:
            for t in self.manifest["tables"]:
                data = parts[t]
                dest = self.part_path(t, piece.name)
                staged.append((disk.write_tmp(tmp, dest, data), dest))
                rows = pq.read_metadata(pa_lib.BufferReader(data)).num_rows
                files[t] = {"rows": rows, "bytes": len(data), CHECKSUM: digest(data)}
            for src, dest in staged:
                os.replace(src, dest)
                moved.append(dest)
        except BaseException:
            for src, _ in staged:
                with contextlib.suppress(OSError):
                    src.unlink()
            for dest in moved:
                with contextlib.suppress(OSError):
                    dest.unlink()
            raise
        self.pending[piece.name] = {"first": piece.first, "count": piece.count, "files": files}

    def commit(self, elapsed: float | None = None) -> None:
        """List the pieces written since the last commit in the manifest (atomically)."""
        if elapsed is not None:
            self.manifest["elapsed_seconds"] = round(self._elapsed0 + elapsed, 6)
        if not self.pending:
            return
        t = time.perf_counter()
        for t_name in self.manifest["tables"]:
            fsync_dir(self.path / f"{t_name}.parquet")  # the renames are on disk first
        new = dict(self.pending)
        self.parts.update(new)
        before = self.done
        self.done = self._covered()
        try:
            self.write_manifest()
        except BaseException:
            for name in new:
                del self.parts[name]
            self.done = before
            raise
        self.pending.clear()
        self._last_commit = time.perf_counter()
        self._commit_cost = self._last_commit - t

    def maybe_commit(self, elapsed: float) -> None:
        """Commit now unless the manifest is so large that committing after every piece would
        cost more than 1/COMMIT_RATIO of the time (then pieces are listed in batches)."""
        if time.perf_counter() - self._last_commit >= COMMIT_RATIO * self._commit_cost:
            self.commit(elapsed)

    def drop_pending(self) -> None:
        """Remove pieces written but never listed (a run that stops on a full disk)."""
        for name in list(self.pending):
            for t in self.manifest["tables"]:
                with contextlib.suppress(OSError):
                    self.part_path(t, name).unlink()
            del self.pending[name]

    def add_part(self, k, parts: dict[str, bytes], elapsed: float) -> None:
        """Write chunk ``k``'s (or a :class:`Piece`'s) parts, then list them in the manifest.

        ``elapsed``: seconds this session has spent so far (added to earlier sessions').
        """
        self.write_piece(k if isinstance(k, Piece) else self.whole(k), parts)
        self.commit(elapsed)

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
        m["games_done"] = self.games_done()
        m["parts"] = self.parts
        m["checksum"] = CHECKSUM
        sess = getattr(self, "_session", None)
        if sess is not None:
            sess["elapsed_seconds"] = round(m.get("elapsed_seconds", 0.0) - self._elapsed0, 6)
        data = (json.dumps(m, indent=1) + "\n").encode()
        tmp = self.path / PARTIAL
        tmp.mkdir(exist_ok=True)
        replace_bytes(tmp, self.path / MANIFEST, data)

    def finish(self) -> bool:
        """Mark the run complete if every chunk is listed; returns whether it is."""
        self.commit()
        complete = len(self.done) == self.n_chunks
        self.manifest["complete"] = complete
        self.write_manifest()
        if complete:
            shutil.rmtree(self.path / PARTIAL, ignore_errors=True)
        return complete

    # ------------------------------------------------------------------ reading
    def files(self, table: str) -> list[Path]:
        """The listed part files of ``table``, in game order."""
        return [self.part_path(table, n) for n in sorted(self.parts, key=self._order)]

    def _order(self, name: str):
        return self.parts[name]["first"]

    def scan(self, table: str) -> pl.LazyFrame:
        """A table of the run, read lazily from its listed parts."""
        files = self.files(table)
        if not files:
            return pl.DataFrame(schema=self.spec.table[table].schema()).lazy()
        return pl.scan_parquet(files)

    def aggregates(self) -> dict:
        n = self.manifest["n_players"]
        if not self.parts:
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
