"""A cold first run: importing compiles nothing (the notice and the engine's child start at
once), functions given signatures compile once, for those alone, and the share of the
engine the parent compiles while the child compiles the rest is typed exactly as the engine
calls it (else the child compiles it again). docs/performance.md, "Compile time, ninth
session"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sim import jit
from sim.loba import greedy, kernel, policies

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


def test_the_parents_share_is_typed_as_the_engine_calls_it():
    """After the engine is compiled (or loaded) and the share compiled here, each shared
    function has one compiled signature: the share's is the engine's."""
    kernel.precompile()
    kernel.compile_share()
    for fn, _ in kernel.share_calls():
        if jit.CACHE:  # the engine may come from the cache: its callees' signatures are there
            keys = fn._cache._cache_file._load_index()  # Numba internals
        else:  # compiled in this process: the callees were compiled with it
            keys = fn.overloads
        assert len(keys) == 1, (fn, list(keys))
