"""A cold first run: importing compiles nothing (the notice and the engine's child start at
once), functions given signatures compile once, for those alone, wherever they are first
needed, and the engine's three pieces (the turn loop in the child; the step and ``drive`` in
the parent) are typed exactly as every command calls them (else a command compiles them
again). docs/performance.md, "Compile time, ninth session" and "tenth session"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
from numba.core import types

from sim import jit
from sim.loba import engine, greedy, kernel, policies
from sim.loba.layout import SeatFns
from sim.loba.spec import SPEC
from sim.policies import parse_seats

ROOT = Path(__file__).resolve().parent.parent


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
    assert int(out.stdout) >= 4  # going_out, take_goes_out, loose_in_hand, fewest_left: pending
    assert not list(tmp_path.rglob("*.nbi"))  # and nothing compiled into the cache


def test_functions_given_signatures_compile_for_those_alone():
    jit.compile_signed()
    assert not jit._SIGNED
    for fn in (greedy.going_out, policies.take_goes_out, policies.fewest_left):
        assert len(fn.signatures) == 1 and not fn._can_compile, fn
    assert greedy.going_out.signatures == [greedy.GOING_OUT_SIG.args]


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
    (``kernel.aside`` reads their labels; the parent compiles them from the other end). In a
    fresh process, so that nothing else compiled them first."""
    code = (
        "import json\n"
        "from sim.loba import kernel\n"
        "from sim.loba.spec import SPEC\n"
        "from sim.policies import parse_seats\n"
        "fns = SPEC.seat_functions(parse_seats('wary+rebuy=if_opponents', game=SPEC))\n"
        "before = [len(f.signatures) for f in fns]\n"
        "kernel.compile_seats(['wary+rebuy=if_opponents'])\n"
        "kernel.compile_seats([])\n"
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
