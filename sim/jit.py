"""The project's one jit decorator (STYLE.md 7).

Every compiled function in the project goes through :func:`jit`, so Numba options live in one
place. Environment overrides:

* ``LOBA_JIT_CACHE=0`` turns the on-disk cache off (default on: later processes start fast).
* ``LOBA_CACHE_DIR`` moves the cache (default ``~/.cache/loba-sim``); each version of the
  sources gets its own sub-folder, and only the :data:`KEEP_CACHES` most recently used are
  kept.
* ``NUMBA_DISABLE_JIT=1`` (Numba's own switch) runs everything as plain Python, for readable
  tracebacks and coverage; the test-suite runs a small sample that way.
"""

from __future__ import annotations

import hashlib
import os
import warnings
from pathlib import Path

import numba
from numba.core import types
from numba.core.registry import CPUDispatcher

warnings.filterwarnings("ignore", category=numba.NumbaExperimentalFeatureWarning)

CACHE = os.environ.get("LOBA_JIT_CACHE", "1") != "0"


def _source_cache_dir() -> str:
    """A cache folder keyed by a hash of every source file of ``sim``.

    Numba's own cache only notices changes to the file that holds the cached function, not to
    the helpers compiled into it; keying the folder by all of ``sim``'s sources means an edited
    or upgraded engine never runs stale machine code.
    """
    root = Path(__file__).resolve().parent
    h = hashlib.sha1()
    for f in sorted(root.rglob("*.py")):
        h.update(str(f.relative_to(root)).encode())
        h.update(f.read_bytes())
    base = os.environ.get("LOBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache"), "loba-sim"
    )
    return os.path.join(base, "numba-" + h.hexdigest()[:16])


KEEP_CACHES = 4  # source versions whose compiled code stays on disk
_STAMP = ".last-used"


def _prune_caches(current: str, keep: int = KEEP_CACHES) -> list[str]:
    """Mark ``current`` as just used and delete all but the ``keep`` most recently used
    ``numba-*`` folders next to it (best effort: a folder in use elsewhere or unremovable
    is left). Every edit or upgrade of the engine starts a new folder of about 10 MB; without
    this they would pile up. Returns the folders removed."""
    import re
    import shutil
    import time

    removed = []
    try:
        os.makedirs(current, exist_ok=True)
        Path(current, _STAMP).write_text(str(time.time()))
        base = Path(current).parent
        olds = []
        for d in base.iterdir():
            if d.is_dir() and re.fullmatch(r"numba-[0-9a-f]{16}", d.name) and str(d) != current:
                stamp = d / _STAMP
                olds.append((stamp.stat().st_mtime if stamp.exists() else d.stat().st_mtime, d))
        for _, d in sorted(olds, reverse=True)[max(keep - 1, 0) :]:
            shutil.rmtree(d, ignore_errors=True)
            removed.append(str(d))
    except OSError:
        pass
    return removed


if CACHE and not os.environ.get("NUMBA_CACHE_DIR"):
    numba.config.CACHE_DIR = _source_cache_dir()
    _prune_caches(numba.config.CACHE_DIR)
DISABLED = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")


class _NoLiteralDispatcher(CPUDispatcher):
    """A dispatcher that compiles one specialisation per argument *type*, not per constant.

    Numba types a constant argument of a call from compiled code as ``Literal[int](value)`` and
    compiles a separate specialisation of the callee for each value: ``_emit`` alone was
    compiled 19 times. Erasing literal argument types keeps one machine-code copy per type
    signature, which shortens the first compile and shrinks the code.
    """

    def get_call_template(self, args, kws):
        args = tuple(types.unliteral(a) for a in args)
        kws = {k: types.unliteral(v) for k, v in kws.items()}
        return super().get_call_template(args, kws)


def _no_literals(d):
    if isinstance(d, CPUDispatcher) and type(d) is CPUDispatcher:
        d.__class__ = _NoLiteralDispatcher
    return d


def jit(*args, parallel: bool = False, alloc: bool = True, **kwargs):
    """``numba.njit`` with the project's defaults (``cache``, no ``fastmath``: integer code).

    Use bare (``@jit``), with a signature (``@jit(SIG)``) or with options
    (``@jit(parallel=True)``). ``alloc=False`` marks a function that never allocates arrays:
    it is compiled without Numba's reference counting, whose atomic increments on every array
    argument otherwise dominate the cost of small hot functions (measured: docs/performance.md).
    """
    opts = {"cache": CACHE, "nogil": True, "error_model": "numpy"}
    opts.update(kwargs)
    if parallel:
        opts["parallel"] = True
    if not alloc and not DISABLED:
        opts["_nrt"] = False
    if args and callable(args[0]):
        return _no_literals(numba.njit(**opts)(args[0]))
    deco = numba.njit(*args, **opts)
    return lambda fn: _no_literals(deco(fn))


def kernel(*args, **kwargs):
    """:func:`jit` for hot array code that never allocates (``alloc=False``)."""
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return jit(alloc=False)(args[0])
    return jit(*args, alloc=False, **kwargs)


def _index_files(fn) -> list[str]:
    """The Numba index files of ``fn`` (a dispatcher) or of the dispatchers a plain Python
    entry function (a game's ``play_batch``) calls by name; empty when none is known."""
    fns = [fn]
    if not hasattr(fn, "_cache") and hasattr(fn, "__code__"):
        g = getattr(fn, "__globals__", {})
        fns = [g[n] for n in fn.__code__.co_names if hasattr(g.get(n), "_cache")]
    paths = []
    for f in fns:
        try:
            paths.append(f._cache._cache_file._index_path)  # Numba internals: best effort
        except AttributeError:
            pass
    return paths


def kernel_cached(fn=None) -> bool:
    """Whether compiled code is already on disk, so a run starts without compiling.

    Cheap (no compiling): given ``fn`` (a dispatcher, or a plain entry such as a game's
    ``play_batch``, whose called dispatchers are looked at), whether their Numba index files
    (``*.nbi``) exist in this source version's cache folder; without ``fn``, or when none can
    be found, whether that folder holds any index file. False when the on-disk cache is off
    (every process compiles); True under ``NUMBA_DISABLE_JIT`` (nothing compiles).
    """
    if DISABLED:
        return True
    if not CACHE:
        return False
    try:
        paths = _index_files(fn) if fn is not None else []
        if paths:
            return all(os.path.exists(p) for p in paths)
        root = Path(numba.config.CACHE_DIR or _source_cache_dir())
        return any(root.rglob("*.nbi"))
    except OSError:
        return False
