"""Inlining without quadratic copies (``sim.jit._share_inline_copies``): the same compiled code
as Numba's own block-by-block copying, with far fewer copies."""

from __future__ import annotations

import copy
import re

import numba
import numpy as np
from numba.core import inline_closurecall as icc

from sim import jit

# A small tree of inlined functions: several call sites, several blocks and variables each, an
# inlined callee that inlines another, a loop, a branch and an array.


@numba.njit(inline="always")
def _leaf(a, i):
    s = 0
    for k in range(i):
        if a[k] > 2:
            s += a[k]
        else:
            s -= 1
    return s


@numba.njit(inline="always")
def _mid(a, i):
    t = _leaf(a, i) + _leaf(a, i - 1)
    if t > 3:
        return t * 2
    return t + _leaf(a, 1)


def _outer(a):
    return _mid(a, 3) + _mid(a, 2) - _leaf(a, 4)


_NAME = re.compile(r'[@%]"[^"]*"|[@%][-\w.$]+')


def _canonical(llvm_ir: str) -> str:
    """The IR with every name replaced by its order of first appearance (names carry Numba's
    per-process counters, which differ between two compiles of the same function; so do the
    error texts that quote a mangled name)."""
    names: dict[str, str] = {}
    llvm_ir = re.sub(r"B\d+v\d+", "Bv", llvm_ir)  # a mangled name's version counter
    llvm_ir = re.sub(r'\[\d+ x i8\] c"', '[n x i8] c"', llvm_ir)  # ... and its text's length
    return _NAME.sub(lambda m: names.setdefault(m.group(0), f"%n{len(names)}"), llvm_ir)


def _compile_outer():
    d = numba.njit(_outer)
    a = np.array([1, 5, 3, 7], dtype=np.int64)
    return d, int(d(a))


class _Counting:
    """``copy`` for ``inline_closurecall`` that counts deep copies of variables."""

    def __init__(self, inner):
        self.inner, self.vars = inner, 0

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def deepcopy(self, x, memo=None):
        real = numba.core.ir.Var.__deepcopy__

        def counted(v, m):
            self.vars += 1
            return real(v, m)

        numba.core.ir.Var.__deepcopy__ = counted
        try:
            return self.inner.deepcopy(x, memo)
        finally:
            numba.core.ir.Var.__deepcopy__ = real


def test_shared_memo_inlining_compiles_the_same_code_with_fewer_copies(monkeypatch):
    assert jit._share_inline_copies(), "the patch no longer fits this Numba: see sim/jit.py"
    patched_ir = icc.InlineWorker.inline_ir
    shared = icc.copy
    assert isinstance(shared, jit._SharedMemoCopy)

    counting = _Counting(shared)
    monkeypatch.setattr(icc, "copy", counting)
    d_fast, r_fast = _compile_outer()
    fast_copies = counting.vars

    # Numba's own: the original inline_ir (the one the patch wraps) and the copy module
    original_ir = patched_ir.__closure__[0].cell_contents
    assert original_ir.__name__ == "inline_ir" and original_ir is not patched_ir
    counting = _Counting(copy)
    monkeypatch.setattr(icc, "copy", counting)
    monkeypatch.setattr(icc.InlineWorker, "inline_ir", original_ir)
    d_own, r_own = _compile_outer()
    own_copies = counting.vars

    assert r_fast == r_own
    (ir_fast,) = d_fast.inspect_llvm().values()
    (ir_own,) = d_own.inspect_llvm().values()
    assert _canonical(ir_fast) == _canonical(ir_own)
    assert 0 < fast_copies < own_copies / 2, (fast_copies, own_copies)


def test_fast_inline_can_be_turned_off(monkeypatch):
    """``LOBA_FAST_INLINE=0``: nothing is installed (the A/B switch of docs/performance.md)."""
    monkeypatch.setattr(jit, "FAST_INLINE", False)
    monkeypatch.setattr(jit, "_inline_state", {"tried": False, "applied": False})
    before = (icc.copy, icc.InlineWorker.inline_ir)
    assert jit._share_inline_copies() is False
    assert (icc.copy, icc.InlineWorker.inline_ir) == before
