"""A/B benchmark of the batch kernel at two or more git revisions, in one process.

Timing two engines in separate processes mixes their difference with process-to-process noise
(code placement, CPU frequency, a neighbour's load): about +-1.5% here, too much to check a
2% budget. This script extracts ``sim/`` of each revision with ``git archive`` under its own
package name (``sim_<rev>``), loads every engine into the same process, then plays the same
chunks of games with each, alternating the order every repetition, on one thread. It reports
each engine's median ns per turn and the median of the paired per-chunk ratios against the
first revision, and checks that every engine played the same number of turns (the same games;
true for deterministic seats such as ``greedy``).

    python tests/tools/ab_bench.py e6bfef6 HEAD         # 30 x 1,500 games each, 4 x greedy, pagat
    python tests/tools/ab_bench.py e6bfef6 HEAD WORKTREE   # WORKTREE = the files as they are now
    python tests/tools/ab_bench.py main HEAD --clock cpu   # a loaded machine: CPU time, not wall
    python tests/tools/ab_bench.py main WORKTREE --game moon --clock cpu --games 4000
                                        # Moon (3 x count): ns per hand, every table compared

Each revision compiles once (about 35 s) into its own Numba cache folder. Needs ``sim/``'s
imports to be relative, which they are.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
# each revision compiles here: a child compiling "sim.loba.kernel" would compile the working
# tree's package, and the share of the compile the parent then takes would type that package
os.environ["LOBA_COMPILE_ASIDE"] = "0"


def extract(rev: str, dest: Path) -> str:
    """Copy ``sim/`` at ``rev`` (or the working tree for ``WORKTREE``) to ``dest/sim_<rev>``."""
    name = "sim_" + "".join(ch if ch.isalnum() else "_" for ch in rev)
    target = dest / name
    if rev == "WORKTREE":
        shutil.copytree(ROOT / "sim", target, ignore=shutil.ignore_patterns("__pycache__"))
        return name
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "sim"], check=True, capture_output=True
    ).stdout
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        shutil.move(str(Path(tmp) / "sim"), target)
    return name


def _own_names(name: str) -> None:
    """Give the namedtuple classes of revision ``name`` (State, Scratch, Trace, SeatFns ...)
    names of their own. Numba interns a first-class function type by the printed names of its
    argument types, so two revisions' engines, whose entries take ``State(...)`` of different
    classes, would otherwise share one function type and fail to type ("mismatch of argument
    types: State(...) vs State(...)"). Only ``__name__`` changes: pickling finds a class by
    ``__qualname__``."""
    for mod_name, mod in list(sys.modules.items()):
        if mod_name != name and not mod_name.startswith(name + "."):
            continue
        for obj in vars(mod).values():
            if isinstance(obj, type) and issubclass(obj, tuple) and hasattr(obj, "_fields"):
                if obj.__module__.startswith(name) and not obj.__name__.endswith(name):
                    obj.__name__ = f"{obj.__name__}_{name}"


def _engine(name: str, seats: str, game: str = "loba"):
    """(run(start, count) -> games record array, the turns column) of one revision's engine,
    before or after the game protocol (sim.games). Moon: the hands column, and the record
    array holds the games and seats tables side by side (so every column is compared)."""
    if game != "loba":
        runner = importlib.import_module(name + ".chunks")
        importlib.import_module(name + f".{game}.kernel")
        _own_names(name)
        runner.set_threads(1)
        spec = importlib.import_module(name + ".games").get_game(game)
        policies = importlib.import_module(name + ".policies")
        n = len(seats.split(","))
        R = spec.rules.make().to_array()
        tables = spec.fn_tables(policies.parse_seats(seats, n, game))
        col = spec.table["games"].kernel_index()["hands"]

        def run(start, count):
            outs = runner.run_chunk(spec, R, n, 1, start, count, tables, 0)
            return np.concatenate([outs[0], outs[1].reshape(count, -1)], axis=1)

        return run, col
    try:  # the chunk machinery's module (sim.chunks; sim.runner in older revisions)
        runner = importlib.import_module(name + ".chunks")
    except ImportError:
        runner = importlib.import_module(name + ".runner")
    importlib.import_module(name + ".loba.kernel")  # (every module with its namedtuples)
    _own_names(name)
    policies = importlib.import_module(name + ".policies")
    runner.set_threads(1)  # numba threads in older revisions, kernel threads in newer
    n = len(seats.split(","))
    try:
        spec = importlib.import_module(name + ".games").get_game("loba")
    except ImportError:  # before the game protocol
        layout = importlib.import_module(name + ".loba.layout")
        R = importlib.import_module(name + ".rules").make_rules().to_array()
        tables = runner.seat_tables(policies.parse_seats(seats))
        col = layout.GR_TURNS if hasattr(layout, "GR_TURNS") else layout.GR.TURNS
        return (lambda start, count: runner.run_chunk(R, n, 1, start, count, tables, 0)[0]), col
    R = spec.rules.make().to_array()
    tables = spec.fn_tables(policies.parse_seats(seats, game=spec.name))
    col = spec.table["games"].kernel_index()["turns"]
    return (lambda start, count: runner.run_chunk(spec, R, n, 1, start, count, tables, 0)[0]), col


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("revs", nargs="+", help="git revisions (or WORKTREE); the first is the base")
    ap.add_argument("--reps", type=int, default=30, help="chunks per engine (default 30)")
    ap.add_argument("--games", type=int, default=1500, help="games per chunk (default 1500)")
    ap.add_argument("--seats", default=None, help="default: 4 x greedy (Loba), 3 x count (Moon)")
    ap.add_argument("--game", default="loba", help="loba (default) or moon")
    ap.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="time chunks by the wall clock (default) or by the process's CPU time, which "
        "leaves out the time a loaded machine's other jobs hold the core",
    )
    args = ap.parse_args()
    if args.seats is None:
        args.seats = "count,count,count" if args.game == "moon" else "greedy,greedy,greedy,greedy"
    unit = "hand" if args.game == "moon" else "turn"
    clock = time.perf_counter if args.clock == "wall" else time.process_time

    import numba

    numba.set_num_threads(1)
    dest = Path(tempfile.mkdtemp(prefix="loba-ab-"))
    sys.path.insert(0, str(dest))
    engines = {}
    for rev in args.revs:
        name = extract(rev, dest)
        run, turns_col = _engine(name, args.seats, args.game)
        t0 = time.perf_counter()
        run(0, 2)
        print(f"{rev}: loaded in {time.perf_counter() - t0:.1f} s", flush=True)
        engines[rev] = (run, turns_col)

    ns = {rev: [] for rev in args.revs}
    same = True
    for rep in range(args.reps):
        order = args.revs if rep % 2 == 0 else args.revs[::-1]
        turns = set()
        tables = []
        for rev in order:
            run, turns_col = engines[rev]
            t0 = clock()
            games = run(rep * args.games, args.games)
            dt = clock() - t0
            t = int(games[:, turns_col].sum())
            turns.add(t)
            tables.append(games)
            ns[rev].append(dt / t * 1e9)
        same &= len(turns) == 1
        if args.game != "loba":  # every column of every game
            same &= all(np.array_equal(tables[0], x) for x in tables[1:])
    base = args.revs[0]
    print(
        f"{args.reps} chunks x {args.games:,} games, {args.game} {args.seats}, 1 thread,"
        f" {args.clock} clock"
    )
    for rev in args.revs:
        med = statistics.median(ns[rev])
        ratio = statistics.median(b / a for a, b in zip(ns[base], ns[rev], strict=True))
        print(
            f"  {rev:>12}: median {med:7.1f} ns/{unit}, min {min(ns[rev]):7.1f}"
            f"  paired ratio vs {base}: {ratio:.4f} ({ratio - 1:+.2%})"
        )
    print("  every engine played the same games:", same)
    shutil.rmtree(dest, ignore_errors=True)


if __name__ == "__main__":
    main()
