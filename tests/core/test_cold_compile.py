"""A cold first run: importing compiles nothing (the notice and the engine's child start at
once), functions given signatures compile once, for those alone, wherever they are first
needed, and the engine's three pieces (the turn loop in the child; the step and ``drive`` in
the parent) are typed exactly as every command calls them (else a command compiles them
again); and what a cold run says while it compiles, piece by piece (:mod:`sim.compiling`).
Measured: docs/performance.md, compile time."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest
from numba.core import types

from sim import jit
from sim.compiling import Piece
from sim.games import get_game
from sim.loba import engine, kernel
from sim.loba.layout import SeatFns
from sim.loba.policies import hold
from sim.loba.spec import SPEC
from sim.policies import parse_seats

ROOT = Path(__file__).resolve().parents[2]


def test_importing_the_package_on_a_cold_cache_compiles_nothing(tmp_path):
    code = (
        "import cli, sim.loba.kernel, sim.loba.policies, sim.moon.engine\n"
        "from sim import jit\n"
        "print(len(jit._SIGNED))\n"
    )
    env = dict(os.environ, LOBA_CACHE_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert int(out.stdout) >= 1  # take_goes_out: pending
    assert not list(tmp_path.rglob("*.nbi"))  # and nothing compiled into the cache


def test_functions_given_signatures_compile_for_those_alone():
    jit.compile_signed()
    assert not jit._SIGNED
    for fn in (hold.take_goes_out,):
        assert len(fn.signatures) == 1 and not fn._can_compile, fn


def test_a_function_given_signatures_compiles_first_inside_a_caller_without_refcounts():
    """Typed first inside a caller compiled without reference counting, a function that
    allocates still compiles (it says ``_nrt=True``; inheriting the caller's setting it
    failed: "Only accept returning of array passed into the function as argument")."""
    from numba import types

    @jit.jit(types.int64(types.int64))
    def fresh(k):
        a = np.zeros(k, dtype=np.int64)
        a[0] = k
        return a.sum()

    @jit.kernel
    def caller(k):
        return fresh(k) + 1

    assert fresh._sigs is not None  # not compiled yet
    assert caller(5) == 6
    assert fresh._sigs is None and fresh not in jit._SIGNED and not fresh._can_compile


def test_a_function_given_signatures_first_needed_by_two_threads_at_once():
    """Threads that first call a function given signatures at the same time all get it (the
    runner plays a chunk's slices on several threads): the second waits for the first's
    compile instead of finding the function closed ("compilation disabled")."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from numba import types

    @jit.jit(types.int64(types.int64[::1]), cache=False)
    def total(a):
        s = 0
        for x in a:
            s += x
        return s

    a = np.arange(10, dtype=np.int64)
    ready = threading.Barrier(4)

    def call(_):
        ready.wait()
        return total(a)

    with ThreadPoolExecutor(4) as ex:
        assert list(ex.map(call, range(4))) == [45] * 4
    assert len(total.signatures) == 1 and not total._can_compile


def test_the_engine_is_typed_as_every_command_calls_it():
    """The turn loop, the step and ``drive`` are compiled for the types :func:`kernel.call`
    hands over; after calls from a batch and from a game handle, each has one signature."""
    from sim.loba.play import Game
    from sim.runner import simulate

    sig = kernel.engine_sigs()
    assert (
        numba.typeof(kernel.engine())
        == kernel.drive_types()[9]
        == types.NamedTuple(
            [types.FunctionType(sig.turns), types.FunctionType(sig.step)], kernel.Engine
        )
    )
    fns, _ = SPEC.fn_tables(parse_seats("greedy,hold", game=SPEC))
    assert numba.typeof(SeatFns(*fns)) == sig.turns.args[2]
    simulate("pagat", "greedy,hold,careful", games=3, seed=1)
    g = Game("pagat", "greedy,hold", seed=2)
    g.step()
    assert kernel.drive.signatures == [kernel.drive_types()]
    for fn in (engine.play_turns, engine.step):
        assert len(fn.signatures) == 1, (fn, fn.signatures)
    if jit.CACHE:  # Numba keys its disk cache by what ``compile`` was given: one entry each
        for fn, _ in kernel.share_calls():
            assert len(fn._cache._cache_file._load_index()) == 1, fn  # Numba internals


def test_the_child_compiles_the_seats_it_is_told_of():
    """After its piece of the engine, the child compiles the seats' functions it is told of
    (``sim.loba.spec.aside`` reads their labels; the parent compiles them from the other end). In a
    fresh process, so that nothing else compiled them first."""
    code = (
        "import json\n"
        "from sim.loba import kernel\n"
        "from sim.loba.spec import SPEC\n"
        "from sim.policies import parse_seats\n"
        "fns = SPEC.seat_functions(parse_seats('wary+rebuy=if_opponents', game=SPEC))\n"
        "before = [len(f.signatures) for f in fns]\n"
        "kernel.compile_seats(SPEC, ['wary+rebuy=if_opponents'])\n"
        "kernel.compile_seats(SPEC, [])\n"
        "after = [len(f.signatures) for f in fns]\n"
        "print(json.dumps([before, after, [f._can_compile for f in fns]]))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    before, after, open_ = json.loads(out.stdout)
    k = len(SPEC.kinds)
    assert (before, after, open_) == ([0] * k, [1] * k, [False] * k)


# ------------------------------------------------------------------ what a cold run says
PIECE_DONE = re.compile(
    r"^  (?P<name>\S+(?: \S+)*?) (?P<how>compiled|loaded from cache)"
    r"(?P<aside> by the second process)? \([\d.]+ s\)(?:: (?P<left>\d+) of (?P<total>\d+)"
    r" pieces left)?"
)


def _cli(argv, env):
    return subprocess.run(
        [sys.executable, "-c", "import cli; cli.run()", *argv],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )


@pytest.mark.parametrize("game", ["loba", "moon"])
def test_a_cold_first_run_says_each_piece_and_a_warm_one_that_it_loaded(tmp_path, game):
    """A first run on an empty cache (stderr not a terminal) prints its estimate, then one
    line per piece as it finishes (its name, how many are left, elapsed seconds, the time to
    go), then a closing line; ``-v`` says each engine piece was compiled. The second run
    prints no compile progress and ``-v`` says each piece was loaded from the cache. The one
    cold compile of each game in the suite."""
    from sim.compiling import pieces_of

    env = dict(os.environ, LOBA_CACHE_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    for var in ("NUMBA_DISABLE_JIT", "LOBA_JIT_CACHE"):
        env.pop(var, None)
    argv = ["-v", "simulate", "--game", game, "--games", "10", "--seed", "3"]
    cold = _cli(argv, env)
    spec = get_game(game)
    seats = parse_seats(spec.default_seats, game=spec)
    pieces = pieces_of(spec, spec.seat_functions(seats))
    lines = cold.stderr.splitlines()
    head = [x for x in lines if x.startswith("compiling the game kernel")]
    assert len(head) == 1 and re.fullmatch(
        r"compiling the game kernel \(first run only; about \d+ s on this machine: \d+ cores?,"
        r" load [\d.]+\)\.\.\.",
        head[0],
    ), head
    done = [m for m in map(PIECE_DONE.match, lines) if m]
    assert sorted(m["name"] for m in done) == sorted(p.name for p in pieces), cold.stderr
    assert all(m["how"] == "compiled" for m in done)
    # each piece's line counts down what is left; the last one is followed by the closing line
    left = [int(m["left"]) for m in done[:-1]]
    assert left == list(range(len(pieces) - 1, 0, -1))
    assert {int(m["total"]) for m in done[:-1]} == {len(pieces)}
    assert all(re.search(r"; \d+ s elapsed, about \d+ s to go$", m.string) for m in done[:-1])
    closing = lines.index(done[-1].string) + 1
    assert re.fullmatch(
        rf"compiled the game kernel in \d+ s \({len(pieces)} pieces\); later runs load it from"
        r" the cache",
        lines[closing],
    )
    said = [x for x in lines if x.startswith("  ")]  # (a line per piece, or per 15 s at most)
    assert len(said) <= len(pieces) + 12
    engine = [p for p in pieces if not p.seat]
    for p in engine:
        assert re.search(
            rf"\[loba\] kernel: {p.name} compiled( by the second process)? \(", cold.stderr
        )
    seat_line = re.search(
        rf"\[loba\] kernel: seat functions \({len(pieces) - len(engine)}\): (.*)", cold.stderr
    )
    assert seat_line and "compiled" in seat_line[1], seat_line  # (here, or some by the child)

    warm = _cli(argv, env)
    assert "compiling the game kernel" not in warm.stderr and not PIECE_DONE.search(warm.stderr)
    for p in engine:
        assert f"[loba] kernel: {p.name} loaded from cache (" in warm.stderr, warm.stderr
    assert f"seat functions ({len(pieces) - len(engine)}): loaded from cache (" in warm.stderr
    same = [x for x in cold.stdout.splitlines() if " games in " not in x]
    assert same == [x for x in warm.stdout.splitlines() if " games in " not in x]


class _Spec:
    """A game with two engine pieces (one compiled by the child) and a seat function each
    0.5 s (typical); ``seat_functions`` gives two functions."""

    name = "toy"
    kinds = ("a", "b")
    precompile = "toy:aside"
    compile_pieces = (
        Piece("turn loop", "toy.turns", alone=10.0, shared=20.0, aside=True),
        Piece("step", "toy.step", alone=4.0, shared=8.0),
        Piece("seat function", "", alone=1.0, shared=0.5),
    )

    @staticmethod
    def seat_functions(seats):
        def first():
            pass

        def second():
            pass

        return [first, second]


@pytest.mark.parametrize("tty", [False, True])
def test_progress_counts_the_pieces_down_and_scales_its_estimate(monkeypatch, tty):
    """The estimate: the typical seconds of the pieces, the longer of the two processes'
    shares (the child's turn loop, 20 s, against the step and two seat functions, 9 s), times
    the machine's load against the reference machine's; then, as pieces finish, their
    measured time against the typical one. Each finished piece says how many are left; the
    last line says it is done and how long it took. On a terminal one line is redrawn."""
    import io

    from sim import compiling

    monkeypatch.setattr(jit, "aside_possible", lambda: True)
    monkeypatch.setattr(compiling, "machine_load", lambda: (2, compiling.REFERENCE_LOAD))
    monkeypatch.setattr(compiling.Progress, "QUIET_S", 1e9)
    monkeypatch.setattr(compiling.Progress, "TICK_S", 1e9)
    monkeypatch.setattr(compiling, "PLANS", {})
    out = io.StringIO()
    since = len(jit.COMPILES)
    p = compiling.start(_Spec, stream=out, tty=tty)
    try:
        head = out.getvalue()
        assert head == (
            "compiling the game kernel (first run only; about 20 s on this machine: 2 cores,"
            " load 0.0)...\n"
        )
        assert p.load_factor == 1.0 and p.shared
        compiling.plan(_Spec, seats=())  # (fn_tables does this)
        keys = [q.key for q in p.pieces]
        assert [q.name for q in p.pieces] == ["turn loop", "step", "first", "second"]
        assert p.remaining() == pytest.approx(20.0)  # the child's turn loop is the longer
        # load: twice the reference machine's runnable processes per core
        assert compiling.slowdown(2, cores=2, load=2 * (compiling.REFERENCE_LOAD + 2) - 2) == 2
        jit._note("start", keys[0], None, 0.0, "aside")
        jit._note("start", keys[1], None, 0.0, "here")
        jit._note("done", keys[1], "compiled", 24.0, "here")  # three times the typical 8 s
        assert p.factor() == pytest.approx(1 + 2 * 8 / 29)  # weight 8 of 29 s, ratio 3
        jit._note("done", keys[2], "compiled", 3.0, "here")  # six times the typical 0.5 s
        assert p.factor() == pytest.approx(1 + (27 / 8.5 - 1) * 8.5 / 29)
        jit._note("done", "toy.helper", "compiled", 3.0, "here")  # not a piece: not counted
        # to go: the turn loop's 20 s times the factor (1.55, then 1.64)
        if tty:
            p._redraw(p.t0)  # (what the ticker does every second)
            text = out.getvalue()[len(head) :]
            assert "\n" not in text and text == (
                "\rcompiling: first done; 2 of 4 pieces left; compiling turn loop (second"
                " process); 0 s elapsed, about 33 s to go"
            )
        else:
            assert out.getvalue()[len(head) :].splitlines() == [
                "  step compiled (24 s): 3 of 4 pieces left; compiling turn loop (second"
                " process); 0 s elapsed, about 31 s to go",
                "  first compiled (3.0 s): 2 of 4 pieces left; compiling turn loop (second"
                " process); 0 s elapsed, about 33 s to go",
            ]
        jit._note("done", keys[3], "loaded", 0.1, "here")
        jit._note("done", keys[0], "compiled", 30.0, "aside")
        assert p.closed and p._event not in jit._watchers
        last = out.getvalue().splitlines()[-1]
        assert re.fullmatch(
            r"compiled the game kernel in 0 s \(4 pieces, 1 loaded from the cache\); later runs"
            r" load it from the cache",
            last.split("\r")[-1],
        ), last
        report = compiling.report("toy", since=since)  # (this test's notes)
        assert report == [
            "turn loop compiled by the second process (30.00 s)",
            "step compiled (24.00 s)",
            "seat functions (2): 1 compiled (3.00 s), 1 loaded from cache (0.10 s)",
            "other functions (1): compiled (3.00 s)",
        ]
    finally:
        p.close()


def test_the_child_reports_its_compiles_to_the_parent(tmp_path):
    """The child of ``compile_aside`` writes a note per top-level compile on its output (its
    environment says so); the parent reads them as the child's (``where="aside"``)."""
    (tmp_path / "aside_twice.py").write_text(
        "from sim.jit import jit\n"
        "@jit\n"
        "def twice(x):\n"
        "    return 2 * x\n"
        "twice(3)\n"
        "print('other output is ignored')\n"
    )
    env = dict(os.environ, LOBA_CACHE_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    env[jit._REPORT_ENV] = "1"
    env.pop("NUMBA_DISABLE_JIT", None)
    child = subprocess.Popen(
        [sys.executable, "-c", "import aside_twice"], env=env, stdout=subprocess.PIPE, cwd=tmp_path
    )
    seen = []

    def note(*args):
        seen.append(args)

    jit.watch(note)
    try:
        jit._read_child(child.stdout)  # (until the child's output ends)
    finally:
        jit.unwatch(note)
    assert child.wait(120) == 0
    key = "aside_twice.twice"
    assert seen[0] == ("start", key, None, 0.0, "aside")
    assert seen[1][:3] == ("done", key, "compiled") and seen[1][4] == "aside" and len(seen) == 2
    assert jit.Compiled(key, "compiled", seen[1][3], "aside") in jit.COMPILES
    assert key not in jit.RUNNING
