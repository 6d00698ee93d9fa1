"""One compiled engine for every command, compiled once (issue "A tool people keep using").

Every way into the Loba engine (a batch, a game handle stepping from Python, a traced replay,
the rebuy experiment, a fork) goes through :func:`sim.loba.kernel.drive` with the same argument
types, so the first command compiles it once and the others load it from the cache. The
dispatcher's erasures (:class:`sim.jit._NoLiteralDispatcher`) keep one copy of a helper that is
called with narrow integers or with writable and read-only arrays; a cold first run compiles
the engine in a child process while the seats' functions compile here.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from sim import jit
from sim.loba import kernel
from sim.loba.play import Game
from sim.runner import simulate


def test_every_operation_uses_one_compiled_drive():
    res = simulate("pagat", "greedy,hold,careful", games=20, seed=4, record_rounds=True)
    assert res.games.height == 20
    g = Game("pagat", "greedy,hold,careful", seed=4, index=2, trace=True)
    g.play_round()
    twin = g.fork()
    g.play()
    assert g.done and len(g.trace_arrays()[0]) > 0
    twin.step()
    h = Game("classic", "greedy,random,wary,careful", seed=5, index=1, record_rounds=False)
    branched = False
    while h.play_to_rebuy():
        ds = h.rebuy_decisions()
        if ds:
            out = h.rebuy_branches(ds[0], 2, 9)
            assert out.shape == (2, 4)
            branched = True
            break
        h.step()
    assert branched, "game 1 of seed 5 reaches a rebuy decision"
    assert len(kernel.drive.signatures) == 1, kernel.drive.signatures


def test_handle_and_batch_agree():
    """A game stepped from Python plays the batch's game, through the same code."""
    res = simulate("rami", "greedy,careful,hold,wary", games=3, seed=11)
    for i in range(3):
        g = Game("rami", "greedy,careful,hold,wary", seed=11, index=i, record_rounds=False)
        while not g.done:
            g.step()
        row = res.games.row(i, named=True)
        assert (g.winner, g.round) == (row["winner"], row["rounds"])


def test_narrow_integers_and_read_only_arrays_share_one_copy():
    @jit.kernel(readonly=("a",))
    def total(a, k):
        s = 0
        for i in range(a.shape[0]):
            s += a[i] * k
        return s

    @jit.jit
    def both(a, r):
        return total(a, np.int16(2)) + total(a, 3) + total(r, np.int32(1))

    a = np.arange(4, dtype=np.int64)
    r = a.copy()
    r.flags.writeable = False
    assert both(a, r) == 6 * 2 + 6 * 3 + 6 * 1
    assert len(total.signatures) == 1
    (sig,) = total.signatures
    assert not sig[0].mutable and str(sig[1]) == "int64"


def test_readonly_names_must_be_arguments():
    with pytest.raises(TypeError, match="has no argument b"):

        @jit.kernel(readonly=("b",))
        def f(a):
            return a


def test_compile_aside_runs_a_child_and_waits(tmp_path, monkeypatch):
    flag = tmp_path / "done"
    mod = tmp_path / "aside_target.py"
    mod.write_text(
        "import pathlib, time\n"
        "def build():\n"
        "    time.sleep(0.5)\n"
        f"    pathlib.Path({str(flag)!r}).write_text('ok')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setattr(jit, "ASIDE", True)
    monkeypatch.setattr(jit, "CACHE", True)
    monkeypatch.setattr(jit, "_aside", {})
    monkeypatch.setattr(jit.os, "cpu_count", lambda: 2)
    assert not jit.compile_aside("t", "aside_target:build", lambda: True)  # cached: no child
    assert jit.compile_aside("t", "aside_target:build", lambda: False)
    assert not jit.compile_aside("t", "aside_target:build", lambda: False)  # one at a time
    jit.wait_aside("t")
    assert flag.read_text() == "ok"
    jit.wait_aside("t")  # waited for once: nothing left to wait for
    assert not jit.compile_aside("t", "aside_target:build", lambda: False)  # never again


@pytest.mark.parametrize("told", [("greedy", "hold:patience=2+rebuy=never"), None])
def test_the_child_is_told_the_seats_on_its_input(tmp_path, monkeypatch, told):
    """The child reads the seats it is told to its input's end (``tell_aside``); told
    nothing, its input is closed when the parent waits for it, so it never hangs."""
    out = tmp_path / "told"
    mod = tmp_path / "aside_reader.py"
    mod.write_text(
        "import pathlib, sys\n"
        "def build():\n"
        f"    pathlib.Path({str(out)!r}).write_text(sys.stdin.read())\n"
    )
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setattr(jit, "ASIDE", True)
    monkeypatch.setattr(jit, "CACHE", True)
    monkeypatch.setattr(jit, "_aside", {})
    monkeypatch.setattr(jit.os, "cpu_count", lambda: 2)
    assert jit.compile_aside("r", "aside_reader:build", lambda: False)
    if told is not None:
        jit.tell_aside("r", told)
        jit.tell_aside("r", ("ignored",))  # once: its input is closed after the first
    jit.wait_aside("r")
    assert out.read_text().split() == list(told or ())


def test_compile_aside_is_off_on_one_core_or_when_asked(monkeypatch):
    monkeypatch.setattr(jit, "_aside", {})
    monkeypatch.setattr(jit, "CACHE", True)
    monkeypatch.setattr(jit, "ASIDE", True)
    monkeypatch.setattr(jit.os, "cpu_count", lambda: 1)
    assert not jit.compile_aside("t", "os:getcwd", lambda: False)
    monkeypatch.setattr(jit.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(jit, "ASIDE", False)
    assert not jit.compile_aside("t", "os:getcwd", lambda: False)


def test_a_slow_child_is_stopped(monkeypatch):
    monkeypatch.setattr(jit, "ASIDE_WAIT", 0.2)
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    monkeypatch.setattr(jit, "_aside", {"t": child})
    jit.wait_aside("t")
    assert child.poll() is not None and child.returncode != 0  # killed, not waited out


def test_precompile_fills_the_cache_the_engine_then_loads():
    """The child's entry compiles drive with stand-in seats; its type is every seating's."""
    kernel.precompile()
    Game("pagat", "greedy,greedy", seed=1).play()
    assert len(kernel.drive.signatures) == 1


def test_kept_addresses_are_numbas_answers():
    """The engine's entries and the decision handles keep the two addresses Numba asks for on
    every call (:func:`sim.jit._entry_address`): each the same as Numba's own answer (a C
    wrapper's address taken for the function's own would crash the process)."""
    import numba.experimental.function_type as fnt

    from sim.loba.api import DECIDE_SIG
    from sim.loba.policies import greedy_draw
    from sim.policies.api import Handle

    sig = kernel.engine_sigs()
    eng = kernel.engine()
    pairs = [
        (eng.turns, sig.turns),
        (eng.step, sig.step),
        (Handle(greedy_draw, DECIDE_SIG), DECIDE_SIG),
    ]
    for name in ("_get_wrapper_address", "_get_jit_address"):
        kept, numbas = getattr(fnt, name), getattr(fnt, name).__wrapped__
        for f, s in pairs:
            assert kept(f, s) == kept(f, s) == numbas(f, s), (name, f)
    assert fnt._get_wrapper_address(eng.turns, sig.turns) != fnt._get_jit_address(
        eng.turns, sig.turns
    )
